"""Shared by the browser tests: the system Chromium, its headless-safe flags, a JSON API call."""

from __future__ import annotations

import json
import urllib.request

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
