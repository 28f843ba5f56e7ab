"""gzip for what the server answers: pages, JSON, CSV and the pages' static files.

Flask-Compress compresses a whole answer when the client accepts gzip (``/stats`` is ~98 kB of
HTML, ~9 kB gzipped).  Streams are left alone: the follow stream (server-sent events) must
reach the client event by event, never buffered to be compressed, so ``COMPRESS_STREAMS`` is
off and ``text/event-stream`` is not among the compressed types.  A static file is sent as a
stream by Flask; it is read whole first (they are a few kB) so it is compressed like a page.
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
    Compress(app)
    # after_request functions run last-registered first: this one runs before the compressor
    app.after_request(_static_whole)


def _static_whole(response: Response) -> Response:
    """A static file read whole (it is small), so the compressor treats it as a page."""
    if request.endpoint == "static" and response.status_code == 200 and response.is_streamed:
        response.direct_passthrough = False
        response.make_sequence()
    return response
