"""A match with many take-backs in close succession (a judge undoing a decision, the seat
deciding again, the judge undoing again -- "twice in a row", "to the same seq twice") reads in
work linear in its events: reading it, the board at any seq and the recorder's next take-back.
The work is counted, not timed: the decisions fed to the engine (``Replay._feed``) and the
events folded (the game's ``evolve``), each bounded by the match's length per read or seek.

Seeking the state at a seq restored every take-back between the nearest snapshot and that seq,
each by seeking its own ``to_seq`` -- which restored every take-back before *it* again: the work
doubled with each take-back.  Thirteen take-backs in a 165-event match (a judge and a seat
racing through a live server) took 50-100 s to verify and 2 s to fold; every take-back, every
server start on the match and every ``wonders verify`` paid it.  Only the last take-back before a
seq counts, so a seek now restores that one alone.
"""

from __future__ import annotations

import random

import pytest

from ledger import FileStore
from replay.recorder import Recorder
from replay.replayer import NO_SNAPSHOTS, Replay
from replay.timeline import Timeline
from replay.wotf.bots import RandomBot
from replay.wotf.evolve import fold
from tests.replay.helpers import opened, small_db

DB = small_db()
TAKE_BACKS = 14


@pytest.fixture
def work(monkeypatch):
    """Counts of the work done: ``feeds`` (decisions fed to the engine by a replay) and
    ``folds`` (events folded by the game's ``evolve``), by the real functions."""
    done = {"feeds": 0, "folds": 0}
    feed, game = Replay._feed, type(Replay([opened()], DB).game)
    evolve = game.evolve

    def counted_feed(self, *args):
        done["feeds"] += 1
        return feed(self, *args)

    def counted_evolve(self, *args):
        done["folds"] += 1
        return evolve(self, *args)

    monkeypatch.setattr(Replay, "_feed", counted_feed)
    monkeypatch.setattr(game, "evolve", counted_evolve)
    return done


def _chained(tmp_path, work):
    """Decide, decide, take the last decision back -- again and again: each take-back returns
    to a seq after the one before it, and re-derives the match at most once (before the fix,
    twice the work of the take-back before it)."""
    store = FileStore(tmp_path)
    recorder = Recorder.open(store, DB, opened(), rng=random.Random(11))
    bot = RandomBot(random.Random(12))
    backs = 0
    while backs < TAKE_BACKS:
        assert not recorder.engine.state.over
        recorder.submit(bot.decide(recorder.engine))
        before = recorder.length - 1
        recorder.submit(bot.decide(recorder.engine))
        fed = work["feeds"]
        recorder.take_back(before, "judge", "again")
        assert work["feeds"] - fed <= recorder.length, f"take-back {backs + 1}"
        backs += 1
    return list(store.read("m-test"))


def test_many_take_backs_in_a_row_read_in_linear_work_and_every_board_is_the_fold(tmp_path,
                                                                                  work):
    stored = _chained(tmp_path, work)
    fed, folded = work["feeds"], work["folds"]
    replay = Replay(stored, DB)
    verified = Replay(stored, DB, NO_SNAPSHOTS)
    timeline = Timeline(stored, every=5)
    assert work["feeds"] - fed <= 2 * len(stored)  # each replay feeds each decision once
    assert work["folds"] - folded <= 3 * len(stored)
    events = [item.event for item in stored]
    game = replay.game
    for seq in range(len(stored)):
        expected = game.freeze(fold(events, seq))
        fed, folded = work["feeds"], work["folds"]
        assert game.freeze(timeline.state_at(seq)) == expected, seq
        assert game.freeze(replay.state_at(seq)) == expected, seq
        assert game.freeze(verified.state_at(seq)) == expected, seq
        # a seek re-derives or folds the match at most once, whatever the take-backs before it
        assert work["folds"] - folded <= len(stored), seq
        assert work["feeds"] - fed <= 2 * len(stored), seq


def _marks(index):
    return index.rounds, index.turns, index.places, index.round_starts


def test_the_index_is_worked_out_when_read_and_is_the_fold_s(tmp_path, work, monkeypatch):
    """Re-deriving a match builds no index (``wonders verify`` never reads one): it is worked
    out of the segments when first read, take-backs included, and is then the index the fold
    keeps (:class:`Timeline`); a live match's later events join it at the next read."""
    stored = _chained(tmp_path, work)
    game = type(Replay([opened()], DB).game)
    addressed = {"events": 0}
    address = game.address

    def counted_address(self, event):
        addressed["events"] += 1
        return address(self, event)

    monkeypatch.setattr(game, "address", counted_address)
    replay = Replay(stored, DB)
    cut = next(s.end for s in replay.segments if s.end >= len(stored) // 2) + 1  # a batch's end
    live = Replay(stored[:cut], DB)
    assert addressed["events"] == 0  # re-derived, not indexed
    timeline = Timeline(stored)
    assert _marks(replay.index) == _marks(timeline.index) and replay.index.turns
    halfway = _marks(live.index)
    assert halfway != _marks(timeline.index)
    live.extend(stored[cut:])
    assert _marks(live.index) == _marks(timeline.index)
    counted = addressed["events"]
    assert _marks(replay.index) == _marks(timeline.index)
    assert addressed["events"] == counted  # read again: nothing new to index
