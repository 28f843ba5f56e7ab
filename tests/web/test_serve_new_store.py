"""``wonders serve --store DIR`` names a store it has to make: before, a typo in ``--store``
(``wonders-dta``) or a server started from the wrong directory served a new, empty store with
the same first line as the real one, and the organizer found a console with no tournament.
Now the first line says the store is new and empty; a store that is there reads as before.  A
real ``wonders serve`` subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def _first_line(store: Path) -> str:
    env = dict(os.environ, WONDERS_ORGANIZER_TOKEN="new-store-test-organizer-token-0123456")
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--store", str(store),
                             "--port", "0", "--threads", "2"], env=env, cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        return proc.stdout.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_a_store_that_is_not_there_is_named_new_and_empty(tmp_path):
    typo = tmp_path / "wonders-dta"
    line = _first_line(typo)
    assert line.startswith(f"serving {typo} (a new, empty store: no directory was there, it is "
                           f"made now) on http://127.0.0.1:"), line
    assert typo.is_dir()
    again = _first_line(typo)  # made now, it is the store from then on
    assert again.startswith(f"serving {typo} on http://127.0.0.1:"), again
