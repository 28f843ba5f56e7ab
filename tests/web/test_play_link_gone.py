"""A /play page whose token the organizer reissued or revoked says so, in words a player reads:
whose link it was (by the player's name), that it no longer works and what to do -- on the open
page (its next poll of the API) and when the page is opened again (the enter form).  Before,
the open page showed the API's "no token (send 'Authorization: Bearer <token>' …) (HTTP 401)"
and a reload the bare token form.  A session that never entered the table still gets the API's
line.  A real app over a file store (the round started through the tournament API)."""

from __future__ import annotations

import pytest

from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import call, new_tournament


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def started(api):
    tid = new_tournament(api, players=2)
    status, out = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, out
    table = out["tables"][0]
    return tid, table


def entered(api, match_id, token):
    phone = api.app.test_client()
    assert phone.get(f"/play/{match_id}?token={token}").status_code == 303
    assert phone.get(f"/api/matches/{match_id}/state").status_code == 200  # the session
    return phone


def test_a_reissued_seat_link_says_whose_it_was_and_what_to_do(api):
    tid, table = started(api)
    mid, seat_a = table["match_id"], table["a"]
    phone = entered(api, mid, table["tokens"]["A"])
    status, _ = call(api, "POST", f"/api/tournaments/{tid}/reissue",
                      {"round": 1, "table": 1, "role": "A"})
    assert status == 201
    polled = phone.get(f"/api/matches/{mid}/state")
    assert polled.status_code == 401
    message = polled.get_json()["message"]
    assert message.startswith(f"{seat_a}'s seat link for this table no longer works")
    assert "new link" in message and "Authorization" not in message
    page = phone.get(f"/play/{mid}")
    text = page.get_data(as_text=True)
    assert f"{seat_a}&#39;s seat link for this table no longer works" in text
    assert 'name="token"' in text  # the form to enter with the new token is still there


def test_a_revoked_judge_link_says_so_and_a_stranger_gets_the_api_line(api):
    tid, table = started(api)
    mid = table["match_id"]
    judge = entered(api, mid, table["tokens"]["judge"])
    status, _ = call(api, "POST", f"/api/tournaments/{tid}/revoke",
                      {"round": 1, "table": 1, "role": "judge"})
    assert status == 200
    message = judge.get(f"/api/matches/{mid}/state").get_json()["message"]
    assert message.startswith("the judge's link for this table no longer works")
    stranger = api.app.test_client()  # never entered: told how a client sends a token
    answer = stranger.get(f"/api/matches/{mid}/state")
    assert answer.status_code == 401 and "Authorization: Bearer" in answer.get_json()["message"]
    page = stranger.get(f"/play/{mid}").get_data(as_text=True)
    assert "no longer works" not in page
