"""Rules revision 7 (issue 15): what a conformance case can't reach -- a chance event's answer.

A case can't answer a ``chance`` prompt (the conformance spec: randomness enters only as answers
to chance prompts, and a case's steps are seats' decisions), so the distribution cases stop at
the shuffle; these tests run them on and check where the shuffled cards went.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from replay.wotf import conformance as C
from replay.wotf.cards import default_cards
from replay.wotf.engine import Engine
from replay.wotf.events import DeckShuffled

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "conformance" / "abilities"


def _run_to_the_shuffle(name: str) -> Engine:
    data = tomllib.loads((CASES / f"{name}.toml").read_text(encoding="utf-8"))
    db = C._case_cards(data.get("cards", {}), default_cards())
    state = C.build_state(data["state"], data.get("rules", "1.3.2"), db)
    state.revision = data["revision"]
    engine = Engine(db, state)
    engine.start()
    for index, step in enumerate(data["steps"], start=1):
        C._run_step(engine, step, index)
    prompt = engine.prompt
    assert prompt is not None and prompt.kind == "chance"
    return engine


def test_506_the_player_chooses_which_realms_get_the_extra_cards():
    """Revision 7 (R21): A picked realms 1 and 3 for two cards over three realms."""
    engine = _run_to_the_shuffle("ab-autumn-distribute-the-player-chooses-the-split")
    engine.decide(DeckShuffled("A", ["d2", "d1"]))
    cards = engine.state.cards
    assert (cards["d2"].realm, cards["d1"].realm) == (1, 3)
    assert cards["d1"].face_down and cards["d2"].face_down
    assert not [c for c in engine.view.in_realm(2, "A")]


def test_revision_6_deals_the_shuffled_cards_from_realm_1():
    engine = _run_to_the_shuffle("ab-autumn-distribute-revision-6-deals-from-realm-1")
    engine.decide(DeckShuffled("A", ["d2", "d1"]))
    cards = engine.state.cards
    assert (cards["d2"].realm, cards["d1"].realm) == (1, 2)
