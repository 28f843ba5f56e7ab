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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

import msgspec

from ledger.events import Event, MatchOpened
from replay.errors import ReplayError
from replay.prompts import Prompt


class Refused(ReplayError):
    """A seat's decision refused before the engine sees it (:meth:`Game.seat_decision`):
    ``forbidden`` -- it is not the seat's to make (a judge's ruling); ``conceal`` -- say only
    that it does not answer the prompt (the reason would name what the seat may not see)."""

    def __init__(self, message: str, forbidden: bool = False, conceal: bool = False):
        super().__init__(message)
        self.forbidden, self.conceal = forbidden, conceal


class State(Protocol):
    """What generic code reads of a game state."""

    over: bool
    revision: int
    winner: str | None
    reason: str | None


class Cards(Protocol):
    """A game's card pool (or one match's embedded cards): definitions by name."""

    def __contains__(self, name: object) -> bool: ...
    def names(self) -> list[str]: ...


class Rules(Protocol):
    """One match in progress under a game's rules: the state, the pending prompt, the procedure."""

    state: Any
    prompt: Prompt | None
    on_emit: Callable[[Event], None] | None  # called after each event, state as of that event
    out: list[Event]  # the events of the current ``start``/``decide`` so far

    def start(self) -> list[Event]:
        """Run the setup until the first prompt; return the events it produced."""

    def check(self, decision: Event) -> str | None:
        """Why ``decision`` is illegal now (naming the rule), or ``None``; never changes state."""

    def decide(self, decision: Event) -> list[Event]:
        """Apply a legal decision (or raise :class:`replay.errors.IllegalDecisionError`) and run
        to the next prompt; return the decision followed by every event it produced."""

    def close(self) -> None:
        """Done with it: drop what it holds (its suspended procedure and the parts that refer
        back to it), so it and its state are freed at once, not by the garbage collector.
        The engine can't be used after."""


class CaseOutcome(Protocol):
    """One conformance case's result."""

    passed: bool

    def line(self) -> str:
        """``PASS name`` / ``FAIL name: why`` -- one line."""


class Bot(Protocol):
    """A simulated player: answers a prompt for its seat (reading ``prompt.seat``)."""

    def decide(self, rules: Any, prompt: Prompt) -> Event: ...


class Address(msgspec.Struct, frozen=True, gc=False):
    """Where an event puts a reader of the match: ``kind`` is "round" (``at`` its number),
    "turn" (``at`` the seat taking it) or a game's own place ("battle", ``at`` where).  (A
    struct: one is made for every turn a replay indexes.)"""

    kind: str
    at: Any


class Game(Protocol):
    """A game sub-package's contract with the generic parts.

    Optional members (a game installed before they were asked for works without them;
    generic code asks for them through :mod:`replay.games`, which falls back):

    * ``deck_title(deck_name) -> str`` -- a recorded deck name (``SeatInfo.deck_name``) as
      people read it: a shipped deck's title for its id (Wonders' ``solfera-blaze`` is
      *Solfera Blaze*); without it, the name as recorded
      (:func:`replay.games.deck_title`).
    * ``archetype_names(pool) -> {id: name}`` -- the archetypes the warehouse records by id
      (``players.main_orbitals``) as people read them: State of Wonder's factions by the
      names its card files give; without it (or for an archetype not in it), as recorded
      (:func:`replay.games.archetype_names`).
    """

    name: str  # the value of MatchOpened.game
    title: str  # what people call it
    rulesets: tuple[str, ...]  # published rules texts this engine implements, newest first
    rules_revision: int  # this engine's current revision of what it derives
    engine_version: str
    perspectives: tuple[str, ...]  # "omniscient", each seat, "spectator"
    seats: tuple[str, ...]
    #: the event types :meth:`address` may answer for: of any other it says ``None``, so an
    #: index need not ask (most events start no round, turn or place)
    address_types: frozenset[type]

    @property
    def bots(self) -> Mapping[str, Callable[[random.Random], Bot]]:
        """Simulated players by name, each made from its own RNG."""

    # -- cards ---------------------------------------------------------------------------
    def default_cards(self) -> Any:
        """The card pool shipped with the package."""

    def load_cards(self, paths: Iterable[str]) -> Any:
        """A card pool read from card files."""

    def match_cards(self, opened: MatchOpened, pool: Any) -> Any:
        """The cards of one match: those its file embeds, else a copy of ``pool``."""

    def complete_opened(self, opened: MatchOpened, pool: Any) -> MatchOpened:
        """``MatchOpened`` as a new file records it: engine version, rules revision and the
        definitions of every card the seats can use (unknown cards raise here)."""

    def definition(self, pool: Any, name: str) -> dict[str, Any] | None:
        """The canonical definition of a card of ``pool`` (``None``: not in it)."""

    def definitions_digest(self, definitions: list[dict[str, Any]]) -> str:
        """The digest ``MatchOpened.cards_digest`` records for ``definitions``."""

    def sample_decks(self, pool: Any, paths: Sequence[str] = ()) -> list[Any]:
        """Deck files read from ``paths`` (files or directories; none: the decks shipped with
        the package), each with ``name``, ``entries()`` and ``archive_entries()``."""

    def deck_problems(self, deck: Any, pool: Any, format: str | None = None,
                      rules_revision: int | None = None) -> list[str]:
        """Why a deck is not legal for this game (empty when it is), in the match's ``format``
        (None: the deck's own, or constructed) and for a match recorded at ``rules_revision``
        (None: a new match) -- an import re-checks a recorded match's decks, and a rule added
        later must not refuse it."""

    def conformance(self, paths: Sequence[str]) -> Iterator[CaseOutcome]:
        """Run conformance case files (or directories of them; none: the shipped cases)."""

    # -- the log -------------------------------------------------------------------------
    def initial_state(self, opened: MatchOpened) -> Any:
        """The state at seq 0."""

    def evolve(self, state: Any, event: Event) -> Any:
        """The state after ``event`` (the only writer of state; updates ``state`` in place)."""

    def freeze(self, state: Any) -> bytes:
        """A compact snapshot of a state."""

    def thaw(self, data: bytes) -> Any:
        """The state a snapshot holds (a fresh copy)."""

    def clone(self, state: Any) -> Any:
        """A deep copy of a state."""

    def rules(self, opened: MatchOpened, pool: Any) -> Rules:
        """A new match at setup, under the revision ``opened`` records, with its own cards."""

    def resume(self, state: Any, match_cards: Any) -> Rules:
        """A match at a snapshot taken when a turn prompt was pending."""

    def cards_of(self, rules: Any) -> Any:
        """The cards a match in progress uses (its own: tokens made in it are added there)."""

    def effective_revision(self, recorded: int) -> int:
        """The revision a match derives under (raises NewerRevisionError if unknown)."""

    def answer_chance(self, prompt: Prompt, rng: random.Random) -> Event:
        """The chance event answering a chance prompt, drawn from ``rng``."""

    def same_outcome(self, mine: Event, theirs: Event, opened: MatchOpened) -> bool:
        """Whether the engine's outcome ``mine`` is the recorded ``theirs`` (of a file opened
        by ``opened``).  Equal events always are (the replayer compares batches by equality
        and asks this only of events that differ)."""

    def as_recorded(self, outcomes: list[Event], opened: MatchOpened) -> list[Event]:
        """The engine's outcomes as a file opened by ``opened`` records them: the outcomes and
        fields of its schema, and only the outcomes an engine at its rules revision records.
        The engine of that revision derives exactly those; an engine of a later revision may
        record more -- bookkeeping the file's revision held in the state without recording
        it (Wonders' stack before revision 6) -- which a file of that revision never holds,
        and this leaves out (``wonders verify --against-current`` re-derives an old match
        under today's revision, :class:`replay.replayer.Replay`'s ``recorded``)."""

    def is_fed(self, event: Event) -> bool:
        """Whether an event is fed to the engine (a decision, chance or admin event) rather
        than derived by it."""

    def apply_admin(self, rules: Any, event: Event, opened: MatchOpened) -> list[Event]:
        """The events a game's own administrative event stands for (a judge's ruling);
        raises ReplayError when it can't apply."""

    def address(self, event: Event) -> Address | None:
        """Whether ``event`` starts a round, a turn or a game-specific place."""

    # -- who sees what -------------------------------------------------------------------
    def hidden_ids(self, state: Any) -> frozenset[str]:
        """Cards whose identity is hidden from every non-omniscient viewer at this state."""

    def redact(self, event: Event, view: str, hidden: Iterable[str] = (),
               log: Sequence[Event] = (), seq: int | None = None) -> Event:
        """``event`` as ``view`` (a perspective) may see it.  ``log`` and ``seq``: the
        match's events as written and the event's place among them, for what a viewer may
        see of an event only knowing the events around it (Wonders: a bury's order, R46)."""

    def board(self, state: Any, match_cards: Any, view: str) -> dict[str, Any]:
        """The board view model (JSON-ready) for a perspective."""

    def card_names(self, state: Any, view: str, events: Sequence[Event] = ()) -> dict[str, str]:
        """Card id -> name, for the cards ``view`` may name."""

    def describe(self, event: Event) -> str:
        """A short technical description of an event (for errors and divergences)."""

    def board_text(self, match_id: str, seq: int, what: str, board: dict[str, Any],
                   players: Mapping[str, str] | None = None) -> str:
        """The board view model as plain text (``wonders replay``), headed by ``what`` happened
        at ``seq``; each seat by its player's name (``players``: seat -> name, as the match
        opened) beside its letter."""

    # -- analytics -----------------------------------------------------------------------
    def facts(self, stored: Sequence[Any], file: Any, card_facts: Any) -> Mapping[str, list[Any]]:
        """Warehouse rows of one match by table (also registered with the ledger's registry,
        which is how the warehouse finds them)."""

    def card_facts(self, pool: Any) -> dict[str, Any]:
        """What the warehouse needs of today's cards for files that recorded none."""

    def narrate(self, event: Event, round_: int | None, names: Mapping[str, str],
                players: Mapping[str, str] | None = None, cards: Any = None) -> str:
        """One line of plain words for ``event`` (names, never ids): ``names`` (card id ->
        name) for the cards the reader may name, ``players`` (seat -> player) for the seats,
        ``cards`` the match's own card pool (what its file records) for anything an event
        names by id (a game may fall back on today's pool where a reader has none)."""

    # -- the recording API (the web) -------------------------------------------------------
    def decision(self, seat: str, body: Mapping[str, Any]) -> Event:
        """A seat's decision event from an API body (JSON data, no seat: the caller's);
        raises ``ValueError`` saying what is malformed."""


class WebGame(Protocol):
    """What the recording API also uses of a game when it has it (each optional: the web
    falls back to a generic form built from the protocol above).

    * ``prompt_view(rules, view, handle, players) -> dict | None`` -- the pending prompt as
      ``view`` may see it: ``seat, kind, text, card, yours`` and, for the seat it addresses or the
      omniscient view, ``options`` (``[{decision, label}]``: ``decision`` is an API body) or
      ``choose`` (``{of, min, max, ordered, multiset}``) with ``labels`` (pick -> words) and
      ``answer`` (the body a chosen list is sent in, as ``pick``); ``handle(id)`` is an
      opaque stand-in for a card the seat may not identify; ``players`` (seat -> player) names
      the seats in the labels, which name no seat letter and no card id.
    * ``prompt_text(state, text, view, players) -> str`` -- a generic prompt's text as ``view``
      reads it (the engine's texts name cards by id; this names them in words).
    * ``option_label(state, option, view, players) -> str`` -- a generic prompt's listed
      decision as ``view`` reads it (its cards told apart where two share a name); without it,
      the option is labelled by the game's narration.
    * ``answer(seat, prompt, pick) -> Event`` -- the decision answering a prompt of listed
      picks (or a ``choose``) with ``pick`` (the generic prompt view needs it).
    * ``seat_decision(rules, seat, event, handle) -> (event, conceal)`` -- a parsed decision
      as the engine takes it (stand-ins turned back into ids), and whether a refusal must
      conceal the engine's words; raises :class:`Refused`.
    * ``ruling(ops, note, card) -> Event`` -- a judge's ruling (the game's administrative
      event); without it the game has no judge's operations.
    * ``preset_decks(pool) -> {name: deck}`` -- the decks an organizer may name as a preset.
    * ``round_of(event) -> int | None`` -- the round an event starts, if it starts one.
    """
