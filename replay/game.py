"""The game protocol: what a game sub-package gives the generic parts (DESIGN.md section 10).

The recorder, replayer, timeline, verify, simulator, web and CLI never import a game's
internals; they ask :func:`replay.games.game_of` for the :class:`Game` a match's
``MatchOpened.game`` names and use only what this protocol declares.  A game lives in
``replay/<name>/`` and exposes one object, ``GAME``, satisfying :class:`Game`; importing the
package registers its event types with the ledger (:func:`ledger.registry.register`).

Two objects carry a match through its life:

* a **state** -- plain msgspec data, the fold of the events (``initial_state`` then
  ``evolve``), with ``over`` (the match has ended) and ``revision`` (its rules revision);
* a **rules** object (:class:`Rules`, "the engine") -- a match in progress: it always waits for
  exactly one prompt, checks a decision (``check``) without touching the state, and applies a
  legal one (``decide``), returning the decision and every outcome it produced; every state
  change goes through the game's ``evolve``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from ledger.codec import Stored
from ledger.events import Event, MatchOpened
from replay.prompts import Prompt


class State(Protocol):
    """What generic code reads of a game state."""

    over: bool
    revision: int


class Cards(Protocol):
    """A game's card pool (or one match's embedded cards): definitions by name."""

    def __contains__(self, name: object) -> bool: ...
    def names(self) -> list[str]: ...


class Rules(Protocol):
    """One match in progress under a game's rules: the state, the pending prompt, the procedure."""

    state: Any
    cards: Any
    prompt: Prompt | None
    on_emit: Callable[[Event], None] | None

    def start(self) -> list[Event]:
        """Run the setup until the first prompt; return the events it produced."""

    def check(self, decision: Event) -> str | None:
        """Why ``decision`` is illegal now (naming the rule), or ``None``; never changes state."""

    def decide(self, decision: Event) -> list[Event]:
        """Apply a legal decision (or raise :class:`replay.errors.IllegalDecisionError`) and run
        to the next prompt; return the decision followed by every event it produced."""


class Bot(Protocol):
    """A simulated player: answers a prompt for its seat."""

    def decide(self, rules: Any, prompt: Prompt) -> Event: ...


class Game(Protocol):
    """A game sub-package's contract with the generic parts."""

    name: str  # the value of MatchOpened.game
    title: str  # what people call it
    rulesets: tuple[str, ...]  # published rules texts this engine implements, newest first
    rules_revision: int  # this engine's current revision of what it derives
    engine_version: str
    bots: Mapping[str, Callable[[random.Random], Bot]]

    # -- cards -----------------------------------------------------------------------------
    def default_cards(self) -> Any:
        """The card pool shipped with the package."""

    def match_cards(self, opened: MatchOpened, pool: Any) -> Any:
        """The cards of one match: those its file embeds, else a copy of ``pool``."""

    def complete_opened(self, opened: MatchOpened, pool: Any) -> MatchOpened:
        """``MatchOpened`` as a new file records it: engine version, rules revision and the
        definitions of every card the seats can use (unknown cards raise here)."""

    def deck_problems(self, deck: Any, pool: Any) -> list[str]:
        """Why a deck list is not legal for this game (empty when it is)."""

    # -- the log -------------------------------------------------------------------------
    def initial_state(self, opened: MatchOpened) -> Any:
        """The state at seq 0."""

    def evolve(self, state: Any, event: Event) -> Any:
        """The state after ``event`` (the only writer of state; may update in place)."""

    def rules(self, opened: MatchOpened, cards: Any) -> Rules:
        """A new match at setup, under the revision ``opened`` records."""

    def answer_chance(self, prompt: Prompt, rng: random.Random) -> Event:
        """The chance event answering a chance prompt, drawn from ``rng``."""

    def is_turn_event(self, event: Event) -> bool:
        """Whether ``event`` starts a turn (for "round r, turn t" addresses)."""

    # -- who sees what -------------------------------------------------------------------
    perspectives: tuple[str, ...]  # "omniscient", each seat, "spectator"

    def hidden_ids(self, state: Any) -> frozenset[str]:
        """Cards whose identity is hidden from every non-omniscient viewer at this state."""

    def redact(self, event: Event, perspective: str, hidden: Iterable[str] = ()) -> Event:
        """``event`` as ``perspective`` may see it."""

    def board(self, state: Any, cards: Any, perspective: str) -> dict[str, Any]:
        """The board view model (JSON-ready) for ``perspective``."""

    def narrate(self, event: Event, state: Any, cards: Any) -> str:
        """One line of plain words for ``event`` (names, never ids)."""

    # -- the API ---------------------------------------------------------------------------
    def decision(self, seat: str, body: Mapping[str, Any]) -> Event:
        """A seat's decision event from an API request body (raises ValueError if malformed)."""

    # -- analytics -----------------------------------------------------------------------
    def facts(self, stored: Sequence[Stored]) -> Mapping[str, list[Any]]:
        """Warehouse rows of one match, by table name."""
