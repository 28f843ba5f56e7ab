"""The replay viewer's tab title and header crumb named the match by its id
(``spring-cup-r1-t01 — replay``): in a phone's tabs, history and bookmarks, a row of ids.
Now they name the players and where the match was played ("Ann vs Bob · Spring Cup, round 1,
table 1 — replay"); a match of no tournament keeps its id as its place.  A real app over a
file store."""

from __future__ import annotations

import html
import re

import pytest

from tests.web.test_api import SEATS, Api, new_app
from tests.web.test_tournaments import call, new_tournament


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def _title_and_crumbs(api, match_id: str) -> tuple[str, str]:
    page = html.unescape(api.client.get(f"/matches/{match_id}").get_data(as_text=True))
    title = re.search(r"<title>(.*?)</title>", page, re.S).group(1).strip()
    crumbs = re.search(r'<header class="site">(.*?)</header>', page, re.S).group(1)
    return title, re.sub(r"<[^>]+>", "", crumbs)


def test_a_tournament_match_is_named_by_its_players_and_table(api):
    tid = new_tournament(api, players=2)
    table = call(api, "POST", f"/api/tournaments/{tid}/rounds")[1]["tables"][0]
    title, crumbs = _title_and_crumbs(api, table["match_id"])
    assert title == (f"{table['a']} vs {table['b']} · Spring Cup, round 1, table 1 — replay — "
                     f"Wonders Ledger")
    assert "Spring Cup, round 1, table 1" in crumbs and table["match_id"] not in crumbs


def test_a_practice_match_keeps_its_id_as_its_place(api):
    mid = call(api, "POST", "/api/matches", {"seats": SEATS})[1]["match_id"]
    title, crumbs = _title_and_crumbs(api, mid)
    assert title == f"Ann vs Bob · {mid} — replay — Wonders Ledger"
    assert mid in crumbs
