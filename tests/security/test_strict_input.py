"""Issue 13, finding 9: strict input, and what an error may say.

* a match id with a trailing newline passed the store's id check (``$`` matches before a final
  ``\\n``): an imported match ``"m1\\n"`` was stored, then its download was a 500;
* 404 (and 409) messages showed the server's absolute store path;
* request bodies were coerced: ``"expected_seq": "5"`` and ``true`` were taken as numbers;
* ``preset`` plus ``archive`` silently dropped the archive (now a 400);
* dependency floors admitted releases with known CVEs, and there was no lock file;
* a ``Last-Event-ID`` of a non-ASCII digit (``²``) was a 500 from the live-follow stream.
"""

from __future__ import annotations

import random
import re
import tempfile
import tomllib
from pathlib import Path

import msgspec
import pytest

from ledger.codec import GENESIS, encode_line
from ledger.errors import MalformedEventError
from ledger.filestore import FileStore
from tests.security.live import LiveApi, LiveServer
from tests.web.raw_http import exchange_raw
from tests.web.test_api import ORGANIZER, SEATS, Api, drive, new_app

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def _store(api) -> FileStore:
    return api.app.extensions["wonders"].store


def _renamed(data: bytes, match_id: str) -> bytes:
    """A whole, correctly chained match file whose MatchOpened names ``match_id``."""
    lines, prev = [], GENESIS
    for stored in _read(data):
        event = stored.event
        if stored.seq == 0:
            event = msgspec.structs.replace(event, match_id=match_id)
        line, prev = encode_line(event, stored.seq, stored.at, stored.batch, prev)
        lines.append(line)
    return b"\n".join(lines) + b"\n"


def _read(data: bytes):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.jsonl"
        path.write_bytes(data)
        return list(FileStore.read_file(path))


# -- the match id --------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["m1\n", "m1\n\n", "\nm1", "m1\r", "m1 ", "m1/x", ".m1", ""])
def test_the_store_refuses_a_match_id_with_a_newline_or_other_junk(tmp_path, bad):
    with pytest.raises(MalformedEventError):
        FileStore(tmp_path).path(bad)


def test_an_id_with_a_trailing_newline_is_a_400_everywhere_not_a_404_or_a_500(api):
    api.create(match_id="m1")
    for path in ("/api/public/matches/m1%0A/file", "/api/public/matches/m1%0A/state",
                 "/api/public/matches/m1%0A/events", "/play/m1%0A"):
        response = api.client.get(path)
        assert response.status_code == 400, (path, response.status_code)


def test_an_import_naming_a_match_id_with_a_trailing_newline_is_refused(tmp_path):
    source = Api(new_app(tmp_path / "source"))
    mid, tokens = source.create(match_id="m1")
    drive(source, mid, tokens, random.Random(7))
    forged = _renamed(_store(source).path(mid).read_bytes(), "m1\n")
    target = Api(new_app(tmp_path / "target"))
    status, data = target.call("POST", "/api/import", ORGANIZER, raw=forged,
                               headers={"Content-Type": "application/x-ndjson"})
    assert status == 400, data
    assert not any((tmp_path / "target" / "store").glob("m1*"))
    response = target.client.get("/api/public/matches/m1%0A/file")
    assert response.status_code == 400  # never a 500


# -- what an error says --------------------------------------------------------------------------


def test_a_404_names_the_match_not_the_servers_directories(api, tmp_path):
    for path in ("/api/public/matches/nope/state", "/api/public/matches/nope/events",
                 "/api/public/matches/nope/file", "/api/matches/nope/follow"):
        status, data = api.call("GET", path)
        assert status == 404, (path, data)
        assert "nope" in data["message"], data
        assert str(tmp_path) not in data["message"] and "/store" not in data["message"], data


def test_a_taken_match_id_names_the_match_not_the_servers_directories(api, tmp_path):
    api.create(match_id="table-1")
    status, data = api.call("POST", "/api/matches", ORGANIZER, {"seats": SEATS, "match_id": "table-1"})
    assert status == 409 and "table-1" in data["message"]
    assert str(tmp_path) not in data["message"] and ".jsonl" not in data["message"]


def test_a_stale_write_names_the_match_not_the_servers_directories(api, tmp_path):
    mid, tokens = api.create(previous_loser="B")
    status, data = api.decide(mid, tokens["B"], {"type": "Passed"}, 0)
    assert status == 409 and str(tmp_path) not in data["message"], data


# -- strict request bodies -----------------------------------------------------------------------


def _first_decision(api):
    mid, tokens = api.create(previous_loser="B")
    pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["B"])[1]
    assert pending["prompt"]["seat"] == "B"
    return mid, tokens, pending["length"], pending["prompt"]["options"][0]["decision"]


@pytest.mark.parametrize("coerce", [str, lambda n: float(n), lambda n: [n]])
def test_expected_seq_must_be_an_integer_not_a_string_or_float(api, coerce):
    mid, tokens, length, decision = _first_decision(api)
    status, data = api.call("POST", f"/api/matches/{mid}/decisions", tokens["B"],
                            {"expected_seq": coerce(length), "decision": decision})
    assert status == 400 and data["error"] == "malformed" and "expected_seq" in data["message"], data
    assert api.state(mid, tokens["B"])["length"] == length  # nothing written


def test_a_bool_is_not_a_number(api):
    mid, tokens = api.create(previous_loser="B")
    for body in ({"expected_seq": True, "decision": {"type": "Passed"}},
                 {"expected_seq": 2, "decision": {"type": "Answered", "kind": "first", "pick": True}},
                 {"expected_seq": 2, "decision": {"type": "AttackDeclared", "realm": True}}):
        status, data = api.call("POST", f"/api/matches/{mid}/decisions", tokens["B"], body)
        assert status == 400 and data["error"] == "malformed", (body, data)
    status, data = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                            {"to_seq": True})
    assert status == 400, data
    status, data = api.call("POST", f"/api/matches/{mid}/manual", tokens["judge"],
                            {"ops": [{"op": "resource", "seat": "A", "resource": "energy",
                                      "value": True}]})
    assert status == 400, data


def test_creating_a_match_refuses_coerced_numbers(api, tmp_path):
    for extra in ({"round": "2"}, {"table": 4.0}, {"game_number": True}):
        status, data = api.call("POST", "/api/matches", ORGANIZER,
                                {"seats": SEATS, "match_id": "coerced", **extra})
        assert status == 400 and data["error"] == "malformed", (extra, data)
    assert not (tmp_path / "store" / "coerced.jsonl").exists()


def test_a_preset_with_an_archive_is_refused_not_silently_dropped(api, tmp_path):
    seats = [{**SEATS[0], "archive": {"Blaze Drake": 1}}, SEATS[1]]
    status, data = api.call("POST", "/api/matches", ORGANIZER, {"seats": seats, "match_id": "arch"})
    assert status == 400 and "archive" in data["message"] and "preset" in data["message"], data
    assert not (tmp_path / "store" / "arch.jsonl").exists()


# -- dependencies --------------------------------------------------------------------------------

#: Releases at or above these fix the known CVEs this service is exposed to.
FLOORS = {"waitress": "3.0.1", "flask": "3.1.3", "werkzeug": "3.1.6", "jinja2": "3.1.6",
          "duckdb": "1.1.0"}


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


def _floors() -> dict[str, str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    out = {}
    for spec in project["project"]["dependencies"]:
        name, _, floor = re.match(r"([A-Za-z0-9_.-]+)\s*(>=\s*([0-9.]+))?", spec).groups()
        out[name.lower()] = floor
    return out


def test_dependency_floors_are_above_known_cves():
    floors = _floors()
    for name, fixed in FLOORS.items():
        assert floors.get(name) is not None, f"{name} has no floor in pyproject.toml"
        assert _version(floors[name]) >= _version(fixed), (name, floors[name], fixed)


def test_the_lock_file_pins_the_tested_set_with_hashes_and_ci_installs_from_it():
    lock = (REPO / "requirements.lock").read_text()
    pins = dict(re.findall(r"^([a-z0-9_.-]+)==([^\s;]+)", lock, flags=re.M))
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["test"]
    for spec in wanted:
        name, floor = re.match(r"([A-Za-z0-9_.-]+)\s*(?:>=\s*([0-9.]+))?", spec).groups()
        name = name.lower().replace("_", "-")
        assert name in pins, f"{name} is not pinned in requirements.lock"
        if floor:
            assert _version(pins[name]) >= _version(floor), (name, pins[name], floor)
    for name, fixed in FLOORS.items():
        assert _version(pins[name]) >= _version(fixed), (name, pins[name])
    blocks = re.split(r"\n(?=[a-z0-9])", lock.split("\n", 2)[2] if lock.startswith("#") else lock)
    assert all("--hash=sha256:" in b for b in blocks if re.match(r"[a-z0-9]", b)), \
        "every pin carries its hashes"
    ci = (REPO / ".ci" / "run").read_text()
    assert "-r requirements.lock" in ci and "--no-deps" in ci and "WONDERS_REQUIRE_BROWSER=1" in ci
    assert ci.index("-r requirements.lock") < ci.index("--no-deps") < ci.rindex("pytest")


@pytest.mark.parametrize("value", [b"\xb2", b"1\xb9", b"abc", b"-3"])
def test_a_last_event_id_that_is_not_a_seq_is_ignored_not_a_500(tmp_path, value):
    """A ``Last-Event-ID`` of other digits than ASCII's (``²``: byte 0xB2, which ``isdigit``
    takes and ``int`` refuses) was a 500; like any header that is not a seq, it is ignored:
    the stream starts from seq 0."""
    server = LiveServer(tmp_path / "store")
    try:
        mid, _ = LiveApi(server).create()
        status, _headers, body = exchange_raw(
            server, b"GET /api/matches/" + mid.encode() + b"/follow?timeout=1 HTTP/1.1\r\n"
            b"Host: x\r\nLast-Event-ID: " + value + b"\r\nConnection: close\r\n\r\n", wait=30)
        assert status == 200, body[:300]
        assert b"id: 0\n" in body
    finally:
        server.stop()
