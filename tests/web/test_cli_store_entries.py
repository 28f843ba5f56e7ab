"""`wonders verify`, `copy` and `upgrade` over a store directory with odd entries, run as real
subprocesses: a file whose name is not its match id (misnamed) and entries named like match
files that are not regular files (a directory, a dangling symbolic link, a loop of links, a
FIFO) are each one FAIL line naming the entry and why -- and every other match is still
verified, copied or upgraded; nothing is written under another name than the one reported,
and a FIFO is never opened for reading (the command does not hang).  ``verify --jobs 2``
prints the same lines as one process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from replay.resources import golden_dir

REPO = Path(__file__).resolve().parents[2]
MISNAMED = ("{where}:1: seq 0: misnamed: MatchOpened says match 'm-0003'; a store's match "
            "file is named <match_id>.jsonl")


def wonders(*args):
    return subprocess.run([sys.executable, "-m", "web.cli", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("entries") / "sim"
    done = wonders("simulate", "--matches", 3, "--seed", 5, "--out", out)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture
def misnamed(simulated, tmp_path) -> Path:
    """m-0001 as itself, and m-0003's lines saved as m-0002.jsonl."""
    store = tmp_path / "mn"
    store.mkdir()
    shutil.copy(simulated / "m-0001.jsonl", store)
    shutil.copy(simulated / "m-0003.jsonl", store / "m-0002.jsonl")
    return store


def test_verify_fails_a_misnamed_file_of_a_store_directory(misnamed):
    done = wonders("verify", misnamed)
    lines = done.stdout.splitlines()
    assert done.returncode == 1, done.stdout + done.stderr
    assert lines[0].startswith("OK   m-0001: ")
    assert lines[1] == "FAIL " + MISNAMED.format(where=misnamed / "m-0002.jsonl")
    assert lines[2] == "1 passed, 1 failed"


def test_two_files_claiming_one_match_are_not_both_passed(misnamed, simulated):
    shutil.copy(simulated / "m-0003.jsonl", misnamed)
    done = wonders("verify", misnamed)
    assert done.returncode == 1 and done.stdout.splitlines()[-1] == "2 passed, 1 failed"


def test_a_file_given_by_itself_may_be_named_anything(misnamed):
    """Outside a store (a download, a mail attachment) a file is its lines: it names its match."""
    done = wonders("verify", misnamed / "m-0002.jsonl")
    assert done.returncode == 0 and done.stdout.startswith("OK   m-0003: ")


def test_copy_refuses_a_misnamed_file_and_copies_the_rest(misnamed, tmp_path):
    dst = tmp_path / "dst"
    done = wonders("copy", misnamed, dst)
    lines = done.stdout.splitlines()
    assert done.returncode == 1, done.stdout + done.stderr
    assert lines[0].startswith("OK   m-0001: ")
    assert lines[1] == "FAIL m-0002: " + MISNAMED.format(where="m-0002.jsonl")
    assert sorted(p.name for p in dst.iterdir()) == ["m-0001.jsonl"]  # no m-0003.jsonl
    again = wonders("copy", misnamed, dst, "--match", "m-0002")
    assert again.returncode == 1
    assert again.stdout.splitlines()[0] == "FAIL m-0002: " + MISNAMED.format(where="m-0002.jsonl")
    assert sorted(p.name for p in dst.iterdir()) == ["m-0001.jsonl"]


def test_upgrade_refuses_a_misnamed_file(tmp_path):
    src = tmp_path / "old"
    src.mkdir()
    shutil.copy(golden_dir() / "golden-12-0001.jsonl", src / "golden-12-0009.jsonl")
    done = wonders("upgrade", src, tmp_path / "new")
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == (
        "FAIL golden-12-0009.jsonl: " + MISNAMED.format(where=src / "golden-12-0009.jsonl")
        .replace("'m-0003'", "'golden-12-0001'"))
    assert not list((tmp_path / "new").glob("*.jsonl"))


def _odd_entries(store: Path) -> dict[str, str]:
    """Add an entry of each kind that is no match file; what the FAIL line says it is."""
    (store / "a-dir.jsonl").mkdir()
    (store / "b-dangling.jsonl").symlink_to(store / "nowhere")
    (store / "c-loop.jsonl").symlink_to(store / "c-loop.jsonl")
    os.mkfifo(store / "d-fifo.jsonl")
    return {"a-dir": "a directory",
            "b-dangling": "a dangling symbolic link (what it names does not exist)",
            "c-loop": "a loop of symbolic links", "d-fifo": "a FIFO"}


def _why(name: str, what: str) -> str:
    return f"{name}: not a match file: {what}, not a regular file (nothing was read from it)"


@pytest.fixture
def odd(simulated, tmp_path) -> tuple[Path, dict[str, str]]:
    store = tmp_path / "odd"
    store.mkdir()
    for name in ("m-0001.jsonl", "m-0002.jsonl"):
        shutil.copy(simulated / name, store)
    return store, _odd_entries(store)


def test_verify_reports_each_odd_entry_and_verifies_the_rest(odd):
    store, kinds = odd
    done = wonders("verify", store)
    lines = done.stdout.splitlines()
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[:4] == [f"FAIL {_why(str(store / (e + '.jsonl')), w)}" for e, w in kinds.items()]
    assert lines[4].startswith("OK   m-0001: ") and lines[5].startswith("OK   m-0002: ")
    assert lines[6] == "2 passed, 4 failed"


def test_verify_with_jobs_prints_the_same_lines(odd, misnamed):
    store, _kinds = odd
    shutil.copy(misnamed / "m-0002.jsonl", store / "m-0009.jsonl")
    one = wonders("verify", store)
    two = wonders("verify", "--jobs", 2, store)
    assert one.returncode == two.returncode == 1
    assert two.stdout == one.stdout and one.stdout.splitlines()[-1] == "2 passed, 5 failed"


def test_copy_reports_each_odd_entry_and_copies_the_rest(odd, tmp_path):
    store, kinds = odd
    dst = tmp_path / "dst"
    done = wonders("copy", store, dst)
    lines = done.stdout.splitlines()
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[:4] == [f"FAIL {e}: {_why(e + '.jsonl', w)}" for e, w in kinds.items()]
    assert lines[-1].startswith("2 copied, 0 already there, 4 failed")
    assert sorted(p.name for p in dst.iterdir()) == ["m-0001.jsonl", "m-0002.jsonl"]


def test_upgrade_reports_each_odd_entry_and_upgrades_the_rest(tmp_path):
    src = tmp_path / "old"
    src.mkdir()
    shutil.copy(golden_dir() / "golden-12-0001.jsonl", src)
    kinds = _odd_entries(src)
    done = wonders("upgrade", src, tmp_path / "new")
    lines = done.stdout.splitlines()
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[:4] == [f"FAIL {e}.jsonl: {_why(str(src / (e + '.jsonl')), w)}"
                         for e, w in kinds.items()]
    assert lines[4] == "OK   golden-12-0001: schema 3 copy in " + str(tmp_path / "new")
    assert lines[5] == "1 upgraded, 0 already schema 3, 4 failed"
