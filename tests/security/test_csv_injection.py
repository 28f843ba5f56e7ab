"""CSV formula injection: text a spreadsheet would run is written as text.

Players named ``=cmd|' /C calc'!A0``, ``+SUM(1+1)``, ``@HYPERLINK("http://x")`` or ``=1+2``
were written as the first characters of cells of the pairings, results and standings CSVs (the
API, the console's downloads and ``wonders tournament export``), and names read from the data
(an archetype here) into the ``/stats`` CSVs and ``wonders stats --format csv``: a spreadsheet
opening the file runs them.  Every such cell now begins with ``'``; numbers (a negative one
included) stay numbers.
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys

import pytest

from ledger.csvcells import csv_text, safe_cell
from tests.security.live import ROOT
from tests.web.test_api import ORGANIZER, Api, new_app
from tests.web.test_tournaments import DECKS, decklist

HOSTILE = ["=cmd|' /C calc'!A0", "+SUM(1+1)", '@HYPERLINK("http://x")', "=1+2", "-2+3", "Bob"]
STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def _runnable(text: str) -> list[str]:
    """The cells a spreadsheet would take for a formula (a number is none)."""
    out = []
    for cell in _cells(text):
        try:
            float(cell)
        except ValueError:
            if cell.startswith(STARTS):
                out.append(cell)
    return out


def test_a_cell_of_text_that_starts_a_formula_is_quoted_and_numbers_are_kept():
    assert safe_cell("=1+2") == "'=1+2" and safe_cell("\tx") == "'\tx"
    assert safe_cell("-3") == "-3" and safe_cell("+2.5") == "+2.5" and safe_cell(-3) == -3
    assert safe_cell("Ann") == "Ann" and safe_cell("-2+3") == "'-2+3"
    assert _cells(csv_text([["=1+2", -3, "-3", None]])) == ["'=1+2", "-3", "-3", ""]


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def test_players_named_like_formulas_come_out_as_text_in_every_tournament_csv(api, tmp_path):
    status, t = api.call("POST", "/api/tournaments", ORGANIZER, {"name": "CSV Cup"})
    assert status == 201, t
    for name, deck in zip(HOSTILE, DECKS, strict=False):
        status, out = api.call("POST", "/api/tournaments/csv-cup/players", ORGANIZER,
                               {"player": name, "decklist": decklist(deck)})
        assert status == 201, out
    status, out = api.call("POST", "/api/tournaments/csv-cup/rounds", ORGANIZER)
    assert status == 201, out
    for kind in ("pairings", "results", "standings"):
        response = api.client.get(f"/api/tournaments/csv-cup/{kind}.csv",
                                  headers={"Authorization": f"Bearer {ORGANIZER}"})
        text = response.get_data(as_text=True)
        assert response.status_code == 200 and not _runnable(text), (kind, _runnable(text))
        assert "'=cmd|' /C calc'!A0" in _cells(text)  # the name is all there, as text
    # the CLI's export, a real subprocess over the same store
    store = api.app.extensions["wonders"].store.root
    done = subprocess.run([sys.executable, "-m", "web.cli", "tournament", "export", "csv-cup",
                           "standings", "--store", str(store)], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert not _runnable(done.stdout) and "'+SUM(1+1)" in _cells(done.stdout)
    # numbers stay numbers: ranks, points, percentages
    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert all(row[0].isdigit() and float(row[7]) >= 0 for row in rows[1:])


def test_an_archetype_named_like_a_formula_comes_out_as_text_in_the_stats_csvs(tmp_path):
    import duckdb

    from ledger.filestore import FileStore
    from ledger.warehouse import ingest
    from replay.simulate import simulate_matches
    from replay.wotf.cards import default_cards
    from replay.wotf.decks import load_decks
    from web.app import create_app
    from web.cli_analytics import card_facts
    from web.config import Settings

    db = default_cards()
    list(simulate_matches(FileStore(tmp_path / "store"), db, load_decks(None, db)[:2], 2, seed=5))
    path = tmp_path / "w.duckdb"
    ingest(tmp_path / "store", path, card_facts())
    con = duckdb.connect(str(path))  # hostile data in a real warehouse file
    (table,) = con.execute("SELECT table_name FROM information_schema.columns "
                           "WHERE column_name = 'main_orbitals' LIMIT 1").fetchone()
    con.execute(f"UPDATE {table} SET main_orbitals = '=HYPERLINK(\"http://x\")'")
    con.close()
    app = create_app(Settings(store=tmp_path / "store", secret_key="s" * 32))
    app.config["WONDERS_WAREHOUSE"] = str(path)
    text = app.test_client().get("/stats/matchups.csv").get_data(as_text=True)
    assert "'=HYPERLINK(" in text and not _runnable(text), text
    done = subprocess.run([sys.executable, "-m", "web.cli", "stats", "matchups", "--db",
                           str(path), "--format", "csv"], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert "'=HYPERLINK(" in done.stdout and not _runnable(done.stdout)
