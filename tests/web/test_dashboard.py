"""The stats dashboard over a real warehouse (a simulated tournament, ingested), and its charts.

Every number on the page must be the one :mod:`ledger.stats` computes; the chart geometry
must put each bar and whisker where its rate and interval are.
"""

from __future__ import annotations

import itertools
import re

import duckdb
import pytest

from ledger import stats as named
from ledger.filestore import FileStore
from ledger.warehouse import ingest
from replay.simulate import simulate_matches, simulate_tournament
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from tests.simulated import simulate_games
from web.app import create_app
from web.cli_analytics import card_facts
from web.config import Settings
from web.dashboard import BOTTOM, HEIGHT, MIN_SAMPLE, TOP, _heat, rate_bars, rate_y


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
    assert heat.count('<g class="cell') == len(matchups)
    for m in matchups:
        said = (f"{m['archetype']} mirror:" if m["archetype"] == m["opponent"] else
                f"{m['archetype']} vs {m['opponent']}:")
        assert said in heat and f"{m['games']} games" in heat
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
    assert 'id="filter-notice"' not in html  # a tournament of the warehouse: no notice
    few = _stats(path, "cards", min_games=1000)
    assert few.rows == [] and "No games under these filters" in _get(client, "/stats?min_games=1000")
    response = client.get("/stats?ruleset=9")
    assert response.status_code == 400 and "ruleset" in response.get_json()["message"]


def test_a_tournament_the_warehouse_lacks_is_named_in_a_notice(client):
    """A link with a typo'd tournament showed 'any' in the form and empty panels, and nothing
    said why."""
    html = re.sub(r"\s+", " ", _get(client, "/stats?tournament=Dash+Cupp"))
    assert ('<p class="notice" id="filter-notice">The warehouse has no match of tournament '
            "&#39;Dash Cupp&#39;: every panel is empty. Pick one of its tournaments above.</p>"
            ) in html
    for known in ("Dash Cup", "dash-cup"):
        assert 'id="filter-notice"' not in _get(client, f"/stats?tournament={known}")


ORGANIZER = "o" * 32


def _organizer_client(app):
    """A client signed in at /organize with the organizer token."""
    client = app.test_client()
    assert client.post("/organize/login", data={"token": ORGANIZER},
                       headers={"Origin": "http://localhost"}).status_code == 303
    return client


def test_without_a_warehouse_the_page_says_how_to_make_one(tmp_path):
    """The public learns there is no warehouse yet, not where on the server it would be; the
    organizer (signed in at /organize) sees the file and the command to make it."""
    app = create_app(Settings(store=tmp_path / "store", secret_key="s" * 32,
                              organizer_token=ORGANIZER))
    where = str(tmp_path / "store" / "warehouse.duckdb")
    html = _get(app.test_client(), "/stats")
    assert "No statistics yet" in html and "wonders ingest" in html
    assert str(tmp_path) not in html
    response = app.test_client().get("/stats/cards.csv")
    assert response.status_code == 404 and str(tmp_path) not in response.get_data(as_text=True)
    assert response.get_json()["message"] == "no warehouse yet: run `wonders ingest` first"
    organizer = _organizer_client(app)
    html = _get(organizer, "/stats")
    assert "No warehouse at" in html and f"wonders ingest STORE --db {where}" in html
    assert where in organizer.get("/stats/cards.csv").get_json()["message"]


def test_a_file_that_is_no_warehouse_is_named_to_the_organizer_only(tmp_path):
    """The warehouse's own errors (here: a file that is not DuckDB) keep the path from the
    public too."""
    app = create_app(Settings(store=tmp_path / "store", secret_key="s" * 32,
                              organizer_token=ORGANIZER))
    (tmp_path / "store" / "warehouse.duckdb").write_text("not a database, just some text\n")
    response = app.test_client().get("/stats/cards.csv")
    message = response.get_json()["message"]
    assert response.status_code == 400 and str(tmp_path) not in message
    assert message.startswith("the warehouse file: not a DuckDB warehouse")
    message = _organizer_client(app).get("/stats/cards.csv").get_json()["message"]
    assert message.startswith(f"{tmp_path / 'store' / 'warehouse.duckdb'}: not a DuckDB")


def test_a_warehouse_held_by_an_ingest_load_is_a_503_in_one_line(warehouse, tmp_path,
                                                                  monkeypatch):
    """While an ingest loads (it alone holds the file) a request waits for it, then answers
    503 with one line -- not a 400 carrying DuckDB's lock message."""
    import shutil
    import subprocess
    import sys

    import web.dashboard

    store, path = warehouse
    copy = tmp_path / "w.duckdb"
    shutil.copy(path, copy)
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time, duckdb; "
                               "con = duckdb.connect(sys.argv[1]); print('held', flush=True); "
                               "time.sleep(60)", str(copy)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(web.dashboard, "LOAD_WAIT", 0.3)
        app = create_app(Settings(store=store, secret_key="s" * 32))
        app.config["WONDERS_WAREHOUSE"] = str(copy)
        response = app.test_client().get("/stats/cards.csv")
        assert response.status_code == 503
        message = response.get_json()["message"]
        assert message == ("the warehouse file: the warehouse is in use by another process ("
                           "an ingest loading it); try again in a moment")  # no server path
    finally:
        holder.kill()
        holder.wait()


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


# -- issue 18 item 3: honest by default -------------------------------------------------------


def test_small_samples_do_not_top_the_cards_table_by_default(client, warehouse):
    """By default the cards over at least min_n games (GIH) come first, each group by
    the Wilson lower bound (an n=1 card at 100% has a lower bound of ~21%); ``min_n=0``
    ranks by the lower bound alone, ``rank=rate`` by the rate."""
    _, path = warehouse
    cards = {c["card"]: c for c in _stats(path, "cards").records()}

    def low(c):
        return cards[c]["gih_wr_low"] if cards[c]["gih_wr_low"] is not None else -1

    html = _get(client, "/stats")
    assert f'name="min_n" type="number" min="0" value="{MIN_SAMPLE}"' in html  # the default
    shown = re.findall(r'<tr data-card="([^"]+)">', _get(client, "/stats?min_n=4"))
    enough = [c for c in shown if cards[c]["gih_games"] >= 4]  # (this small sample's minimum)
    assert enough, "the sample has cards over the minimum"
    assert shown[:len(enough)] == enough  # every well-sampled card before any other
    assert [low(c) for c in enough] == sorted(map(low, enough), reverse=True)
    rest = shown[len(enough):]
    assert [low(c) for c in rest] == sorted(map(low, rest), reverse=True)
    lucky = [c for c in shown if cards[c]["gih_games"] == 1 and cards[c]["gih_wr"] == 1.0]
    assert lucky, "the sample has an n=1 card at 100% (what used to top the table)"
    by_low = re.findall(r'<tr data-card="([^"]+)">', _get(client, "/stats?min_n=0"))
    assert [low(c) for c in by_low] == sorted(map(low, by_low), reverse=True)
    assert by_low.index(lucky[0]) > 0 and cards[by_low[0]]["gih_games"] > 1
    by_rate = re.findall(r'<tr data-card="([^"]+)">', _get(client, "/stats?rank=rate&min_n=0"))
    rates = [cards[c]["gih_wr"] if cards[c]["gih_wr"] is not None else -1 for c in by_rate]
    assert rates == sorted(rates, reverse=True)
    assert cards[by_rate[0]]["gih_wr"] == 1.0  # by the rate alone, small samples come first
    assert client.get("/stats?rank=best").status_code == 400


def test_mirrors_are_blank_and_small_cells_muted(client, warehouse):
    _, path = warehouse
    html = _get(client, "/stats?min_n=3")
    heat = re.search(r'id="heatmap".*?</svg>', html, re.DOTALL).group(0)
    cells = re.findall(r'<g class="cell([^"]*)"><title>(.*?)</title>\s*<rect [^>]*fill="([^"]+)"', heat)
    matchups = _stats(path, "matchups").records()
    assert len(cells) == len(matchups)
    for m, (classes, title, fill) in zip(matchups, cells, strict=True):
        if m["archetype"] == m["opponent"]:
            assert "mirror" in classes and fill == "#ffffff" and "%" not in title
        elif m["games"] < 3:
            assert "few" in classes and fill == _heat(None)
        else:
            assert classes == "" and fill == _heat(m["wr"])
    assert any(m["archetype"] == m["opponent"] for m in matchups)


def test_the_realm_chart_compares_winner_and_loser(client, warehouse):
    _, path = warehouse
    html = _get(client, "/stats")
    svg = re.search(r'id="realm-chart".*?</svg>', html, re.DOTALL).group(0)
    assert 'class="half"' not in svg  # no 50% line: "held" is no coin flip
    realms = _stats(path, "realms").records()
    marks = re.findall(r'<line class="reference" [^>]*y1="([\d.]+)"', svg)
    assert [float(y) for y in marks] == [pytest.approx(rate_y(r["loser_held_rate"]), abs=0.06)
                                        for r in realms if r["loser_held_rate"] is not None]
    for r in realms:  # the loser's count is the winner's mirror image over the same games
        assert 0 <= r["loser_held"] <= r["decided_games"]


def test_the_dbs_axis_is_linear_with_every_bucket_labelled(client, warehouse):
    _, path = warehouse
    rows = _stats(path, "dbs", dbs_bucket=5).records()
    svg = re.search(r'id="dbs-chart".*?</svg>', _get(client, "/stats?dbs_bucket=5"),
                    re.DOTALL).group(0)
    slots = re.findall(r'<g class="datum[^"]*" data-label="([^"]+)" data-n="(\d+)"', svg)
    lows = list(range(rows[0]["dbs_diff_low"], rows[-1]["dbs_diff_low"] + 5, 5))
    assert [label for label, _ in slots] == [f"{low:+}…{low + 4:+}" for low in lows]
    games = {r["dbs_diff_low"]: r["games"] for r in rows}
    assert [int(n) for _, n in slots] == [games.get(low, 0) for low in lows]
    for label, _ in slots:  # every bucket has its label drawn
        assert f'class="bucket">{label}</text>' in svg
    # linear: the bucket labels (one per slot, empty slots too) are evenly spaced
    xs = [float(x) for x in re.findall(r'(?:x="|translate\()([\d.]+)[",][^>]*class="bucket"', svg)]
    steps = [b - a for a, b in itertools.pairwise(xs)]
    assert len(xs) == len(lows) and max(steps) - min(steps) < 0.2 and min(steps) > 0


@pytest.mark.parametrize("name", ["cards", "first-player", "matchups", "realms", "dbs"])
def test_every_chart_downloads_as_csv(client, warehouse, name):
    import csv
    import io

    _, path = warehouse
    response = client.get(f"/stats/{name}.csv?ruleset=1.3.2&dbs_bucket=5")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert f'filename="wonders-{name}.csv"' in response.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    table = _stats(path, name, ruleset="1.3.2", dbs_bucket=5)
    assert rows[0] == table.columns and len(rows) - 1 == len(table.rows)
    assert rows[1:] == [["" if v is None else str(v) for v in row] for row in table.rows]
    assert f'href="/stats/{name}.csv' in _get(client, "/stats")


def test_an_unknown_chart_is_a_404(client):
    response = client.get("/stats/prices.csv")
    assert response.status_code == 404 and "prices" in response.get_json()["message"]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """A warehouse of both games: Wonders of The First's matches and State of Wonder's."""
    root = tmp_path_factory.mktemp("mixed")
    store = FileStore(root / "store")
    simulate_games(store, (("wotf", "w", 4), ("sow", "s", 4)), seed=5)
    path = root / "w.duckdb"
    assert not ingest(root / "store", path, card_facts()).problems
    app = create_app(Settings(store=root / "store", secret_key="s" * 32))
    app.config["WONDERS_WAREHOUSE"] = str(path)
    return app.test_client(), path


def _first_line(path, **filters):
    first = _stats(path, "first-player", **filters).records()[0]
    return f"won {first['first_wins']} of {first['games']} games"


def test_a_warehouse_of_both_games_is_read_one_game_at_a_time(mixed):
    client, path = mixed
    both = _get(client, "/stats")
    assert '<option value="wotf" >Wonders of The First</option>' in both
    assert '<option value="sow" >State of Wonder</option>' in both
    assert _first_line(path) in both and " of 8 games" in both  # a game here: one match
    for chart, title in (("realm-chart", "Wonders of The First"), ("dbs-chart", "Wonders of The First"),
                         ("siege-chart", "State of Wonder")):
        assert f'id="{chart}"' in both and f"({title})" in both
    sow = _get(client, "/stats?game=sow")
    assert _first_line(path, game="sow") in sow and " of 4 games" in sow
    assert 'id="siege-chart"' in sow and 'id="realm-chart"' not in sow and 'id="dbs-chart"' not in sow
    # a State of Wonder card's first play is counted in turns (it has no rounds)
    assert "Avg. first turn" in sow and "Avg. first round" not in sow
    assert "Avg. first round (State of Wonder: turn)" in both  # it read 'round' for both
    assert '<option value="004" >004</option>' in sow and ">1.3.2<" not in sow
    wotf = _get(client, "/stats?game=wotf")
    assert 'id="siege-chart"' not in wotf and 'id="dbs-chart"' in wotf
    assert _first_line(path, game="wotf") in wotf and ">004<" not in wotf
    # the DBS chart counts Wonders' seats only, with or without the game chosen
    n = sum(r["games"] for r in _stats(path, "dbs").records())
    svg = re.search(r'id="dbs-chart".*?</svg>', both, re.DOTALL).group(0)
    assert n == 8 and sum(map(int, re.findall(r'data-n="(\d+)"', svg))) == 8


def test_a_ruleset_or_game_the_program_does_not_play_is_refused_by_name(mixed):
    client, _ = mixed
    assert client.get("/stats?ruleset=004").status_code == 200  # State of Wonder's
    response = client.get("/stats/cards.csv?game=sow&ruleset=1.3.2")
    assert response.status_code == 400
    assert response.get_json()["message"] == \
        "ruleset='1.3.2': use State of Wonder's rulesets 004"
    # the page's form sends the ruleset picked before the game was changed: the game is kept
    import html
    page = html.unescape(_get(client, "/stats?game=sow&ruleset=1.3.2"))
    assert "Ruleset 1.3.2 is not State of Wonder's: every ruleset of State of Wonder is shown." \
        in page and 'id="siege-chart"' in page and 'id="dbs-chart"' not in page
    assert client.get("/stats?ruleset=9").status_code == 400  # a ruleset of no game
    response = client.get("/stats?game=chess")
    assert response.status_code == 400 and "use one of sow, wotf" in response.get_json()["message"]


def test_links_keep_the_game_and_the_dbs_bucket(mixed):
    client, path = mixed
    html = _get(client, "/stats?game=wotf&dbs_bucket=20")
    sorts = re.findall(r'href="(/stats\?sort=[^"]+)"', html)
    assert sorts and all("game=wotf" in h and "dbs_bucket=20" in h for h in sorts)
    csvs = re.findall(r'href="(/stats/[a-z-]+\.csv[^"]*)"', html)
    assert csvs and all("game=wotf" in h and "dbs_bucket=20" in h for h in csvs)
    import csv
    import io
    rows = list(csv.reader(io.StringIO(client.get("/stats/sieges.csv?game=sow").get_data(
        as_text=True))))
    table = _stats(path, "sieges", game="sow")
    assert rows[0] == table.columns and len(rows) - 1 == len(table.rows) > 0


def test_the_first_player_panel_counts_matches_and_says_when_there_are_none(tmp_path):
    """The panel reads '… won 1 of 1 game (1 draw)' in the singular and, with no finished
    match, says so (it read '0 of 0 games (0 draws); 95% CI –––')."""
    store = FileStore(tmp_path / "store")
    db = default_cards()
    list(simulate_matches(store, db, load_decks(None, db), 1, seed=12, ruleset="1.2"))
    path = tmp_path / "w.duckdb"
    ingest(tmp_path / "store", path, card_facts())
    app = create_app(Settings(store=tmp_path / "store", secret_key="s" * 32))
    app.config["WONDERS_WAREHOUSE"] = str(path)
    text = re.sub(r"\s+", " ", _get(app.test_client(), "/stats"))
    assert re.search(r"first turn won [01] of 1 game \(0 draws\)", text)
    empty = re.sub(r"\s+", " ", _get(app.test_client(), "/stats?tournament=none"))
    assert "No finished match passes the filters yet." in empty
    assert "–––" not in empty and "0 of 0" not in empty
