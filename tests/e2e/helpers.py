"""Shared by the browser tests: the system Chromium, its headless-safe flags, a JSON API call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"  # Debian's, installed by .ci/run; Playwright never downloads one
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage"]


def api_call(base: str, method: str, path: str, token: str, body=None):
    """One request to the recording API with a bearer token; the decoded JSON answer."""
    request = urllib.request.Request(f"{base}{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": f"Bearer {token}",
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


#: The organizer token every browser test's server is started with.
ORGANIZER = "browser-test-organizer-token-0123456789"


def start_server(store: Path, organizer: str = ORGANIZER,
                 **settings: str) -> tuple[subprocess.Popen, str]:
    """``wonders serve`` on a free port over ``store``; no WONDERS_SECRET_KEY (the store's key)
    and no WONDERS_WAREHOUSE (the store's own); ``settings`` are more environment variables
    (``WONDERS_FOLLOW_TIMEOUT="20"``)."""
    env = dict(os.environ, WONDERS_ORGANIZER_TOKEN=organizer, WONDERS_SPECTATOR_DELAY="0",
               **settings)
    env.pop("WONDERS_SECRET_KEY", None)
    env.pop("WONDERS_WAREHOUSE", None)
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--store", str(store),
                             "--port", "0", "--threads", "8"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
    line = proc.stdout.readline()
    if "serving" not in line:
        proc.kill()
        raise AssertionError(line + proc.stderr.read())
    return proc, line.split(" on ")[1].split()[0]


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(timeout=10)
