"""What one match's log says, as warehouse rows (:mod:`ledger.rows`), read from its outcome
events alone -- the rules engine is never run (DESIGN.md section 2: outcomes make the log
self-describing).

Take-backs: a ``TakenBack(to_seq)`` means "the state is the state after ``to_seq``", so the
events after ``to_seq`` up to the take-back are *retracted* (and a ``to_seq`` an earlier
take-back retracted counts again, with the events before it on that line: :mod:`ledger.line`).
The ``events`` table keeps every event (with ``retracted``); every other table is built from
the events in force only.

Rounds and turns: an event's ``round`` is the number of the last ``RoundStarted`` before it (0
before round 1); its ``turn`` counts the turn actions of that round so far (404: play, attack,
draw, activate, harvest, pass -- the same numbering as the replayer's "round 4, turn 7"), 0
before the first one.  After a take-back the count goes on from the round and turn of
``to_seq``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ledger.codec import Stored
from ledger.errors import MalformedEventError
from ledger.events import DeckEntry, MatchEnded, MatchOpened, TakenBack, kind_of
from ledger.line import line_of
from ledger.rows import (
    SEAT_FIELDS,
    BattleRow,
    CardGameRow,
    DeckCardRow,
    DrawRow,
    EventRow,
    FileInfo,
    MatchRow,
    PlayerRow,
    PlayRow,
    RealmRow,
    SeizureRow,
    deck_hash,
    tournament_id_of,
)
from replay.wotf.deckfacts import CardFacts, archetype, dbs_total, recorded_facts
from replay.wotf.events import (
    ActivationDeclared,
    AttackDeclared,
    BattleResolved,
    BattleStarted,
    CardMoved,
    CardPlayed,
    CoinFlipped,
    DrawDeclared,
    HarvestDeclared,
    ManualEffect,
    Passed,
    PlayDeclared,
    RoundStarted,
    StoneSeized,
)

#: The rows revision of these facts (docs/analytics.md, "Rows revision"): bump it whenever the
#: same events give other rows, so that a warehouse re-derives the matches it ingested before.
#: 1 (never recorded: a warehouse holds NULL) -- every revision before the column existed;
#: 2 -- the first one recorded (a warehouse made before re-derives its matches once);
#: 3 -- the events in force follow :mod:`ledger.line`: a take-back to a seq an earlier
#: take-back undid (a redo) puts that line's events back in force, as the board shows them;
#: before, they stayed ``retracted`` and out of every other table;
#: 4 -- ``matches.tournament_id`` (:func:`ledger.rows.tournament_id_of`): a tournament's name
#: is not unique, its id is.
ROWS_REVISION = 4

TURN_ACTIONS = (PlayDeclared, AttackDeclared, DrawDeclared, ActivationDeclared, HarvestDeclared,
                Passed)
REALMS = 7
SEATS = ("A", "B")
_encode = msgspec.json.Encoder().encode


@dataclass
class MatchFacts:
    """Every row one match contributes to the warehouse, by table name."""

    tables: dict[str, list] = field(default_factory=lambda: {
        "matches": [], "players": [], "deck_cards": [], "events": [], "plays": [], "draws": [],
        "battles": [], "seizures": [], "realm_stones": [], "card_games": []})


def not_retracted(stored: list[Stored]) -> list[Stored]:
    """The events no take-back retracted (take-backs included, unless a later one retracted
    them too): the line the match stands on (:mod:`ledger.line`), as the fold's board."""
    return [stored[seq] for seq in line_of([item.event for item in stored])]


def in_force(stored: list[Stored]) -> list[Stored]:
    """The events still in force after every take-back (the take-backs themselves excluded)."""
    return [item for item in not_retracted(stored) if not isinstance(item.event, TakenBack)]


def rows(stored: list[Stored], file: FileInfo, facts: CardFacts) -> Mapping[str, list[Any]]:
    """The warehouse rows of one match, by table (``ledger.registry.register_analytics``)."""
    return match_facts(stored, file, facts).tables


def match_facts(stored: list[Stored], file: FileInfo, facts: CardFacts) -> MatchFacts:
    """All rows of one match; ``stored`` is the whole verified stream, seq 0 first."""
    if not stored or not isinstance(stored[0].event, MatchOpened):
        raise MalformedEventError(f"{file.name}: seq 0 is not a MatchOpened event")
    opened: MatchOpened = stored[0].event
    out = MatchFacts()
    standing = not_retracted(stored)
    kept = [item for item in standing if not isinstance(item.event, TakenBack)]
    clock = _events_rows(stored, {item.seq for item in standing}, opened.match_id,
                         out.tables["events"])
    walk = _Walk(opened.match_id, clock)
    for item in kept:
        walk.see(item)
    walk.finish_opening()
    _add_match(out, opened, stored, kept, walk, file)
    _add_players(out, opened, walk, recorded_facts(opened, facts))
    for name in ("plays", "draws", "battles", "seizures"):
        out.tables[name] = getattr(walk, name)
    out.tables["realm_stones"] = [
        RealmRow(opened.match_id, n + 1, s.count("A"), s.count("B"), s.count("center"))
        for n, s in enumerate(walk.stones)]
    return out


def _events_rows(stored: list[Stored], kept_seqs: set[int], match_id: str,
                 rows: list) -> dict[int, tuple[int, int]]:
    """The ``events`` rows; returns ``seq -> (round, turn)`` for the other tables."""
    clock: dict[int, tuple[int, int]] = {}
    round_no = turn = 0
    for item in stored:
        event: Any = item.event  # its class's step says what it is (no isinstance per event)
        name, kind, seat_fields, step = _type_info(type(event))
        if step == _ROUND:
            round_no, turn = event.round, 0
        elif step == _TURN:
            turn += 1
        elif step == _BACK:
            round_no, turn = clock.get(event.to_seq, (round_no, turn))  # back where it was
        clock[item.seq] = (round_no, turn)
        seat = None
        for seat_field in seat_fields:
            seat = getattr(event, seat_field)
            if seat is not None:
                break
        rows.append(EventRow(match_id, item.seq, name, kind, round_no, turn, seat, item.at,
                             item.batch, item.hash, item.seq not in kept_seqs,
                             msgspec.Raw(_encode(event))))
    return clock


_OTHER, _ROUND, _TURN, _BACK = range(4)
#: Per event class, what ``events`` rows need of it: (name, kind, the seat fields it has in
#: ``SEAT_FIELDS`` order, how it moves the clock) -- worked out once, not per event.
_TYPES: dict[type, tuple[str, str, tuple[str, ...], int]] = {}


def _type_info(cls: type) -> tuple[str, str, tuple[str, ...], int]:
    info = _TYPES.get(cls)
    if info is None:
        step = (_ROUND if issubclass(cls, RoundStarted) else
                _TURN if issubclass(cls, TURN_ACTIONS) else
                _BACK if issubclass(cls, TakenBack) else _OTHER)
        seats = tuple(name for name in SEAT_FIELDS if hasattr(cls, name))
        info = _TYPES[cls] = (cls.__name__, kind_of(cls.__name__), seats, step)
    return info


class _Walk:
    """One pass over the events in force, collecting plays, draws, battles and stones."""

    def __init__(self, match_id: str, clock: dict[int, tuple[int, int]]):
        self.match_id, self.clock = match_id, clock
        self.plays: list[PlayRow] = []
        self.draws: list[DrawRow] = []
        self.battles: list[BattleRow] = []
        self.seizures: list[SeizureRow] = []
        self.stones = [["center"] for _ in range(REALMS)]
        self.hand: dict[str, tuple[int, str, str, str]] = {}  # card id -> (seq, seat, name, reason)
        self.opening_done = False
        self.coin_winner: str | None = None
        self.first_seat: str | None = None
        self.rounds_played = 0
        self.ended: tuple[Stored, MatchEnded] | None = None
        self._defender: str | None = None
        self._open_battle: BattleRow | None = None

    def see(self, item: Stored) -> None:
        event = item.event
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, item, event)
        elif isinstance(event, TURN_ACTIONS):
            self._open_battle = None

    def _round_started(self, item: Stored, event: RoundStarted) -> None:
        if not self.opening_done:
            self.finish_opening()
        if event.round == 1 and self.first_seat is None:
            self.first_seat = event.first  # 401: the first player takes the first turn
        self.rounds_played = max(self.rounds_played, event.round)

    def finish_opening(self) -> None:
        """402: the opening hand is what is in hand when round 1 starts (after the mulligan)."""
        if self.opening_done:
            return
        self.opening_done = True
        for card_id, (seq, seat, name, reason) in sorted(self.hand.items(), key=lambda kv: kv[1][0]):
            self.draws.append(DrawRow(self.match_id, seq, 0, 0, seat, card_id, name, reason, True))
        self.hand.clear()

    def _card_moved(self, item: Stored, event: CardMoved) -> None:
        if not self.opening_done:
            if event.to_zone == "hand":
                self.hand[event.card] = (item.seq, event.owner, event.name, event.reason)
            elif event.from_zone == "hand":
                self.hand.pop(event.card, None)
        elif event.from_zone == "deck" and event.to_zone == "hand":
            round_no, turn = self.clock[item.seq]
            self.draws.append(DrawRow(self.match_id, item.seq, round_no, turn, event.owner,
                                      event.card, event.name, event.reason, False))

    def _card_played(self, item: Stored, event: CardPlayed) -> None:
        round_no, turn = self.clock[item.seq]
        self.plays.append(PlayRow(self.match_id, item.seq, round_no, turn, event.seat, event.card,
                                  event.name, event.realm, float(event.energy_paid)))

    def _battle_started(self, item: Stored, event: BattleStarted) -> None:
        self._defender = event.defender
        self._open_battle = None

    def _battle_resolved(self, item: Stored, event: BattleResolved) -> None:
        round_no, turn = self.clock[item.seq]
        defender = self._defender or ("B" if event.attacker == "A" else "A")
        winner = {"attacker": event.attacker, "defender": defender}.get(event.result)
        row = BattleRow(self.match_id, item.seq, round_no, turn, event.realm, event.attacker,
                        defender, float(event.attacker_power), float(event.defender_power),
                        event.result, winner, False, None)
        self.battles.append(row)
        self._open_battle = row

    def _stone_seized(self, item: Stored, event: StoneSeized) -> None:
        """404.3.2 step 5: the battle's winner moves one stone of the realm to its side."""
        battle = self._open_battle
        battle_seq = None
        if battle is not None and not battle.stone_moved and battle.realm == event.realm \
                and battle.winner_seat == event.seat:
            battle.stone_moved, battle.stone_from = True, event.from_side
            battle_seq = battle.seq
        round_no, turn = self.clock[item.seq]
        self.seizures.append(SeizureRow(self.match_id, item.seq, round_no, turn, event.realm,
                                        event.seat, event.from_side, battle_seq))
        stones = self.stones[event.realm - 1]
        if event.from_side in stones:
            stones[stones.index(event.from_side)] = event.seat

    def _manual(self, item: Stored, event: ManualEffect) -> None:
        for op in event.ops:
            if op.op == "stone" and op.realm:  # a judge set the realm's stone (as the engine does)
                self.stones[op.realm - 1] = [op.seat or str(op.value or "center")]

    def _coin(self, item: Stored, event: CoinFlipped) -> None:
        self.coin_winner = event.winner

    def _ended(self, item: Stored, event: MatchEnded) -> None:
        self.ended = (item, event)


_HANDLERS: dict[type, Callable[[_Walk, Stored, Any], None]] = {
    RoundStarted: _Walk._round_started, CardMoved: _Walk._card_moved,
    CardPlayed: _Walk._card_played, BattleStarted: _Walk._battle_started,
    BattleResolved: _Walk._battle_resolved, StoneSeized: _Walk._stone_seized,
    ManualEffect: _Walk._manual, CoinFlipped: _Walk._coin, MatchEnded: _Walk._ended,
}


def _add_match(out: MatchFacts, opened: MatchOpened, stored: list[Stored], kept: list[Stored],
               walk: _Walk, file: FileInfo) -> None:
    ended_item, ended = walk.ended if walk.ended else (None, None)
    players = {info.seat: info.player for info in opened.seats}
    winner = ended.winner if ended else None
    takebacks = sum(isinstance(item.event, TakenBack) for item in stored)
    out.tables["matches"].append(MatchRow(
        opened.match_id, opened.game, file.name, file.size, file.mtime_ns, len(stored), stored[-1].hash,
        opened.tournament, opened.round, opened.table, opened.game_number, opened.ruleset,
        opened.format, opened.engine_version, stored[0].at,
        ended_item.at if ended_item else None, ended is not None, walk.rounds_played,
        walk.coin_winner, walk.first_seat, winner, players.get(winner) if winner else None,
        ended.reason if ended else None, ended.stones.get("A") if ended else None,
        ended.stones.get("B") if ended else None, takebacks,
        tournament_id=tournament_id_of(opened)))


def _add_players(out: MatchFacts, opened: MatchOpened, walk: _Walk, facts: CardFacts) -> None:
    winner = walk.ended[1].winner if walk.ended else None
    for info in opened.seats:
        if walk.ended is None:
            result = None
        else:
            result = "draw" if winner is None else "win" if winner == info.seat else "loss"
        went_first = None if walk.first_seat is None else walk.first_seat == info.seat
        out.tables["players"].append(PlayerRow(
            opened.match_id, info.seat, info.player, info.deck_name,
            deck_hash(info.deck, info.archive), dbs_total(info.deck, info.archive, facts),
            archetype(info.deck, facts), went_first, result))
        for zone, entries in (("deck", info.deck), ("archive", info.archive)):
            counts: Counter[str] = Counter()
            for entry in entries:
                counts[entry.card] += entry.count
            out.tables["deck_cards"] += [DeckCardRow(opened.match_id, info.seat, zone, card, n)
                                         for card, n in counts.items()]
        out.tables["card_games"] += _card_games(opened.match_id, info.seat, info.deck, walk)


def _card_games(match_id: str, seat: str, deck: list[DeckEntry], walk: _Walk) -> list[CardGameRow]:
    """One row per distinct main-deck card: was it in the opening hand, drawn, played?"""
    copies: Counter[str] = Counter()
    for entry in deck:
        copies[entry.card] += entry.count
    opening = {d.card for d in walk.draws if d.seat == seat and d.opening}
    in_hand = {d.card for d in walk.draws if d.seat == seat}
    first_play: dict[str, int] = {}
    for play in walk.plays:
        if play.seat == seat and play.card not in first_play:
            first_play[play.card] = play.round
    return [CardGameRow(match_id, seat, card, n, card in opening, card in in_hand,
                        card in first_play, first_play.get(card))
            for card, n in copies.items()]
