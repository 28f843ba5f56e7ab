"""Wonders of The First's shipped decks have an id (``solfera-blaze``: the file, the preset,
what every match and golden file records as its deck name) and now a title people read
(``Solfera Blaze``).  Wherever a deck is shown to a person -- the viewer's header and event
list, the match list, /play's event list (the same narration), the organizer's preset menu and
player list, ``wonders replay`` and ``wonders cards validate`` -- the title is shown; the id
stays where an id is needed (the preset's value, the files, the API).  A real app over a file
store holding a shipped golden match (unchanged), and the real CLI."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from replay.resources import data_root
from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import DECKS, call, decklist, new_tournament
from tests.web.test_tournaments_desk import ORIGIN, console

REPO = Path(__file__).resolve().parents[2]
GOLDEN = data_root() / "matches" / "golden-132-0001.jsonl"  # thalwind-sky vs thalwind-solfera


@pytest.fixture
def api(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    shutil.copy(GOLDEN, store)
    return Api(new_app(tmp_path))


def _page(api, url: str) -> str:
    response = api.client.get(url)
    assert response.status_code == 200
    return html.unescape(response.get_data(as_text=True))


def test_the_golden_match_still_records_the_ids():
    opened = json.loads(GOLDEN.read_text().splitlines()[0])
    assert [s["deck_name"] for s in opened["seats"]] == ["thalwind-sky", "thalwind-solfera"]


def test_the_viewer_shows_deck_titles(api):
    page = _page(api, "/matches/golden-132-0001")
    header = re.search(r"<h1>(.*?)</h1>", page, re.S).group(1)
    assert "(Thalwind Sky)" in header and "(Thalwind & Solfera)" in header
    assert "thalwind-" not in header
    timeline = api.client.get("/matches/golden-132-0001/timeline").get_json()
    assert timeline["events"][0]["text"] == ("Match opens: greedy bot (Thalwind Sky) vs greedy "
                                             "bot (Thalwind & Solfera) — rules 1.3.2")


def test_the_match_list_shows_deck_titles(api):
    row = re.search(r'<tr data-match="golden-132-0001">(.*?)</tr>',
                    _page(api, "/matches"), re.S).group(1)
    assert "Thalwind Sky" in row and "Thalwind & Solfera" in row and "thalwind-" not in row


def test_the_console_shows_preset_titles_and_keeps_their_ids(api):
    tid = new_tournament(api, players=2)
    client, csrf, _ = console(api, tid)
    assert client.post(f"/organize/t/{tid}/players", headers=ORIGIN, data={
        "csrf": csrf, "player": "Ivy", "decklist": decklist(DECKS[0]),
        "preset": "solfera-blaze"}).status_code == 303
    page = html.unescape(client.get(f"/organize/t/{tid}").get_data(as_text=True))
    menu = page.split('name="preset"')[1].split("</select>")[0]
    assert '<option value="solfera-blaze">Solfera Blaze</option>' in menu
    assert "plays Solfera Blaze" in page and "plays solfera-blaze" not in page
    players = call(api, "GET", f"/api/tournaments/{tid}")[1]["players"]
    assert next(p for p in players if p["name"] == "Ivy")["preset"] == "solfera-blaze"


def _wonders(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "web.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_cli_shows_deck_titles():
    first = _wonders("replay", str(GOLDEN), "--at", "0").splitlines()[0]
    assert "greedy bot (Thalwind Sky) vs greedy bot (Thalwind & Solfera)" in first
    lines = _wonders("cards", "validate").splitlines()
    assert "deck Solfera Blaze (solfera-blaze) OK" in lines
