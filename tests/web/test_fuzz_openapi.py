"""Fuzzing the API from its own OpenAPI document (schemathesis): no input makes it fail with 5xx.

Cases are generated from ``/api/openapi.json`` of an app over a temporary store holding one
live match: valid-shaped requests with each role's token on that match, and malformed
requests (negative mode) with random ids and tokens.  The number of examples is bounded so
the test stays fast.
"""

from __future__ import annotations

import random

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from tests.web.test_api import ORGANIZER, Api, new_app

# Match files are uploaded as JSON lines: send the generated text as the body, like text/plain.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    app = new_app(tmp_path_factory.mktemp("fuzz"), follow_timeout=0.2, follow_poll=0.05,
                  spectator_delay=2)
    api = Api(app)
    mid, tokens = api.create(match_id="fuzz-1", previous_loser="B")
    rng = random.Random(1)
    for _ in range(6):  # into the mulligans, so hands exist to leak (they must not)
        pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]
        seat = pending["prompt"]["seat"]
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]["prompt"]
        pick = ({"type": "Answered", "kind": prompt["kind"], "pick": []} if prompt["choose"]
                else rng.choice(prompt["options"])["decision"])
        api.decide(mid, tokens[seat], pick, pending["length"])
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    return schema, mid, tokens


@pytest.mark.parametrize("role", ["A", "judge", "organizer"])
def test_valid_shaped_requests_with_a_real_token_never_fail_with_5xx(target, role):
    schema, mid, tokens = target
    token = ORGANIZER if role == "organizer" else tokens[role]
    strategy = schema.as_strategy(generation_mode=GenerationMode.POSITIVE,
                                  path_parameters={"match_id": mid},
                                  headers={"Authorization": f"Bearer {token}"})

    @SETTINGS
    @given(case=strategy)
    def run(case):
        case.call_and_validate(checks=[not_a_server_error])
    run()


def test_malformed_requests_never_fail_with_5xx(target):
    schema, _mid, _tokens = target

    @SETTINGS
    @given(case=schema.as_strategy(generation_mode=GenerationMode.NEGATIVE))
    def run(case):
        case.call_and_validate(checks=[not_a_server_error])
    run()
