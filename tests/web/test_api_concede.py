"""A concession through the recording API, in both games: the ledger's own ``Conceded`` event
(the same in every game, not the game's decision), recorded with its reason and ending the
match for the other seat; a malformed concession, or a malformed decision of the game, is one
line naming the field."""

from __future__ import annotations

import pytest

from tests.web.test_api import ORGANIZER, SEATS, Api, new_app
from tests.web.test_sow_api import sow_seats


@pytest.mark.parametrize("game", ["wotf", "sow"])
def test_a_seat_concedes_with_its_reason_and_the_other_seat_wins(tmp_path, game):
    api = Api(new_app(tmp_path))
    seats = SEATS if game == "wotf" else sow_seats()
    status, created = api.call("POST", "/api/matches", ORGANIZER, {"game": game, "seats": seats})
    assert status == 201, created
    mid, tokens = created["match_id"], created["tokens"]
    length = api.call("GET", f"/api/matches/{mid}/state", tokens["B"])[1]["length"]
    status, reply = api.call("POST", f"/api/matches/{mid}/decisions", tokens["B"],
                             {"decision": {"type": "Conceded", "reason": "a train to catch"},
                              "expected_seq": length})
    assert status == 201, reply
    written = [e["event"] for e in reply["events"]]
    assert written[0] == {"type": "Conceded", "seat": "B", "reason": "a train to catch"}
    assert written[-1]["type"] == "MatchEnded" and written[-1]["winner"] == "A"


@pytest.mark.parametrize("game", ["wotf", "sow"])
def test_a_malformed_concession_names_its_field(tmp_path, game):
    api = Api(new_app(tmp_path))
    seats = SEATS if game == "wotf" else sow_seats()
    mid, tokens = (lambda d: (d["match_id"], d["tokens"]))(
        api.call("POST", "/api/matches", ORGANIZER, {"game": game, "seats": seats})[1])
    status, data = api.call("POST", f"/api/matches/{mid}/decisions", tokens["A"],
                            {"decision": {"type": "Conceded", "reason": 7}, "expected_seq": 0})
    assert status == 400, data
    assert data["message"].startswith("decision.reason: ")
    assert "\n" not in data["message"]


def test_a_malformed_game_decision_names_its_field_under_decision(tmp_path):
    api = Api(new_app(tmp_path))
    created = api.call("POST", "/api/matches", ORGANIZER, {"seats": SEATS})[1]
    status, data = api.call("POST", f"/api/matches/{created['match_id']}/decisions",
                            created["tokens"]["A"],
                            {"decision": {"type": "PlayDeclared", "card": 7}, "expected_seq": 0})
    assert status == 400, data
    assert data["message"] == "decision.PlayDeclared.card: Input should be a valid string"
