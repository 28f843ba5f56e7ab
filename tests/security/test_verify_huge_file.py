"""Attack: a match file too large for the machine's memory given to ``wonders verify``.

A store's entry ``m-0009.jsonl`` of 3 GiB (garbage, a disk image copied in by mistake, or
planted) beside real matches, verified where memory is short: ``check_file`` read the whole
file at once and the command ended in a ``MemoryError`` traceback, the other matches' lines
unprinted.  Now that file is a FAIL line saying it could not be read into memory (its size),
and the other matches are verified as usual.  A real subprocess with its address space
limited (``RLIMIT_AS``), the file sparse (it takes no disk).
"""

from __future__ import annotations

import resource
import subprocess
import sys

import pytest

from tests.web.test_tournaments_desk import ROOT

LIMIT = 2_500 * 2**20  # bytes of address space: the program runs, 3 GiB don't fit


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def test_a_file_too_large_for_memory_is_one_fail_line(tmp_path):
    store = tmp_path / "store"
    done = subprocess.run([sys.executable, "-m", "web.cli", "simulate", "--matches", "1",
                           "--seed", "3", "--out", str(store)], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    with open(store / "m-0009.jsonl", "wb") as out:
        out.truncate(3 << 30)
    done = subprocess.run([sys.executable, "-m", "web.cli", "verify", str(store)], cwd=ROOT,
                          capture_output=True, text=True, preexec_fn=_limited, timeout=300)
    if "Traceback" in done.stderr and "MemoryError" not in done.stderr:
        pytest.skip(f"the program does not start with {LIMIT} bytes of address space here")
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("OK   m-0001: "), done.stdout
    assert lines[1] == (f"FAIL {store}/m-0009.jsonl: 3221225472 bytes, more than this "
                        f"machine's memory holds: not read"), done.stdout
    assert lines[2] == "1 passed, 1 failed" and done.returncode == 1
