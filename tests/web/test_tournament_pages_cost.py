"""What a tournament's pages build per request, counted (not timed): the addresses a page
builds (``url_for``: werkzeug's ``MapAdapter.build``, wrapped and still building) are as many
for 8 players as for 4 -- a table's Watch, reissue and revoke, a player's drop, remove and
reinstate are built once per page, where the console of 300 players built 766 a request --
the players' names are keyed (:func:`ledger.tournament.player_key`) once, not on every
request that sorts them, and the players' page renders a round's seatings and the standings
once while they are unchanged (counted by Flask's ``template_rendered`` signal), again as
soon as a result changes them."""

from __future__ import annotations

import pytest
from flask import template_rendered
from werkzeug.routing import MapAdapter

from ledger.tournament import player_key
from tests.web.test_api import ORGANIZER, Api, new_app
from tests.web.test_tournaments import call, concede, new_tournament
from tests.web.test_tournaments_desk import ORIGIN
from web.tournament_pages import seatings_html, standings_html


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def test_a_pages_addresses_are_as_many_for_8_players_as_for_4(api, monkeypatch):
    small = new_tournament(api, players=4, name="Spring Cup")
    big = new_tournament(api, players=8, name="Summer Cup")
    for tid in (small, big):
        assert call(api, "POST", f"/api/tournaments/{tid}/rounds")[0] == 201
    client = api.client
    assert client.post("/organize/login", data={"token": ORGANIZER},
                       headers=ORIGIN).status_code == 303
    builds = []
    real = MapAdapter.build

    def build(self, *args, **kwargs):
        builds.append(args[0])
        return real(self, *args, **kwargs)
    monkeypatch.setattr(MapAdapter, "build", build)

    def built(path: str) -> int:
        builds.clear()
        response = client.get(path)
        assert response.status_code == 200, path
        return len(builds)

    for page in ("/tournaments/{}", "/tournaments/{}/rounds/1", "/organize/t/{}",
                 "/organize/t/{}/rounds/1"):
        assert built(page.format(small)) == built(page.format(big)), page
    html = client.get(f"/organize/t/{big}").get_data(as_text=True)
    assert f'<a href="/matches/{big}-r1-t04">Watch</a>' in html
    assert f'action="/organize/t/{big}/drops"' in html


def test_the_players_names_are_keyed_once_not_on_every_request(api):
    tid = new_tournament(api, players=8)
    assert call(api, "POST", f"/api/tournaments/{tid}/rounds")[0] == 201
    assert api.client.get(f"/tournaments/{tid}").status_code == 200
    misses = player_key.cache_info().misses
    for _ in range(3):
        assert api.client.get(f"/tournaments/{tid}").status_code == 200
    assert player_key.cache_info().misses == misses


def test_the_seatings_and_standings_are_rendered_again_only_when_they_change(api):
    tid = new_tournament(api, players=8)
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, started
    seatings_html.cache_clear()  # kept by the process: another test's same round is kept
    standings_html.cache_clear()
    rendered: list[str] = []

    def seen(_app, template, context, **_extra):
        rendered.append(template.name)
    template_rendered.connect(seen, api.app)
    try:
        pages = [api.client.get(f"/tournaments/{tid}").get_data(as_text=True)
                 for _ in range(3)]
        assert pages[0] == pages[1] == pages[2]
        assert rendered.count("tournament.html") == 3
        assert rendered.count("tournament_seatings.html") == 1
        assert rendered.count("tournament_standings.html") == 1
        first = started["tables"][0]
        concede(api, first["match_id"], first["tokens"]["judge"], "B")  # seat A wins
        page = api.client.get(f"/tournaments/{tid}").get_data(as_text=True)
        assert rendered.count("tournament_seatings.html") == 2
        assert rendered.count("tournament_standings.html") == 2
        assert "4 tables: 1 ended" in page and '<span class="outcome">won</span>' in page
        searched = api.client.get(f"/tournaments/{tid}?player={first['a']}")
        assert searched.get_data(as_text=True).count('class="seating ') == 1
        assert rendered.count("tournament_seatings.html") == 3  # another list: rendered
    finally:
        template_rendered.disconnect(seen, api.app)
