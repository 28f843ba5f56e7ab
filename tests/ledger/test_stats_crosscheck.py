"""Every named statistic from the warehouse equals the same statistic computed in plain Python
(:mod:`replay.wotf.plainstats`) from the same match files: counts exactly, rates to 1e-9.

The corpus is simulated: matches under both rulesets, with both bots, a Swiss tournament,
and matches with judge take-backs and a judge's stone ruling (so retracted events and manual
effects are exercised too), one of them conceded right after the ruling (so its ruled stone
is the final one).  A second tournament, "Draw Cup", has draws: a drawn game (both seats pass
every turn: no stone is ever seized) and a pairing drawn 1-1 in games, so a draw's match
points are checked -- against the plain computation and by hand.  The ``--min-games``
boundary is checked at a minimum some groups reach exactly.
"""

import math
import random

import pytest

from ledger.events import MatchEnded
from ledger.filestore import FileStore
from ledger.stats import STATISTICS, Filters, compute
from ledger.warehouse import connect, ingest
from replay.recorder import Recorder
from replay.simulate import (
    Entrant,
    SimClock,
    _opened,
    entrants,
    play_match,
    simulate_matches,
    simulate_tournament,
)
from replay.wotf import plainstats
from replay.wotf.bots import BOTS
from replay.wotf.cards import default_cards
from replay.wotf.deckfacts import CardFact
from replay.wotf.decks import load_decks
from replay.wotf.events import ManualEffect, ManualOp, Passed


def card_facts():
    return {c.name: CardFact(c.orbital, c.dbs) for c in default_cards()}


def play_with_corrections(store, db, decks, match_id, seed, concede_after_ruling=False):
    """A bot match in which a judge takes back a turn and later sets a realm's stone (and,
    with ``concede_after_ruling``, A concedes right after the ruling)."""
    rng = random.Random(seed)
    a, b = entrants(decks, ["greedy", "random"], 2, rng)
    opened = _opened(match_id, a, b, "1.3.2", tournament=None)
    recorder = Recorder.open(store, db, opened, rng=random.Random(seed), clock=SimClock(seed))
    bots = {"A": BOTS["greedy"](random.Random(seed + 1)), "B": BOTS["random"](random.Random(seed + 2))}
    batch_ends, decisions = [], 0
    while recorder.engine.prompt is not None:
        engine = recorder.engine
        stored = recorder.submit(bots[engine.prompt.seat].decide(engine))
        decisions += 1
        if stored:
            batch_ends.append(stored[-1].seq)
        if decisions == 30:
            recorder.take_back(batch_ends[-6])
        if decisions == 45:
            recorder.manual(ManualEffect("judge", [ManualOp("stone", seat="B", realm=1)],
                                         note="ruling: the stone of realm 1 goes to B"))
            if concede_after_ruling:
                recorder.concede("A", "after the ruling")
                return


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    store = FileStore(root)
    db, decks = default_cards(), load_decks(None, default_cards())
    list(simulate_matches(store, db, decks, 14, 11, "1.3.2", ("greedy", "random"), "x"))
    list(simulate_matches(store, db, decks, 10, 12, "1.2", ("greedy", "greedy"), "y"))
    list(simulate_tournament(store, db, decks, "Cross Open", 6, 3, 13, "1.3.2", ["greedy"]))
    for n in range(2):
        play_with_corrections(store, db, decks, f"judge-{n}", 100 + n)
    play_with_corrections(store, db, decks, "judge-2", 102, concede_after_ruling=True)
    draw_cup(store, db, decks)
    warehouse = tmp_path_factory.mktemp("wh") / "w.duckdb"
    report = ingest(root, warehouse, card_facts())
    assert report.problems == [] and report.new == len(list(root.glob("*.jsonl")))
    matches = plainstats.summarize_all(sorted(root.glob("*.jsonl")), card_facts())
    return root, warehouse, matches


def test_the_corpus_has_what_the_checks_need(corpus):
    _root, warehouse, matches = corpus
    con = connect(warehouse, read_only=True)
    try:
        retracted = con.execute("SELECT count(*) FROM events WHERE retracted").fetchone()[0]
        rulings = con.execute("SELECT count(*) FROM events WHERE type = 'ManualEffect'").fetchone()[0]
        rulesets = con.execute("SELECT count(DISTINCT ruleset) FROM matches").fetchone()[0]
        tournament = con.execute("SELECT count(*) FROM matches WHERE tournament IS NOT NULL").fetchone()[0]
    finally:
        con.close()
    assert retracted > 0 and rulings == len(JUDGED) and rulesets == 2
    assert tournament == 9 + len(DRAW_CUP)
    assert len(matches) == 14 + 10 + 9 + len(JUDGED) + len(DRAW_CUP)
    drawn = [m for m in matches if m.ended and m.winner is None and m.tournament == "Draw Cup"]
    assert [m.match_id for m in drawn] == ["draw-r1-t1"], "the Draw Cup has its drawn game"


JUDGED = ("judge-0", "judge-1", "judge-2")

#: The Draw Cup: (match id, round, table, game, seat A, seat B, how it ends).  "play": the bots
#: play it out; "pass": both seats pass every turn (no stone is ever seized: a drawn game);
#: "concede A"/"concede B": that seat concedes at once; "concede winner": the winner of the
#: pairing's first game concedes this one (the pairing is drawn 1-1).
DRAW_CUP = [
    ("draw-r1-t1", 1, 1, 1, "Ann", "Bob", "pass"),
    ("draw-r1-t2", 1, 2, 1, "Cid", "Dee", "play"),
    ("draw-r1-t2-g2", 1, 2, 2, "Dee", "Cid", "concede winner"),
    ("draw-r2-t1", 2, 1, 1, "Ann", "Cid", "concede B"),
    ("draw-r2-t2", 2, 2, 1, "Bob", "Dee", "concede A"),
]

#: The Draw Cup's standings, by hand (3 points a match win, 1 a draw, 0 a loss):
#: player -> (matches, match points, game wins, games).
DRAW_CUP_STANDINGS = {
    "Ann": (2, 1 + 3, 1, 2),  # drawn game (1), beats Cid (3)
    "Bob": (2, 1 + 0, 0, 2),  # drawn game (1), loses to Dee (0)
    "Cid": (2, 1 + 0, 1, 3),  # 1-1 with Dee (1), loses to Ann (0)
    "Dee": (2, 1 + 3, 2, 3),  # 1-1 with Cid (1), beats Bob (3)
}


def draw_cup(store, db, decks):
    """The Draw Cup's games (``DRAW_CUP``), recorded through the real recorder."""
    deck = {player: decks[n % len(decks)] for n, player in enumerate(("Ann", "Bob", "Cid", "Dee"))}
    winners: dict[tuple[int, int], str] = {}
    for n, (match_id, round_no, table, game_no, a, b, how) in enumerate(DRAW_CUP):
        seats = [Entrant(p, deck[p].name, deck[p].entries(), deck[p].archive_entries(), "greedy")
                 for p in (a, b)]
        opened = _opened(match_id, *seats, "1.3.2", tournament="Draw Cup", round=round_no,
                         table=table, game_number=game_no)
        seed = 300 + n
        if how == "play":
            play_match(store, db, opened, seed, ("greedy", "random"), SimClock(seed))
        else:
            recorder = Recorder.open(store, db, opened, rng=random.Random(seed), clock=SimClock(seed))
            if how == "pass":
                bot = BOTS["greedy"](random.Random(seed))
                while recorder.engine.prompt is not None:
                    prompt = recorder.engine.prompt
                    recorder.submit(Passed(prompt.seat) if prompt.kind == "turn"
                                    else bot.decide(recorder.engine))
            else:
                loser = how.split()[1]
                if loser == "winner":
                    loser = "A" if winners[(round_no, table)] == a else "B"
                recorder.concede(loser)
        ended = [s.event for s in store.read(match_id) if isinstance(s.event, MatchEnded)]
        assert len(ended) == 1, match_id
        if ended[0].winner is not None:
            winners.setdefault((round_no, table), a if ended[0].winner == "A" else b)
        assert (ended[0].winner is None) == (how == "pass"), (match_id, ended[0])


FILTERS = [Filters(), Filters(ruleset="1.2"), Filters(ruleset="1.3.2"),
           Filters(tournament="Cross Open"), Filters(min_games=12), Filters(dbs_bucket=7)]


@pytest.mark.parametrize("name", sorted(STATISTICS))
@pytest.mark.parametrize("filters", FILTERS,
                         ids=lambda f: f"{f.ruleset}-{f.tournament}-{f.min_games}-{f.dbs_bucket}")
def test_statistic_equals_the_plain_computation(corpus, name, filters):
    _root, warehouse, matches = corpus
    con = connect(warehouse, read_only=True)
    try:
        got = compute(con, name, filters)
    finally:
        con.close()
    want = plainstats.STATISTICS[name](matches, filters)
    assert got.columns == want.columns
    key = _key_columns(name)
    got_rows = sorted(got.rows, key=lambda r: tuple(str(r[i]) for i in key))
    want_rows = sorted(want.rows, key=lambda r: tuple(str(r[i]) for i in key))
    assert [tuple(r[i] for i in key) for r in got_rows] == [tuple(r[i] for i in key) for r in want_rows]
    for g, w in zip(got_rows, want_rows, strict=True):
        for column, a, b in zip(got.columns, g, w, strict=True):
            assert _same(a, b), f"{name} {g[:2]} {column}: warehouse {a!r}, plain {b!r}"


def _key_columns(name):
    return {"cards": [0], "matchups": [0, 1], "realms": [0], "dbs": [0], "rulesets": [0],
            "standings": [0, 2], "first-player": [], "endings": [0, 1], "sieges": [0]}[name]


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (bool, str)) or isinstance(b, (bool, str)):
        return a == b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return math.isclose(float(a), float(b), rel_tol=0, abs_tol=1e-9)


def test_counts_are_exact_integers_and_the_statistics_are_not_empty(corpus):
    _root, warehouse, matches = corpus
    con = connect(warehouse, read_only=True)
    try:
        for name in STATISTICS:
            table = compute(con, name, Filters())
            # (State of Wonder's sieges: this corpus is Wonders'; test_warehouse_games has them)
            assert table.rows or name == "sieges", name
            for row in table.rows:
                for column, value in zip(table.columns, row, strict=True):
                    if column.endswith(("_games", "games", "wins", "battles", "seizures")):
                        assert isinstance(value, int), (name, column, value)
    finally:
        con.close()
    finished = [m for m in matches if m.ended]
    first = compute(connect(warehouse, read_only=True), "first-player", Filters())
    assert first.rows[0][0] == sum(1 for m in finished if m.first is not None)


def test_retracted_events_do_not_count(corpus):
    """A take-back's retracted plays stay in ``events`` but are not in ``plays``."""
    root, warehouse, _matches = corpus
    con = connect(warehouse, read_only=True)
    try:
        ruled_stone_final = []
        for match_id in JUDGED:
            retracted_plays = con.execute(
                "SELECT count(*) FROM events WHERE match_id = ? AND type = 'CardPlayed' AND retracted",
                [match_id]).fetchone()[0]
            all_plays = con.execute(
                "SELECT count(*) FROM events WHERE match_id = ? AND type = 'CardPlayed'",
                [match_id]).fetchone()[0]
            plays = con.execute("SELECT count(*) FROM plays WHERE match_id = ?", [match_id]).fetchone()[0]
            assert plays == all_plays - retracted_plays
            takebacks = con.execute(
                "SELECT count(*), count(*) FILTER (retracted) FROM events "
                "WHERE match_id = ? AND type = 'TakenBack'", [match_id]).fetchone()
            assert takebacks == (1, 0)  # the take-back itself stands
            stones = con.execute("SELECT stones_a, stones_b, stones_center FROM realm_stones "
                                 "WHERE match_id = ? AND realm = 1", [match_id]).fetchone()
            seized_later = con.execute(
                "SELECT count(*) FROM seizures s JOIN events e ON e.match_id = s.match_id "
                "AND e.type = 'ManualEffect' WHERE s.match_id = ? AND s.realm = 1 AND s.seq > e.seq",
                [match_id]).fetchone()[0]
            if not seized_later:
                assert stones == (0, 1, 0)
                ruled_stone_final.append(match_id)
        # the check above must run: judge-2 ends right after its ruling
        assert "judge-2" in ruled_stone_final, ruled_stone_final
        ended = [s.event for s in FileStore.read_file(root / "judge-0.jsonl")
                 if isinstance(s.event, MatchEnded)]
        assert ended, "the corrected match was played to its end"
    finally:
        con.close()


def test_the_draw_cup_standings_by_hand(corpus):
    """A drawn match is worth 1 point to each player (a drawn game; a pairing drawn 1-1)."""
    _root, warehouse, matches = corpus
    con = connect(warehouse, read_only=True)
    try:
        got = compute(con, "standings", Filters(tournament="Draw Cup"))
    finally:
        con.close()
    want = plainstats.STATISTICS["standings"](matches, Filters(tournament="Draw Cup"))
    for table in (got, want):
        rows = {row[2]: row for row in table.rows}
        assert {player: (r[3], r[4], r[5], r[6]) for player, r in rows.items()} == \
            DRAW_CUP_STANDINGS, table.name
        assert max(rows[p][1] for p in ("Ann", "Dee")) < min(rows[p][1] for p in ("Bob", "Cid"))


#: The statistics ``--min-games`` filters, and the column holding each group's game count.
MIN_GAMES = {"cards": "deck_games", "matchups": "games", "dbs": "games"}


@pytest.mark.parametrize("name", sorted(MIN_GAMES))
def test_min_games_keeps_the_groups_with_exactly_the_minimum(corpus, name):
    """At a minimum some group reaches exactly (and others miss), the groups kept are those
    with at least that many games: the boundary group is in, in the warehouse and in plain
    Python alike."""
    _root, warehouse, matches = corpus
    con = connect(warehouse, read_only=True)
    try:
        every = compute(con, name, Filters())
        column = every.columns.index(MIN_GAMES[name])
        counts = sorted({row[column] for row in every.rows})
        assert len(counts) >= 3, (name, counts)
        minimum = counts[len(counts) // 2]  # some groups below it, some exactly at it, some above
        got = compute(con, name, Filters(min_games=minimum))
    finally:
        con.close()
    want = plainstats.STATISTICS[name](matches, Filters(min_games=minimum))
    key = _key_columns(name)
    kept = sorted(tuple(r[i] for i in key) for r in every.rows if r[column] >= minimum)
    for table in (got, want):
        assert sorted(tuple(r[i] for i in key) for r in table.rows) == kept, (name, minimum)
        assert any(r[column] == minimum for r in table.rows), (name, minimum)
    assert len(kept) < len(every.rows)
