"""What a tournament's pages build per request, counted (not timed): the addresses a page
builds (``url_for``: werkzeug's ``MapAdapter.build``, wrapped and still building) are as many
for 8 players as for 4 -- a table's Watch, reissue and revoke, a player's drop, remove and
reinstate are built once per page, where the console of 300 players built 766 a request --
and the players' names are keyed (:func:`ledger.tournament.player_key`) once, not on every
request that sorts them."""

from __future__ import annotations

import pytest
from werkzeug.routing import MapAdapter

from ledger.tournament import player_key
from tests.web.test_api import ORGANIZER, Api, new_app
from tests.web.test_tournaments import call, new_tournament
from tests.web.test_tournaments_desk import ORIGIN


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
