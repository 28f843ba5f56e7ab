"""The procedure's two primitives and the outcomes that end a match (``replay.sow.flow``):
``ask`` answers a prompt with one legal answer itself (DESIGN.md section 3), ``emit`` applies
and records; a Wonder or Hero reaching its target and a State destroyed end the match."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.events import Event, MatchEnded
from replay.prompts import Choose, Prompt
from replay.sow.events import MainPassed, Picked, ProgressAdded, StateLost
from replay.sow.flow import Flow, MatchOver, Steps
from tests.replay.sow.positions import engine_at, position


def flow() -> Flow:
    state, cards = position({"B": {"state": "Ironhold"},
                             "cards": [{"id": "a1", "card": "Colossus", "area": "buildings",
                                        "progress": 5},
                                       {"id": "b1", "card": "Wandering Sage", "area": "units",
                                        "progress": 8}]}, "flow")
    return Flow(cards, state)


def answered(steps: Steps) -> Any:
    """What ``ask`` returns when it does not wait (a prompt with one legal answer)."""
    with pytest.raises(StopIteration) as stop:
        next(steps)
    return stop.value.value


def test_one_legal_answer_is_taken_without_asking() -> None:
    f = flow()
    assert answered(f.ask(Prompt("A", "turn", options=[MainPassed("A")]))) == MainPassed("A")
    assert answered(f.ask(Prompt("B", "retreat", options=["stay"]))) == \
        Picked("B", "retreat", "stay")
    assert answered(f.ask(Prompt("A", "attackers", choose=Choose([], 0, 0)))) == \
        Picked("A", "attackers", [])
    assert answered(f.ask(Prompt("B", "defenders", choose=Choose(["b1"], 0, 0)))) == \
        Picked("B", "defenders", [])
    assert f.out == []  # nothing recorded


@pytest.mark.parametrize("prompt", [
    Prompt("A", "retreat", options=["stay", "retreat"]),
    Prompt("A", "attackers", choose=Choose(["a1"], 0, 1)),
    Prompt("A", "attackers", choose=Choose(["a1", "a2"], 0, 2)),
])
def test_a_choice_waits_for_the_answer(prompt: Prompt) -> None:
    steps = flow().ask(prompt)
    assert next(steps) == prompt
    with pytest.raises(StopIteration) as stop:
        steps.send(Picked("A", prompt.kind, "x"))
    assert stop.value.value == Picked("A", prompt.kind, "x")


def test_emit_applies_records_and_reports() -> None:
    f = flow()
    heard: list[Event] = []
    f.on_emit = heard.append
    event = ProgressAdded("a1", "Colossus", 1, 6)
    f.emit(event)
    assert f.out == [event] and heard == [event] and f.state.cards["a1"].progress == 6


def test_progress_below_the_target_goes_on() -> None:
    f = flow()
    f.add_progress("a1", 1)
    assert f.out == [ProgressAdded("a1", "Colossus", 1, 6)] and not f.state.over


@pytest.mark.parametrize(("card", "amount", "ended"), [
    # "If a wonder ever reaches its target, the player controlling it wins the game."
    ("a1", 2, [ProgressAdded("a1", "Colossus", 2, 7), MatchEnded("A", "progress")]),
    # "If a Hero ever reaches its target, the player controlling it wins the game."
    ("b1", 1, [ProgressAdded("b1", "Wandering Sage", 1, 9), MatchEnded("B", "progress")]),
    ("b1", 3, [ProgressAdded("b1", "Wandering Sage", 3, 11), MatchEnded("B", "progress")]),
])
def test_reaching_the_target_wins(card: str, amount: int, ended: list[Event]) -> None:
    f = flow()
    with pytest.raises(MatchOver):
        f.add_progress(card, amount)
    assert f.out == ended
    assert (f.state.over, f.state.winner, f.state.reason) == (True, ended[1].winner, "progress")  # type: ignore[attr-defined]


def test_a_destroyed_state_loses() -> None:
    """"when all other players have lost their State card (i.e. it has been destroyed by
    damage)" -- with two players, the other player wins at once."""
    f = flow()
    with pytest.raises(MatchOver):
        f.lose_state("B", "B-S")
    assert f.out == [StateLost("B", "B-S", "Ironhold"), MatchEnded("A", "state_destroyed")]
    assert (f.state.over, f.state.winner) == (True, "A")


def test_an_engine_not_started_has_no_prompt() -> None:
    engine, _ = engine_at({}, "not started")
    assert engine.prompt is None and engine.out == [] and engine.on_emit is None
    assert engine.check(MainPassed("A")) == "the match is over"
