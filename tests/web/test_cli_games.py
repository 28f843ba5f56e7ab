"""The ``wonders`` CLI plays both games: State of Wonder simulated, verified, replayed from a
perspective, run through its conformance cases and demoed, as a user runs it (subprocesses)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def wonders(*args: object, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "web.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def sow_store(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sow") / "store"
    done = wonders("simulate", "--game", "sow", "--matches", "3", "--seed", "4", "--out", out)
    assert done.returncode == 0, done.stderr
    return out


def test_simulated_state_of_wonder_matches_verify(sow_store):
    done = wonders("verify", sow_store)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "3 passed, 0 failed"
    assert all("re-derived at rules 004" in line for line in done.stdout.splitlines()[:3])


def test_the_same_arguments_give_the_same_files(sow_store, tmp_path):
    again = tmp_path / "again"
    assert wonders("simulate", "--game", "sow", "--matches", "3", "--seed", "4",
                   "--out", again).returncode == 0
    for path in sorted(sow_store.glob("*.jsonl")):
        assert (again / path.name).read_bytes() == path.read_bytes()


def test_replay_hides_a_seats_culture_from_the_other_seat(sow_store):
    match = sorted(sow_store.glob("*.jsonl"))[0]
    mine = json.loads(wonders("replay", match, "--at", "60", "--as", "A", "--json").stdout)
    theirs = json.loads(wonders("replay", match, "--at", "60", "--as", "B", "--json").stdout)
    assert isinstance(mine["cities"]["A"]["culture"], list)
    assert theirs["cities"]["A"]["culture"] == len(mine["cities"]["A"]["culture"])
    text = wonders("replay", match, "--at", "60", "--as", "spectator")
    assert text.returncode == 0 and "culture:" in text.stdout and " hidden card" in text.stdout
    assert "(s)" not in text.stdout


def test_an_unknown_perspective_is_one_line(sow_store):
    match = sorted(sow_store.glob("*.jsonl"))[0]
    done = wonders("replay", match, "--as", "C")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "no perspective 'C'" in done.stderr


def test_state_of_wonder_conformance_cases_pass():
    done = wonders("conformance", "--game", "sow", "--quiet")
    assert done.returncode == 0, done.stdout[-2000:]
    passed = int(done.stdout.splitlines()[-1].split()[0])
    assert passed >= 60


def test_a_ruleset_the_game_lacks_is_refused(tmp_path):
    done = wonders("simulate", "--game", "sow", "--rules", "1.3.2", "--out", tmp_path / "x")
    assert done.returncode != 0 and "State of Wonder has no ruleset '1.3.2'" in done.stderr


def test_demo_of_both_games_shares_one_store_and_warehouse(tmp_path):
    store = tmp_path / "demo"
    for game in ("sow", "wotf"):
        done = wonders("demo", "--game", game, "--no-serve", "--dir", store, "--players", "4",
                       "--rounds", "1")
        assert done.returncode == 0, done.stderr
    done = wonders("stats", "endings", "--db", store / "warehouse.duckdb", "--format", "json")
    rows = json.loads(done.stdout)
    assert {row["game"] for row in rows} == {"sow", "wotf"}
    assert sum(row["matches"] for row in rows) == 4
