"""Rules revision 8 (issue 15, beyond its list): what a conformance case can't see -- how the
order prompt of one ability's triggers about different cards is labelled for the player, and
that the triggers whose effect doesn't depend on their card are not asked about."""

from __future__ import annotations

import tomllib
from pathlib import Path

from replay.wotf import conformance as C
from replay.wotf.api import prompt_view
from replay.wotf.cards import default_cards
from replay.wotf.engine import Engine

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "conformance" / "abilities"


def _run(name: str, steps: int | None = None, revision: int | None = None) -> Engine:
    data = tomllib.loads((CASES / f"{name}.toml").read_text(encoding="utf-8"))
    db = C._case_cards(data.get("cards", {}), default_cards())
    state = C.build_state(data["state"], data.get("rules", "1.3.2"), db)
    state.revision = revision or data.get("revision", 8)
    engine = Engine(db, state)
    engine.start()
    for index, step in enumerate(data["steps"][:steps], start=1):
        C._run_step(engine, step, index)
    return engine


def test_the_order_prompt_names_each_trigger_by_its_card_and_the_card_it_is_about():
    engine = _run("ab-whenever-defends", steps=1)
    prompt = engine.prompt
    assert prompt is not None and prompt.kind == "order" and prompt.seat == "B"
    assert prompt.choose is not None and sorted(prompt.choose.of) == ["bearer@bearer", "bearer@g"]
    view = prompt_view(engine, "B", lambda cid: cid)
    assert view is not None
    assert view["labels"] == {"bearer@bearer": "Shield Bearer, for Shield Bearer",
                              "bearer@g": "Shield Bearer, for Grunt"}


def test_at_revision_7_the_same_triggers_are_not_ordered():
    engine = _run("ab-whenever-defends", steps=1, revision=7)
    assert engine.prompt is not None and engine.prompt.kind == "turn"


def test_triggers_that_do_the_same_whatever_their_card_are_not_asked_about():
    """Soul Lantern's "gain 1 energy" for each of two Wonders dying together: no prompt."""
    engine = _run("ab-whenever-yours-dies")
    assert engine.prompt is not None and engine.prompt.kind == "turn"
    assert engine.state.players["A"].energy == 2
