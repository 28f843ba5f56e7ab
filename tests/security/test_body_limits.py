"""A request body far over every limit was received whole before anything refused it.

The app refuses a JSON body over 64 KiB and an upload over 16 MiB (413), but waitress buffers a
request's whole body -- up to its own default of 1 GiB, to a temporary file past 512 KiB --
before the app sees the request: a client announcing ``Content-Length: 1073741823`` got no
answer until it had sent it all (300 MB went in on loopback, unanswered), and every open
connection could do the same.  ``wonders serve`` now gives waitress the app's largest limit,
so such a body is refused from its headers, at once, and the connection closed.  waitress's
own refusals (this 413, a request it can't parse, a transfer encoding it lacks) were plain text
in its words; they are the service's one-line JSON error, like every other.
"""

from __future__ import annotations

import json
import socket

import pytest

from tests.security.live import LiveServer
from tests.web.test_api import ORGANIZER

IMPORT_LIMIT = 16 * 1024 * 1024  # WONDERS_MAX_IMPORT_BYTES, the default


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("bodies") / "store", organizer=ORGANIZER,
                        threads=2)
    yield server
    server.stop()


def exchange(server, request: bytes, wait: float = 3.0) -> tuple[int, dict, str]:
    """Send ``request`` (headers, maybe part of a body) and read the answer; a server that
    waits for the rest of the body answers nothing (a timeout: status 0)."""
    host, port = server.base.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as sock:
        sock.sendall(request)
        data = b""
        try:
            while chunk := sock.recv(65536):
                data += chunk
        except TimeoutError:
            if not data:
                return 0, {}, ""
        except ConnectionResetError:
            pass
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), json.loads(body), headers.get("Content-Type", "")


@pytest.mark.parametrize("path", ["/api/import", "/api/matches/m-1/decisions", "/play/m-1"])
def test_a_body_announced_over_every_limit_is_refused_from_its_headers(server, path):
    status, out, kind = exchange(server, b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: "
                                 b"application/json\r\nContent-Length: 1073741823\r\n\r\n"
                                 % path.encode())
    assert status == 413, "no answer before the body was sent" if status == 0 else status
    assert kind == "application/json" and out["error"] == "too_large", out
    assert str(IMPORT_LIMIT) in out["message"] and "\n" not in out["message"], out


def test_a_chunked_body_past_the_limit_is_cut_off(server):
    chunk = b"100000\r\n" + b"a" * 0x100000 + b"\r\n"  # 1 MiB chunks, 17 of them
    status, out, _ = exchange(server, b"POST /api/import HTTP/1.1\r\nHost: x\r\n"
                              b"Transfer-Encoding: chunked\r\n\r\n" + chunk * 17)
    assert status == 413 and out["error"] == "too_large", (status, out)


@pytest.mark.parametrize("request_bytes,status,kind", [
    (b"GET /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", 400, "malformed"),
    (b"GET /api/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501,
     "not_implemented"),
])
def test_what_waitress_refuses_itself_is_the_one_line_json_error(server, request_bytes, status,
                                                                 kind):
    got, out, content_type = exchange(server, request_bytes)
    assert (got, out["error"]) == (status, kind), out
    assert content_type == "application/json" and set(out) == {"error", "message"}


def test_an_upload_at_the_limit_still_reaches_the_app(server):
    """Under waitress's bound the app decides (here: the token first)."""
    status, out, _ = exchange(server, b"POST /api/matches/m-1/decisions HTTP/1.1\r\nHost: x\r\n"
                              b"Authorization: Bearer x\r\nContent-Type: application/json\r\n"
                              b"Content-Length: 70000\r\n\r\n" + b" " * 70000)
    assert status == 401 and out["error"] == "unauthenticated", out  # the app's answer
