"""The viewer's jump menus offer what the match's game has.  State of Wonder has no rounds
(a match is turns, battles and sieges: docs/sow.md), yet its viewer showed a "round" menu
holding only "—" and a "1–7 round" key hint; now a game without rounds has neither, and a
Wonders of The First match keeps both.  A real app over a file store holding the shipped
golden matches."""

from __future__ import annotations

import re
import shutil

import pytest

from replay.resources import data_root
from tests.web.test_api import new_app


@pytest.fixture
def client(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    shutil.copy(data_root() / "sow" / "matches" / "sow-golden-1.jsonl", store)
    shutil.copy(data_root() / "matches" / "golden-132-0001.jsonl", store)
    return new_app(tmp_path).test_client()


def _jumps(client, match_id: str) -> str:
    response = client.get(f"/matches/{match_id}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    return re.search(r'<div class="controls jumps">(.*?)</div>', page, re.S).group(1)


def test_a_game_without_rounds_shows_no_round_menu(client):
    jumps = _jumps(client, "sow-golden-1")
    assert 'id="jump-round"' not in jumps and "round" not in jumps
    assert 'id="jump-turn"' in jumps and 'id="jump-battle"' in jumps


def test_a_game_with_rounds_keeps_its_round_menu_and_keys(client):
    jumps = _jumps(client, "golden-132-0001")
    assert 'id="jump-round"' in jumps and "1–7 round" in jumps
