"""A JSON call to a real server over HTTP, as the tests that start one make it."""

from __future__ import annotations

import json
import urllib.error
import urllib.request


def call(base: str, method: str, path: str, token: str | None = None,
         body: object = None, timeout: float = 20) -> tuple[int, dict]:
    """``(status, JSON answer)`` of ``method path`` at ``base`` (``http://host:port``), with
    ``body`` as JSON and ``token`` as the bearer token, if given; an error status is returned,
    not raised."""
    request = urllib.request.Request(
        base + path, method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json",
                 **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
