"""Every named statistic from the warehouse equals the same statistic computed in plain Python
(:mod:`replay.wotf.plainstats`) from the same match files: counts exactly, rates to 1e-9.

The corpus is simulated: matches under both rulesets, with both bots, a Swiss tournament,
and matches with judge take-backs and a judge's stone ruling (so retracted events and manual
effects are exercised too).
"""

import math
import random

import pytest

from ledger.events import MatchEnded
from ledger.filestore import FileStore
from ledger.stats import STATISTICS, Filters, compute
from ledger.warehouse import connect, ingest
from replay.recorder import Recorder
from replay.simulate import SimClock, _opened, entrants, simulate_matches, simulate_tournament
from replay.wotf import plainstats
from replay.wotf.bots import BOTS
from replay.wotf.cards import default_cards
from replay.wotf.deckfacts import CardFact
from replay.wotf.decks import load_decks
from replay.wotf.events import ManualEffect, ManualOp


def card_facts():
    return {c.name: CardFact(c.orbital, c.dbs) for c in default_cards()}


def play_with_corrections(store, db, decks, match_id, seed):
    """A bot match in which a judge takes back a turn and later sets a realm's stone."""
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
    assert retracted > 0 and rulings == 2 and rulesets == 2 and tournament == 9
    assert len(matches) == 14 + 10 + 9 + 2


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
        for match_id in ("judge-0", "judge-1"):
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
        ended = [s.event for s in FileStore.read_file(root / "judge-0.jsonl")
                 if isinstance(s.event, MatchEnded)]
        assert ended, "the corrected match was played to its end"
    finally:
        con.close()
