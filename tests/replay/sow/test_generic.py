"""State of Wonder through the generic machinery: the simulator and recorder write it, the
replayer re-derives it (golden files included) and seeks any seq, GAME runs its cases."""

from __future__ import annotations

import random
from pathlib import Path

import msgspec

from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.simulate import play_match
from replay.sow import GAME
from replay.sow.evolve import encoded, fold
from replay.sow.simulate import open_match
from tests.replay.sow.helpers import deck_pair, pool
from tests.replay.sow.test_golden import golden_dir


def test_simulated_through_the_recorder_and_replayed(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    opened = open_match("generic-1", deck_pair(4), pool())
    play_match(store, pool(), opened, 4, ("greedy", "random"))
    stored = list(store.read("generic-1"))
    assert stored[-1].event.__class__.__name__ == "MatchEnded"
    replay = Replay(stored, pool())
    events = [s.event for s in stored[1:]]
    for seq in (1, len(events) // 2, len(events)):
        state = replay.state_at(seq)
        assert encoded(state) == encoded(fold(stored[0].event, events[:seq]))  # type: ignore[arg-type]


def test_golden_files_replay_through_the_generic_replayer() -> None:
    for path in sorted(golden_dir().glob("*.jsonl")):
        stored = list(FileStore.read_file(path))
        replay = Replay(stored, pool())
        assert len(replay) == len(stored)
        last = replay.state_at(len(stored) - 1)
        assert last.over


def test_game_runs_its_conformance_cases() -> None:
    outcomes = list(GAME.conformance(()))
    assert len(outcomes) >= 60 and all(o.passed for o in outcomes), \
        [o.line() for o in outcomes if not o.passed]


def test_freeze_thaw_and_resume_at_a_turn_prompt() -> None:
    opened = open_match("resume", deck_pair(6), pool())
    engine = GAME.rules(opened, pool())
    engine.start()
    while engine.prompt is not None and engine.prompt.seat == "chance":
        engine.decide(GAME.answer_chance(engine.prompt, random.Random(1)))
    assert engine.prompt is not None and engine.prompt.kind == "turn"
    again = GAME.resume(GAME.thaw(GAME.freeze(engine.state)), GAME.cards_of(engine))
    assert again.start() == [] and again.prompt == engine.prompt
    assert msgspec.json.encode(GAME.clone(engine.state)) == msgspec.json.encode(engine.state)
