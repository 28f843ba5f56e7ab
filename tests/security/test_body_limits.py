"""A request body over the limit of the endpoint it is sent to is refused before it is received.

The app refuses a JSON body over 64 KiB and an upload over 16 MiB (413), but waitress buffers a
request's whole body -- up to its own default of 1 GiB, to a temporary file past 512 KiB --
before the app sees the request: a client announcing ``Content-Length: 1073741823`` got no
answer until it had sent it all (300 MB went in on loopback, unanswered), and every open
connection could do the same.  ``wonders serve`` then gave waitress the app's largest limit, the
upload's 16 MiB, for every request: a decision's 1 MiB body (or 16 MiB, to ``/play``) was still
taken in whole, unanswered until its last byte, and then refused -- or, without a token, not even
refused for its size.  Now each request's limit is its endpoint's, from its request line
(:mod:`web.bodylimits`): ``/api/import`` the upload's, every other ``/api`` path the JSON
body's, a page's form the console's pool file's; a body over it is refused from its headers
(``Content-Length``) or as a chunked body passes it, with no ``100 Continue`` first, in the
service's one-line JSON error naming the path and the limit, and nothing of it is written.
waitress's own refusals (this 413, a request it can't parse, a transfer encoding it lacks) are
that JSON error too.
"""

from __future__ import annotations

import json

import pytest

from tests.security.live import LiveApi
from tests.web.raw_http import chunked, exchange, exchange_raw, post
from web.bodylimits import PAGE_BODY_BYTES

JSON_LIMIT = 64 * 1024  # WONDERS_MAX_BODY_BYTES, the default
IMPORT_LIMIT = 16 * 1024 * 1024  # WONDERS_MAX_IMPORT_BYTES, the default


@pytest.mark.parametrize("path,limit", [("/api/import", IMPORT_LIMIT),
                                        ("/api/matches/m-1/decisions", JSON_LIMIT),
                                        ("/play/m-1", PAGE_BODY_BYTES)])
def test_a_body_announced_over_every_limit_is_refused_from_its_headers(limits_server, path,
                                                                        limit):
    status, out, kind = exchange(limits_server, post(path, 1073741823))
    assert status == 413, "no answer before the body was sent" if status == 0 else status
    assert kind == "application/json" and out["error"] == "too_large", out
    assert out["message"] == f"{path}: body of 1073741823 bytes; the limit is {limit}", out


@pytest.mark.parametrize("path,limit", [("/api/matches/m-1/decisions", JSON_LIMIT),
                                        ("/api/tournaments/t-1/cards", JSON_LIMIT),
                                        ("/organize/t/t-1/cards", PAGE_BODY_BYTES),
                                        ("/api/import", IMPORT_LIMIT)])
def test_a_body_one_byte_over_its_endpoints_limit_is_refused_before_it_is_sent(
        limits_server, path, limit):
    """A JSON body over 64 KiB was taken in whole (up to 16 MiB, the upload's limit) and then
    refused by the app -- or not refused for its size at all, the token being checked first."""
    status, out, _ = exchange(limits_server, post(path, limit + 1))
    assert status == 413, "no answer before the body was sent" if status == 0 else status
    assert out == {"error": "too_large",
                   "message": f"{path}: body of {limit + 1} bytes; the limit is {limit}"}, out


def test_a_chunked_body_past_its_limit_is_cut_off_as_it_passes_it(limits_server):
    """Two chunks of 40 KiB, the second past the JSON limit, and no end: answered at once."""
    two = chunked("/api/matches/m-1/decisions", b" " * (2 * 0xA000), 0xA000, end=False)
    status, out, _ = exchange(limits_server, two)
    assert status == 413, "no answer before the body ended" if status == 0 else status
    assert out == {"error": "too_large", "message": "/api/matches/m-1/decisions: the body is "
                                                    f"over the limit of {JSON_LIMIT} bytes"}, out


def test_a_chunked_upload_past_the_import_limit_is_cut_off(limits_server):
    upload = b"a" * (17 * 0x100000)  # 1 MiB chunks, 17 of them
    status, out, _ = exchange(limits_server, chunked("/api/import", upload, 0x100000, end=False))
    assert status == 413 and out["error"] == "too_large", (status, out)
    assert str(IMPORT_LIMIT) in out["message"], out


def test_a_refused_body_gets_no_100_continue_first(limits_server):
    """A client that waits for ``100 Continue`` before sending was told to send a body that was
    then refused: the first answer is the refusal."""
    status, headers, _ = exchange_raw(limits_server, post(
        "/api/matches/m-1/decisions", JSON_LIMIT + 1, b"Expect: 100-continue\r\n"))
    assert status == 413 and headers.get("Connection") == "close", (status, headers)


@pytest.mark.parametrize("request_bytes,status,kind", [
    (b"GET /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", 400, "malformed"),
    (b"GET /api/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501,
     "not_implemented"),
])
def test_what_waitress_refuses_itself_is_the_one_line_json_error(limits_server, request_bytes,
                                                                 status, kind):
    got, out, content_type = exchange(limits_server, request_bytes)
    assert (got, out["error"]) == (status, kind), out
    assert content_type == "application/json" and set(out) == {"error", "message"}


@pytest.mark.parametrize("path,limit,answer", [
    ("/api/matches/m-1/decisions", JSON_LIMIT, 401),  # the token first
    ("/api/import", IMPORT_LIMIT // 16, 403),  # over the JSON limit: the upload's is larger
    ("/play/m-1", PAGE_BODY_BYTES, 403)])  # a post with no Origin
def test_a_body_at_its_endpoints_limit_reaches_the_app(limits_server, path, limit, answer):
    status, out, _ = exchange(limits_server, post(path, limit, b"Authorization: Bearer x\r\n")
                              + b" " * limit, wait=30)
    assert status == answer and out["error"] != "too_large", out  # the app's answer


def test_an_oversized_decision_writes_nothing_and_the_table_goes_on(limits_server):
    """A seat's legal decision padded past the limit: refused from its headers (the body never
    sent), the match file unchanged; the same decision at the limit is recorded."""
    api = LiveApi(limits_server)
    mid, tokens = api.create(previous_loser="B")  # rule 401: B chooses who goes first
    prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens["B"])[1]
    body = json.dumps({"expected_seq": prompt["length"],
                       "decision": prompt["prompt"]["options"][0]["decision"]}).encode()
    before = api.store.path(mid).read_bytes()
    seat = b"Authorization: Bearer %s\r\n" % tokens["B"].encode()
    path = f"/api/matches/{mid}/decisions"
    status, out, _ = exchange(limits_server, post(path, JSON_LIMIT + 1, seat))
    assert status == 413 and str(JSON_LIMIT) in out["message"], out
    assert api.store.path(mid).read_bytes() == before
    padded = body + b" " * (JSON_LIMIT - len(body))
    status, out, _ = exchange(limits_server, post(path, JSON_LIMIT, seat) + padded, wait=30)
    assert status == 201 and out["seq"] > prompt["length"], out
