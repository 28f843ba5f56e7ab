"""A store directory that runs out of room (a full disk), as ``wonders simulate`` and ``wonders
copy`` meet it: real subprocesses whose file size is capped (``RLIMIT_FSIZE``: past the cap a
``write`` fails with EFBIG, as it fails with ENOSPC on a full disk, after a short write).

Before: the error line named nothing ("error: : No space left on device"), a copy or a create
left its half-written ``.<id>.<pid>.<ns>.tmp`` files in the store for good (holding the very
space that ran out), and a failed append left its partial batch at the end of the match file
until some later append truncated it (``wonders verify`` failed the match meanwhile).
"""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
from pathlib import Path

from ledger.filestore import FileStore

REPO = Path(__file__).resolve().parents[2]
CAP = 60_000  # bytes: a simulated match file is about 160 kB


def _capped() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the cap fails (EFBIG) instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (CAP, CAP))


def wonders(*args, cap: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "web.cli", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=300,
                          preexec_fn=_capped if cap else None)


def test_a_full_store_names_the_file_and_keeps_no_torn_batch(tmp_path):
    store = tmp_path / "store"
    done = wonders("simulate", "--matches", 1, "--out", store, cap=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.strip() == f"error: {store / 'm-0001.jsonl'}: File too large", done.stderr
    assert sorted(p.name for p in store.iterdir()) == ["m-0001.jsonl"]
    assert FileStore(store).torn_tail("m-0001") is None  # the failed batch was taken back
    verify = wonders("verify", store)
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_a_copy_into_a_full_store_names_each_file_and_leaves_no_temporary_file(tmp_path):
    source, target = tmp_path / "source", tmp_path / "target"
    assert wonders("simulate", "--matches", 2, "--out", source).returncode == 0
    for args in (("copy", source, target), ("simulate", "--bulk", "--matches", 2, "--out", target)):
        done = wonders(*args, cap=True)
        assert done.returncode == 1, (args, done.stdout + done.stderr)
        assert "Traceback" not in done.stderr
        assert f"{target / 'm-0001.jsonl'}: File too large" in done.stdout + done.stderr, args
        assert list(target.iterdir()) == [], args  # no half-written temporary file is left
