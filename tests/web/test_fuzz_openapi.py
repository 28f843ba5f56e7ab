"""Fuzzing the API from its own OpenAPI document (schemathesis): every answer conforms to the
document, none is a 5xx, the fuzzer gets past the validation, and no 200 answer to a seat
names a card hidden from it (its 200 and 201 answers are checked: no id of the other seat's
hand or deck that was never public).

Cases are generated from ``/api/openapi.json`` of an app over a temporary store holding one
live match per role (so one role's writes don't change another's match): valid-shaped
requests with the role's token on its match, and malformed requests (negative mode) with
random ids and tokens.  Schemathesis' conformance checks run on every answer: its status
code is one the document lists for the operation, its content type is the documented one,
and its body validates against the documented schema.

Random bodies almost never get past the checks of a write (an ``expected_seq`` equal to the
match's length, a legal decision, real decks), so half of the valid-shaped cases are made
valid on purpose (``make_valid``): the current ``expected_seq``, a legal option of the
pending prompt (the other seat is driven to the role's turn first), a create with real
decks.  The test asserts that successful answers (2xx, writes among them) were part of the
run.  The number of examples is bounded so the test stays fast.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from tests.web.test_api import ORGANIZER, SEATS, Api, choose, new_app

# Match files are uploaded as JSON lines: send the generated text as the body, like text/plain.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
CONFORMANCE = [not_a_server_error, status_code_conformance, content_type_conformance,
               response_schema_conformance]
ROLES = ["A", "judge", "organizer"]
#: The operations each role's valid-shaped cases call: those its token is for (every other
#: operation refuses it, which the malformed cases and the API tests cover), so the share of
#: successes doesn't shrink each time the document gains operations of another role.
ROLE_TAGS = {"A": ["seat", "follow", "public", "meta"],
             "judge": ["judge", "seat", "follow", "public", "meta"],
             "organizer": ["organizer", "imports", "tournaments", "public", "meta"]}
#: Writes whose expected_seq ``make_valid`` sets (an ending would end the match for the rest).
SEQUENCED = ("/decisions", "/notes", "/manual", "/takeback")


class Target:
    """The app, its schema and one live match per role."""

    def __init__(self, tmp_path):
        self.app = new_app(tmp_path, follow_timeout=0.2, follow_poll=0.05, spectator_delay=2)
        self.api = Api(self.app)
        self.matches: dict[str, tuple[str, dict]] = {}
        for role in ROLES:
            mid, tokens = self.api.create(match_id=f"fuzz-{role}", previous_loser="B")
            rng = random.Random(1)
            for _ in range(6):  # into the mulligans, so hands exist to leak (they must not)
                self.step(mid, tokens, rng)
            self.matches[role] = (mid, tokens)
        self.schema = schemathesis.openapi.from_wsgi("/api/openapi.json", self.app)
        self.created = 0

    def step(self, mid: str, tokens: dict, rng: random.Random) -> None:
        """The seat whose prompt is pending decides (a legal option)."""
        pending = self.api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]
        seat = pending["prompt"]["seat"]
        prompt = self.api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
        status, data = self.api.decide(mid, tokens[seat], choose(prompt["prompt"], rng),
                                       prompt["length"])
        assert status == 201, data

    def judge_state(self, role: str) -> dict:
        mid, tokens = self.matches[role]
        return self.api.call("GET", f"/api/matches/{mid}/state", tokens["judge"])[1]

    def make_valid(self, case, role: str, rng: random.Random) -> None:
        """Turn a generated case into one the API accepts, where that needs live data."""
        mid, tokens = self.matches[role]
        path, method = case.operation.path, case.method.upper()
        if method == "POST" and path == "/api/matches" and role == "organizer":
            self.created += 1
            case.body = {"seats": SEATS, "match_id": f"fuzz-made-{self.created}"}
            return
        if method != "POST" or not path.endswith(SEQUENCED) or not isinstance(case.body, dict):
            return
        state = self.judge_state(role)
        if state["prompt"] is None:
            return  # over: nothing more to write
        if path.endswith("/decisions"):
            if role not in ("A", "B"):
                return
            for _ in range(50):  # the other seat decides until it is this seat's turn
                state = self.judge_state(role)
                if state["prompt"] is None or state["prompt"]["seat"] == role:
                    break
                self.step(mid, tokens, rng)
            if state["prompt"] is None or state["prompt"]["seat"] != role:
                return
            prompt = self.api.call("GET", f"/api/matches/{mid}/prompt", tokens[role])[1]
            case.body = {"expected_seq": prompt["length"], "decision": choose(prompt["prompt"], rng)}
        else:
            case.body = dict(case.body, expected_seq=state["length"])

    def hidden_from(self, role: str) -> set[str]:
        """The ids of the other seat's cards in its hand or deck that were never public (the
        match is live): a seat's answers must not name them."""
        if role not in ("A", "B"):
            return set()
        mid, _tokens = self.matches[role]
        state = self.judge_state(role)
        if not state["live"]:
            return set()
        other = "B" if role == "A" else "A"
        player = state["board"]["players"][other]
        secret = {c["id"] for c in player["hand"] + player["deck"]}
        public = self.api.call("GET", f"/api/public/matches/{mid}/events?limit=2000")[1]
        shown = json.dumps(public)
        return {cid for cid in secret if f'"{cid}"' not in shown}


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    return Target(tmp_path_factory.mktemp("fuzz"))


def _token(target: Target, role: str) -> str:
    return ORGANIZER if role == "organizer" else target.matches[role][1][role]


#: Answers uncompressed: schemathesis' WSGI client asks for gzip but does not decode it, and the
#: leak check reads the bodies (gzip itself: tests/web/test_compression.py).
PLAIN = {"Accept-Encoding": "identity"}


@pytest.mark.parametrize("role", ROLES)
def test_valid_shaped_requests_conform_to_the_document_and_some_succeed(target, role):
    mid, _tokens = target.matches[role]
    if role == "organizer":  # a tournament for the tournaments API's paths
        target.api.call("POST", "/api/tournaments", ORGANIZER, {"name": "Fuzz Cup"})
    strategy = target.schema.include(tag=ROLE_TAGS[role]).as_strategy(
                                         generation_mode=GenerationMode.POSITIVE,
                                         path_parameters={"match_id": mid,
                                                          "tournament_id": "fuzz-cup"},
                                         headers={"Authorization": f"Bearer {_token(target, role)}",
                                                  **PLAIN})
    statuses: Counter[int] = Counter()
    written: Counter[str] = Counter()
    leaks: list[str] = []
    rng = random.Random(f"fuzz:{role}")

    @SETTINGS
    @given(case=strategy, valid=st.booleans())
    def run(case, valid):
        if valid:
            target.make_valid(case, role, rng)
        hidden = target.hidden_from(role)
        response = case.call_and_validate(checks=CONFORMANCE)
        statuses[response.status_code] += 1
        if response.status_code == 201:
            written[f"{case.method.upper()} {case.operation.path}"] += 1
        if 200 <= response.status_code < 300 and hidden:
            text = response.content.decode("utf-8", "replace")
            named = sorted(cid for cid in hidden if f'"{cid}"' in text)
            if named:
                leaks.append(f"{case.method.upper()} {case.formatted_path}: {named}")
    run()
    assert not leaks, f"answers to seat {role} name cards hidden from it: {leaks[:5]}"
    ok = sum(n for status, n in statuses.items() if 200 <= status < 300)
    assert ok >= 20, f"only {ok} successful answers: {dict(statuses)}"
    assert written, f"no write succeeded: {dict(statuses)}"
    if role == "A":
        assert written["POST /api/matches/{match_id}/decisions"], dict(written)


def test_malformed_requests_never_fail_with_5xx_and_answer_as_documented(target):
    @SETTINGS
    @given(case=target.schema.as_strategy(generation_mode=GenerationMode.NEGATIVE, headers=PLAIN))
    def run(case):
        case.call_and_validate(checks=CONFORMANCE)
    run()
