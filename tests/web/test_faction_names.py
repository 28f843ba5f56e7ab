"""State of Wonder's archetype is a seat's faction, which its cards record by id (``ashen``);
the match-ups showed the ids (``ashen vs ironhold``).  The card files now name each faction
(``[factions]``: ``ashen = "Ashen Horde"``) and the dashboard's heatmap and ``wonders stats
matchups``' table show those names; the CSV and JSON keep the statistic's own column (the id).
Wonders of The First's archetypes (orbitals, already names) are shown as they are.  A real app
and the real CLI over a warehouse of both games."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.filestore import FileStore
from ledger.warehouse import ingest
from tests.simulated import simulate_games
from web.app import create_app
from web.cli_analytics import card_facts
from web.config import Settings

REPO = Path(__file__).resolve().parents[2]
FACTIONS = {"ashen": "Ashen Horde", "ironhold": "Ironhold", "sunmarch": "Sunmarch"}


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    root = tmp_path_factory.mktemp("factions")
    store = FileStore(root / "store")
    simulate_games(store, (("sow", "s", 8), ("wotf", "w", 2)), seed=7)
    assert not ingest(root / "store", root / "w.duckdb", card_facts()).problems
    app = create_app(Settings(store=root / "store", secret_key="s" * 32))
    app.config["WONDERS_WAREHOUSE"] = str(root / "w.duckdb")
    return app.test_client(), root / "w.duckdb"


def _labels(client, query: str) -> tuple[set[str], list[str]]:
    page = client.get(f"/stats{query}").get_data(as_text=True)
    heat = re.search(r'id="heatmap".*?</svg>', page, re.S).group(0)
    labels = {html.unescape(t) for t in re.findall(r'text-anchor="end">([^<]+)</text>', heat)}
    return labels, [html.unescape(t) for t in re.findall(r"<title>([^<]+)</title>", heat)]


def test_the_heatmap_names_factions(warehouse):
    labels, titles = _labels(warehouse[0], "?game=sow")
    assert labels and labels <= set(FACTIONS.values()), labels
    assert not any(re.search(r"\b(ashen|ironhold|sunmarch)\b", t) for t in titles), titles


def test_both_games_together_name_factions_and_keep_orbitals(warehouse):
    labels, _ = _labels(warehouse[0], "")
    assert labels & set(FACTIONS.values())
    assert not labels & set(FACTIONS)
    assert any(label[0].isupper() and label not in FACTIONS.values() for label in labels)


def _stats(db, *args):
    done = subprocess.run([sys.executable, "-m", "web.cli", "stats", "matchups", "--db", str(db),
                           "--game", "sow", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_cli_table_names_factions_and_the_csv_keeps_ids(warehouse):
    table = _stats(warehouse[1])
    assert "Ashen Horde" in table and not re.search(r"\bashen\b", table), table
    csv = _stats(warehouse[1], "--format", "csv")
    assert {line.split(",")[0] for line in csv.splitlines()[1:]} <= set(FACTIONS)
