"""One changed byte in a long line must not blow up the memory of ``wonders verify``.

A line that fails its hash is diagnosed (is it whitespace, a duplicate key …?).  The
diagnosis blanked the line's strings with one regular expression whose alternation keeps
backtracking state per character: a judge's note of 30 MB with one byte changed took 3.7 GB
to verify against 214 MB intact (a 200 MB line: killed at 24 GB).  The damaged file must be
verified in about the memory of the intact one, and still fail with the clear one-line message.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ledger.events import JudgeNote
from ledger.filestore import FileStore

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "fixtures" / "matches" / "golden-s3-r8-132-0001.jsonl"
NOTE = 'a "quoted" word, a back\\slash and \u00e9 ' * 250_000  # ~9 MB of JSON, escapes galore


def _verify_rss(path: Path) -> tuple[int, str, int]:
    """``wonders verify PATH``: exit code, output, peak resident memory of the process (KB)."""
    process = subprocess.Popen([sys.executable, "-m", "web.cli", "verify", str(path)], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = process.stdout.read().decode() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, out, usage.ru_maxrss


def test_one_byte_changed_in_a_long_line_fails_in_bounded_memory(tmp_path):
    store = FileStore(tmp_path / "intact")
    shutil.copy(GOLDEN, store.path(GOLDEN.stem))
    length = len(list(store.read(GOLDEN.stem)))
    store.append(GOLDEN.stem, [JudgeNote("judge", NOTE)], length)
    intact = store.path(GOLDEN.stem)
    data = intact.read_bytes()
    middle = data.find(b"word", len(data) - len(NOTE) // 2)  # a letter in the note's middle
    damaged = tmp_path / "damaged" / intact.name
    damaged.parent.mkdir()
    damaged.write_bytes(data[:middle] + b"W" + data[middle + 1:])
    code, out, intact_kb = _verify_rss(intact)
    assert code == 0, out
    code, out, damaged_kb = _verify_rss(damaged)
    assert code != 0 and "Traceback" not in out, out
    assert f"{damaged.name}:{length + 1}: seq {length}: hash mismatch (the line was altered)" in out, out
    assert damaged_kb < intact_kb * 1.5, (damaged_kb, intact_kb)
