"""A real ``wonders serve`` on loopback, driven through the same client interface as the
in-process tests (``tests.web.test_api.Api``), so an attack suite runs unchanged against both.

``LiveServer`` starts the server as a subprocess (its own store, settings from ``WONDERS_*``
variables) and stops it; ``LiveApi`` speaks real HTTP to it: ``call`` answers ``(status,
json)`` and ``client.get``/``client.post`` answer a response with ``status_code``, ``headers``,
``get_data`` and ``get_json``, like Flask's test client.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

from tests.web.test_api import ORGANIZER, Api

ROOT = Path(__file__).resolve().parents[2]


class LiveServer:
    """``wonders serve --store STORE`` in a subprocess, on a free loopback port."""

    def __init__(self, store: Path | str, organizer: str = ORGANIZER, threads: int = 8,
                 log: Path | None = None, **settings):
        env = dict(os.environ, WONDERS_ORGANIZER_TOKEN=organizer, WONDERS_SECRET_KEY="s" * 32,
                   **{f"WONDERS_{k.upper()}": str(v) for k, v in settings.items()})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "web.cli", "serve", "--store", str(store), "--host",
             "127.0.0.1", "--port", "0", "--threads", str(threads)], env=env, cwd=ROOT,
            text=True, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if log is None else open(log, "w"))  # noqa: SIM115
        line = self.proc.stdout.readline()
        if "serving" not in line:
            self.proc.kill()
            raise AssertionError(f"wonders serve did not start: {line}")
        self.base = line.split(" on ")[1].split()[0]
        self.store = store

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class LiveResponse:
    def __init__(self, status: int, headers, body: bytes):
        self.status_code, self.headers, self.data = status, headers, body

    def get_data(self, as_text: bool = False):
        return self.data.decode() if as_text else self.data

    def get_json(self, silent: bool = False):
        try:
            return json.loads(self.data)
        except ValueError:
            if silent:
                return None
            raise


class LiveClient:
    """The part of Flask's test client the attack suites use, over real HTTP."""

    def __init__(self, base: str):
        parts = urlsplit(base)
        self.host, self.port = parts.hostname, parts.port

    def open(self, path: str, method: str = "GET", headers=None, json_body=None,
             data: bytes | None = None) -> LiveResponse:
        headers = dict(headers or {})
        body = data
        if json_body is not None:
            body = json.dumps(json_body).encode()
            headers.setdefault("Content-Type", "application/json")
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            return LiveResponse(response.status, response.headers, response.read())
        finally:
            connection.close()

    def get(self, path: str, headers=None) -> LiveResponse:
        return self.open(path, "GET", headers)

    def post(self, path: str, headers=None, json=None, data=None) -> LiveResponse:
        return self.open(path, "POST", headers, json, data)


class LiveApi(Api):
    """``tests.web.test_api.Api`` over HTTP to a :class:`LiveServer` (``create``, ``state``
    and ``decide`` are Api's own)."""

    live = True

    def __init__(self, server: LiveServer):  # not Api.__init__: that wants a Flask app
        self.server = server
        self.client = LiveClient(server.base)

    @property
    def store(self):
        """The server's store, read (and, by a test setting up a position, written) directly."""
        from ledger.filestore import FileStore

        return FileStore(self.server.store)

    def call(self, method, path, token=None, body=None, raw=None, headers=None):
        headers = dict(headers or {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if raw is not None:
            headers.setdefault("Content-Type", "application/json")
        response = self.client.open(path, method, headers, body, raw)
        return response.status_code, response.get_json(silent=True)
