"""Answers are written by msgspec (issue 19; :func:`web.api.common.rendered`): byte for byte
what pydantic's ``model_dump_json`` writes, over every answer of whole matches of both games
-- boards of every perspective (hands, counts, face-down cards), prompts with options and
choices, recorded batches, event pages, the public board -- so no schema and no byte moved.
A prompt's model is built from the game's view without validating it again
(:func:`web.api.common.prompt_model`): at every prompt it is written as the validated model
would be."""

from __future__ import annotations

import random

import pytest
from pydantic import BaseModel

from tests.web.test_api import Api, choose, new_app
from tests.web.test_sow_api import create as create_sow
from tests.web.test_sow_api import play_out as play_out_sow
from tests.web.test_sow_api import store_of
from web.api import common
from web.models import PromptOut


class Spy:
    """Stands in for the answers' encoder: keeps every model written and what msgspec wrote."""

    def __init__(self, real):
        self.real, self.written = real, []

    def encode(self, model: BaseModel) -> bytes:
        data = self.real.encode(model)
        self.written.append((model, data))
        return data


@pytest.fixture
def spy(monkeypatch):
    spy = Spy(common._ENCODER)
    monkeypatch.setattr(common, "_ENCODER", spy)
    return spy


@pytest.fixture
def shown(monkeypatch):
    """Every prompt view a game gave the API, kept to be checked against validation."""
    kept = []
    real = common.prompt_model

    def keep(view):
        kept.append(view)
        return real(view)
    monkeypatch.setattr(common, "prompt_model", keep)
    return kept


def assert_prompts_as_validated(kept):
    with_options = 0
    for view in list(kept):  # (prompt_model, still patched, keeps what it is given)
        assert common.rendered(common.prompt_model(view)) == \
            PromptOut(**view).model_dump_json().encode(), view
        with_options += bool(view.get("options") or view.get("choose"))
    return with_options


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path, spectator_delay=0))


def assert_same_as_pydantic(written):
    kinds = set()
    for model, data in written:
        assert data == model.model_dump_json().encode(), type(model).__name__
        kinds.add(type(model).__name__)
    return kinds


def test_every_answer_of_a_wonders_match_is_what_pydantic_writes(api, spy, shown):
    mid, tokens = api.create()
    rng = random.Random(7)
    for step in range(400):
        for token in tokens.values():
            api.state(mid, token)
        api.call("GET", f"/api/public/matches/{mid}/state")
        pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]
        if pending["prompt"] is None:
            break
        seat = pending["prompt"]["seat"]
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
        status, data = api.decide(mid, tokens[seat], choose(prompt["prompt"], rng), prompt["length"])
        assert status == 201, data
        if step % 25 == 0:
            api.call("GET", f"/api/matches/{mid}/events?limit=40", tokens["A"])
    api.call("GET", f"/api/public/matches/{mid}/events")
    kinds = assert_same_as_pydantic(spy.written)
    assert {"StateOut", "PendingOut", "Recorded", "EventsOut"} <= kinds
    assert len(spy.written) > 150  # (a match lasts as its shuffles go: 30 decisions or more)
    assert assert_prompts_as_validated(shown) > 30


def test_every_answer_of_a_state_of_wonder_match_is_what_pydantic_writes(api, spy, shown):
    mid, tokens = create_sow(api)
    decisions, _ = play_out_sow(api, store_of(api), mid, tokens)
    for token in tokens.values():
        api.state(mid, token)
    kinds = assert_same_as_pydantic(spy.written)
    assert decisions > 5 and {"StateOut", "PendingOut", "Recorded"} <= kinds
    assert assert_prompts_as_validated(shown) > 5


def test_a_value_neither_can_write_is_still_an_error():
    class Odd(BaseModel):
        board: dict

    with pytest.raises(TypeError, match="cannot write a object as JSON"):
        common.rendered(Odd(board={"x": object()}))
