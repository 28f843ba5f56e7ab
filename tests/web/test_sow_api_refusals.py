"""A State of Wonder seat's illegal decision is refused with the engine's own words (its game
offers no card a seat may not see, so there is nothing to conceal: contrast the one fixed
sentence of a wrong answer over hidden cards in Wonders, tests/web/test_api_refusal_words.py),
and nothing is recorded."""

from __future__ import annotations

from tests.web.test_api import Api, new_app
from tests.web.test_sow_api import create


def test_an_illegal_sow_decision_is_refused_in_the_engines_words(tmp_path):
    api = Api(new_app(tmp_path))
    mid, tokens = create(api)
    seat, pending = next((s, p) for s in "AB"
                         for _, p in [api.call("GET", f"/api/matches/{mid}/prompt", tokens[s])]
                         if p["prompt"] and p["prompt"]["options"])
    status, data = api.call("POST", f"/api/matches/{mid}/decisions", tokens[seat],
                            {"decision": {"type": "PlayChosen", "card": f"{seat}999"},
                             "expected_seq": pending["length"]})
    assert status == 422, data
    assert data["message"].startswith(
        f"PlayChosen by {seat}: {seat}999 is not a card in your Culture or Wonder area")
    assert api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]["length"] == \
        pending["length"]
