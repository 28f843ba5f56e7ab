"""The web package's exceptions and the one error handler that turns errors into answers.

Every error leaves the service as ``{"error": <kind>, "message": <what, where, why>}`` with the
status its cause calls for (a browser opening a page -- ``/matches``, ``/stats``, ``/play``,
``/organize`` -- gets the same one line as an HTML page, ``error.html``; ``/api`` and every
fetch that does not ask for HTML first get JSON): 400 malformed input, 401 a missing or
unknown token, 403 a token that may not do this, 404 no such match, 409 a stale
``expected_seq`` (nothing written), 413 a body over the limit, 422 a decision the rules forbid
(the message cites the rule).
Domain errors of ``ledger`` and ``replay`` are mapped here, so views never catch them.

A match whose stored data is damaged (a line that fails its checks, a file that ends where no
match file may) is 422 ``integrity`` for everyone who asks, with one line from the error's
fields (:func:`public_problem`: the match, the line and seq, the kind of damage) -- never its
message, which names the server's file and may quote bytes of the line (hidden cards of a live
match).  The whole message goes to the server's log; ``wonders verify`` gives it too.
"""

from __future__ import annotations

import logging
from pathlib import Path

from flask import Flask, Response, jsonify, make_response, render_template, request
from pydantic import ValidationError
from werkzeug.exceptions import HTTPException, MethodNotAllowed, RequestEntityTooLarge

from ledger.errors import (
    ConflictError,
    IntegrityError,
    LedgerError,
    MalformedEventError,
    MatchNotFoundError,
    NewerFormatError,
    NonCanonicalLineError,
    NotAMatchFileError,
    StoreUnavailableError,
)
from ledger.store import SUFFIX
from replay.errors import CardDataError, DivergenceError, IllegalDecisionError, ReplayError
from replay.timeline import TimelineError

log = logging.getLogger("wonders.web")


class WebError(Exception):
    """Root of every error the ``web`` package raises; ``status`` and ``kind`` go on the wire."""

    status = 500
    kind = "internal"


class ConfigError(WebError):
    """A ``WONDERS_*`` setting is invalid."""


class MalformedRequestError(WebError):
    status, kind = 400, "malformed"


class UnauthenticatedError(WebError):
    status, kind = 401, "unauthenticated"


class ForbiddenError(WebError):
    status, kind = 403, "forbidden"


class NotFoundError(WebError):
    status, kind = 404, "not_found"


class StaleSeqError(WebError):
    status, kind = 409, "conflict"


class TooLargeError(WebError):
    status, kind = 413, "too_large"


class IllegalError(WebError):
    status, kind = 422, "illegal"


#: Domain errors of the lower packages: (class, status, kind), most specific first.
DOMAIN = (
    (ConflictError, 409, "conflict"),
    (MatchNotFoundError, 404, "not_found"),
    (MalformedEventError, 400, "malformed"),
    (IntegrityError, 422, "integrity"),
    (IllegalDecisionError, 422, "illegal"),
    (DivergenceError, 422, "divergence"),
    (TimelineError, 422, "integrity"),  # a log that can't be folded (e.g. a bad take-back)
    (CardDataError, 422, "invalid_deck"),
    (StoreUnavailableError, 503, "unavailable"),  # the database is down: try again
    (LedgerError, 400, "ledger"),
    (ReplayError, 422, "rules"),
)


#: What kind of damage each error of the ledger is, in words anyone may read (most specific
#: first): the message itself is the operator's.
DAMAGE = ((NonCanonicalLineError, "a line not in its canonical encoding"),
          (IntegrityError, "altered data (a hash or the chain does not match)"),
          (NewerFormatError, "written by a newer program than this server's"),
          (NotAMatchFileError, "not a regular file"),
          (MalformedEventError, "a line that is not a ledger event"))
#: How a public problem ends: where the operator finds the whole message.
DETAIL = "(wonders verify on the server gives the detail)"


def public_problem(match_id: str, exc: Exception) -> str:
    """Why a match cannot be read, for anyone: the match, the line and seq where its data is
    damaged (the error's fields) and the kind of damage (its class) -- never the file's path
    or any byte of its content (``wonders verify`` and the server's log give the operator the
    whole message).  ``"<match> at line N (seq S): <kind> (…)"``."""
    return f"{match_id}{_at(exc)}: {_kind(exc)} {DETAIL}"


def _kind(exc: Exception) -> str:
    return next((words for cls, words in DAMAGE if isinstance(exc, cls)), "cannot be read")


def _at(exc: Exception) -> str:
    """`` at line N (seq S)`` from a ledger error's fields (as much as they know)."""
    line = getattr(exc, "line", None)
    seq = getattr(exc, "seq", None)
    if line is not None and seq is not None:
        return f" at line {line} (seq {seq})"
    if line is not None:
        return f" at line {line}"
    return f" at seq {seq}" if seq is not None else ""


def damaged_match(exc: LedgerError) -> str:
    """What anyone is told of an error about a match's stored data (``exc.is_stored_data``):
    ``"match <id> cannot be read at line N (seq S): <kind> (…)"`` (the match is the one whose
    file, or stored lines, the fields name)."""
    match_id = Path(exc.file or "?").name.removesuffix(SUFFIX)
    return f"match {match_id} cannot be read{_at(exc)}: {_kind(exc)} {DETAIL}"


def error_body(kind: str, message: str, status: int) -> Response | tuple[str, int]:
    if wants_page():
        return render_template("error.html", kind=kind, message=message, status=status), status
    response = jsonify(error=kind, message=message)
    response.status_code = status
    return response


def wants_page() -> bool:
    """Whether the request is a browser opening a page (not the API, not a page's fetch of
    JSON): it asks for HTML before JSON."""
    if request.path.startswith("/api/") or request.path == "/api":
        return False
    accept = request.accept_mimetypes
    return accept.quality("text/html") > accept.quality("application/json")


def describe_validation(exc: ValidationError, within: tuple[str, ...] = ()) -> str:
    """The first problem of a pydantic error as ``field: message`` (one line); ``within``:
    where in the body the validated part sits (``("decision",)``)."""
    parts = []
    for problem in exc.errors()[:3]:
        where = ".".join(str(p) for p in (*within, *problem["loc"])) or "body"
        parts.append(f"{where}: {problem['msg']}")
    more = f" (and {exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
    return "; ".join(parts) + more


def handle(exc: Exception) -> Response | tuple[str, int]:
    """The one handler: any exception → ``{error, message}`` with its status."""
    if isinstance(exc, WebError):
        return error_body(exc.kind, str(exc), exc.status)
    if isinstance(exc, ValidationError):
        return error_body("malformed", describe_validation(exc), 400)
    if isinstance(exc, RequestEntityTooLarge):
        return error_body("too_large", "the request body is larger than this endpoint accepts", 413)
    if isinstance(exc, HTTPException):
        response = make_response(error_body(exc.name.lower().replace(" ", "_"),
                                            exc.description or exc.name, exc.code or 500))
        if isinstance(exc, MethodNotAllowed) and exc.valid_methods:
            # RFC 9110 15.5.6: a 405 names the methods the resource has
            response.headers["Allow"] = ", ".join(exc.valid_methods)
        return response
    if isinstance(exc, LedgerError) and exc.is_stored_data:  # the whole message: the log's
        log.error("%s %s: %s", request.method, request.path, exc)
        return error_body("integrity", damaged_match(exc), 422)
    for cls, status, kind in DOMAIN:
        if isinstance(exc, cls):
            return error_body(kind, str(exc), status)
    if isinstance(exc, OSError):
        return _storage_failed(exc)
    log.exception("unhandled error")
    return error_body("internal", f"internal error ({type(exc).__name__}); see the server log", 500)


def _storage_failed(exc: OSError) -> Response | tuple[str, int]:
    """The disk under the store failed a request (full, read-only, ...): the operator's
    problem, not a bug -- one line in the log (with the file), 503 to the client (with the
    cause, never the server's paths).  Nothing of the request was acknowledged (the file store
    takes a failed batch of a match back at once)."""
    cause = exc.strerror or type(exc).__name__
    log.error("%s %s: storage failed: %s: %s", request.method, request.path,
              exc.filename or "-", cause)
    return error_body("unavailable", f"the server could not use its store ({cause}); nothing "
                      "of this request was acknowledged", 503)


def register(app: Flask) -> None:
    app.register_error_handler(Exception, handle)
