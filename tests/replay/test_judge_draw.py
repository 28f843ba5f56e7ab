"""A judge's draw in Wonders of The First (docs/rulings.md R45): ``DrawGiven`` -- agreed by
both players, or at time -- ends the match at any prompt with no winner, ``MatchEnded``
giving the kind of draw as its reason and the stones as they stand; the record re-derives,
and like every ending it is final (no take-back reopens it)."""

from __future__ import annotations

import random

import pytest

from ledger import FileStore
from ledger.events import DrawGiven, MatchEnded
from replay.errors import IllegalDecisionError
from replay.recorder import Recorder
from replay.replayer import Replay
from replay.wotf.bots import RandomBot, answer_chance
from replay.wotf.engine import Engine
from replay.wotf.events import Answered, Passed
from replay.wotf.narrate import narrate
from tests.replay.helpers import opened, small_db

DB = small_db()


def _played(tmp_path, decisions: int = 12) -> Recorder:
    """A match recorded into a file store, ``decisions`` seat decisions in (bots)."""
    recorder = Recorder.open(FileStore(tmp_path), DB, opened(), rng=random.Random(3))
    bot = RandomBot(random.Random(3))
    for _ in range(decisions):
        recorder.submit(bot.decide(recorder.engine))
    assert not recorder.engine.state.over
    return recorder


@pytest.mark.parametrize("kind", ["agreed", "time"])
def test_a_judges_draw_ends_the_match_with_no_winner_and_re_derives(tmp_path, kind):
    recorder = _played(tmp_path)
    stones = {seat: recorder.engine.view.stones_of(seat) for seat in ("A", "B")}
    stored = recorder.give_draw(kind, "round 3 time called", "Jo")
    assert [s.event for s in stored] == [DrawGiven(kind, "round 3 time called", "Jo"),
                                         MatchEnded(None, kind, stones)]
    state = recorder.engine.state
    assert state.over and state.winner is None and state.reason == kind
    assert recorder.engine.prompt is None
    replay = Replay(list(FileStore(tmp_path).read("m-test")), DB)  # fed like a concession
    assert replay.engine.state.over and replay.engine.state.reason == kind
    assert replay.engine.state.winner is None


def test_a_draw_is_taken_at_the_other_seats_prompt_and_at_set_up():
    engine = Engine.for_match(opened(), DB)
    engine.start()
    assert engine.prompt.kind == "chance"  # the coin flip: nothing played yet
    out = engine.decide(DrawGiven("time"))
    assert out[-1] == MatchEnded(None, "time", {"A": 0, "B": 0})
    engine = Engine.for_match(opened(), DB)
    engine.start()
    while engine.prompt.kind != "turn":
        prompt = engine.prompt
        if prompt.kind == "chance":
            engine.decide(answer_chance(prompt, random.Random(1)))
        else:
            engine.decide(Answered(prompt.seat, prompt.kind,
                                   [] if prompt.kind == "mulligan" else prompt.options[0]))
    assert engine.prompt.seat == "A"
    out = engine.decide(DrawGiven("agreed"))  # no seat's prompt: the judge's word
    assert out[0] == DrawGiven("agreed") and out[-1].winner is None


def test_nothing_follows_a_draw_and_its_record_is_final(tmp_path):
    recorder = _played(tmp_path)
    recorder.give_draw("agreed")
    before = (tmp_path / "m-test.jsonl").read_bytes()
    with pytest.raises(IllegalDecisionError, match="the match is over"):
        recorder.submit(Passed("A"))
    with pytest.raises(IllegalDecisionError, match="the match is over"):
        recorder.give_draw("time")
    with pytest.raises(IllegalDecisionError, match=r"has ended \(agreed\); its record is final"):
        recorder.take_back(3)
    assert (tmp_path / "m-test.jsonl").read_bytes() == before


def test_a_draw_narrates_the_judge_and_the_kind():
    names = {"A": "Ann", "B": "Bob"}
    assert narrate(DrawGiven("agreed"), players=names) == \
        "The judge records a draw: Ann and Bob agree to it"
    assert narrate(DrawGiven("time", "round 3", "Jo"), players=names) == \
        "Judge Jo records a draw at time: the round's time ran out with the match unfinished " \
        "(round 3)"
    assert narrate(MatchEnded(None, "agreed", {"A": 2, "B": 1}), players=names) == \
        "The match ends in an agreed draw (Ann 2 – Bob 1)"
    assert narrate(MatchEnded(None, "time", {}), players=names) == \
        "The match ends in a draw at time"
