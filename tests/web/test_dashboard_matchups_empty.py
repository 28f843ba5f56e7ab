"""An empty match-ups panel says why it is empty, in one line: no match passes the filters,
none of those that do has finished (a match-up counts finished matches), or every match-up
has fewer games than *Min. games*.  Before, the panel drew an empty chart and said nothing.
A real app over a real warehouse: two finished matches (ruleset 1.2) and a live one (1.3.2,
created through the API), ingested."""

from __future__ import annotations

import html
import re

import pytest

from ledger.filestore import FileStore
from ledger.warehouse import ingest
from replay.simulate import simulate_matches
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from tests.web.test_api import Api, new_app
from web.cli_analytics import card_facts


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = tmp_path_factory.mktemp("empty")
    app = new_app(root)
    Api(app).create()  # live: at its first prompt
    db = default_cards()
    list(simulate_matches(FileStore(root / "store"), db, load_decks(None, db), 2, seed=3,
                          ruleset="1.2"))
    assert not ingest(root / "store", root / "w.duckdb", card_facts()).problems
    app.config["WONDERS_WAREHOUSE"] = str(root / "w.duckdb")
    return app.test_client()


def _matchups(client, query: str) -> str:
    response = client.get(f"/stats{query}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    return re.search(r'<section class="panel" id="matchups">(.*?)</section>', page, re.S).group(1)


def _why(panel: str) -> str:
    found = re.search(r'<p class="empty" id="matchups-empty">(.*?)</p>', panel, re.S)
    assert found, panel
    return html.unescape(found.group(1))


def test_matchups_of_finished_matches_are_drawn_without_a_reason(client):
    panel = _matchups(client, "")
    assert 'id="heatmap"' in panel and 'id="matchups-empty"' not in panel


def test_only_live_matches_under_the_filters(client):
    panel = _matchups(client, "?ruleset=1.3.2")
    assert _why(panel) == ("No match-up yet: the 1 match under these filters has not finished "
                           "(a match-up counts finished matches).")
    assert 'id="heatmap"' not in panel


def test_no_match_under_the_filters(client):
    assert _why(_matchups(client, "?tournament=Nowhere+Cup")) == (
        "No match-up: no match of the warehouse passes these filters.")


def test_every_matchup_under_min_games(client):
    assert _why(_matchups(client, "?min_games=500")) == (
        "No match-up has 500 games or more (Min. games): lower it to see them.")
