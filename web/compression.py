"""gzip for what the server answers: pages, JSON, CSV and the pages' static files.

Flask-Compress compresses a whole answer when the client accepts gzip (``/stats`` is ~98 kB of
HTML, ~9 kB gzipped).  Streams are left alone: the follow stream (server-sent events) must
reach the client event by event, never buffered to be compressed, so ``COMPRESS_STREAMS`` is
off and ``text/event-stream`` is not among the compressed types.  A static file is sent as a
stream by Flask; it is read whole first (they are a few kB) so it is compressed like a page.

Most answers go to clients that ask for no compression at all (the recording API's clients,
scripts): :class:`GzipWhenAsked` answers those with the ``Vary`` header alone, as Flask-Compress
does, without running its negotiation and checks on every request.
"""

from __future__ import annotations

from flask import Flask, Response, request
from flask_compress import Compress

#: What is compressed (never ``text/event-stream``).
MIMETYPES = ["text/html", "text/css", "text/javascript", "application/javascript",
             "application/json", "text/csv", "image/svg+xml", "text/plain"]
MIN_SIZE = 500  # bytes: below this gzip's header costs more than it saves


def register(app: Flask) -> None:
    """Compress ``app``'s answers (gzip) except streams."""
    app.config.update(COMPRESS_ALGORITHM=["gzip"], COMPRESS_STREAMS=False,
                      COMPRESS_MIMETYPES=MIMETYPES, COMPRESS_MIN_SIZE=MIN_SIZE)
    GzipWhenAsked(app)
    # after_request functions run last-registered first: this one runs before the compressor
    app.after_request(_static_whole)


class GzipWhenAsked(Compress):
    """Flask-Compress, which first looks whether the client accepts gzip at all: without
    ``gzip`` or ``*`` in ``Accept-Encoding`` the answer is left as it is but for ``Vary``."""

    def after_request(self, response: Response | None) -> Response:
        accepted = request.headers.get("Accept-Encoding", "").lower()
        if response and "gzip" not in accepted and "*" not in accepted:
            _vary_on_encoding(response)
            return response
        return super().after_request(response)


def _vary_on_encoding(response: Response) -> None:
    """``Vary: Accept-Encoding`` (added to any ``Vary`` there is), as Flask-Compress sets it."""
    vary = response.headers.get("Vary")
    if not vary:
        response.headers["Vary"] = "Accept-Encoding"
    elif "accept-encoding" not in vary.lower():
        response.headers["Vary"] = f"{vary}, Accept-Encoding"


def _static_whole(response: Response) -> Response:
    """A static file read whole (it is small), so the compressor treats it as a page."""
    if request.endpoint == "static" and response.status_code == 200 and response.is_streamed:
        response.direct_passthrough = False
        response.make_sequence()
    return response
