"""Attack: a file that is no small regular file handed to the CLI in place of a decklist, a
pool file or a match file.

What the CLI did before, run as a real subprocess:

* ``wonders tournament register ID NAME FILE`` and ``wonders tournament import-cards ID FILE``
  read the whole file before any check: a FIFO (a named pipe nothing writes to) blocked the
  command forever; ``/dev/zero`` was read until memory ran out and ended in a ``MemoryError``
  traceback; a file of hundreds of megabytes was read whole only to be refused for its length.
* ``wonders verify`` given a FIFO or ``/dev/null`` itself said "no such file or directory"
  (it exists: it is no regular file), where a store's FIFO entry is a FAIL line saying what
  it is.

Now a decklist or pool file is opened without waiting (``O_NONBLOCK``), refused in one line if
it is no regular file (naming what it is), and read no further than its limit (a decklist
20 kB, a pool file 1 MB, as the pages take them); ``wonders verify`` answers a FIFO or a
device given by itself with a FAIL line naming it, as it does for a store's entry.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.web.test_tournaments import DECKS, decklist
from tests.web.test_tournaments_desk import ROOT

TIMEOUT = 60  # a command that hangs is the failure (a FIFO nothing writes to)


def _wonders(*args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([sys.executable, "-m", "web.cli", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"wonders {' '.join(args)}: still running after {TIMEOUT} s")


@pytest.fixture
def cup(tmp_path):
    store = tmp_path / "store"
    done = _wonders("tournament", "create", "Pipe Cup", "--store", str(store))
    assert done.returncode == 0, done.stderr
    fifo = tmp_path / "ann.txt"
    os.mkfifo(fifo)
    return store, fifo


def _one_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, \
        done.stderr
    return done.stderr.strip()


def test_a_fifo_decklist_is_refused_at_once(cup):
    store, fifo = cup
    done = _wonders("tournament", "register", "pipe-cup", "Ann", str(fifo), "--store", str(store))
    assert _one_line(done) == (f"error: {fifo}: not a decklist file: a FIFO, not a regular "
                               f"file (nothing was read from it)")
    done = _wonders("tournament", "import-cards", "pipe-cup", str(fifo), "--store", str(store))
    assert _one_line(done) == (f"error: {fifo}: not a pool file: a FIFO, not a regular "
                               f"file (nothing was read from it)")


def test_an_endless_device_is_refused_not_read(cup):
    store, _fifo = cup
    done = _wonders("tournament", "register", "pipe-cup", "Ann", "/dev/zero", "--store",
                    str(store))
    assert _one_line(done) == ("error: /dev/zero: not a decklist file: a character device, "
                               "not a regular file (nothing was read from it)")


def test_a_huge_decklist_is_refused_after_its_limit(cup, tmp_path):
    store, _fifo = cup
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as out:  # sparse: 4 GiB of zeros that take no disk
        out.truncate(4 << 30)
    done = _wonders("tournament", "register", "pipe-cup", "Ann", str(huge), "--store", str(store))
    assert _one_line(done) == (f"error: {huge}: larger than 20 kB; a decklist is 'count name' "
                               f"lines")
    fine = tmp_path / "fine.txt"
    fine.write_bytes(b"\xef\xbb\xbf" + decklist(DECKS[0]).encode())  # a byte order mark too
    done = _wonders("tournament", "register", "pipe-cup", "Ann", str(fine), "--store", str(store))
    assert done.returncode == 0 and "registered Ann" in done.stdout, done.stderr


def test_verify_names_a_fifo_or_a_device_for_what_it_is(cup):
    _store, fifo = cup
    done = _wonders("verify", str(fifo), "/dev/null")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.splitlines() == [
        f"FAIL {fifo}: not a match file: a FIFO, not a regular file (nothing was read from it)",
        "FAIL /dev/null: not a match file: a character device, not a regular file (nothing "
        "was read from it)",
        "0 passed, 2 failed"]
    assert "no such file" not in done.stderr


@pytest.mark.parametrize(("command", "kind"), [
    (("cards", "validate"), "card or deck file"),
    (("conformance",), "conformance case"),
])
def test_cards_validate_and_conformance_refuse_a_fifo(tmp_path, command, kind):
    """``wonders cards validate`` and ``wonders conformance`` given a FIFO (by itself, or as a
    ``*.toml`` in a directory given) blocked forever in the game's loader; now one line."""
    cases = tmp_path / "cases"
    cases.mkdir()
    fifo = cases / "pipe.toml"
    os.mkfifo(fifo)
    for given in (fifo, cases):
        done = _wonders(*command, str(given))
        assert _one_line(done) == (f"error: {fifo}: not a {kind}: a FIFO, not a regular file "
                                   f"(nothing was read from it)")
