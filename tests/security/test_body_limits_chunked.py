"""A chunked body is held to its endpoint's limit by its size, not by the bytes of its framing.

waitress counts a chunked body's bytes as they arrive on the wire -- the chunk-size lines and
the CRLF after each chunk included -- against ``max_request_body_size``.  While that was the
upload's 16 MiB for every request, a JSON body sent chunked was checked by the app alone
(``parse_body``: at most ``WONDERS_MAX_BODY_BYTES`` of body).  With each request's own limit
(:mod:`web.bodylimits`), a JSON body well under 64 KiB sent in small chunks, or one of exactly
64 KiB in one chunk, is refused with a 413 saying "the body is over the limit of 65536
bytes" -- which it is not: the app takes the same body sent with a ``Content-Length``.
"""

from __future__ import annotations

import pytest

from tests.security.live import LiveServer
from tests.security.test_body_limits import JSON_LIMIT, exchange
from tests.web.test_api import ORGANIZER


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("chunked") / "store", organizer=ORGANIZER,
                        threads=2)
    yield server
    server.stop()


def chunked(path: str, body: bytes, size: int) -> bytes:
    """A POST of ``body`` in chunks of ``size`` bytes, with a bearer token (not this match's)."""
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size])
                      for i in range(0, len(body), size))
    return (b"POST %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json"
            b"\r\nAuthorization: Bearer x\r\nTransfer-Encoding: chunked\r\n\r\n%s0\r\n\r\n"
            % (path.encode(), chunks))


@pytest.mark.parametrize("length,size", [
    (50_000, 16),  # 50 kB in 16-byte chunks: 68,750 bytes on the wire
    (JSON_LIMIT, JSON_LIMIT),  # exactly the limit, in one chunk
])
def test_a_chunked_json_body_within_the_limit_reaches_the_app(server, length, size):
    """The same body the app takes with a Content-Length (test_body_limits: 401, the token
    first) is not refused for a size it does not have."""
    path = "/api/matches/m-1/decisions"
    status, out, _ = exchange(server, chunked(path, b" " * length, size), wait=30)
    assert status == 401 and out["error"] != "too_large", (status, out)
