"""A game installed through the ``wonders.games`` entry points, written before games named
their decks and archetypes (``deck_title``, ``archetype_names``), still works: those two are
optional members, as the protocol's other late ones (``board_seq``, ``round_of``).  Before,
with such a game installed, ``/stats`` (every game's archetype names were asked for, whether
the warehouse held its matches or not), ``/matches`` (each row's deck title) and ``wonders
stats matchups`` failed with an ``AttributeError``.  A real ``wonders serve`` and the real
CLI, in processes that find the game through its installed entry point."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ledger.events import MatchEnded, MatchOpened, SeatInfo
from ledger.filestore import FileStore
from ledger.warehouse import ingest
from replay.games import game
from replay.simulate import simulate_matches
from tests.e2e.helpers import start_server, stop_server
from web.cli_analytics import card_facts

ROOT = Path(__file__).resolve().parents[2]
FACTIONS = {"Ashen Horde", "Ironhold", "Sunmarch"}

#: A game of its own package: the members the pages here use, and none of the new ones.
THIRD_GAME = '''"""A third-party game, written against the protocol before deck titles."""


class Pool:
    def __contains__(self, name):
        return False

    def names(self):
        return []


class ThirdGame:
    name = "third"
    title = "Third Game"
    rulesets = ("1.0",)
    rules_revision = 1
    engine_version = "third-1"
    perspectives = ("omniscient", "A", "B", "spectator")
    seats = ("A", "B")
    address_types = frozenset()

    def default_cards(self):
        return Pool()

    def redact(self, event, view, hidden=(), log=(), seq=None):
        return event


GAME = ThirdGame()
'''


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """``(site, store)``: a directory where the game is installed (its package and its
    distribution's entry point), and a store of State of Wonder matches, ingested into its
    warehouse, and one ended match of the third game."""
    root = tmp_path_factory.mktemp("third")
    site = root / "site"
    (site / "thirdgame").mkdir(parents=True)
    (site / "thirdgame" / "__init__.py").write_text('"""A third-party game."""\n')
    (site / "thirdgame" / "game.py").write_text(THIRD_GAME)
    meta = site / "thirdgame-1.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: thirdgame\nVersion: 1.0\n")
    (meta / "entry_points.txt").write_text("[wonders.games]\nthird = thirdgame.game\n")
    store = root / "store"
    sow = game("sow")
    pool = sow.default_cards()
    list(simulate_matches(FileStore(store), pool, sow.sample_decks(pool), 4, seed=7,
                          prefix="s", game_name="sow"))
    assert not ingest(store, store / "warehouse.duckdb", card_facts()).problems
    files = FileStore(store)
    files.create(MatchOpened(match_id="third-1", ruleset="1.0", game="third", seats=[
        SeatInfo("A", "Ann", "ann-deck", [], []), SeatInfo("B", "Bob", "bob-deck", [], [])]))
    files.append("third-1", [MatchEnded(winner="A", reason="score")], 1)
    return site, store


def _with(site: Path) -> str:
    """A ``PYTHONPATH`` finding this program and the installed game."""
    return f"{ROOT}{os.pathsep}{site}"


def _get(base: str, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(base + path, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_the_pages_work_with_the_game_installed(installed):
    site, store = installed
    proc, base = start_server(store, PYTHONPATH=_with(site))
    try:
        status, page = _get(base, "/stats?game=sow")
        assert status == 200, page[-500:]
        heat = re.search(r'id="heatmap".*?</svg>', page, re.S).group(0)
        labels = {html.unescape(t) for t in re.findall(r'text-anchor="end">([^<]+)</text>', heat)}
        assert labels and labels <= FACTIONS, labels
        status, listed = _get(base, "/matches")
        assert status == 200, listed[-500:]
        row = re.search(r'<tr data-match="third-1".*?</tr>', listed, re.S).group(0)
        assert "ann-deck" in row and "bob-deck" in row  # a game without titles: as recorded
    finally:
        stop_server(proc)


def test_the_matchups_table_works_with_the_game_installed(installed):
    site, store = installed
    done = subprocess.run([sys.executable, "-m", "web.cli", "stats", "matchups", "--db",
                           str(store / "warehouse.duckdb")], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": _with(site)})
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-1500:]
    assert "Ashen Horde" in done.stdout or "Sunmarch" in done.stdout, done.stdout

