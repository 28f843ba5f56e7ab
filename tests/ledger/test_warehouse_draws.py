"""A judge's draw in the warehouse (docs/analytics.md): a match of each game recorded into a real
file store and ended by ``DrawGiven`` is ingested as ended, with no winner, its reason (``time``,
``agreed``) and a ``draw`` for both players; the ``endings`` statistic counts it."""

from __future__ import annotations

import random

from ledger import stats
from ledger.filestore import FileStore
from ledger.warehouse import connect, ingest
from replay.recorder import Recorder
from replay.sow.bots import BOTS
from replay.sow.simulate import open_match
from replay.wotf.bots import RandomBot
from tests.replay.helpers import opened, small_db
from tests.replay.sow.helpers import deck_pair, pool


def test_a_judges_draw_is_an_ended_match_without_a_winner(tmp_path):
    store = FileStore(tmp_path / "store")
    wotf = Recorder.open(store, small_db(), opened(), rng=random.Random(2))
    bot = RandomBot(random.Random(2))
    for _ in range(8):
        wotf.submit(bot.decide(wotf.engine))
    wotf.give_draw("time")
    sow = Recorder.open(store, pool(), open_match("sow-draw", deck_pair(2), pool()),
                        rng=random.Random(2))
    sow_bot = BOTS["random"](random.Random(2))
    for _ in range(8):
        sow.submit(sow_bot.decide(sow.engine, sow.engine.prompt))
    sow.give_draw("agreed")
    db = tmp_path / "w.duckdb"
    report = ingest(tmp_path / "store", db, {})
    assert not report.problems and report.new == 2
    con = connect(db, read_only=True)
    try:
        rows = con.execute("SELECT match_id, ended, winner_seat, reason FROM matches "
                           "ORDER BY match_id").fetchall()
        assert rows == [("m-test", True, None, "time"), ("sow-draw", True, None, "agreed")]
        assert con.execute("SELECT DISTINCT result FROM players").fetchall() == [("draw",)]
        endings = stats.compute(con, "endings", stats.Filters())
        assert sorted(endings.rows) == [("sow", "agreed", 1, 1.0), ("wotf", "time", 1, 1.0)]
    finally:
        con.close()
