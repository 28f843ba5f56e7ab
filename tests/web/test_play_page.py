"""The /play page names the players as the match records them (its MatchOpened), escaped
for the attribute the page script reads, and gives the judge the console's sections and a seat
its "call the judge" button."""

from __future__ import annotations

import html
import json
import re

from tests.web.test_api import ORGANIZER, new_app

SEATS = [{"player": 'Ann "the <b>Bold</b>"', "preset": "solfera-blaze"},
         {"player": "Bob", "preset": "thalwind-sky"}]


def _page(app, mid, token):
    client = app.test_client()
    assert client.get(f"/play/{mid}?token={token}").status_code == 303
    page = client.get(f"/play/{mid}")
    assert page.status_code == 200
    return page.get_data(as_text=True)


def test_the_page_names_the_players_and_offers_each_role_its_tools(tmp_path):
    app = new_app(tmp_path)
    created = app.test_client().post("/api/matches", json={"seats": SEATS},
                                     headers={"Authorization": f"Bearer {ORGANIZER}"}).get_json()
    mid, tokens = created["match_id"], created["tokens"]
    seat = _page(app, mid, tokens["A"])
    found = re.search(r'data-players="([^"]*)"', seat)
    assert found is not None and "<b>" not in found.group(1)  # escaped in the attribute
    assert json.loads(html.unescape(found.group(1))) == {"A": SEATS[0]["player"], "B": "Bob"}
    assert 'id="call-judge"' in seat and 'id="history"' not in seat
    judge = _page(app, mid, tokens["judge"])
    for section in ("calls", "history", "ruling", "ending", "note"):
        assert f'id="{section}"' in judge
    assert 'id="call-judge"' not in judge
