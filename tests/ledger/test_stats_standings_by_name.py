"""``standings`` of matches without a ``tournament_id`` (one created with a tournament's name
under its own id) rank by the tournament's name: the same standings as by the id, with a NULL
``tournament_id`` -- none dropped by a join on the NULL id."""

from __future__ import annotations

import duckdb

from ledger import stats
from ledger.filestore import FileStore
from ledger.warehouse import ingest
from replay.simulate import simulate_tournament
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from web.cli_analytics import card_facts


def test_standings_fall_back_to_the_name_for_matches_without_a_tournament_id(tmp_path):
    store = FileStore(tmp_path / "store")
    cards = default_cards()
    list(simulate_tournament(store, cards, load_decks(None, cards), "Club Night", 6, 2, seed=5))
    db = tmp_path / "w.duckdb"
    assert not ingest(tmp_path / "store", db, card_facts()).problems
    con = duckdb.connect(str(db))
    try:
        by_id = stats.compute(con, "standings", stats.Filters()).rows
        assert {row[-1] for row in by_id} == {"club-night"} and len(by_id) == 6
        con.execute("UPDATE matches SET tournament_id = NULL")  # as if named otherwise
        by_name = stats.compute(con, "standings", stats.Filters()).rows
    finally:
        con.close()
    assert by_name == [(*row[:-1], None) for row in by_id]
