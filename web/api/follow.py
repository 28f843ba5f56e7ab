"""Live follow: server-sent events of a match's new events, for one perspective.

With a seat or judge token the stream is that role's perspective; without one it is the
public's (a live match as a spectator, ``spectator_delay`` events late).  Each SSE message is
one event (``id`` = its seq, ``data`` = the event as JSON); where today's engine disagrees
with the record, a ``divergence`` message (``{seq, message}``) comes first.  The stream ends
when the match has ended and everything was sent, or after ``timeout`` idle seconds
(``EventSource`` reconnects with ``Last-Event-ID``).
"""

from __future__ import annotations

import json
import time

from flask import Blueprint, Response, request

from replay.perspective import face_down_ids
from web.api.common import (bearer, divergence_out, event_out, query_int, role_for, services,
                            visible_seq)
from web.api.openapi import Query, route
from web.api.public import public_perspective
from web.api.seat import perspective_of

bp = Blueprint("follow", __name__, url_prefix="/api/matches")


@route(bp, "/<match_id>/follow", "GET", "Server-sent events of new events for your perspective",
       errors=(400, 403, 404),
       query=(Query("from", {"type": "integer", "minimum": 0}),
              Query("timeout", {"type": "integer", "minimum": 0},
                    "idle seconds before the stream closes (at most WONDERS_FOLLOW_TIMEOUT)"),
              Query("as", {"type": "string", "enum": ["spectator", "A", "B", "omniscient"]})),
       content={"response": {"text/event-stream": {"schema": {"type": "string"}}}})
def follow(match_id: str):
    svc = services()
    settings = svc.settings
    start = query_int("from", _last_event_id() + 1)
    timeout = min(float(query_int("timeout", int(settings.follow_timeout), 0, 3600)),
                  settings.follow_timeout)
    role = role_for(match_id) if bearer() is not None else None
    if role is not None:
        perspective, delayed = perspective_of(role), False
    else:
        perspective = svc.tables.using(match_id, public_perspective)
        delayed = True
    tables, poll, delay = svc.tables, settings.follow_poll, settings.spectator_delay

    def horizon(table):
        last = visible_seq(table, delay) if delayed else table.length - 1
        return (last, table.state.over and last == table.length - 1, face_down_ids(table.state),
                divergence_out(table, perspective))

    def stream():
        nxt, idle_since, marked = start, time.monotonic(), None
        while True:
            last, done, hidden, mark = tables.using(match_id, horizon)
            if mark is not None and mark != marked:  # today's engine disagrees with the record
                yield f"event: divergence\ndata: {json.dumps(mark.model_dump())}\n\n"
                marked = mark
            if last >= nxt:
                for stored in svc.store.read(match_id, nxt):
                    if stored.seq > last:
                        break
                    out = event_out(stored, perspective, hidden)
                    yield f"id: {out.seq}\nevent: event\ndata: {json.dumps(out.model_dump())}\n\n"
                nxt, idle_since = last + 1, time.monotonic()
            if done and nxt > last:
                yield "event: end\ndata: {}\n\n"
                return
            if time.monotonic() - idle_since >= timeout:
                return
            time.sleep(poll)
    return Response(stream(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _last_event_id() -> int:
    raw = request.headers.get("Last-Event-ID", "")
    return int(raw) if raw.isdigit() and len(raw) < 10 else -1
