"""A match with many take-backs in close succession (a judge undoing a decision, the seat
deciding again, the judge undoing again -- "twice in a row", "to the same seq twice") reads in
time linear in its events: reading it, the board at any seq and the recorder's next take-back.

Seeking the state at a seq restored every take-back between the nearest snapshot and that seq,
each by seeking its own ``to_seq`` -- which restored every take-back before *it* again: the work
doubled with each take-back.  Thirteen take-backs in a 165-event match (a judge and a seat
racing through a live server) took 50-100 s to verify and 2 s to fold; every take-back, every
server start on the match and every ``wonders verify`` paid it.  Only the last take-back before a
seq counts, so a seek now restores that one alone.
"""

from __future__ import annotations

import random
import time

from ledger import FileStore
from replay.recorder import Recorder
from replay.replayer import NO_SNAPSHOTS, Replay
from replay.timeline import Timeline
from replay.wotf.bots import RandomBot
from replay.wotf.evolve import fold
from tests.replay.helpers import opened, small_db

DB = small_db()
TAKE_BACKS = 14


def _chained(tmp_path):
    """Decide, decide, take the last decision back -- again and again: each take-back returns
    to a seq after the one before it."""
    store = FileStore(tmp_path)
    recorder = Recorder.open(store, DB, opened(), rng=random.Random(11))
    bot = RandomBot(random.Random(12))
    backs = 0
    while backs < TAKE_BACKS:
        assert not recorder.engine.state.over
        recorder.submit(bot.decide(recorder.engine))
        before = recorder.length - 1
        recorder.submit(bot.decide(recorder.engine))
        started = time.perf_counter()
        recorder.take_back(before, "judge", "again")
        assert time.perf_counter() - started < 5, f"take-back {backs + 1} took too long"
        backs += 1
    return list(store.read("m-test"))


def test_many_take_backs_in_a_row_read_in_linear_time_and_every_board_is_the_fold(tmp_path):
    stored = _chained(tmp_path)
    started = time.perf_counter()
    replay = Replay(stored, DB)
    verified = Replay(stored, DB, NO_SNAPSHOTS)
    timeline = Timeline(stored, every=5)
    assert time.perf_counter() - started < 10
    events = [item.event for item in stored]
    game = replay.game
    for seq in range(len(stored)):
        expected = game.freeze(fold(events, seq))
        assert game.freeze(timeline.state_at(seq)) == expected, seq
        assert game.freeze(replay.state_at(seq)) == expected, seq
        assert game.freeze(verified.state_at(seq)) == expected, seq
