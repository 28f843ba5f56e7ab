"""Finding 8 of issue 13: one match's summary read the whole store.

``GET /api/matches/<id>`` listed every match file to find one (273 ms median at 600 matches,
3.4 requests/s with 8 clients): anyone could make the service read the whole store per request.
It must read only that match's file:

* against a real ``wonders serve`` on loopback, over a store where every other match file is
  garbage, the summary of the one real match answers 200 with its metadata (reading any other
  file fails);
* in process, counting the match files opened while the summary is served, over a store of a
  few hundred readable matches: only the requested match's file is opened.
"""

from __future__ import annotations

import builtins
import io
import os
import shutil
from functools import partial
from pathlib import Path

import pytest

from tests.security.live import LiveServer
from tests.web.live_http import call as live_call
from web.app import create_app
from web.config import Settings

ROOT = Path(__file__).resolve().parents[2]
ORGANIZER = "summaries-test-organizer-token-0123456789"
GOLDEN = ROOT / "fixtures" / "matches" / "golden-s3-r1-132-0001.jsonl"
OTHERS = 300
SEATS = [{"player": "Ann", "preset": "solfera-blaze"}, {"player": "Bob", "preset": "thalwind-sky"}]


call = partial(live_call, timeout=30)  # a JSON call to the live server


@pytest.fixture
def garbage_store_server(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    for i in range(OTHERS):  # what any reader of these files would choke on
        (store / f"junk-{i:04d}.jsonl").write_bytes(b"\x00not a match file {" * (i % 7 + 1) + b"\n")
    server = LiveServer(store, organizer=ORGANIZER, threads=4)
    yield server.base
    server.stop()


def test_a_summary_reads_only_its_own_match_file_on_a_real_server(garbage_store_server):
    base = garbage_store_server
    status, created = call(base, "POST", "/api/matches", ORGANIZER,
                           {"seats": SEATS, "match_id": "the-one", "tournament": "Cup",
                            "round": 2, "table": 7})
    assert status == 201, created
    for _ in range(3):
        status, summary = call(base, "GET", "/api/matches/the-one")
        assert status == 200, summary
        assert summary["match_id"] == "the-one" and summary["players"] == {"A": "Ann", "B": "Bob"}
        assert (summary["tournament"], summary["round"], summary["table"]) == ("Cup", 2, 7)
        # A live match's public length stops at the spectator delay (10 events by default).
        assert summary["length"] == max(1, created["seq"] - 10) and not summary["ended"]
    status, missing = call(base, "GET", "/api/matches/no-such-match")
    assert status == 404 and missing["error"] == "not_found"


def test_a_summary_opens_no_other_match_file(tmp_path, monkeypatch):
    store = tmp_path / "store"
    store.mkdir()
    for i in range(OTHERS):
        shutil.copyfile(GOLDEN, store / f"other-{i:04d}.jsonl")
    app = create_app(Settings(store=store, organizer_token=ORGANIZER, secret_key="s" * 32))
    client = app.test_client()
    response = client.post("/api/matches", json={"seats": SEATS, "match_id": "the-one"},
                           headers={"Authorization": f"Bearer {ORGANIZER}"})
    assert response.status_code == 201, response.get_json()

    ended_length = len(GOLDEN.read_bytes().splitlines())  # what the summary reads from the file
    opened: list[str] = []
    real_open, real_io_open, real_os_open = builtins.open, io.open, os.open

    def seen(path):
        name = os.fspath(path) if isinstance(path, (str, bytes, os.PathLike)) else ""
        name = name.decode() if isinstance(name, bytes) else name
        if name.endswith(".jsonl"):
            opened.append(Path(name).name)

    def counting_open(file, *args, **kwargs):
        seen(file)
        return real_open(file, *args, **kwargs)

    def counting_io_open(file, *args, **kwargs):
        seen(file)
        return real_io_open(file, *args, **kwargs)

    def counting_os_open(path, *args, **kwargs):
        seen(path)
        return real_os_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(io, "open", counting_io_open)
    monkeypatch.setattr(os, "open", counting_os_open)
    for match_id in ("the-one", "other-0123"):
        opened.clear()
        response = client.get(f"/api/matches/{match_id}")
        assert response.status_code == 200, response.get_json()
        assert response.get_json()["length"] == (1 if match_id == "the-one" else ended_length)
        assert opened and set(opened) == {f"{match_id}.jsonl"}, sorted(set(opened))[:5]
