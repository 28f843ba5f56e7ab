"""The tournament menus of /stats and /matches show the tournament the page is filtered by.
``?tournament=`` takes an id or a name; a name shared by two tournaments (a weekly "Friday
Cup") filtered both, yet the menu read "any" -- as it did for the name of a tournament whose
option is its id.  Now a shared name has its own option ("Friday Cup (all 2)", beside each
one by its id), and a name selects the option of its tournament.  A real app over a store of
three tournaments (two of one name), ingested into a warehouse."""

from __future__ import annotations

import re

import pytest

from ledger.filestore import FileStore
from ledger.warehouse import ingest
from replay.simulate import simulate_tournament
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from web.app import create_app
from web.cli_analytics import card_facts
from web.config import Settings

MENU = [("", "any"), ("Friday Cup", "Friday Cup (all 2)"), ("fri-1", "Friday Cup (fri-1)"),
        ("fri-2", "Friday Cup (fri-2)"), ("spring-cup", "Spring Cup")]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = tmp_path_factory.mktemp("menus")
    db = default_cards()
    fs, decks = FileStore(root / "store"), load_decks(None, db)
    for tid, seed in (("fri-1", 3), ("fri-2", 4)):
        list(simulate_tournament(fs, db, decks, "Friday Cup", 2, 1, seed=seed, tournament_id=tid))
    list(simulate_tournament(fs, db, decks, "Spring Cup", 2, 1, seed=5))
    assert not ingest(root / "store", root / "w.duckdb", card_facts()).problems
    app = create_app(Settings(store=root / "store", secret_key="s" * 32))
    app.config["WONDERS_WAREHOUSE"] = str(root / "w.duckdb")
    return app.test_client()


def _menu(client, url: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The tournament menu's options (value, label) and the labels of those selected."""
    response = client.get(url)
    assert response.status_code == 200
    select = response.get_data(as_text=True).split('name="tournament"')[1].split("</select>")[0]
    options = re.findall(r'<option value="([^"]*)" ?(selected)?>([^<]*)</option>', select)
    return [(v, label) for v, _, label in options], [label for _, s, label in options if s]


@pytest.mark.parametrize("page", ["/stats", "/matches"])
@pytest.mark.parametrize("chosen, shown", [("Friday+Cup", "Friday Cup (all 2)"),
                                           ("fri-2", "Friday Cup (fri-2)"),
                                           ("Spring+Cup", "Spring Cup"),
                                           ("spring-cup", "Spring Cup")])
def test_the_menu_shows_the_tournament_filtered_by(client, page, chosen, shown):
    options, selected = _menu(client, f"{page}?tournament={chosen}")
    assert options == MENU
    assert selected == [shown]


@pytest.mark.parametrize("page", ["/stats", "/matches"])
def test_unfiltered_the_menu_reads_any(client, page):
    assert _menu(client, page) == (MENU, [])


def test_a_shared_name_filters_both_tournaments(client):
    listed = client.get("/matches?tournament=Friday+Cup").get_data(as_text=True)
    assert re.findall(r'<tr data-match="([^"]+)"', listed) == ["fri-1-r1-t01", "fri-2-r1-t01"]
    assert "No match-up" not in client.get("/stats?tournament=Friday+Cup").get_data(as_text=True)
