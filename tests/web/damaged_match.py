"""Set-up shared by the tests of a tournament one of whose match files was altered by hand
(tests/web/test_tournament_damaged_api.py, test_tournament_damaged_later.py,
test_tournament_pages.py): round 1 played out through the API, a match file's first line
altered so that its hash no longer checks, and the CLI's standings of the same store asked of a
fresh process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.web.test_api import Api
from tests.web.test_tournaments import call, concede, new_tournament

REPO = Path(__file__).resolve().parents[2]


def round_one_ended(api: Api, name: str = "Harbour Open") -> tuple[str, dict, dict]:
    """Four players, round 1 started and both tables ended (seat B conceded each: seat A won);
    the tournament's id and its two tables as the round's start answered them."""
    tid = new_tournament(api, players=4, name=name)
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, started
    first, second = started["tables"]
    concede(api, second["match_id"], second["tokens"]["judge"], "B")
    concede(api, first["match_id"], first["tokens"]["judge"], "B")
    return tid, first, second


def match_path(api: Api, match_id: str) -> Path:
    """The match file of ``match_id`` in the in-process app's file store."""
    return api.app.extensions["wonders"].store.root / f"{match_id}.jsonl"


def alter_first_line(path: Path, player: str) -> None:
    """Rename ``player`` in the match file's first line (its ``MatchOpened``), by hand: the
    line's hash no longer checks, so the match can't be read."""
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[0] = lines[0].replace(f'"{player}"', f'"{player}x"', 1)
    path.write_text("\n".join(lines), encoding="utf-8")


def cli_standings(tid: str, store: Path) -> subprocess.CompletedProcess:
    """``wonders tournament standings TID --store STORE`` in a fresh process."""
    return subprocess.run([sys.executable, "-m", "web.cli", "tournament", "standings", tid,
                           "--store", str(store)], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
