"""The /play token form names the table as the match list does: before, a player whose link
had lost its session (or who opened the bare address) read "Table spring-cup-r1-t01" and
nothing else; now "Spring Cup · round 1, table 1" and "Ann vs Bob" (a practice match keeps its
id as the heading).  A real app over a file store."""

from __future__ import annotations

import html

import pytest

from tests.web.test_api import SEATS, Api, new_app
from tests.web.test_tournaments import call, new_tournament


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def test_the_token_form_names_the_tournament_table_and_players(api):
    tid = new_tournament(api, players=2)
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201
    table = started["tables"][0]
    page = html.unescape(api.client.get(f"/play/{table['match_id']}").get_data(as_text=True))
    assert "<h1>Spring Cup · round 1, table 1</h1>" in page
    assert f"{table['a']} vs {table['b']}" in page
    refused = api.client.get(f"/play/{table['match_id']}?token=not-a-token")
    assert refused.status_code == 401
    assert "<h1>Spring Cup · round 1, table 1</h1>" in html.unescape(refused.get_data(as_text=True))


def test_a_practice_match_is_headed_by_its_id(api):
    status, created = call(api, "POST", "/api/matches", {"seats": SEATS})
    assert status == 201
    mid = created["match_id"]
    page = html.unescape(api.client.get(f"/play/{mid}").get_data(as_text=True))
    assert f"<h1>Table {mid}</h1>" in page and "Ann vs Bob" in page
