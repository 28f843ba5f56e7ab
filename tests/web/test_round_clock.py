"""The round clock through the service: an organizer creates a tournament with a round time
(API and console), the started round's end is in the API, the console and the players' page,
and setting the time moves the round under way; only the organizer sets it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ledger.roundclock import parse_at
from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import DECKS, NAMES, call, decklist
from tests.web.test_tournaments_desk import ORIGIN, console, wonders


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def timed_tournament(api, minutes):
    status, t = call(api, "POST", "/api/tournaments", {"name": "Clock Cup",
                                                       "round_minutes": minutes})
    assert status == 201, t
    for player, deck in list(zip(NAMES, DECKS, strict=True))[:4]:
        status, data = call(api, "POST", f"/api/tournaments/{t['tournament_id']}/players",
                            {"player": player, "decklist": decklist(deck)})
        assert status == 201, data
    return t["tournament_id"]


def test_a_round_ends_its_time_after_it_started_and_setting_the_time_moves_it(api):
    tid = timed_tournament(api, 50)
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, started
    status, t = call(api, "GET", f"/api/tournaments/{tid}")
    assert t["round_minutes"] == 50
    first = t["rounds"][0]
    assert parse_at(first["ends_at"]) - parse_at(first["started_at"]) == timedelta(minutes=50)

    status, t = call(api, "POST", f"/api/tournaments/{tid}/clock", {"minutes": 55})
    assert status == 201, t
    moved = t["rounds"][0]
    assert parse_at(moved["ends_at"]) - parse_at(first["ends_at"]) == timedelta(minutes=5)

    html = api.client.get(f"/tournaments/{tid}").get_data(as_text=True)  # anyone
    assert '<time class="clock" datetime="' in html and "min left" in html
    _, _, page = console(api, tid)
    assert '<time class="clock"' in page and 'value="55"' in page

    status, t = call(api, "POST", f"/api/tournaments/{tid}/clock", {"minutes": 0})
    assert status == 201 and t["round_minutes"] is None and t["rounds"][0]["ends_at"] is None
    html = api.client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert 'class="clock"' not in html


@pytest.mark.parametrize("minutes", [-5, 601, "fifty", 2.5, None])
def test_a_round_time_out_of_range_is_refused_in_one_line(api, minutes):
    tid = timed_tournament(api, 50)
    status, data = call(api, "POST", f"/api/tournaments/{tid}/clock", {"minutes": minutes})
    assert status in (400, 422), data
    status, t = call(api, "GET", f"/api/tournaments/{tid}")
    assert t["round_minutes"] == 50 and t["length"] == 5  # nothing written


def test_only_the_organizer_sets_the_round_time(api):
    tid = timed_tournament(api, 50)
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    judge = started["tables"][0]["tokens"]["judge"]
    for token in (judge, None):
        status, _ = api.call("POST", f"/api/tournaments/{tid}/clock", token, {"minutes": 5})
        assert status in (401, 403)


def test_the_console_creates_a_timed_tournament_and_refuses_a_time_that_is_no_number(api):
    tid = timed_tournament(api, 0)  # untimed: the console's field is empty
    client, csrf, page = console(api, tid)
    assert 'placeholder="untimed"' in page and 'name="round_minutes"' in page
    response = client.post("/organize/tournaments", data={
        "csrf": csrf, "name": "Console Cup", "round_minutes": "45"}, headers=ORIGIN)
    assert response.status_code == 303
    _, t = call(api, "GET", "/api/tournaments/console-cup")
    assert t["round_minutes"] == 45
    response = client.post(f"/organize/t/{tid}/clock", data={
        "csrf": csrf, "round_minutes": "forty"}, headers=ORIGIN)
    assert response.status_code == 422
    assert "a whole number of minutes" in response.get_data(as_text=True)


def test_the_cli_creates_a_timed_tournament_and_sets_the_time(tmp_path):
    store = tmp_path / "store"
    made = wonders("create", "Night Cup", "--round-minutes", "50", store=store)
    assert made.returncode == 0, made.stderr
    assert "50-minute rounds" in made.stdout
    changed = wonders("clock", "night-cup", "0", store=store)
    assert changed.returncode == 0 and "untimed rounds" in changed.stdout
    refused = wonders("clock", "night-cup", "601", store=store)
    assert refused.returncode != 0 and "601 is not in the range" in refused.stderr
    assert "Traceback" not in refused.stderr
