"""Test helper: a match played 40 decisions, then taken back by the judge to seq 0 and played
on until the new set-up's shuffles are recorded (each card id -- a place in the setup
shuffle -- then names another card): the take-back attacks on names share it."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tests.web.test_api import ORGANIZER, SEATS, choose


def decide_once(api, mid: str, tokens: dict, rng: random.Random) -> str:
    """One decision by the seat asked; returns the kind of prompt it answered."""
    pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]
    assert pending is not None, "the match ended"
    status, prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[pending["seat"]])
    status, done = api.decide(mid, tokens[pending["seat"]], choose(prompt["prompt"], rng),
                              prompt["length"])
    assert status == 201, done
    return prompt["prompt"]["kind"]


def restarted(api, before: Callable[[str, dict], Any]) -> tuple[str, dict, dict, Any]:
    """Play a new match 40 decisions, call ``before(match id, tokens)``, take it back to seq 0
    and decide until the mulligan prompt: ``(match id, tokens, the take-back's answer, what
    before returned)``."""
    status, created = api.call("POST", "/api/matches", ORGANIZER, {"seats": SEATS})
    assert status == 201, created
    mid, tokens = created["match_id"], created["tokens"]
    rng = random.Random(1)
    for _ in range(40):
        decide_once(api, mid, tokens, rng)
    seen = before(mid, tokens)
    status, back = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                            {"to_seq": 0, "reason": "start again"})
    assert status == 201, back
    while api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]["kind"] \
            != "mulligan":
        decide_once(api, mid, tokens, rng)
    return mid, tokens, back, seen
