"""The stats dashboard over a real warehouse (a simulated tournament, ingested), and its charts.

Every number on the page must be the one :mod:`ledger.stats` computes; the chart geometry
must put each bar and whisker where its rate and interval are.
"""

from __future__ import annotations

import re

import duckdb
import pytest

from ledger import stats as named
from ledger.filestore import FileStore
from ledger.warehouse import ingest
from replay.simulate import simulate_matches, simulate_tournament
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from web.app import create_app
from web.cli_analytics import card_facts
from web.config import Settings
from web.dashboard import BOTTOM, HEIGHT, TOP, _heat, rate_bars


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    root = tmp_path_factory.mktemp("dash")
    store = FileStore(root / "store")
    db = default_cards()
    decks = load_decks(None, db)
    list(simulate_tournament(store, db, decks, "Dash Cup", 6, 2, seed=11))
    list(simulate_matches(store, db, decks, 3, seed=12, ruleset="1.2"))
    path = root / "w.duckdb"
    report = ingest(root / "store", path, card_facts())
    assert not report.problems
    return root / "store", path


@pytest.fixture
def client(warehouse):
    store, path = warehouse
    app = create_app(Settings(store=store, secret_key="s" * 32))
    app.config["WONDERS_WAREHOUSE"] = str(path)
    return app.test_client()


def _stats(path, name, **filters):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return named.compute(con, name, named.Filters(**filters))
    finally:
        con.close()


def _get(client, url):
    response = client.get(url)
    assert response.status_code == 200, response.data[:300]
    return response.get_data(as_text=True)


def test_the_page_shows_the_named_statistics(client, warehouse):
    _, path = warehouse
    html = _get(client, "/stats")
    first = _stats(path, "first-player").records()[0]
    assert f"won {first['first_wins']} of {first['games']} games" in html
    realms = _stats(path, "realms")
    realm_svg = re.search(r'<svg class="chart" id="realm-chart".*?</svg>', html, re.DOTALL).group(0)
    assert realm_svg.count('class="bar"') == len(realms.rows)
    for r in realms.records():
        assert f'data-label="realm {r["realm"]}" data-n="{r["decided_games"]}"' in realm_svg
    dbs = _stats(path, "dbs")
    dbs_svg = re.search(r'id="dbs-chart".*?</svg>', html, re.DOTALL).group(0)
    assert dbs_svg.count('class="bar"') == len(dbs.rows)
    heat = re.search(r'id="heatmap".*?</svg>', html, re.DOTALL).group(0)
    matchups = _stats(path, "matchups").records()
    assert heat.count('<g class="cell">') == len(matchups)
    for m in matchups:
        assert f"{m['archetype']} vs {m['opponent']}:" in heat and f"{m['games']} games" in heat
    cards = _stats(path, "cards").records()
    shown = re.findall(r'<tr data-card="([^"]+)">', html)
    assert sorted(shown) == sorted(c["card"] for c in cards)


def test_the_cards_table_sorts_by_any_column(client, warehouse):
    _, path = warehouse
    cards = _stats(path, "cards").records()
    html = _get(client, "/stats?sort=deck_games&desc=1")
    shown = re.findall(r'<tr data-card="([^"]+)">', html)
    games = {c["card"]: c["deck_games"] for c in cards}
    assert [games[c] for c in shown] == sorted(games.values(), reverse=True)
    shown = re.findall(r'<tr data-card="([^"]+)">', _get(client, "/stats?sort=card&desc=0"))
    assert shown == sorted(shown)
    assert client.get("/stats?sort=price").status_code == 400


def test_filters_reach_the_statistics(client, warehouse):
    _, path = warehouse
    old = _stats(path, "first-player", ruleset="1.2").records()[0]
    html = _get(client, "/stats?ruleset=1.2")
    assert f"won {old['first_wins']} of {old['games']} games" in html and old["games"] == 3  # matches
    html = _get(client, "/stats?tournament=Dash+Cup")
    assert " of 6 games" in html  # 6 players x 2 rounds / 2 seats
    assert "No games under these filters" in _get(client, "/stats?tournament=Nowhere")
    few = _stats(path, "cards", min_games=1000)
    assert few.rows == [] and "No games under these filters" in _get(client, "/stats?min_games=1000")
    response = client.get("/stats?ruleset=9")
    assert response.status_code == 400 and "ruleset" in response.get_json()["message"]


def test_without_a_warehouse_the_page_says_how_to_make_one(tmp_path):
    app = create_app(Settings(store=tmp_path / "store", secret_key="s" * 32))
    html = _get(app.test_client(), "/stats")
    assert "No warehouse at" in html and "wonders ingest" in html
    assert str(tmp_path / "store" / "warehouse.duckdb") in html


def test_bars_and_whiskers_sit_at_their_rates():
    chart = rate_bars([("x", 0.25, 0.1, 0.5, 8), ("y", None, None, None, 0), ("z", 1.0, 0.8, 1.0, 3)])
    plot = HEIGHT - BOTTOM - TOP
    x, y, z = chart["bars"]
    assert x["y"] == pytest.approx(TOP + plot * 0.75) and x["h"] == pytest.approx(plot * 0.25)
    assert x["y"] + x["h"] == pytest.approx(chart["bottom"])
    assert (x["y_low"], x["y_high"]) == (pytest.approx(TOP + plot * 0.9), pytest.approx(TOP + plot * 0.5))
    assert "y" not in y and y["n"] == 0
    assert z["y"] == pytest.approx(TOP) and chart["half"] == pytest.approx(TOP + plot / 2)
    assert x["x"] < y["x"] < z["x"] and x["x"] + x["w"] < y["x"]


def test_heat_is_white_at_even_blue_above_red_below():
    assert _heat(0.5) == "rgb(255,255,255)"
    assert _heat(1.0) == "rgb(75,135,255)"
    assert _heat(0.0) == "rgb(255,105,85)"
    assert _heat(None) == "#e5e7eb"
