"""A digit that is not ASCII (``²``, ``٣``) is no number anywhere a number is read from a
request: ``str.isdigit`` takes it, ``int`` refuses it, so a check by ``isdigit`` alone let it
through to a 500.  Each place answers with its own one-line refusal instead."""

from __future__ import annotations

import random

import pytest

from tests.web.test_api import Api, drive, new_app
from tests.web.test_tournaments import ORGANIZER, new_tournament

DIGITS = ["²", "1²", "٣"]


@pytest.fixture(scope="module")
def ended(tmp_path_factory):
    api = Api(new_app(tmp_path_factory.mktemp("digits")))
    mid, tokens = api.create()
    drive(api, mid, tokens, random.Random(11))
    return api, mid


@pytest.mark.parametrize("digit", DIGITS)
def test_a_sandbox_move_or_pick_of_other_digits_is_refused(ended, digit):
    api, mid = ended
    status, out = api.call("GET", f"/api/public/matches/{mid}/sandbox?seq=10&moves={digit}")
    assert status == 422 and "is not a move" in out["message"]
    status, out = api.call("GET", f"/api/public/matches/{mid}/sandbox?seq=10&moves=p0.{digit}")
    assert status == 422 and "is not a move" in out["message"]
    response = api.client.get(f"/matches/{mid}/sandbox/pick?seq=10&pick={digit}",
                              headers={"Accept": "application/json"})
    assert response.status_code == 400 and "card numbers only" in response.get_json()["message"]


@pytest.mark.parametrize("digit", DIGITS)
def test_a_console_form_number_of_other_digits_is_refused(tmp_path, digit):
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=2)
    client, origin = api.client, {"Origin": "http://localhost"}
    assert client.post("/organize/login", data={"token": ORGANIZER},
                       headers=origin).status_code == 303
    page = client.get(f"/organize/t/{tid}").get_data(as_text=True)
    csrf = page.split('name="csrf" value="')[1].split('"')[0]
    assert client.post(f"/organize/t/{tid}/rounds", data={"csrf": csrf},
                       headers=origin).status_code == 201
    for action in ("reissue", "revoke"):
        response = client.post(f"/organize/t/{tid}/{action}", headers=origin, data={
            "csrf": csrf, "round": digit, "table": "1", "role": "judge"})
        assert response.status_code == 422, (action, response.status_code)
        assert "is not a number" in response.get_data(as_text=True)
