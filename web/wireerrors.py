"""Errors waitress answers itself, before the app sees a request, as the service's one line.

waitress refuses some requests on its own: a body over ``max_request_body_size`` (413), a
request it can't parse (400), a transfer encoding it lacks (501); each request's body limit is
its endpoint's (:mod:`web.bodylimits`).  It answered them as
``text/plain`` in its own words; every error of this service is ``{"error": kind, "message":
...}`` (docs/api.md, *Errors*), so :class:`JsonErrorTask` writes those the same way.
"""

from __future__ import annotations

import json
from typing import Any

from waitress.task import ErrorTask

#: waitress's error codes → the service's error kinds (web/errors.py).
KINDS = {400: "malformed", 413: "too_large", 431: "too_large", 501: "not_implemented"}


def too_large(request: Any, largest: int) -> str:
    """A body over its request's limit (:mod:`web.bodylimits`; else the server's ``largest``),
    in the app's words (``parse_body``): the path, the size announced, the limit."""
    limit = getattr(request, "body_limit", 0) or largest
    path = (request.path or "")[:200]
    if request.chunked or not request.content_length:  # refused as the body passed the limit
        return f"{path}: the body is over the limit of {limit} bytes"
    return f"{path}: body of {request.content_length} bytes; the limit is {limit}"


class JsonErrorTask(ErrorTask):
    """waitress's error answer, with the body every other error of the service has."""

    def execute(self) -> None:
        error = self.request.error
        kind = KINDS.get(error.code, "malformed" if error.code < 500 else "internal")
        message = f"{error.reason.lower()}: {error.body}"
        if error.code == 413:
            message = too_large(self.request, self.channel.server.adj.max_request_body_size - 1)
        body = json.dumps({"error": kind, "message": message}, separators=(",", ":")).encode()
        body += b"\n"
        self.status = f"{error.code} {error.reason}"
        self.response_headers.append(("Content-Type", "application/json"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)
