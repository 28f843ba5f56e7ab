"""Wonders of The First as a :class:`replay.game.Game`: what the generic parts may use of it.

Nothing here decides a rule; it only hands the generic recorder, replayer, timeline, verify,
simulator, web and analytics the Wonders pieces they ask for, by the protocol's names.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import msgspec

from ledger.codec import Stored
from ledger.events import Event, MatchOpened
from ledger.registry import kind_of, register_analytics
from replay.errors import ReplayError
from replay.game import Address
from replay.prompts import Prompt
from replay.resources import conformance_dir
from replay.wotf import bots, cards, facts, legacy, manual, narrate, perspective, poolimport, revisions
from replay.wotf import events as ev
from replay.wotf.conformance import run_paths
from replay.wotf.decks import Deck, deck_title, load_deck, load_decks, validate_deck
from replay.wotf.decks import card_facts as pool_card_facts
from replay.wotf.engine import ENGINE_VERSION, Engine
from replay.wotf.evolve import evolve, initial_state
from replay.wotf.state import GameState, clone, freeze, thaw
from replay.wotf.textboard import board_text
from replay.wotf.upgrade import upgrade as upgrade_file

#: event type -> whether it is fed to the engine (a decision, chance or administrative event;
#: an event's kind is its type's, registered once: ledger.registry.kind_of)
_FED: dict[type, bool] = {}
_STACK = frozenset(ev.STACK_EVENTS)  # recorded from rules revision 6 (revisions.STACK_REVISION)
TURN_EVENTS = (ev.PlayDeclared, ev.AttackDeclared, ev.DrawDeclared, ev.ActivationDeclared,
               ev.HarvestDeclared, ev.Passed)


#: The events that start a place a reader goes to, by type: what each one's address is.
_ADDRESSES: dict[type, Callable[[Any], Address]] = {
    ev.RoundStarted: lambda e: Address("round", e.round),
    **{cls: (lambda e: Address("turn", e.seat)) for cls in TURN_EVENTS},
    ev.BattleStarted: lambda e: Address("battle", e.realm),
}


def _deck_files(paths: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        files += sorted(path.glob("*.toml")) if path.is_dir() else [path]
    return files


class _BotSeat:
    """A Wonders bot behind the protocol's ``decide(rules, prompt)``."""

    def __init__(self, bot: Any):
        self.bot = bot

    def decide(self, rules: Any, prompt: Prompt) -> Event:
        decision: Event = self.bot.decide(rules)
        return decision


class _Lazy:
    """A preset deck file, read when it is used."""

    def __init__(self, path: Path, pool: Any):
        self.path, self.pool = path, pool

    def load(self) -> Any:
        return load_deck(self.path, self.pool)


class WondersOfTheFirst:
    """The game ``wotf`` (rules 000–003)."""

    name = "wotf"
    title = "Wonders of The First"
    rulesets = ("1.3.2", "1.2")
    rules_revision = revisions.RULES_REVISION
    engine_version = ENGINE_VERSION
    perspectives = perspective.PERSPECTIVES
    address_types = frozenset(_ADDRESSES)
    seats = ("A", "B")

    @property
    def bots(self) -> Mapping[str, Any]:
        return {name: (lambda rng, make=make: _BotSeat(make(rng))) for name, make in bots.BOTS.items()}

    # -- cards ---------------------------------------------------------------------------
    def default_cards(self) -> cards.CardDB:
        return cards.default_cards()

    def load_cards(self, paths: Iterable[str]) -> cards.CardDB:
        return cards.load_cards(paths)

    def match_cards(self, opened: MatchOpened, pool: cards.CardDB) -> cards.CardDB:
        return cards.match_cards(opened, pool)

    def complete_opened(self, opened: MatchOpened, pool: cards.CardDB) -> MatchOpened:
        if opened.schema_version < 3 or opened.cards:
            return opened
        for info in opened.seats:
            for entry in (*info.deck, *info.archive):
                pool[entry.card]  # an unknown card fails here, before anything is written
        used = cards.used_definitions(opened, pool)
        return msgspec.structs.replace(
            opened, cards=used, cards_digest=cards.definitions_digest(used),
            engine_version=opened.engine_version or ENGINE_VERSION,
            rules_revision=opened.rules_revision or revisions.RULES_REVISION)

    def definition(self, pool: cards.CardDB, name: str) -> dict[str, Any] | None:
        return cards.definition(pool[name]) if name in pool else None

    def definitions_digest(self, definitions: list[dict[str, Any]]) -> str:
        return cards.definitions_digest(definitions)

    def sample_decks(self, pool: cards.CardDB, paths: Sequence[str] = ()) -> list[Any]:
        return load_decks(_deck_files(paths) or None, db=pool)

    def deck_problems(self, deck: Any, pool: cards.CardDB, format: str | None = None,
                      rules_revision: int | None = None) -> list[str]:
        """``deck``: a Wonders deck, or any deck with ``name``, ``entries()`` and
        ``archive_entries()`` (a seat's entries as the API received them), checked in the
        match's ``format`` (None: a deck file's own)."""
        if not isinstance(deck, Deck):
            deck = Deck(name=deck.name or "deck", cards={e.card: e.count for e in deck.entries()},
                        archive={e.card: e.count for e in deck.archive_entries()})
        if format is not None:
            deck = deck.model_copy(update={"format": format})
        return validate_deck(deck, pool, rules_revision)

    def conformance(self, paths: Sequence[str]) -> Iterator[Any]:
        return run_paths(paths or [conformance_dir()])

    # -- the log -------------------------------------------------------------------------
    def initial_state(self, opened: MatchOpened) -> GameState:
        return initial_state(opened)

    def evolve(self, state: GameState, event: Event) -> GameState:
        return evolve(state, event)

    def freeze(self, state: GameState) -> bytes:
        return freeze(state)

    def thaw(self, data: bytes) -> GameState:
        return thaw(data)

    def clone(self, state: GameState) -> GameState:
        return clone(state)

    def rules(self, opened: MatchOpened, pool: cards.CardDB) -> Engine:
        return Engine.for_match(opened, pool)

    def resume(self, state: GameState, match_cards: cards.CardDB) -> Engine:
        return Engine(match_cards, state)

    def cards_of(self, rules: Engine) -> cards.CardDB:
        """The match's recorded cards (its stand-in tokens are in its state)."""
        db = rules.db
        return db.base if isinstance(db, cards.MatchCards) else db

    def effective_revision(self, recorded: int) -> int:
        return revisions.effective(recorded)

    def answer_chance(self, prompt: Prompt, rng: random.Random) -> Event:
        return bots.answer_chance(prompt, rng)

    def same_outcome(self, mine: Event, theirs: Event, opened: MatchOpened) -> bool:
        """Equal as outcomes (a trigger's ``detail`` is presentation); a file of schema ≤ 2
        compares only the fields it recorded (:mod:`replay.wotf.legacy`)."""
        if opened.schema_version < 3:
            return legacy.legacy_equal(mine, theirs)
        if isinstance(mine, ev.TriggerResolved) and isinstance(theirs, ev.TriggerResolved):
            return (msgspec.structs.replace(mine, detail="")
                    == msgspec.structs.replace(theirs, detail=""))
        return mine == theirs

    def as_recorded(self, outcomes: list[Event], opened: MatchOpened) -> list[Event]:
        """The engine's outcomes as the file records them: schema ≤ 2 recorded fewer, and a
        file of rules revision ≤ 5 no stack events (its engine applied them unrecorded;
        today's engine records them, ``wonders verify --against-current``)."""
        if opened.schema_version < 3:
            return legacy.legacy_outcomes(outcomes)
        recorded = opened.rules_revision  # (effective() only where it may say otherwise)
        if (recorded < revisions.STACK_REVISION or recorded > revisions.RULES_REVISION) and \
                revisions.effective(recorded) < revisions.STACK_REVISION:
            return [e for e in outcomes if type(e) not in _STACK]
        return outcomes

    def is_fed(self, event: Event) -> bool:
        cls = type(event)
        if cls is ev.Passed or cls is ev.Answered:  # (leaf classes: no isinstance, which
            return not cast(ev.Passed, event).auto  # costs more for a struct that is neither)
        fed = _FED.get(cls)  # asked of every batch's next event: one look-up by type
        if fed is None:
            fed = _FED[cls] = kind_of(cls.__name__) in ("decision", "chance", "admin")
        return fed

    def apply_admin(self, rules: Engine, event: Event, opened: MatchOpened) -> list[Event]:
        """A game's own administrative event (a judge's ``ManualEffect``): its outcomes."""
        if not isinstance(event, ev.ManualEffect):
            raise ReplayError(f"{type(event).__name__} is not an administrative event of "
                              f"{self.title}")
        reason = manual.why_not_manual(rules, event)
        if reason:
            raise ReplayError(reason)
        derived = manual.apply_manual(rules, event)
        return [event] if opened.schema_version < 3 else derived

    def address(self, event: Event) -> Address | None:
        """Where an event puts a reader: a round starts, a turn is taken, a battle begins
        (asked of every event a replay or a timeline indexes: one look-up by type)."""
        where = _ADDRESSES.get(type(event))
        return None if where is None else where(event)

    # -- who sees what -------------------------------------------------------------------
    def hidden_ids(self, state: GameState) -> frozenset[str]:
        return perspective.face_down_ids(state)

    def redact(self, event: Event, view: str, hidden: Iterable[str] = (),
               log: Sequence[Event] = (), seq: int | None = None) -> Event:
        return perspective.redact_event(event, view, frozenset(hidden), log, seq)

    def board_seq(self, log: Sequence[Event], seq: int, view: str) -> int:
        """The seq whose board ``view`` is shown at ``seq`` of ``log`` (the match's events):
        ``seq`` itself but inside the moves of a group buried in an order ``view`` may not
        know (R46, :func:`replay.wotf.perspective.board_seq`).  Optional member: a game
        without it shows every seq's own board."""
        return perspective.board_seq(log, seq, view)

    def board(self, state: GameState, match_cards: cards.CardDB, view: str) -> dict[str, Any]:
        return perspective.board(state, match_cards, view)

    def card_names(self, state: GameState, view: str, events: Sequence[Event] = ()) -> dict[str, str]:
        return perspective.card_names(state, view, events)

    def known(self, state: GameState, match_cards: cards.CardDB, view: str,
              events: Sequence[Event]) -> dict[str, list[dict[str, Any]]]:
        """Per seat, the hidden cards ``view`` was shown (a manual reveal or look) and still
        knows, after ``events`` (from seq 0 to the viewer's horizon)."""
        return perspective.known_board(state, match_cards, view,
                                       perspective.known_cards(events, view))

    def describe(self, event: Event) -> str:
        return narrate.describe(event)

    def head_board(self, engine: Any, view: str) -> dict[str, Any]:
        """:meth:`board` of an engine's state (a match's head) through the engine's own view,
        which it keeps current event by event: the same picture, its facts not worked out
        again (optional member: a game without it is drawn through :meth:`board`)."""
        return perspective.engine_board(engine, view)

    def head_known(self, engine: Any, view: str,
                   events: Sequence[Event]) -> dict[str, list[dict[str, Any]]]:
        """:meth:`known` of an engine's state, after ``events``, through the engine's view."""
        return perspective.engine_known_board(engine, view, events)

    def board_text(self, match_id: str, seq: int, what: str, board: dict[str, Any],
                   players: Mapping[str, str] | None = None) -> str:
        return board_text(match_id, seq, what, board, players)

    def narrate(self, event: Event, round_: int | None, names: Mapping[str, str],
                players: Mapping[str, str] | None = None, cards: Any = None) -> str:
        return narrate.narrate(event, round_, names, players)  # events carry what it names

    # -- the recording API ----------------------------------------------------------------
    def decision(self, seat: str, body: Mapping[str, Any]) -> Event:
        from replay.wotf import api
        return api.decision(seat, body)

    def prompt_view(self, rules: Engine, view: str, handle: Any,
                    players: Mapping[str, str] | None = None) -> dict[str, Any] | None:
        from replay.wotf import api
        return api.prompt_view(rules, view, handle, players)

    def seat_decision(self, rules: Engine, seat: str, event: Event, handle: Any) -> tuple[Event, bool]:
        from replay.wotf import api
        return api.seat_decision(rules, seat, event, handle)

    def ruling(self, ops: list[Any], note: str, card: str | None) -> Event:
        from replay.wotf import api
        return api.ruling(ops, note, card)

    def preset_decks(self, pool: cards.CardDB) -> dict[str, Any]:
        """The shipped deck files by file name (what ``preset`` names), loaded lazily."""
        from replay import resources
        return {p.stem: _Lazy(p, pool) for p in resources.decks_dir().glob("*.toml")}

    # -- real cards (docs/rulings.md R34) ------------------------------------------------
    def pool_with(self, pool: cards.CardDB, definitions: Iterable[dict[str, Any]],
                  where: str = "") -> cards.CardDB:
        """``pool`` with these card definitions added (a same-named card replaced)."""
        return pool.with_cards(cards.parse_card(d, f"{where}: card {d.get('name', '?')!r}")
                               for d in definitions)

    def entered_at_table(self, pool: cards.CardDB,
                         facts: Iterable[tuple[str, str, str, str, str, int, str]]) -> cards.CardDB:
        """``pool`` with a catalogue entry for each card of ``facts`` (name, type, orbital,
        set, number, DBS, rarity): recorded without stats, entered by its owner at the table."""
        return pool.with_cards(cards.catalogue_entry(*fact) for fact in facts)

    def read_pool_file(self, text: str, filename: str,
                       lookup: poolimport.Lookup) -> list[dict[str, Any]]:
        """The card definitions of an organizer's pool file (CSV or TOML)."""
        return [cards.definition(c) for c in poolimport.parse_pool_file(text, filename, lookup)]

    def round_of(self, event: Event) -> int | None:
        return event.round if isinstance(event, ev.RoundStarted) else None

    # -- analytics -----------------------------------------------------------------------
    def facts(self, stored: list[Stored], file: Any, card_facts: Any) -> Mapping[str, list[Any]]:
        return facts.rows(stored, file, card_facts)

    def upgrade(self, stored: list[Stored], pool: cards.CardDB, store: Any) -> MatchOpened:
        """Write a schema-3 copy of a file of schema ≤ 2 into ``store`` (``wonders upgrade``)."""
        return upgrade_file(stored, pool, store)

    def card_facts(self, pool: cards.CardDB) -> dict[str, Any]:
        """Each card's orbital and DBS, for files of schema ≤ 2 (they recorded no cards)."""
        return pool_card_facts(pool)

    def deck_title(self, deck_name: str) -> str:
        """A shipped deck's id (what matches record) by its title; any other name as it is."""
        return deck_title(deck_name)

    def archetype_names(self, pool: cards.CardDB) -> dict[str, str]:
        """An archetype is its orbitals' names already (``Petraia+Umbrathene``): none to add."""
        return {}


GAME = WondersOfTheFirst()
# The warehouse finds a game's facts through the ledger's registry (it never imports a game).
register_analytics(GAME.name, facts.rows, rows_revision=facts.ROWS_REVISION)
