"""The warehouse holds matches of every game: a ``game`` column, each game's own tables, and the
shared statistics per game (card win rates for both games; sieges for State of Wonder)."""

from __future__ import annotations

from collections import Counter

import duckdb
import pytest

from ledger import stats
from ledger.filestore import FileStore
from ledger.rows import TABLES, sql_columns
from ledger.warehouse import connect, ingest
from replay.games import game
from replay.simulate import simulate_matches
from tests.simulated import simulate_games


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """A store with State of Wonder and Wonders of The First matches, ingested."""
    root = tmp_path_factory.mktemp("mixed")
    store = FileStore(root / "store")
    simulate_games(store, (("sow", "s", 6), ("wotf", "w", 3)), seed=7)
    db = root / "w.duckdb"
    report = ingest(root / "store", db, {})
    assert not report.problems and report.new == 9
    con = connect(db, read_only=True)
    yield store, con
    con.close()


def test_every_match_is_ingested_under_its_game(mixed):
    _, con = mixed
    assert dict(con.execute("SELECT game, count(*) FROM matches GROUP BY game").fetchall()) == \
        {"sow": 6, "wotf": 3}
    assert con.execute("SELECT count(*) FROM matches WHERE NOT ended").fetchone() == (0,)


def test_state_of_wonder_sieges_are_its_own_table(mixed):
    store, con = mixed
    recorded = Counter()
    for info in store.list():
        for item in store.read(info.match_id):
            if type(item.event).__name__ == "PlayerBesieged":
                recorded[info.match_id] += 1
    in_table = dict(con.execute("SELECT match_id, count(*) FROM sow_sieges GROUP BY match_id")
                    .fetchall())
    assert in_table == dict(recorded) and sum(recorded.values()) > 0
    assert con.execute("SELECT count(*) FROM sow_battles").fetchone()[0] > 0


def test_card_win_rates_work_for_both_games(mixed):
    _, con = mixed
    for name in ("sow", "wotf"):
        table = stats.compute(con, "cards", stats.Filters(game=name))
        rows = table.records()
        assert rows, name
        decks = dict(con.execute(
            "SELECT card, count(*) FROM card_games JOIN matches USING (match_id) "
            "WHERE game = ? GROUP BY card", [name]).fetchall())
        assert {r["card"]: r["deck_games"] for r in rows} == decks
    sow_cards = {r["card"] for r in stats.compute(con, "cards", stats.Filters(game="sow")).records()}
    wotf_cards = {r["card"] for r in stats.compute(con, "cards", stats.Filters(game="wotf")).records()}
    assert not sow_cards & wotf_cards


def test_endings_count_every_finished_match_by_reason(mixed):
    _, con = mixed
    rows = stats.compute(con, "endings", stats.Filters()).records()
    assert {r["game"] for r in rows} == {"sow", "wotf"}
    for name, total in (("sow", 6), ("wotf", 3)):
        mine = [r for r in rows if r["game"] == name]
        assert sum(r["matches"] for r in mine) == total
        assert sum(r["share"] for r in mine) == pytest.approx(1.0)


def test_sieges_split_state_of_wonder_games_by_whether_the_seat_laid_siege(mixed):
    _, con = mixed
    rows = {r["besieged"]: r for r in stats.compute(con, "sieges", stats.Filters()).records()}
    assert sum(r["games"] for r in rows.values()) == 12  # two seats of six matches
    besiegers = con.execute("SELECT count(DISTINCT (match_id, attacker)) FROM sow_sieges").fetchone()[0]
    assert rows["yes"]["games"] == besiegers
    wins = con.execute("""SELECT count(*) FROM players p JOIN matches m USING (match_id)
                          WHERE m.game = 'sow' AND p.result = 'win' AND EXISTS (
                            SELECT 1 FROM sow_sieges s WHERE s.match_id = p.match_id
                            AND s.attacker = p.seat)""").fetchone()[0]
    assert rows["yes"]["wins"] == wins


def test_dbs_counts_wonders_games_only(mixed):
    """303.2's DBS is Wonders of The First's: a State of Wonder seat (DBS total 0 against 0)
    is no game of a DBS difference of 0."""
    _, con = mixed
    everyone = stats.compute(con, "dbs", stats.Filters()).records()
    assert sum(r["games"] for r in everyone) == 6  # two seats of the three Wonders matches
    assert everyone == stats.compute(con, "dbs", stats.Filters(game="wotf")).records()
    assert stats.compute(con, "dbs", stats.Filters(game="sow")).rows == []


def test_a_warehouse_of_an_earlier_version_gains_the_game_column(tmp_path):
    db = tmp_path / "old.duckdb"
    con = duckdb.connect(str(db))
    columns = {k: v for k, v in sql_columns(TABLES["matches"]).items() if k != "game"}
    listed = ", ".join(f'"{k}" {v}' for k, v in columns.items())
    con.execute(f"CREATE TABLE matches ({listed})")
    con.execute("INSERT INTO matches (match_id, file, ended) VALUES ('old-1', 'old-1.jsonl', true)")
    con.close()
    con = connect(db)
    try:
        assert con.execute("SELECT game FROM matches WHERE match_id = 'old-1'").fetchone() == ("wotf",)
    finally:
        con.close()


def test_state_of_wonder_events_name_the_seat_of_an_attacker_or_owner(mixed):
    """docs/analytics.md, ``events.seat``: its ``seat``, else its ``attacker``, ``owner`` or
    ``controller`` field -- for State of Wonder's events too (a siege's attacker, a destroyed
    card's owner were NULL)."""
    _, con = mixed
    rows = con.execute("""SELECT e.type, e.seat, e.payload->>'attacker', e.payload->>'owner'
                          FROM events e JOIN matches m USING (match_id)
                          WHERE m.game = 'sow' AND e.type IN ('PlayerBesieged', 'SiegeStepBegan',
                                                              'CardDestroyed')""").fetchall()
    assert {r[0] for r in rows} == {"PlayerBesieged", "SiegeStepBegan", "CardDestroyed"}
    for kind, seat, attacker, owner in rows:
        assert seat == (owner if kind == "CardDestroyed" else attacker) and seat in ("A", "B")


def _taken_back_sow_match(tmp_path, to_seq_of) -> duckdb.DuckDBPyConnection:
    """One State of Wonder match (seed 4: its initiative is tossed) with a judge's take-back
    to the seq ``to_seq_of(stored)`` appended after its end, ingested."""
    from ledger.events import TakenBack

    store = FileStore(tmp_path / "store")
    played = game("sow")
    pool = played.default_cards()
    list(simulate_matches(store, pool, played.sample_decks(pool), 1, seed=4, prefix="s",
                          game_name="sow"))
    stored = list(store.read("s-0001"))
    store.append("s-0001", [TakenBack(to_seq=to_seq_of(stored), reason="misplayed")],
                 len(stored))
    report = ingest(tmp_path / "store", tmp_path / "w.duckdb", {})
    assert not report.problems and report.new == 1
    return connect(tmp_path / "w.duckdb", read_only=True)


def test_a_state_of_wonder_end_taken_back_has_no_end_time(tmp_path):
    """A take-back to before ``MatchEnded`` leaves the match in progress: ``ended`` false and
    ``ended_at`` NULL, as for Wonders of The First (it was the retracted end's time)."""
    con = _taken_back_sow_match(tmp_path, lambda stored: stored[-1].seq - 1)
    try:
        assert con.execute("SELECT ended, ended_at, winner_seat, takebacks FROM matches") \
            .fetchone() == (False, None, None, 1)
    finally:
        con.close()


def test_a_state_of_wonder_initiative_toss_taken_back_has_no_coin_winner(tmp_path):
    """``coin_winner`` comes from the events in force: a toss a take-back retracted won
    nothing (it was still the retracted toss's winner)."""
    def before_toss(stored):
        return next(item.seq for item in stored
                    if type(item.event).__name__ == "InitiativeTossed") - 1

    con = _taken_back_sow_match(tmp_path, before_toss)
    try:
        assert con.execute("SELECT coin_winner, first_seat, ended FROM matches").fetchone() == \
            (None, None, False)
    finally:
        con.close()


def test_rulesets_gives_state_of_wonder_no_stones_or_wonders_battles(mixed):
    """``rulesets``' stones and battle columns are Wonders of The First's (its ``battles`` and
    ``seizures`` tables): a State of Wonder ruleset has none of them (None), not 0 battles
    per match and a 0% stones finish (its matches fight pitched battles: ``sow_battles``)."""
    _, con = mixed
    rows = {r["ruleset"]: r for r in stats.compute(con, "rulesets", stats.Filters()).records()}
    sow_rulesets = {r[0] for r in con.execute(
        "SELECT DISTINCT ruleset FROM matches WHERE game = 'sow'").fetchall()}
    assert sow_rulesets and con.execute("SELECT count(*) FROM sow_battles").fetchone()[0] > 0
    wonders_only = ("stones_finish_rate", "battles_per_match", "seizures_per_match", "battles",
                    "attacker_wr", "attacker_wr_low", "attacker_wr_high")
    for ruleset, row in rows.items():
        if ruleset in sow_rulesets:
            assert all(row[c] is None for c in wonders_only), row
            assert row["matches"] == 6 and row["first_games"] == 6
        else:
            assert row["battles"] > 0 and row["battles_per_match"] > 0
            assert row["stones_finish_rate"] is not None
