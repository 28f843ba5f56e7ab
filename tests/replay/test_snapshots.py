"""A replay's seek snapshots: kept compressed, they give the same state at every seq as
re-deriving from set-up, for both games; and they are small (``snapshot_kb_per_match``)."""

import zlib

import pytest

from ledger.filestore import FileStore
from replay.games import game
from replay.replayer import Replay
from replay.simulate import simulate_matches


@pytest.mark.parametrize("name", ["wotf", "sow"])
def test_every_seq_seeks_to_the_state_set_up_re_derives(tmp_path, name):
    played = game(name)
    db = played.default_cards()
    store = FileStore(tmp_path)
    opened = next(simulate_matches(store, db, played.sample_decks(db), 1, seed=21, game_name=name))
    log = list(store.read(opened.match_id))
    replay = Replay(log, db)
    from_setup = Replay(log, db, snapshot_every=10**9)  # one snapshot: set-up
    assert len(replay.snapshots) > 5 and list(from_setup.snapshots) == [0]
    for seq in range(len(log)):
        assert played.freeze(replay.state_at(seq)) == played.freeze(from_setup.state_at(seq)), seq


def test_snapshots_are_compressed_and_expand_to_the_state_at_their_seq(tmp_path):
    played = game("wotf")
    db = played.default_cards()
    store = FileStore(tmp_path)
    opened = next(simulate_matches(store, db, played.sample_decks(db), 1, seed=21))
    replay = Replay(list(store.read(opened.match_id)), db)
    raw = 0
    for seq, data in replay.snapshots.items():
        frozen = zlib.decompress(data)
        raw += len(frozen)
        assert played.freeze(played.thaw(frozen)) == played.freeze(replay.state_at(seq))
    stored = sum(map(len, replay.snapshots.values()))
    assert stored * 4 < raw  # about 7:1 measured on the sample decks
    assert stored < 300 * 1024  # the target of snapshot_kb_per_match
