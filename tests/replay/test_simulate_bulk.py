"""Simulation's bulk mode: each finished match written durably at once, the same bytes.

``simulate_matches(..., bulk=True)`` records a match in memory (:class:`ledger.buffered.MatchBuffer`)
and writes the finished file with the store's ``import_lines``; the files must be byte for
byte those the batch-by-batch simulation writes, for both games and for a tournament, and
must verify.
"""

import pytest

from ledger.buffered import MatchBuffer
from ledger.errors import ConflictError, MatchNotFoundError
from ledger.filestore import FileStore
from replay.games import game
from replay.replayer import Replay
from replay.simulate import simulate_matches, simulate_tournament


@pytest.mark.parametrize("name", ["wotf", "sow"])
def test_bulk_simulation_writes_the_same_bytes(tmp_path, name):
    played = game(name)
    db = played.default_cards()
    decks = played.sample_decks(db)
    one, bulk = FileStore(tmp_path / "batches"), FileStore(tmp_path / "bulk")
    ids = [o.match_id for o in simulate_matches(one, db, decks, 3, seed=4, bots=("greedy", "random"),
                                                 game_name=name)]
    bulk_ids = [o.match_id for o in simulate_matches(bulk, db, decks, 3, seed=4,
                                                      bots=("greedy", "random"), game_name=name,
                                                      bulk=True)]
    assert ids == bulk_ids == bulk.ids()
    for mid in ids:
        data = bulk.path(mid).read_bytes()
        assert data == one.path(mid).read_bytes()
        assert data.count(b"\n") > 50
        assert Replay(list(bulk.read(mid)), db).engine.state.over


def test_bulk_tournament_writes_the_same_bytes(tmp_path):
    played = game("wotf")
    db = played.default_cards()
    decks = played.sample_decks(db)
    one, bulk = FileStore(tmp_path / "batches"), FileStore(tmp_path / "bulk")
    ids = [o.match_id for o in simulate_tournament(one, db, decks, "Cup", 4, 2, seed=9)]
    bulk_ids = [o.match_id for o in simulate_tournament(bulk, db, decks, "Cup", 4, 2, seed=9,
                                                         bulk=True)]
    assert ids == bulk_ids and len(ids) == 4
    for mid in ids:
        assert bulk.path(mid).read_bytes() == one.path(mid).read_bytes()


def test_a_bulk_match_is_refused_where_one_exists_and_nothing_is_lost(tmp_path):
    played = game("wotf")
    db = played.default_cards()
    decks = played.sample_decks(db)
    store = FileStore(tmp_path)
    list(simulate_matches(store, db, decks, 1, seed=4))
    before = store.path("m-0001").read_bytes()
    with pytest.raises(ConflictError, match="already exists"):
        list(simulate_matches(store, db, decks, 1, seed=5, bulk=True))
    assert store.path("m-0001").read_bytes() == before


def test_a_buffer_holds_one_match_and_reads_back_its_chain(tmp_path):
    played = game("wotf")
    db = played.default_cards()
    decks = played.sample_decks(db)
    store = FileStore(tmp_path)
    opened = next(simulate_matches(store, db, decks, 1, seed=4))
    buffer = MatchBuffer()
    events = list(store.read(opened.match_id))
    buffer.create(events[0].event, at=events[0].at)
    with pytest.raises(ConflictError, match="holds one match"):
        buffer.create(events[0].event)
    with pytest.raises(MatchNotFoundError, match="no match 'other'"):
        buffer.head("other")
    batch = [s for s in events[1:] if s.batch == events[1].batch]
    stored = buffer.append(opened.match_id, [s.event for s in batch], 1, at=batch[0].at)
    assert [s.hash for s in stored] == [s.hash for s in batch]
    with pytest.raises(ConflictError, match="expected seq 1"):
        buffer.append(opened.match_id, [batch[0].event], 1)
    assert [s.seq for s in buffer.read(opened.match_id, 2)] == list(range(2, 1 + len(batch)))
    head = buffer.head(opened.match_id)
    assert head.length == 1 + len(batch)
    assert head.size == len(buffer.export_lines(opened.match_id))
