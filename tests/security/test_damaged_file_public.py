"""A damaged match file must not show anyone the server's path or a byte of the damaged line.

The ledger's error for a damaged line names the server's file and may quote up to 32 bytes of
the line (a line not in its canonical encoding: where it differs).  That message went out
whole, as ``{"error", "message"}``, to anyone who asked for the match -- ``GET
/api/matches/<id>``, the public state and events, the follow stream, the viewer -- and the bytes
of a damaged line of a live match can be a hand or a deck order.  Now every web answer about a
damaged match is one line naming the match, the line and seq and the kind of damage (422
``integrity``), for a judge's token as for no token; the whole message goes to the server's
log (and ``wonders verify`` gives it).

A real ``wonders serve`` records a live match; the match's file is damaged while no server
runs (the line of a card drawn into a hand: altered; re-encoded so it is not canonical; cut
short; garbage after the last batch; the file cut inside its first line), and a new server on
the same store is asked for the match on every surface.  A torn last line is no damage: the
match reads as its whole batches.  On PostgreSQL a damaged row is answered the same way.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.security.live import LiveApi, LiveServer
from tests.web.test_api import choose

DECISIONS = 4  # to the first turn: both opening hands are drawn (hidden from the public)


def _record(server: LiveServer) -> tuple[str, dict[str, str]]:
    """A live match recorded through ``server``: created, then played up to its first turn."""
    api = LiveApi(server)
    match_id, tokens = api.create()
    rng = random.Random(3)
    for _ in range(DECISIONS):
        pending = api.call("GET", f"/api/matches/{match_id}/prompt", tokens["judge"])[1]
        seat = pending["prompt"]["seat"]
        _status, asked = api.call("GET", f"/api/matches/{match_id}/prompt", tokens[seat])
        status, data = api.decide(match_id, tokens[seat], choose(asked["prompt"], rng),
                                  asked["length"])
        assert status == 201, data
    return match_id, tokens


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, str, dict[str, str]]:
    """A store holding one live match (recorded by a server now stopped)."""
    store = tmp_path_factory.mktemp("recorded") / "store"
    server = LiveServer(store, spectator_delay=0)
    try:
        match_id, tokens = _record(server)
    finally:
        server.stop()
    return store, match_id, tokens


# -- the damage: each takes the file's lines, gives the new bytes, the damaged line's number and
# -- bytes of the line that must not be shown ("" when the message quoted none) -------------

Damage = Callable[[list[bytes]], tuple[bytes, int, str]]


def _hand(lines: list[bytes]) -> int:
    """The index of the first line that draws a card into a hand (hidden while live)."""
    return next(i for i, line in enumerate(lines) if b'"to_zone":"hand"' in line)


def _rehashed(line: bytes) -> bytes:
    cut = line.rindex(b',"hash":"')
    return line[:cut] + b',"hash":"%s"}' % hashlib.sha256(line[:cut] + b"}").hexdigest().encode()


def _joined(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n"


def altered(lines: list[bytes]) -> tuple[bytes, int, str]:
    """A hand card's name changed, the hash left as it was: a hash mismatch."""
    i = _hand(lines)
    lines[i] = lines[i].replace(b'"name":"', b'"name":"Kniqht ', 1)
    return _joined(lines), i + 1, "Kniqht"


def escaped(lines: list[bytes]) -> tuple[bytes, int, str]:
    """A hand card's name with its first letter escaped and the line re-hashed: the same event,
    not its canonical encoding -- the message quotes the bytes around the difference (the
    escape and the name of the hidden card)."""
    i = _hand(lines)
    start = lines[i].index(b'"name":"') + len(b'"name":"')
    escape = b"\\u%04x" % lines[i][start]
    lines[i] = _rehashed(lines[i][:start] + escape + lines[i][start + 1:])
    return _joined(lines), i + 1, escape.decode()[1:]


def cut_short(lines: list[bytes]) -> tuple[bytes, int, str]:
    """A hand card's line cut inside its name, the lines after it kept."""
    i = _hand(lines)
    lines[i] = lines[i][:lines[i].index(b'"name":"') + 11]
    return _joined(lines), i + 1, ""


def garbage(lines: list[bytes]) -> tuple[bytes, int, str]:
    """A line of garbage after the last whole batch."""
    return _joined([*lines, b'{"seq":Kniqht garbage']), len(lines) + 1, "Kniqht"


def first_line_cut(lines: list[bytes]) -> tuple[bytes, int, str]:
    """The file cut inside its first line: no whole batch at all."""
    return lines[0][:200], 1, ""


# -- the surfaces ----------------------------------------------------------------------------

#: What anyone may ask about a match, with no token (``follow``: the stream, a second at most).
PUBLIC = ("/api/matches/{id}", "/api/public/matches/{id}/state", "/api/public/matches/{id}/events",
          "/api/public/matches/{id}/file", "/api/public/matches/{id}/annotations",
          "/api/matches/{id}/follow?timeout=1", "/matches/{id}", "/matches/{id}/step",
          "/matches/{id}/timeline", "/matches/{id}/sandbox", "/play/{id}", "/api/matches",
          "/matches", "/stats")
#: Those that read every event of the match: a damaged line anywhere fails them.
READING = ("/api/public/matches/{id}/state", "/api/public/matches/{id}/events",
           "/matches/{id}/timeline", "/api/matches/{id}/follow?timeout=1")
#: What a seat and the judge ask, with their tokens.
WITH_TOKEN = ("/api/matches/{id}/state", "/api/matches/{id}/events", "/api/matches/{id}/prompt")


def _answers(api: LiveApi, match_id: str, tokens: dict[str, str]) -> dict[str, tuple[int, str]]:
    """Every surface's ``(status, body)`` (the viewer page also as a browser asks for it)."""
    answers = {}
    for path in PUBLIC:
        response = api.client.get(path.format(id=match_id))
        answers[path] = response.status_code, response.get_data(as_text=True)
    page = api.client.get(f"/matches/{match_id}", headers={"Accept": "text/html"})
    answers["page"] = page.status_code, page.get_data(as_text=True)
    for role in ("A", "judge"):
        for path in WITH_TOKEN:
            response = api.client.get(path.format(id=match_id),
                                      headers={"Authorization": f"Bearer {tokens[role]}"})
            answers[f"{role} {path}"] = response.status_code, response.get_data(as_text=True)
    return answers


def _damaged_server(recorded, tmp_path: Path, damage: Damage) -> tuple[LiveServer, int, str, Path]:
    source, match_id, _tokens = recorded
    store = tmp_path / "store"
    shutil.copytree(source, store)
    path = store / f"{match_id}.jsonl"
    data, line, shown = damage(path.read_bytes()[:-1].split(b"\n"))
    path.write_bytes(data)
    log = tmp_path / "server.log"
    return LiveServer(store, spectator_delay=0, log=log), line, shown, log


def _said(body: str) -> str:
    """The one line an error answer says (JSON's message, or the error page's text)."""
    if body.startswith("{"):
        return json.loads(body)["message"]
    return re.sub(r"<[^>]+>|\s+", " ", body)


@pytest.mark.parametrize("damage", [altered, escaped, cut_short, garbage, first_line_cut])
def test_a_damaged_match_is_named_with_its_line_and_nothing_of_the_file(recorded, tmp_path, damage):
    _source, match_id, tokens = recorded
    server, line, shown, log = _damaged_server(recorded, tmp_path, damage)
    try:
        answers = _answers(LiveApi(server), match_id, tokens)
    finally:
        server.stop()
    for where, (status, body) in answers.items():
        assert str(tmp_path) not in body and "/store/" not in body, (where, body[:600])
        assert not shown or shown not in body, (where, body[:600])
        assert "Traceback" not in body, (where, body[:600])
        if status >= 400 and status not in (401, 403):  # (403: a live match's file, sandbox)
            assert status == 422 and f"match {match_id} cannot be read at line {line}" in \
                _said(body), (where, status, body[:600])
    for path in READING:
        assert answers[path][0] == 422, (path, answers[path])
    for role in ("A", "judge"):
        assert answers[f"{role} /api/matches/{{id}}/state"][0] == 422
    assert answers["page"][0] == 422 and "<html" in answers["page"][1]
    problems = re.findall(r'class="error problem">([^<]*)</p>', answers["/matches"][1])
    assert all(p.startswith(f"unreadable: {match_id} at line {line}") for p in problems), problems
    # the operator's log has the whole message: the file, its line
    logged = log.read_text()
    assert f"{tmp_path / 'store' / match_id}.jsonl" in logged, logged[-2000:]
    assert "Traceback" not in logged, logged[-2000:]


def test_a_torn_last_line_is_no_damage_the_whole_batches_are_read(recorded, tmp_path):
    """A line cut with no newline after it is a batch a crash interrupted (or one being
    written): every surface reads the match without it, and says nothing of the file."""
    _source, match_id, tokens = recorded

    def torn(lines: list[bytes]) -> tuple[bytes, int, str]:
        return _joined(lines) + lines[-1][:60], len(lines) + 1, ""
    server, _line, _shown, _log = _damaged_server(recorded, tmp_path, torn)
    try:
        answers = _answers(LiveApi(server), match_id, tokens)
    finally:
        server.stop()
    for where, (status, body) in answers.items():
        assert status in (200, 403), (where, status, body[:600])  # 403: a live match's file
        assert str(tmp_path) not in body, (where, body[:600])


def test_a_follow_stream_whose_match_is_damaged_meanwhile_ends_with_one_line(recorded, tmp_path):
    """The damage comes while the public follows the match: the stream's last message is the
    one-line error (the match and line), never the file's path or bytes."""
    import http.client

    _source, match_id, _tokens = recorded
    server, _line, _shown, log = _damaged_server(recorded, tmp_path, lambda lines: (
        _joined(lines), 0, ""))
    path = tmp_path / "store" / f"{match_id}.jsonl"
    length = path.read_bytes().count(b"\n")
    try:
        host, port = server.base.split("//")[1].split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        connection.request("GET", f"/api/matches/{match_id}/follow?timeout=20")
        response = connection.getresponse()
        assert response.status == 200
        while response.readline().decode().strip() != f"id: {length - 1}":
            pass
        with open(path, "ab") as handle:  # a garbage line after the last batch
            handle.write(b'{"seq":Kniqht garbage\n')
        rest = response.read().decode()
        connection.close()
    finally:
        server.stop()
    assert rest.rstrip().splitlines()[-2:] == ["event: error", "data: " + json.dumps({
        "error": "integrity", "message": f"match {match_id} cannot be read at line {length + 1}: "
        f"a line that is not a ledger event (wonders verify on the server gives the detail); "
        f"the stream ends"})], rest
    assert "Kniqht" not in rest and str(tmp_path) not in rest
    assert f"{path}" in log.read_text() and "Traceback" not in log.read_text()


def test_a_damaged_row_on_postgresql_is_named_with_its_line_and_no_byte(pg_url, tmp_path):
    import psycopg

    server = LiveServer(pg_url, spectator_delay=0)
    try:
        match_id, tokens = _record(server)
    finally:
        server.stop()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        rows = conn.execute("SELECT seq, line FROM wonders_events WHERE match_id = %s ORDER BY seq",
                            [match_id]).fetchall()
        lines = [bytes(line) for _seq, line in rows]
        i = _hand(lines)
        _data, line, shown = escaped(lines)
        conn.execute("UPDATE wonders_events SET line = %s WHERE match_id = %s AND seq = %s",
                     [lines[i], match_id, i])
    log = tmp_path / "server.log"
    server = LiveServer(pg_url, spectator_delay=0, log=log)
    try:
        answers = _answers(LiveApi(server), match_id, tokens)
    finally:
        server.stop()
    for where, (status, body) in answers.items():
        assert shown not in body and "Traceback" not in body, (where, body[:600])
        if status >= 400 and status not in (401, 403):
            assert status == 422 and f"match {match_id} cannot be read at line {line}" in \
                _said(body), (where, status, body[:600])
    for path in READING:
        assert answers[path][0] == 422, (path, answers[path])
    assert f"{match_id}.jsonl:{line}: seq {line - 1}: not a canonical line" in log.read_text()
