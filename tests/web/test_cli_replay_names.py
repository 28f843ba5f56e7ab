"""``wonders replay`` draws the board with the players named, as every page and narration
does: "A Ann: energy …", "turn Ann  first Bob", "match over: Ann wins (tiebreak)", each
realm's cards and stones under their owner's name.  Before, the board text spoke of seats
only ("A: energy …", "match over: A (tiebreak)", "stone B") under a headline naming the
players.  Both games; ``wonders demo --no-serve`` and ``wonders replay`` as real
subprocesses."""

from __future__ import annotations

import json
import re

from ledger.events import MatchOpened
from ledger.filestore import FileStore
from tests.web.test_cli_analytics import ok


def players(path) -> dict[str, str]:
    opened = next(FileStore.read_file(path)).event
    assert isinstance(opened, MatchOpened)
    return {info.seat: info.player for info in opened.seats}


def test_the_board_names_the_players_in_both_games(tmp_path):
    for game, tid in (("wotf", "demo-cup"), ("sow", "demo-siege")):
        data = tmp_path / game
        ok("demo", "--no-serve", "--game", game, "--players", 2, "--rounds", 1, "--dir", data)
        path = data / f"{tid}-r1-t01.jsonl"
        names = players(path)
        board = json.loads(ok("replay", path, "--json").stdout)
        text = ok("replay", path).stdout
        lines = text.splitlines()
        winner = names[board["winner"]] if board["winner"] else None
        over = f"{winner} wins" if winner else "draw"
        assert f"match over: {over} (" in text, text
        for seat, name in names.items():
            assert any(line.startswith(f"{seat} {name}: ") for line in lines), (seat, text)
        assert not re.search(r"^(A|B): |match over: (A|B) |turn (A|B) |stone (A|B)\b", text,
                             re.M), text
