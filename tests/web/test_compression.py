"""gzip for pages and JSON (issue 18 item 2; :mod:`web.compression`), never for streams: the
sizes are measured over a small demo; the follow stream of a live match, asked with
``Accept-Encoding: gzip`` of a real ``wonders serve``, still arrives event by event, plain."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.helpers import start_server, stop_server
from web.app import create_app
from web.config import Settings

ROOT = Path(__file__).parents[2]
ORGANIZER = "compression-test-organizer-token-0123456789"
SEATS = [{"player": "Ann", "preset": "solfera-blaze"}, {"player": "Bob", "preset": "thalwind-sky"}]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    data = tmp_path_factory.mktemp("gz") / "d"
    env = {k: v for k, v in os.environ.items() if k != "WONDERS_WAREHOUSE"}
    done = subprocess.run([sys.executable, "-m", "web.cli", "demo", "--dir", str(data),
                           "--players", "4", "--rounds", "2", "--no-serve"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return create_app(Settings(store=data, secret_key="s" * 32)).test_client()


@pytest.mark.parametrize("path", ["/stats", "/matches", "/matches/demo-cup-r1-t01",
                                  "/matches/demo-cup-r1-t01/timeline",
                                  "/api/public/matches/demo-cup-r1-t01/events",
                                  "/static/viewer.js", "/static/base.css"])
def test_pages_json_and_static_files_are_gzipped(client, path):
    plain = client.get(path)
    packed = client.get(path, headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
    assert plain.status_code == packed.status_code == 200
    assert "Content-Encoding" not in plain.headers  # a client that does not ask gets it plain
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert gzip.decompress(packed.data) == plain.data
    print(f"{path}: {len(plain.data)} B, gzipped {len(packed.data)} B")
    assert len(packed.data) < len(plain.data) / 2 or len(plain.data) < 1500


@pytest.fixture
def server(tmp_path):
    proc, address = start_server(tmp_path / "store", ORGANIZER, WONDERS_FOLLOW_TIMEOUT="20")
    host, port = address.split("//")[1].rsplit(":", 1)
    yield host, int(port)
    stop_server(proc)


def test_the_follow_stream_is_never_compressed_or_buffered(server):
    host, port = server
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.request("POST", "/api/matches", json.dumps({"seats": SEATS}),
                 {"Authorization": f"Bearer {ORGANIZER}", "Content-Type": "application/json"})
    created = json.loads(conn.getresponse().read())
    stream = http.client.HTTPConnection(host, port, timeout=10)
    started = time.monotonic()
    stream.request("GET", f"/api/matches/{created['match_id']}/follow",
                   headers={"Accept-Encoding": "gzip, deflate, br"})
    response = stream.getresponse()
    assert response.status == 200 and response.getheader("Content-Type").startswith(
        "text/event-stream")
    assert response.getheader("Content-Encoding") is None
    first = response.readline().decode()  # the opening comment, then the first event,
    while first.startswith(":") or first == "\n":  # long before the end
        first = response.readline().decode()
    assert first.startswith("id: 0"), first
    assert time.monotonic() - started < 5  # the stream stays open 20 s: nothing waited for it
    stream.close()


@pytest.fixture
def fresh(tmp_path):
    """An app over a store with one new match: ``(client, state path, seat A's token)``."""
    client = create_app(Settings(store=tmp_path / "store", secret_key="s" * 32,
                                 organizer_token=ORGANIZER)).test_client()
    created = client.post("/api/matches", json={"seats": SEATS},
                          headers={"Authorization": f"Bearer {ORGANIZER}"}).get_json()
    return client, f"/api/matches/{created['match_id']}/state", created["tokens"]["A"]


@pytest.mark.parametrize("accept, encoded", [
    (None, False), ("identity", False), ("br;q=0", False), ("*", True), ("GZIP", True),
    ("deflate, gzip;q=0.5", True)])
def test_only_a_client_that_accepts_gzip_gets_it_and_every_answer_varies(fresh, accept, encoded):
    """Without gzip (or ``*``) in Accept-Encoding the answer is plain, asked nothing of the
    compressor (web.compression.GzipWhenAsked); ``Vary`` says it depends on the header."""
    client, path, token = fresh
    headers = {"Authorization": f"Bearer {token}"}
    if accept is not None:
        headers["Accept-Encoding"] = accept
    answer = client.get(path, headers=headers)
    assert answer.status_code == 200
    assert answer.headers.get("Content-Encoding") == ("gzip" if encoded else None)
    assert answer.headers["Vary"] == "Accept-Encoding"
    body = gzip.decompress(answer.data) if encoded else answer.data
    assert json.loads(body)["perspective"] == "A"
    assert len(body) > 500  # over COMPRESS_MIN_SIZE: only the header decided
