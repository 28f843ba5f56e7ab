"""A real ``wonders demo --port 0`` for the viewer's browser tests: a small tournament
played by bots, ingested and served by waitress on a free loopback port (16 players x 4 rounds when
``WONDERS_SCREENSHOTS`` is set, as the README's demo; 4 x 2 otherwise)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ORGANIZER = "viewer-test-organizer-token-0123456789"
ROOT = Path(__file__).parents[2]


@contextmanager
def running_demo(store: Path) -> Iterator[tuple[str, Path]]:
    """``(base URL, store directory)`` of a demo server, stopped on exit."""
    env = dict(os.environ, WONDERS_ORGANIZER_TOKEN=ORGANIZER, WONDERS_SPECTATOR_DELAY="0")
    env.pop("WONDERS_WAREHOUSE", None)
    size = ["16", "4"] if os.environ.get("WONDERS_SCREENSHOTS") else ["4", "2"]
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "demo", "--dir", str(store),
                             "--players", size[0], "--rounds", size[1], "--port", "0"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    try:
        lines = []
        while not any(line.startswith("serving") for line in lines):
            line = proc.stdout.readline()
            assert line, "".join(lines) + proc.stderr.read()
            lines.append(line)
        assert any("ingested into" in line for line in lines), lines
        base = next(line for line in lines if line.startswith("serving")).split(" on ")[1].split()[0]
        yield base, store
    finally:
        proc.terminate()
        proc.wait(timeout=10)
