"""How large a body each request may carry, enforced by waitress before the body is received.

waitress receives a request's whole body before the app sees the request (into memory, and
to a temporary file past 512 KiB), and it knows one limit, ``max_request_body_size``, for
every request.  Given the largest the app takes (the upload's, 16 MiB), a decision's body of
1 MiB -- or 16 MiB, to ``/play`` -- was taken in whole, unanswered until its last byte, and only
then refused by the app (or not for its size at all: the token is checked first).  So each
request gets its endpoint's limit (:func:`body_limit`) from its request line, as soon as its
headers are read (:class:`LimitedParser`): a body over it is refused from its
``Content-Length``, or as a chunked body's decoded bytes pass it (not its framing's),
without a ``100 Continue`` first, in the service's one-line JSON error naming the path and
the limit (:mod:`web.wireerrors`); the connection is then closed.  Nothing of such a request
reaches the app, so nothing is written.

The app still checks its own limits (``parse_body``, the import): they hold under any server.
"""

from __future__ import annotations

from typing import Any

# waitress ships no types: its parser, channels and servers are Any here (pyproject.toml)
from waitress.parser import HTTPRequestParser
from waitress.utilities import RequestEntityTooLarge

from web.config import Settings

#: The one path whose body is an upload (a match file, ``WONDERS_MAX_IMPORT_BYTES``).
IMPORT_PATH = "/api/import"
#: A page's form (not ``/api``): the console's pool file (at most 1 MB, ``web.organize``) and
#: the fields around it; a decklist, a token or a name is far less.
PAGE_BODY_BYTES = 2 * 1024 * 1024
#: A chunked body's bytes on the wire may be this many times its limit: a chunk of one byte
#: takes six ("1\r\nX\r\n"); the body itself is held to the limit as it is decoded.
CHUNK_FRAMING = 8


def body_limit(settings: Settings, path: str) -> int:
    """The largest body a request to ``path`` (as waitress decoded it) may carry."""
    if path == IMPORT_PATH:
        return settings.max_import_bytes
    if path.startswith("/api/"):
        return settings.max_body_bytes
    return PAGE_BODY_BYTES


class _Adjusted:
    """waitress's settings of one server, with one request's body limit (waitress refuses a
    body of ``max_request_body_size`` bytes or more, hence the limit + 1)."""

    def __init__(self, adj: Any, limit: int):
        self._adj, self.max_request_body_size = adj, limit + 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self._adj, name)


class LimitedParser(HTTPRequestParser):
    """waitress's request parser, with the body limit of the request's path (``limit_of``:
    :func:`body_limit` under the server's settings, in the subclass :func:`limit_bodies`
    makes); ``body_limit`` is the request's, for the refusal's message."""

    body_limit = 0
    adj: Any  # waitress's settings (an Adjustments), then this request's (_Adjusted)
    error: Any  # waitress's error of the request (None while it has none)

    def limit_of(self, path: str) -> int:
        raise NotImplementedError  # a server's subclass says (limit_bodies)

    def parse_header(self, header_plus: bytes) -> None:
        super().parse_header(header_plus)  # the request line and headers: the path known
        self.body_limit = self.limit_of(self.path or "")
        # read next, for this request only.  waitress holds a chunked body's bytes on the
        # wire -- each chunk's size line and CRLF too -- to its limit: for one the body itself
        # is held to the limit (received), the wire to CHUNK_FRAMING times it
        wire = self.body_limit * CHUNK_FRAMING if self.chunked else self.body_limit
        self.adj = _Adjusted(self.adj, wire)

    def received(self, data: bytes) -> int:
        consumed: int = super().received(data)
        if self.error is None and self.chunked and self.body_rcv is not None \
                and len(self.body_rcv) > self.body_limit:
            self.error = RequestEntityTooLarge(f"exceeds max_body of {self.body_limit + 1}")
            self.completed = True
        if self.error is not None:
            self.expect_continue = False  # refused: no "100 Continue" asks for the body
        return consumed


def limit_bodies(listeners: list[Any], settings: Settings) -> None:
    """Make each of ``listeners`` (waitress servers) parse requests with :class:`LimitedParser`
    under ``settings``' limits (its channel class, whatever it is, keeps all else)."""

    class Parser(LimitedParser):
        def limit_of(self, path: str) -> int:
            return body_limit(settings, path)

    for listener in listeners:
        listener.channel_class = type("LimitedChannel", (listener.channel_class,),
                                      {"parser_class": Parser})
