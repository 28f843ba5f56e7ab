"""Real ``wonders serve`` processes for the tests that race several servers on one store
(tests/web/test_api_serve.py: a directory; test_store_postgres.py: a ``postgresql://`` URL).
Calls to them: :mod:`tests.web.live_http`.  (One server driven like the in-process app:
:class:`tests.security.live.LiveServer`.)"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def start_serve(store: str | Path, organizer: str,
                **env_extra: str) -> tuple[subprocess.Popen, str, str]:
    """``wonders serve --store STORE --port 0 --threads 8`` with ``organizer`` as the organizer
    token (and ``env_extra`` in its environment): the process, its base address
    (``http://host:port``) and the line it printed on starting; one that does not start is
    killed and fails the test with its output."""
    env = dict(os.environ, WONDERS_ORGANIZER_TOKEN=organizer, **env_extra)
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--store", str(store),
                             "--port", "0", "--threads", "8"], env=env, cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = proc.stdout.readline()
    if "serving" not in line:
        proc.kill()
        raise AssertionError(line + proc.stderr.read())
    return proc, line.split(" on ")[1].split()[0], line


@contextmanager
def serving(store: str | Path, organizer: str, count: int,
            **env_extra: str) -> Iterator[list[tuple[str, str]]]:
    """``count`` servers of ``store`` (:func:`start_serve`, ``env_extra`` in their
    environment), each as ``(base, starting line)``; all stopped when the block ends."""
    procs: list[subprocess.Popen] = []
    try:
        started = []
        for _ in range(count):
            proc, base, line = start_serve(store, organizer, **env_extra)
            procs.append(proc)
            started.append((base, line))
        yield started
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=10)
