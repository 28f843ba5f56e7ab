"""A tournament's log on a full disk: a batch that fails half-written is taken back.

A real subprocess whose file size is capped (``RLIMIT_FSIZE``: past the cap a ``write`` fails
with EFBIG after a short write, as one fails with ENOSPC on a full disk) appends a batch of
three events.  Before, the lines that fitted stayed in the log and read as events that were
never acknowledged (the start of a round with half its pairings, say)."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
from pathlib import Path

from ledger.tournament import FileTournamentBook

REPO = Path(__file__).resolve().parents[2]
APPEND = ("import sys; from ledger.tournament import FileTournamentBook; "
          "book = FileTournamentBook(sys.argv[1]); "
          "events = [{'type': 'PlayerRegistered', 'name': 'Player %d' % i, 'pad': 'x' * 200} "
          "for i in range(3)]; "
          "book.append('t1', int(sys.argv[2]), events)")


def _append_capped(store: Path, expected: int, cap: int) -> subprocess.CompletedProcess:
    def capped() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the cap fails instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
    return subprocess.run([sys.executable, "-c", APPEND, str(store), str(expected)], cwd=REPO,
                          capture_output=True, text=True, timeout=60, preexec_fn=capped)


def test_a_batch_cut_short_by_a_full_disk_leaves_the_log_as_it_was(tmp_path):
    book = FileTournamentBook(tmp_path)
    book.append("t1", 0, [{"type": "TournamentCreated", "name": "Friday"}])
    log = tmp_path / ".tournaments" / "t1.jsonl"
    before = log.read_bytes()
    done = _append_capped(tmp_path, 1, len(before) + 300)  # room for one line of the three
    assert done.returncode == 1 and "File too large" in done.stderr, done.stderr
    assert log.read_bytes() == before
    assert len(book.events("t1")) == 1
    assert book.append("t1", 1, [{"type": "PlayerRegistered", "name": "Ada"}]) == 2


def test_a_first_batch_cut_short_leaves_no_tournament(tmp_path):
    book = FileTournamentBook(tmp_path)
    done = _append_capped(tmp_path, 0, 300)
    assert done.returncode == 1 and "File too large" in done.stderr, done.stderr
    assert book.ids() == [] and book.events("t1") == []
