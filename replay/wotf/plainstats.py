"""The named statistics computed the plain way: decode every match file and loop in Python.

No DuckDB, no warehouse, no shared code with :mod:`replay.wotf.facts` beyond the file reader, the
deck facts and the interval formulas.  It is the reference the warehouse's SQL is checked
against (the tests compare every statistic, counts exactly and rates to 1e-9) and the naive
baseline of ``bench/analytics_bench.py``.  It returns the same :class:`ledger.stats.Table`
shapes as :mod:`ledger.stats`, with the same definitions.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ledger.events import MatchEnded, MatchOpened, TakenBack
from ledger.filestore import FileStore
from ledger.intervals import newcombe, rate, wilson
from ledger.line import line_of
from ledger.rows import tournament_id_of
from ledger.stats import CARD_GROUPS, COLUMNS, MIN_MATCH_WIN, Filters, Table
from replay.wotf.deckfacts import CardFacts, archetype, dbs_total, recorded_facts
from replay.wotf.events import (
    BattleResolved,
    CardMoved,
    CardPlayed,
    ManualEffect,
    RoundStarted,
    StoneSeized,
)


@dataclass
class SeatSummary:
    player: str
    deck: dict[str, int]
    dbs: int
    archetype: str
    opening: set[str] = field(default_factory=set)
    seen: set[str] = field(default_factory=set)  # opening hand or drawn
    first_played: dict[str, int] = field(default_factory=dict)


@dataclass
class MatchSummary:
    """What the plain statistics need from one match file."""

    match_id: str
    ruleset: str
    tournament: str | None
    round: int | None
    table: int | None
    seats: dict[str, SeatSummary]
    ended: bool = False
    winner: str | None = None
    reason: str | None = None
    first: str | None = None
    rounds: int = 0
    battles: list[tuple[int, str]] = field(default_factory=list)  # (realm, result)
    seizures: list[int] = field(default_factory=list)  # realms
    stones: list[list[str]] = field(default_factory=lambda: [["center"] for _ in range(7)])
    tournament_id: str | None = None  # ledger.rows.tournament_id_of


def summarize(path: str | os.PathLike, facts: CardFacts) -> MatchSummary:
    """Read one match file (hash chain checked) and summarise the events in force."""
    events = _events_in_force(path)
    opened = events[0][1]
    if not isinstance(opened, MatchOpened):
        raise ValueError(f"{path}: seq 0 is not MatchOpened")
    summary = MatchSummary(opened.match_id, opened.ruleset, opened.tournament, opened.round,
                           opened.table, _seats(opened, recorded_facts(opened, facts)),
                           tournament_id=tournament_id_of(opened))
    walk = _PlainWalk(summary)
    for _seq, event in events[1:]:
        handler = _PLAIN_HANDLERS.get(type(event))
        if handler is not None:
            handler(walk, event)
    walk.close_opening()
    return summary


def _events_in_force(path: str | os.PathLike) -> list[tuple[int, object]]:
    """The events on the line the match stands on after its take-backs (:mod:`ledger.line`)."""
    stored = list(FileStore.read_file(path))
    events = [item.event for item in stored]
    return [(stored[seq].seq, events[seq]) for seq in line_of(events)
            if not isinstance(events[seq], TakenBack)]


def _seats(opened: MatchOpened, facts: CardFacts) -> dict[str, SeatSummary]:
    seats: dict[str, SeatSummary] = {}
    for info in opened.seats:
        deck: dict[str, int] = defaultdict(int)
        for entry in info.deck:
            deck[entry.card] += entry.count
        seats[info.seat] = SeatSummary(info.player, dict(deck),
                                       dbs_total(info.deck, info.archive, facts),
                                       archetype(info.deck, facts))
    return seats


class _PlainWalk:
    """The state a plain pass over one match's events keeps."""

    def __init__(self, summary: MatchSummary):
        self.summary = summary
        self.hands: dict[str, dict[str, str]] = {"A": {}, "B": {}}
        self.started = False
        self.round = 0

    def close_opening(self) -> None:
        if not self.started:
            self.started = True
            for seat, hand in self.hands.items():
                self.summary.seats[seat].opening = set(hand.values())
                self.summary.seats[seat].seen |= set(hand.values())

    def round_started(self, event: RoundStarted) -> None:
        self.close_opening()
        self.round = event.round
        self.summary.rounds = max(self.summary.rounds, event.round)
        if event.round == 1 and self.summary.first is None:
            self.summary.first = event.first

    def card_moved(self, event: CardMoved) -> None:
        if not self.started:
            if event.to_zone == "hand":
                self.hands[event.owner][event.card] = event.name
            elif event.from_zone == "hand":
                self.hands[event.owner].pop(event.card, None)
        elif event.from_zone == "deck" and event.to_zone == "hand":
            self.summary.seats[event.owner].seen.add(event.name)

    def card_played(self, event: CardPlayed) -> None:
        self.summary.seats[event.seat].first_played.setdefault(event.name, self.round)

    def battle(self, event: BattleResolved) -> None:
        self.summary.battles.append((event.realm, event.result))

    def seized(self, event: StoneSeized) -> None:
        self.summary.seizures.append(event.realm)
        stones = self.summary.stones[event.realm - 1]
        if event.from_side in stones:
            stones[stones.index(event.from_side)] = event.seat

    def manual(self, event: ManualEffect) -> None:
        for op in event.ops:
            if op.op == "stone" and op.realm:
                self.summary.stones[op.realm - 1] = [op.seat or str(op.value or "center")]

    def ended(self, event: MatchEnded) -> None:
        self.summary.ended, self.summary.winner = True, event.winner
        self.summary.reason = event.reason


_PLAIN_HANDLERS: dict[type, Callable[[_PlainWalk, Any], None]] = {
    RoundStarted: _PlainWalk.round_started, CardMoved: _PlainWalk.card_moved,
    CardPlayed: _PlainWalk.card_played, BattleResolved: _PlainWalk.battle,
    StoneSeized: _PlainWalk.seized, ManualEffect: _PlainWalk.manual,
    MatchEnded: _PlainWalk.ended}


def summarize_all(paths: Iterable[str | os.PathLike], facts: CardFacts) -> list[MatchSummary]:
    return [summarize(p, facts) for p in paths]


def _finished(matches: list[MatchSummary], filters: Filters) -> list[MatchSummary]:
    return [m for m in matches if m.ended
            and (filters.ruleset is None or m.ruleset == filters.ruleset)
            and (filters.tournament is None or m.tournament == filters.tournament)
            and (filters.tournament_id is None or m.tournament_id == filters.tournament_id)]


def _interval(wins: int, games: int) -> tuple:
    return (rate(wins, games), *wilson(wins, games))


def cards(matches: list[MatchSummary], filters: Filters) -> Table:
    counts: dict[str, dict[str, list[int]]] = {}
    rounds: dict[str, list[int]] = defaultdict(list)
    for m in _finished(matches, filters):
        for seat, s in m.seats.items():
            won = 1 if m.winner == seat else 0
            for card in s.deck:
                c = counts.setdefault(card, {g: [0, 0] for g in CARD_GROUPS})
                flags = {"deck": True, "played": card in s.first_played, "oh": card in s.opening,
                         "gih": card in s.seen, "gns": card not in s.seen}
                for group, present in flags.items():
                    if present:
                        c[group][0] += 1
                        c[group][1] += won
                if card in s.first_played:
                    rounds[card].append(s.first_played[card])
    rows = []
    for card, c in counts.items():
        if c["deck"][0] < filters.min_games:
            continue
        row: list = [card]
        for group in CARD_GROUPS:
            row += [c[group][0], *_interval(c[group][1], c[group][0])]
        gih, gns = rate(c["gih"][1], c["gih"][0]), rate(c["gns"][1], c["gns"][0])
        row += [gih - gns if gih is not None and gns is not None else None,
                *newcombe(c["gih"][1], c["gih"][0], c["gns"][1], c["gns"][0]),
                sum(rounds[card]) / len(rounds[card]) if rounds[card] else None]
        rows.append(tuple(row))
    columns = ["card"] + [f"{g}_{x}" for g in CARD_GROUPS
                          for x in ("games", "wr", "wr_low", "wr_high")]
    return Table("cards", [*columns, "iwd", "iwd_low", "iwd_high", "avg_first_round"], rows)


def first_player(matches: list[MatchSummary], filters: Filters) -> Table:
    games = [m for m in _finished(matches, filters) if m.first is not None]
    wins = sum(1 for m in games if m.winner == m.first)
    draws = sum(1 for m in games if m.winner is None)
    return Table("first-player", COLUMNS["first-player"],
                 [(len(games), wins, draws, *_interval(wins, len(games)))])


def _seat_games(matches: list[MatchSummary], filters: Filters) \
        -> Iterator[tuple[MatchSummary, str, str, bool]]:
    """``(match, seat, opponent seat, won)`` for every seat of every finished match."""
    for m in _finished(matches, filters):
        for seat in m.seats:
            other = "B" if seat == "A" else "A"
            yield m, seat, other, m.winner == seat


def matchups(matches: list[MatchSummary], filters: Filters) -> Table:
    tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for m, seat, other, won in _seat_games(matches, filters):
        t = tally[(m.seats[seat].archetype, m.seats[other].archetype)]
        t[0] += 1
        t[1] += won
    rows = [(a, b, g, w, *_interval(w, g)) for (a, b), (g, w) in sorted(tally.items())
            if g >= filters.min_games]
    return Table("matchups", COLUMNS["matchups"],
                 rows)


def realms(matches: list[MatchSummary], filters: Filters) -> Table:
    battles: defaultdict[int, int] = defaultdict(int)
    seized: defaultdict[int, int] = defaultdict(int)
    decided: defaultdict[int, int] = defaultdict(int)
    held: defaultdict[int, int] = defaultdict(int)
    lost_held: defaultdict[int, int] = defaultdict(int)  # the loser held a stone of it
    for m in _finished(matches, filters):
        for realm, _result in m.battles:
            battles[realm] += 1
        for realm in m.seizures:
            seized[realm] += 1
        if m.winner is not None:
            loser = "B" if m.winner == "A" else "A"
            for number, stones in enumerate(m.stones, start=1):
                decided[number] += 1
                held[number] += m.winner in stones
                lost_held[number] += loser in stones
    rows = [(r, battles[r], seized[r], decided[r], held[r], *_interval(held[r], decided[r]),
             lost_held[r], rate(lost_held[r], decided[r]))
            for r in sorted(set(battles) | set(seized) | set(decided))]
    return Table("realms", COLUMNS["realms"], rows)


def dbs(matches: list[MatchSummary], filters: Filters) -> Table:
    width = filters.dbs_bucket
    tally: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for m, seat, other, won in _seat_games(matches, filters):
        low = ((m.seats[seat].dbs - m.seats[other].dbs) // width) * width
        tally[low][0] += 1
        tally[low][1] += won
    rows = [(low, low + width, g, w, *_interval(w, g)) for low, (g, w) in sorted(tally.items())
            if g >= filters.min_games]
    return Table("dbs", COLUMNS["dbs"], rows)


def rulesets(matches: list[MatchSummary], filters: Filters) -> Table:
    groups: dict[str, list[MatchSummary]] = defaultdict(list)
    for m in _finished(matches, filters):
        groups[m.ruleset].append(m)
    rows = []
    for ruleset, ms in sorted(groups.items()):
        n = len(ms)
        firsts = [m for m in ms if m.first is not None]
        fp_wins = sum(1 for m in firsts if m.winner == m.first)
        fought = sum(len(m.battles) for m in ms)
        attacker_wins = sum(1 for m in ms for _realm, result in m.battles if result == "attacker")
        rows.append((ruleset, n, sum(m.rounds for m in ms) / n,
                     sum(1 for m in ms if m.winner is None) / n,
                     sum(1 for m in ms if m.reason == "stones") / n,
                     len(firsts), *_interval(fp_wins, len(firsts)),
                     fought / n, sum(len(m.seizures) for m in ms) / n,
                     fought, *_interval(attacker_wins, fought)))
    return Table("rulesets", COLUMNS["rulesets"], rows)


def standings(matches: list[MatchSummary], filters: Filters) -> Table:
    # pairing ((tournament id, name), round, table) -> player -> [opponent, game wins, game
    # losses, games]; a tournament is its id and name (two of the same name ranked apart)
    pairings: dict[tuple, dict[str, list]] = defaultdict(dict)
    for m, seat, other, won in _seat_games(matches, filters):
        if m.tournament is None:
            continue
        me, them = m.seats[seat].player, m.seats[other].player
        entry = pairings[((m.tournament_id, m.tournament), m.round, m.table)].setdefault(
            me, [them, 0, 0, 0])
        entry[0] = min(entry[0], them)
        entry[1] += won
        entry[2] += m.winner == other
        entry[3] += 1
    totals: dict[tuple[tuple, str], dict] = {}
    for (tournament, _round, _table), players in pairings.items():
        for player, (opponent, gw, gl, games) in players.items():
            t = totals.setdefault((tournament, player), {"matches": 0, "points": 0, "gw": 0,
                                                         "games": 0, "opponents": []})
            t["matches"] += 1
            t["points"] += 3 if gw > gl else 1 if gw == gl else 0
            t["gw"] += gw
            t["games"] += games
            t["opponents"].append(opponent)
    mwp = {key: max(t["points"] / (3 * t["matches"]), MIN_MATCH_WIN) for key, t in totals.items()}
    rows = []
    for (tournament, player), t in totals.items():
        omw = [mwp[(tournament, o)] for o in t["opponents"]]
        tid, name = tournament
        rows.append([name, 0, player, t["matches"], t["points"], t["gw"], t["games"],
                     sum(omw) / len(omw), tid])
    for row in rows:  # rank as SQL's rank(): 1 + the players strictly ahead
        key = (row[4], row[7], row[5])
        row[1] = 1 + sum(1 for r in rows if (r[0], r[8]) == (row[0], row[8])
                         and (r[4], r[7], r[5]) > key)
    rows.sort(key=lambda r: (r[0], r[8] is not None, r[8] or "", r[1], r[2]))
    return Table("standings", COLUMNS["standings"], [tuple(r) for r in rows])


def endings(matches: list[MatchSummary], filters: Filters) -> Table:
    """How the matches end: each reason's count and share (this reader reads Wonders files)."""
    finished = [m for m in _finished(matches, filters) if filters.game in (None, "wotf")]
    reasons = Counter(m.reason or "?" for m in finished)
    rows = [("wotf", reason, n, n / len(finished)) for reason, n in
            sorted(reasons.items(), key=lambda item: (-item[1], item[0]))]
    return Table("endings", COLUMNS["endings"], rows)


def sieges(matches: list[MatchSummary], filters: Filters) -> Table:
    """State of Wonder's sieges: a Wonders corpus has none, so no row."""
    return Table("sieges", COLUMNS["sieges"], [])


STATISTICS = {"cards": cards, "first-player": first_player, "matchups": matchups,
              "realms": realms, "dbs": dbs, "rulesets": rulesets, "standings": standings,
              "endings": endings, "sieges": sieges}
