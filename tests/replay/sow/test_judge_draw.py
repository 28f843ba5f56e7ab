"""A judge's draw in State of Wonder (docs/rulings-sow.md R26): ``DrawGiven`` -- agreed by both
players, or at time -- ends the match at any prompt with no winner and the kind of draw as
the reason of its ``MatchEnded``; the record, written to a real file store, re-derives
(``rederive`` and the replayer feed it like a concession), and its record is final."""

from __future__ import annotations

import random
from pathlib import Path

import msgspec
import pytest

from ledger.events import DrawGiven, MatchEnded
from ledger.filestore import FileStore
from replay.errors import IllegalDecisionError
from replay.recorder import Recorder
from replay.replayer import Replay
from replay.sow.bots import BOTS
from replay.sow.narrate import narrate
from replay.sow.simulate import open_match, rederive
from tests.replay.sow.helpers import deck_pair, pool


def _played(tmp_path: Path, decisions: int = 10) -> Recorder:
    opened = open_match("sow-draw", deck_pair(4), pool())
    recorder = Recorder.open(FileStore(tmp_path), pool(), opened, rng=random.Random(4))
    bot = BOTS["random"](random.Random(4))
    for _ in range(decisions):
        recorder.submit(bot.decide(recorder.engine, recorder.engine.prompt))
    assert not recorder.engine.state.over
    return recorder


@pytest.mark.parametrize("kind", ["agreed", "time"])
def test_a_judges_draw_ends_the_match_with_no_winner_and_re_derives(tmp_path: Path,
                                                                     kind: str) -> None:
    recorder = _played(tmp_path)
    stored = recorder.give_draw(kind, "table 4", "Jo")  # type: ignore[arg-type]
    assert [s.event for s in stored] == [DrawGiven(kind, "table 4", "Jo"),  # type: ignore[arg-type]
                                         MatchEnded(None, kind)]
    state = recorder.engine.state
    assert state.over and state.winner is None and state.reason == kind
    assert recorder.engine.prompt is None
    events = [s.event for s in FileStore(tmp_path).read("sow-draw")]
    again, engine = rederive(events[0], events[1:], pool())  # type: ignore[arg-type]
    assert msgspec.json.encode(again) == msgspec.json.encode(events[1:])
    assert engine.state.reason == kind and engine.state.winner is None
    replay = Replay(list(FileStore(tmp_path).read("sow-draw")), pool())
    assert replay.engine.state.over and replay.engine.state.reason == kind


def test_nothing_follows_a_draw_and_its_record_is_final(tmp_path: Path) -> None:
    recorder = _played(tmp_path)
    recorder.give_draw("time")
    path = tmp_path / "sow-draw.jsonl"
    before = path.read_bytes()
    with pytest.raises(IllegalDecisionError, match="DrawGiven by the judge: the match is over"):
        recorder.give_draw("agreed")
    with pytest.raises(IllegalDecisionError, match=r"has ended \(time\); its record is final"):
        recorder.take_back(5)
    assert path.read_bytes() == before


def test_a_draw_narrates_the_judge_and_the_kind() -> None:
    players = {"A": "Ann", "B": "Bob"}
    assert narrate(DrawGiven("agreed"), {}, players) == \
        "The judge records a draw: Ann and Bob agree to it."
    assert narrate(DrawGiven("time", "round 2", "Jo"), {}, players) == \
        "Judge Jo records a draw at time: the round's time ran out with the match unfinished " \
        "(round 2)."
    assert narrate(MatchEnded(None, "agreed"), {}, players) == "The match ends in an agreed draw."
    assert narrate(MatchEnded(None, "time"), {}, players) == "The match ends in a draw at time."
    assert narrate(MatchEnded(None, "turn_limit"), {}, players) == \
        "The match ends in a draw (turn limit)."  # the rules' own draw reads as before
