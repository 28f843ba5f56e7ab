"""Annotations in the log (issue 18, item 4): an ``Annotated`` event changes nothing in the game,
so the recorder appends it after ``MatchEnded`` too and the file still re-derives, folds and
verifies; a seat annotates only once the match has ended; a note is about an earlier seq."""

import random

import pytest

from ledger import FileStore
from ledger.events import Annotated
from replay.errors import IllegalDecisionError
from replay.recorder import Recorder
from replay.replayer import Replay
from replay.timeline import Timeline
from replay.verify import verify_file
from replay.wotf.bots import RandomBot
from replay.wotf.state import state_hash
from tests.replay.helpers import opened, small_db

DB = small_db()


def test_a_note_after_the_end_keeps_the_chain_and_the_result(tmp_path):
    store = FileStore(tmp_path)
    recorder = Recorder.open(store, DB, opened(), rng=random.Random(5))
    with pytest.raises(IllegalDecisionError, match="once the match has ended"):
        recorder.annotate(1, "A", "Ann", "my hand is great")  # a live seat: refused
    recorder.annotate(1, "judge", "Judge", "set-up checked")  # the judge may, live
    bot = RandomBot(random.Random(2))
    while not recorder.engine.state.over:
        recorder.submit(bot.decide(recorder.engine))
    ended = Replay(list(store.read("m-test")), DB)
    with pytest.raises(IllegalDecisionError, match=r"outside 0\.\."):
        recorder.annotate(len(ended), "A", "Ann", "the future")
    recorder.annotate(3, "A", "Ann", "I should have mulliganed")
    events = list(store.read("m-test"))
    assert isinstance(events[-1].event, Annotated) and events[-1].prev == events[-2].hash
    assert type(events[-2].event).__name__ == "MatchEnded"
    replay = Replay(events, DB)  # re-derived: the note is passed by, not fed to the engine
    assert state_hash(replay.engine.state) == state_hash(ended.engine.state)
    timeline = Timeline(events)  # folded: every game's evolve ignores it
    assert state_hash(timeline.state) == state_hash(ended.engine.state)
    report = verify_file(tmp_path / "m-test.jsonl", DB)
    assert report.ok and ("wins" in report.message or "draw" in report.message), report.message
