"""``wonders serve`` prints the organizer token at start only when it made the token itself
(``WONDERS_ORGANIZER_TOKEN`` unset: docs/organizer.md, "printed at start when
WONDERS_ORGANIZER_TOKEN is not set"; README, "from WONDERS_ORGANIZER_TOKEN, or printed at
start").  A token the operator set stays out of the server's output, which goes to logs
(journald, a container's log) read by more people than may create matches; it used to be
printed either way, in one process and with ``--processes``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "operator-chosen-organizer-token-0123456789"


def _first_lines(tmp_path: Path, env: dict, processes: str) -> list[str]:
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--store",
                             str(tmp_path / "store"), "--port", "0", "--processes", processes],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        lines = [proc.stdout.readline(), proc.stdout.readline()]
    finally:
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=60)
    return [*lines, *rest.splitlines(keepends=True)]


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_token_the_operator_set_is_not_printed(tmp_path, processes):
    env = dict(os.environ, WONDERS_ORGANIZER_TOKEN=TOKEN)
    out = "".join(_first_lines(tmp_path, env, processes))
    assert "serving" in out
    assert TOKEN not in out
    assert "organizer token: the one WONDERS_ORGANIZER_TOKEN sets (not shown)\n" in out


def test_a_token_the_server_made_is_printed_and_works(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "WONDERS_ORGANIZER_TOKEN"}
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--store",
                             str(tmp_path / "store"), "--port", "0"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        base = proc.stdout.readline().split(" on ")[1].split()[0]
        line = proc.stdout.readline()
        assert line.startswith("organizer token: ")
        token = line.split(": ", 1)[1].strip()
        assert len(token) >= 32
        request = urllib.request.Request(f"{base}/api/matches", data=b"{}", method="POST",
                                         headers={"Authorization": f"Bearer {token}",
                                                  "Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        # past the token check: the empty body is what is refused, not the organizer
        assert refused.value.code == 400
        assert json.loads(refused.value.read())["error"] == "malformed"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
