"""A replay's seek snapshots: spaced by events (a seek re-runs a bounded number of them), they
give the same state at every seq as re-deriving from set-up, for both games; and they are small
(``snapshot_kb_per_match``)."""

import gc
from itertools import pairwise

import pytest

from ledger.filestore import FileStore
from replay.games import game
from replay.replayer import SNAPSHOT_EVERY, Replay
from replay.simulate import simulate_matches


def simulated(tmp_path, name):
    """A game, its default cards, and the log of one match it simulated (seed 21)."""
    played = game(name)
    db = played.default_cards()
    store = FileStore(tmp_path)
    opened = next(simulate_matches(store, db, played.sample_decks(db), 1, seed=21,
                                   game_name=name))
    return played, db, list(store.read(opened.match_id))


@pytest.mark.parametrize("name", ["wotf", "sow"])
def test_every_seq_seeks_to_the_state_set_up_re_derives(tmp_path, name):
    played, db, log = simulated(tmp_path, name)
    replay = Replay(log, db, snapshot_every=20)  # denser than the default: more to compare
    from_setup = Replay(log, db, snapshot_every=10**9)  # no snapshot: seeks start at set-up
    assert len(replay.snapshots) > 5 and list(from_setup.snapshots) == []
    for seq in range(len(log)):
        assert played.freeze(replay.state_at(seq)) == played.freeze(from_setup.state_at(seq)), seq


@pytest.mark.parametrize("name", ["wotf", "sow"])
def test_snapshots_are_spaced_by_events_and_thaw_to_the_state_at_their_seq(tmp_path, name):
    played, db, log = simulated(tmp_path, name)
    replay = Replay(log, db)
    # set-up is where seeks start from below the first snapshot, but it is not frozen: a seek
    # from it starts a new engine from MatchOpened, as the re-derivation did
    assert 0 not in replay.snapshots and replay.snapshots
    keys = [0, *sorted(replay.snapshots)]
    # at least SNAPSHOT_EVERY events apart, and never much more: the first turn prompt after
    assert all(later - earlier >= SNAPSHOT_EVERY for earlier, later in pairwise(keys))
    prompts = {s.end: replay.engine_after(s.end).prompt for s in replay.segments}
    turn_ends = [end for end, prompt in prompts.items() if prompt is not None and prompt.kind == "turn"]
    for earlier, later in pairwise(keys):
        first_due = min(end for end in turn_ends if end - earlier >= SNAPSHOT_EVERY)
        assert later == first_due, (earlier, later)
    for seq in keys[1:]:
        assert played.freeze(played.thaw(replay.snapshots[seq])) == \
            played.freeze(Replay(log[:seq + 1], db).engine.state)
    assert sum(map(len, replay.snapshots.values())) < 300 * 1024  # snapshot_kb_per_match


@pytest.mark.parametrize("name", ["wotf", "sow"])
def test_a_seek_leaves_nothing_for_the_garbage_collector(tmp_path, name):
    """A seek's engine is closed once it has reached the state (``Rules.close``): it and its
    state are freed by reference counting, not left as a cycle the collector must find (the
    collections that garbage set off were a held replay's slowest seeks).  A replay's
    segments and turn marks are not tracked at all."""
    played, db, log = simulated(tmp_path, name)
    replay = Replay(log, db)
    gc.collect()
    gc.disable()
    try:
        states = [replay.state_at(seq) for seq in (1, len(log) // 3, len(log) // 2 + 1, len(log) - 2)]
        assert gc.collect() == 0
    finally:
        gc.enable()
    from_setup = Replay(log, db, snapshot_every=10**9)
    assert played.freeze(states[-1]) == played.freeze(from_setup.state_at(len(log) - 2))
    assert not gc.is_tracked(replay.segments[0]) and not gc.is_tracked(replay.index.turns[0])
