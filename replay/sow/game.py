"""``GAME``: State of Wonder as a :class:`replay.game.Game` -- what the generic parts may use.

Nothing here decides a rule; it only hands the generic recorder, replayer, timeline, verify,
simulator, web and analytics the State of Wonder pieces they ask for, by the protocol's names.
Beyond the protocol it offers ``decision`` (an API body as a decision event), ``facts``
(warehouse rows) and ``is_turn_event``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from ledger.codec import Stored
from ledger.events import DeckEntry, Event, MatchOpened, as_seat, kind_of
from ledger.registry import register_analytics
from replay.errors import NewerRevisionError, ReplayError
from replay.game import Address
from replay.prompts import Prompt
from replay.sow import bots, decks, events, evolve, facts, labels, narrate, perspective, records
from replay.sow.cards import CardPool, definitions_digest, load_files, load_pool
from replay.sow.engine import Engine
from replay.sow.revisions import ENGINE_VERSION, RULES_REVISION, RULESETS, effective
from replay.sow.state import SEATS, SowState
from replay.sow.textboard import board_text


class StateOfWonder:
    """The game ``sow`` (rules text 004)."""

    name = "sow"
    title = "State of Wonder"
    rulesets: tuple[str, ...] = RULESETS
    rules_revision = RULES_REVISION
    engine_version = ENGINE_VERSION
    perspectives: tuple[str, ...] = perspective.PERSPECTIVES
    #: the events :meth:`address` answers for (no subclass of them exists)
    address_types = frozenset({events.TurnBegan, events.AttackersDeclared, events.PlayerBesieged})
    seats: tuple[str, ...] = SEATS

    @property
    def bots(self) -> Mapping[str, Callable[[random.Random], Any]]:
        return bots.BOTS

    # -- cards ---------------------------------------------------------------------------
    def default_cards(self) -> CardPool:
        return load_pool()

    def load_cards(self, paths: Iterable[str]) -> CardPool:
        files: list[Path] = []
        for raw in paths:
            path = Path(raw)
            files += sorted(path.glob("*.toml")) if path.is_dir() else [path]
        return load_files(files)

    def match_cards(self, opened: MatchOpened, pool: CardPool) -> CardPool:
        return records.match_cards(opened, pool)

    def complete_opened(self, opened: MatchOpened, pool: CardPool) -> MatchOpened:
        return opened if opened.cards else records.complete_opened(opened, pool)

    def definition(self, pool: CardPool, name: str) -> dict[str, Any] | None:
        return pool[name].definition() if name in pool else None

    def definitions_digest(self, definitions: list[dict[str, Any]]) -> str:
        return definitions_digest(definitions)

    def sample_decks(self, pool: CardPool, paths: Sequence[str] = ()) -> list[decks.Deck]:
        return decks.load_decks([Path(p) for p in paths] or [decks.decks_dir()])

    def deck_problems(self, deck: decks.Deck | list[DeckEntry], pool: CardPool,
                      format: str | None = None, rules_revision: int | None = None) -> list[str]:
        return decks.deck_problems(deck, pool)  # one format, no rule added since (004)

    def conformance(self, paths: Sequence[str]) -> Iterator[Any]:
        # imported here so that ``python -m replay.sow.conformance`` runs a fresh module
        from replay.sow.conformance import run_paths
        return run_paths(paths)

    # -- the log -------------------------------------------------------------------------
    def initial_state(self, opened: MatchOpened) -> SowState:
        return evolve.initial_state(opened)

    def evolve(self, state: SowState, event: Event) -> SowState:
        return evolve.evolve(state, event)

    def freeze(self, state: SowState) -> bytes:
        return msgspec.json.encode(state)

    def thaw(self, data: bytes) -> SowState:
        return msgspec.json.decode(data, type=SowState)

    def clone(self, state: SowState) -> SowState:
        return self.thaw(self.freeze(state))

    def rules(self, opened: MatchOpened, pool: CardPool) -> Engine:
        self.effective_revision(opened.rules_revision)
        return Engine.for_match(opened, records.match_cards(opened, pool))

    def resume(self, state: SowState, match_cards: CardPool) -> Engine:
        """A match at a snapshot taken while a ``turn`` prompt (the Main Phase) was pending:
        everything the Main Phase needs is in the state, so ``start`` asks it again."""
        return Engine(match_cards, state)

    def cards_of(self, rules: Engine) -> CardPool:
        return rules.cards

    def effective_revision(self, recorded: int) -> int:
        if recorded > RULES_REVISION:
            raise NewerRevisionError(f"this match was recorded under State of Wonder rules "
                                     f"revision {recorded}; this program knows up to "
                                     f"{RULES_REVISION}")
        return effective(recorded)

    def answer_chance(self, prompt: Prompt, rng: random.Random) -> Event:
        return bots.answer_chance(prompt, rng)

    def same_outcome(self, mine: Event, theirs: Event, opened: MatchOpened) -> bool:
        return mine == theirs

    def as_recorded(self, outcomes: list[Event], opened: MatchOpened) -> list[Event]:
        # Every State of Wonder file records every outcome its engine derives, at every rules
        # revision so far (no revision records bookkeeping an earlier one held unrecorded).
        return outcomes

    def is_fed(self, event: Event) -> bool:
        return kind_of(type(event).__name__) in ("decision", "chance", "admin")

    def apply_admin(self, rules: Engine, event: Event, opened: MatchOpened) -> list[Event]:
        raise ReplayError(f"{type(event).__name__} is not an administrative event of "
                          f"{self.title} (it has none of its own)")

    def address(self, event: Event) -> Address | None:
        """A turn begins; a pitched battle or a siege begins (no rounds in this game)."""
        if isinstance(event, events.TurnBegan):
            return Address("turn", event.seat)
        if isinstance(event, events.AttackersDeclared):
            return Address("battle", event.defender)
        if isinstance(event, events.PlayerBesieged):
            return Address("siege", event.defender)
        return None

    def is_turn_event(self, event: Event) -> bool:
        return isinstance(event, events.TurnBegan)

    # -- who sees what -------------------------------------------------------------------
    def hidden_ids(self, state: SowState) -> frozenset[str]:
        return perspective.hidden_ids(state)

    def redact(self, event: Event, view: str, hidden: Iterable[str] = (),
               log: Sequence[Event] = (), seq: int | None = None) -> Event:
        return perspective.redact(event, view, hidden)  # each event by itself

    def board(self, state: SowState, match_cards: CardPool, view: str) -> dict[str, Any]:
        return perspective.board(state, match_cards, view)

    def card_names(self, state: SowState, view: str, events: Sequence[Event] = ()) -> dict[str, str]:
        return perspective.card_names(state, view, events)

    def describe(self, event: Event) -> str:
        return narrate.describe(event)

    def board_text(self, match_id: str, seq: int, what: str, board: dict[str, Any],
                   players: Mapping[str, str] | None = None) -> str:
        return board_text(match_id, seq, what, board, players)

    def narrate(self, event: Event, round_: int | None, names: Mapping[str, str],
                players: Mapping[str, str] | None = None, cards: Any = None) -> str:
        return narrate.narrate(event, names, players, cards)

    # -- the API ---------------------------------------------------------------------------
    def prompt_text(self, state: SowState, text: str, view: str,
                    players: Mapping[str, str] | None = None) -> str:
        """The prompt's text as ``view`` reads it: cards in words, never ids (labels.py)."""
        return labels.prompt_text(state, text, view, players)

    def option_label(self, state: SowState, option: Event, view: str,
                     players: Mapping[str, str] | None = None) -> str:
        """A listed decision as ``view`` reads it: cards told apart, never ids (labels.py)."""
        return labels.option_label(state, option, view, players)

    def answer(self, seat: str, prompt: Prompt, pick: Any) -> Event:
        """The decision answering a prompt of listed picks (or a ``choose``) with ``pick``:
        a turn prompt lists the decisions themselves; any other prompt is answered with
        ``Picked`` (attackers, defenders, retreat, siege target, damage split, retrieval …)."""
        if prompt.kind == "turn" and isinstance(pick, Event):
            return pick
        return events.Picked(as_seat(seat), prompt.kind, pick)

    def decision(self, seat: str, body: Mapping[str, Any]) -> Event:
        if seat not in SEATS:
            raise ValueError(f"unknown seat {seat!r}: State of Wonder seats are A and B")
        return events.decision_from(seat, dict(body))

    # -- analytics -----------------------------------------------------------------------
    def facts(self, stored: Sequence[Stored], file: Any = None,
              card_facts: Any = None) -> Mapping[str, list[Any]]:
        """Warehouse rows by table: the shared tables and ``sow_sieges``, ``sow_battles``
        (:mod:`replay.sow.facts`); ``card_facts`` (today's Wonders pool) is not used."""
        return facts.facts(stored, file)

    def card_facts(self, pool: CardPool) -> dict[str, Any]:
        """What the warehouse needs of today's cards for old files: nothing (every State of
        Wonder file records its cards)."""
        return {}

    def deck_title(self, deck_name: str) -> str:
        """Its decks' names are names already (*Ashen Raid*)."""
        return deck_name

    def archetype_names(self, pool: CardPool) -> dict[str, str]:
        """A seat's archetype is its State's faction, recorded by id: the faction names the
        pool's card files give (``[factions]``)."""
        return dict(pool.factions)


GAME = StateOfWonder()
# The warehouse finds a game's facts through the ledger's registry (it never imports a game).
register_analytics(GAME.name, facts.facts, facts.TABLES, rows_revision=facts.ROWS_REVISION)
