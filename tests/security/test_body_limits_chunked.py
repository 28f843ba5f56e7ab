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

from tests.security.test_body_limits import JSON_LIMIT
from tests.web.raw_http import chunked, exchange

#: Header lines of each request below: a bearer token (not this match's), JSON.
HEADERS = b"Connection: close\r\nContent-Type: application/json\r\nAuthorization: Bearer x\r\n"


@pytest.mark.parametrize("length,size", [
    (50_000, 16),  # 50 kB in 16-byte chunks: 68,750 bytes on the wire
    (JSON_LIMIT, JSON_LIMIT),  # exactly the limit, in one chunk
])
def test_a_chunked_json_body_within_the_limit_reaches_the_app(limits_server, length, size):
    """The same body the app takes with a Content-Length (test_body_limits: 401, the token
    first) is not refused for a size it does not have."""
    path = "/api/matches/m-1/decisions"
    status, out, _ = exchange(limits_server, chunked(path, b" " * length, size, HEADERS), wait=30)
    assert status == 401 and out["error"] != "too_large", (status, out)
