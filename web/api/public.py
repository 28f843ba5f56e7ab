"""Public endpoints: anyone may watch a match as a spectator (a live match ``spectator_delay``
events late, so a stream cannot leak what is happening at the table now) and, once a match
has ended, see it from any perspective and download its match file.

Nothing a public answer carries goes past the delay: the board, the events, ``length``,
``next_seq``/``has_more`` and the divergence mark all stop at :func:`~web.api.common.visible_seq`."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request

from web.api.common import (
    PAGE_FROM,
    PAGE_LIMIT,
    Tagged,
    divergence_out,
    events_page,
    page_limit,
    query_int,
    rendered,
    revalidated,
    services,
    state_out,
    tagged,
    visible_seq,
)
from web.api.openapi import Query, route
from web.api.tables import Table
from web.errors import ForbiddenError, MalformedRequestError
from web.models import EventsOut, StateOut

bp = Blueprint("public", __name__, url_prefix="/api/public/matches")
PERSPECTIVE = Query("as", {"type": "string", "enum": ["spectator", "A", "B", "omniscient"]},
                    "any perspective once the match has ended; spectator while it is live")


def public_perspective(table: Table) -> str:
    """The perspective asked for in ``?as=``, allowed only once the match has ended."""
    wanted = request.args.get("as", "spectator")
    if wanted not in ("spectator", "A", "B", "omniscient"):
        raise MalformedRequestError(f"as={wanted!r}: use spectator, A, B or omniscient")
    if wanted != "spectator" and not table.state.over:
        raise ForbiddenError(f"match {table.match_id} is live: the public sees it as a spectator "
                             f"only (hands and deck order are shown once it has ended)")
    return wanted


@route(bp, "/<match_id>/state", "GET", "The board for the public (live: delayed spectator view)",
       response=StateOut, query=(PERSPECTIVE,), errors=(400, 403, 404), revalidates=True)
def public_state(match_id: str) -> Response:
    delay = services().settings.spectator_delay

    def view(table: Table) -> Tagged:
        perspective = public_perspective(table)
        return table.view(("public", perspective), lambda: tagged(rendered(
            state_out(table, perspective, upto=visible_seq(table, delay)))))
    return revalidated(services().tables.using(match_id, view), private=False)


@route(bp, "/<match_id>/events", "GET", "The events for the public (live: up to the delay), "
       "one page at a time: from `from`, at most `limit`; ask again with `from=next_seq` while "
       "`has_more`", response=EventsOut, errors=(400, 403, 404),
       query=(PERSPECTIVE, PAGE_FROM, PAGE_LIMIT))
def public_events(match_id: str) -> dict[str, Any]:
    start, limit = query_int("from", 0), page_limit()

    def view(table: Table) -> EventsOut:
        perspective = public_perspective(table)
        upto = visible_seq(table, services().settings.spectator_delay)
        return events_page(table, perspective, start, upto, limit)
    return services().tables.using(match_id, view).model_dump()


@route(bp, "/<match_id>/file", "GET", "Download the match file (JSON lines) once the match has "
       "ended; a match today's engine disagrees with carries X-Wonders-Divergence-Seq and "
       "X-Wonders-Divergence headers",
       errors=(400, 403, 404),
       content={"response": {"application/x-ndjson": {"schema": {"type": "string"}}}})
def download(match_id: str) -> Response:
    svc = services()
    over, mark = svc.tables.using(match_id, lambda table: (
        table.state.over, divergence_out(table, "spectator") if table.state.over else None))
    if not over:
        raise ForbiddenError(f"match {match_id} is live; its file can be downloaded once it has ended")
    data = svc.store.export_lines(match_id)  # the lines as recorded: the match file
    headers = {"Content-Disposition": f'attachment; filename="{match_id}.jsonl"'}
    if mark is not None:  # the file as recorded, with where today's engine disagrees
        headers["X-Wonders-Divergence-Seq"] = str(mark.seq)
        headers["X-Wonders-Divergence"] = header_text(mark.message)
    return Response(data, mimetype="application/x-ndjson", headers=headers)


def header_text(text: str, limit: int = 500) -> str:
    """One line of printable ASCII for an HTTP header (other characters as ``\\uXXXX``)."""
    out = "".join(c if " " <= c <= "~" else f"\\u{ord(c):04x}" for c in text)
    return out[:limit]
