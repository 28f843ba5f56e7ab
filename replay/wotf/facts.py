"""What one match's log says, as warehouse rows (:mod:`ledger.rows`), read from its outcome
events alone -- the rules engine is never run (DESIGN.md section 2: outcomes make the log
self-describing).

The match comes as its lines (:class:`ledger.lines.MatchLines`, as the warehouse reads them:
chain-checked bytes) or as events already read (``Stored``).  Every line's envelope and the
few fields the ``events`` table needs are decoded in one pass (:class:`_Head`); only the
events the other tables read (:data:`_HANDLERS`, ``MatchOpened``) are decoded whole.

Take-backs: a ``TakenBack(to_seq)`` means "the state is the state after ``to_seq``", so the
events after ``to_seq`` up to the take-back are *retracted*.  The ``events`` table keeps every
event (with ``retracted``); every other table is built from the events in force only.

Rounds and turns: an event's ``round`` is the number of the last ``RoundStarted`` before it (0
before round 1); its ``turn`` counts the turn actions of that round so far (404: play, attack,
draw, activate, harvest, pass -- the same numbering as the replayer's "round 4, turn 7"), 0
before the first one.  After a take-back the count goes on from the round and turn of
``to_seq``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ledger.codec import Stored
from ledger.errors import MalformedEventError
from ledger.events import MatchEnded, MatchOpened, TakenBack, kind_of
from ledger.lines import Head, MatchLines
from ledger.registry import EVENT_TYPES, load_games
from ledger.rows import (
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

TURN_ACTIONS = (PlayDeclared, AttackDeclared, DrawDeclared, ActivationDeclared, HarvestDeclared,
                Passed)
REALMS = 7
SEATS = ("A", "B")
_SEAT_FIELDS = ("seat", "attacker", "owner", "controller")


class _Head(Head):
    """A line's envelope and the event fields the ``events`` table reads: its seat (the first
    of :data:`_SEAT_FIELDS` the event has and sets), a ``RoundStarted``'s round, a
    ``TakenBack``'s ``to_seq`` (a field the event lacks stays ``None``)."""

    seat: Any = None
    attacker: Any = None
    owner: Any = None
    controller: Any = None
    round: Any = None
    to_seq: Any = None


@dataclass
class MatchFacts:
    """Every row one match contributes to the warehouse, by table name."""

    tables: dict[str, list] = field(default_factory=lambda: {
        "matches": [], "players": [], "deck_cards": [], "events": [], "plays": [], "draws": [],
        "battles": [], "seizures": [], "realm_stones": [], "card_games": []})


def not_retracted(stored: list[Stored]) -> list[Stored]:
    """The events no take-back retracted (take-backs included, unless a later one retracted
    them too)."""
    kept: list[Stored] = []
    for item in stored:
        if isinstance(item.event, TakenBack):
            while kept and kept[-1].seq > item.event.to_seq:
                kept.pop()
        kept.append(item)
    return kept


def in_force(stored: list[Stored]) -> list[Stored]:
    """The events still in force after every take-back (the take-backs themselves excluded)."""
    return [item for item in not_retracted(stored) if not isinstance(item.event, TakenBack)]


def _standing(heads: list[_Head]) -> list[_Head]:
    """:func:`not_retracted` over line heads."""
    kept: list[_Head] = []
    for head in heads:
        if head.type == "TakenBack":
            while kept and kept[-1].seq > head.to_seq:
                kept.pop()
        kept.append(head)
    return kept


def rows(stored: MatchLines | Sequence[Stored], file: FileInfo,
         facts: CardFacts) -> Mapping[str, list[Any]]:
    """The warehouse rows of one match, by table (``ledger.registry.register_analytics``)."""
    return match_facts(stored, file, facts).tables


def match_facts(stored: MatchLines | Sequence[Stored], file: FileInfo,
                facts: CardFacts) -> MatchFacts:
    """All rows of one match; ``stored`` is the whole verified stream, seq 0 first (its lines,
    or its events)."""
    lines = stored if isinstance(stored, MatchLines) else \
        MatchLines.from_stored(list(stored), file.name)
    heads: list[_Head] = lines.heads(_Head) if len(lines) else []
    if not heads or heads[0].type != "MatchOpened":
        raise MalformedEventError(f"{file.name}: seq 0 is not a MatchOpened event")
    opened: MatchOpened = lines.event(0, heads[0])  # type: ignore[assignment]
    out = MatchFacts()
    standing = _standing(heads)
    kept = [head for head in standing if head.type != "TakenBack"]
    clock = _events_rows(lines, heads, {head.seq for head in standing}, opened.match_id,
                         out.tables["events"])
    walk = _Walk(opened.match_id, clock)
    _handlers()
    for head in kept:
        walk.see(lines, head)
    walk.finish_opening()
    _add_match(out, opened, lines, heads, walk, file)
    _add_players(out, opened, walk, recorded_facts(opened, facts))
    for name in ("plays", "draws", "battles", "seizures"):
        out.tables[name] = getattr(walk, name)
    out.tables["realm_stones"] = [
        RealmRow(opened.match_id, n + 1, s.count("A"), s.count("B"), s.count("center"))
        for n, s in enumerate(walk.stones)]
    return out


def _events_rows(lines: MatchLines, heads: list[_Head], kept_seqs: set[int], match_id: str,
                 rows: list) -> dict[int, tuple[int, int]]:
    """The ``events`` rows; returns ``seq -> (round, turn)`` for the other tables."""
    clock: dict[int, tuple[int, int]] = {}
    round_no = turn = 0
    types, raw = _TYPES, msgspec.Raw
    for head, digest, payload in zip(heads, lines.hashes(), lines.payloads(heads), strict=True):
        kind, seat_fields, step = types.get(head.type) or _type_info(head.type)
        if step == _ROUND:
            round_no, turn = head.round, 0
        elif step == _TURN:
            turn += 1
        elif step == _BACK:
            round_no, turn = clock.get(head.to_seq, (round_no, turn))  # back where it was
        seq = head.seq
        clock[seq] = (round_no, turn)
        seat = None
        for seat_field in seat_fields:
            seat = getattr(head, seat_field)
            if seat is not None:
                break
        rows.append(EventRow(match_id, seq, head.type, kind, round_no, turn, seat, head.at,
                             head.batch, digest, seq not in kept_seqs, raw(payload)))
    return clock


_OTHER, _ROUND, _TURN, _BACK = range(4)
#: Per event type, what ``events`` rows need of it: (kind, the seat fields it has in
#: ``_SEAT_FIELDS`` order, how it moves the clock) -- worked out once, not per event.
_TYPES: dict[str, tuple[str, tuple[str, ...], int]] = {}


def _type_info(name: str) -> tuple[str, tuple[str, ...], int]:
    info = _TYPES.get(name)
    if info is None:
        load_games()
        cls = EVENT_TYPES.get(name)
        if cls is None:  # a reader of lines decodes every event it keeps: never here
            raise MalformedEventError(f"event type {name!r} is unknown to this program")
        step = (_ROUND if issubclass(cls, RoundStarted) else
                _TURN if issubclass(cls, TURN_ACTIONS) else
                _BACK if issubclass(cls, TakenBack) else _OTHER)
        seats = tuple(field for field in _SEAT_FIELDS if hasattr(cls, field))
        info = _TYPES[name] = (kind_of(name), seats, step)
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
        self.ended: tuple[str, MatchEnded] | None = None  # (its at, the event)
        self._defender: str | None = None
        self._open_battle: BattleRow | None = None

    def see(self, lines: MatchLines, head: _Head) -> None:
        handler = _HANDLERS.get(head.type)
        if handler is not None:
            handler(self, head, lines.event(head.seq, head))
        elif _TYPES[head.type][2] == _TURN:  # every type's info is known: the events rows ran
            self._open_battle = None

    def _round_started(self, head: _Head, event: RoundStarted) -> None:
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

    def _card_moved(self, head: _Head, event: CardMoved) -> None:
        if not self.opening_done:
            if event.to_zone == "hand":
                self.hand[event.card] = (head.seq, event.owner, event.name, event.reason)
            elif event.from_zone == "hand":
                self.hand.pop(event.card, None)
        elif event.from_zone == "deck" and event.to_zone == "hand":
            round_no, turn = self.clock[head.seq]
            self.draws.append(DrawRow(self.match_id, head.seq, round_no, turn, event.owner,
                                      event.card, event.name, event.reason, False))

    def _card_played(self, head: _Head, event: CardPlayed) -> None:
        round_no, turn = self.clock[head.seq]
        self.plays.append(PlayRow(self.match_id, head.seq, round_no, turn, event.seat, event.card,
                                  event.name, event.realm, float(event.energy_paid)))

    def _battle_started(self, head: _Head, event: BattleStarted) -> None:
        self._defender = event.defender
        self._open_battle = None

    def _battle_resolved(self, head: _Head, event: BattleResolved) -> None:
        round_no, turn = self.clock[head.seq]
        defender = self._defender or ("B" if event.attacker == "A" else "A")
        winner = {"attacker": event.attacker, "defender": defender}.get(event.result)
        row = BattleRow(self.match_id, head.seq, round_no, turn, event.realm, event.attacker,
                        defender, float(event.attacker_power), float(event.defender_power),
                        event.result, winner, False, None)
        self.battles.append(row)
        self._open_battle = row

    def _stone_seized(self, head: _Head, event: StoneSeized) -> None:
        """404.3.2 step 5: the battle's winner moves one stone of the realm to its side."""
        battle = self._open_battle
        battle_seq = None
        if battle is not None and not battle.stone_moved and battle.realm == event.realm \
                and battle.winner_seat == event.seat:
            battle.stone_moved, battle.stone_from = True, event.from_side
            battle_seq = battle.seq
        round_no, turn = self.clock[head.seq]
        self.seizures.append(SeizureRow(self.match_id, head.seq, round_no, turn, event.realm,
                                        event.seat, event.from_side, battle_seq))
        stones = self.stones[event.realm - 1]
        if event.from_side in stones:
            stones[stones.index(event.from_side)] = event.seat

    def _manual(self, head: _Head, event: ManualEffect) -> None:
        for op in event.ops:
            if op.op == "stone" and op.realm:  # a judge set the realm's stone (as the engine does)
                self.stones[op.realm - 1] = [op.seat or str(op.value or "center")]

    def _coin(self, head: _Head, event: CoinFlipped) -> None:
        self.coin_winner = event.winner

    def _ended(self, head: _Head, event: MatchEnded) -> None:
        self.ended = (head.at, event)


_BY_CLASS: dict[type, Callable[[_Walk, _Head, Any], None]] = {
    RoundStarted: _Walk._round_started, CardMoved: _Walk._card_moved,
    CardPlayed: _Walk._card_played, BattleStarted: _Walk._battle_started,
    BattleResolved: _Walk._battle_resolved, StoneSeized: _Walk._stone_seized,
    ManualEffect: _Walk._manual, CoinFlipped: _Walk._coin, MatchEnded: _Walk._ended,
}
_HANDLERS: dict[str, Callable[[_Walk, _Head, Any], None]] = {}


def _handlers() -> dict[str, Callable[[_Walk, _Head, Any], None]]:
    """The handlers by event type name: only these events are decoded whole."""
    if not _HANDLERS:
        _HANDLERS.update((cls.__name__, handler) for cls, handler in _BY_CLASS.items())
    return _HANDLERS


def _add_match(out: MatchFacts, opened: MatchOpened, lines: MatchLines, heads: list[_Head],
               walk: _Walk, file: FileInfo) -> None:
    ended_at, ended = walk.ended if walk.ended else (None, None)
    players = {info.seat: info.player for info in opened.seats}
    winner = ended.winner if ended else None
    takebacks = sum(head.type == "TakenBack" for head in heads)
    out.tables["matches"].append(MatchRow(
        opened.match_id, opened.game, file.name, file.size, file.mtime_ns, len(heads),
        lines.hash(len(heads) - 1),
        opened.tournament, opened.round, opened.table, opened.game_number, opened.ruleset,
        opened.format, opened.engine_version, heads[0].at,
        ended_at, ended is not None, walk.rounds_played,
        walk.coin_winner, walk.first_seat, winner, players.get(winner) if winner else None,
        ended.reason if ended else None, ended.stones.get("A") if ended else None,
        ended.stones.get("B") if ended else None, takebacks))


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


def _card_games(match_id: str, seat: str, deck, walk: _Walk) -> list[CardGameRow]:
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
