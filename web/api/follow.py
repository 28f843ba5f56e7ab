"""Live follow: server-sent events of a match's new events, for one perspective.

With a seat or judge token the stream is that role's perspective; without one it is the
public's (a live match as a spectator, ``spectator_delay`` events late).  Each SSE message is
one event (``id`` = its seq, ``data`` = the event as JSON); where today's engine disagrees
with the record, a ``divergence`` message (``{seq, message}``) comes first.  The stream ends
when the match has ended and everything was sent, when the client has gone, or after
``timeout`` idle seconds (``EventSource`` reconnects with ``Last-Event-ID``).  A stream opened
with a token ends as soon as the token no longer holds its role (the organizer reissued or
revoked it): before each look's events are sent the token is checked again, as every request
checks it, and a replaced token's stream gets an ``error`` message (the one-line JSON error,
``unauthenticated``) and ends -- nothing of the role's view is sent past the replacement.
A stream whose store can't be read (PostgreSQL restarting) ends the same way (``unavailable``;
one line in the server's log), and so does one whose match is found damaged (``integrity``:
the match, line and seq, never the file's path or bytes; the whole error in the log).

A stream opens with an SSE comment (``: following <match> from seq N``), so its headers
are sent at once.  Open streams are counted: at most ``follow_max_streams`` at once in the process and at most
``follow_max_per_client`` from one client address; past either a request gets 503 with
``Retry-After`` (and the usual one-line JSON error).  A stream's slot is released as soon as
it ends, however it ends.  ``wonders serve`` runs these streams on threads of their own
(:mod:`web.serve`), so however many are open, the recording requests keep their threads.

The streams on one match share a :class:`Feed`: the match read from the store as it grows,
each new event decoded once, so a stream costs the events it sends.  A stream that keeps up
takes the new events from the match's table, which has just read them (or written them) to
fold them (:meth:`web.api.tables.Table.recent`): the feed reads only what a stream catching
up needs.  What one look finds is written in one piece (the stream's bytes are the same; it is
sent in fewer chunks).  Between looks a stream
waits on the store (:meth:`ledger.store.Store.wait`: woken at once by PostgreSQL's
``NOTIFY``, with no queries while idle but a safety read every few seconds; on a file store
a stream sleeps ``follow_poll`` and looks again).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial

from flask import Blueprint, Response, current_app, request

from ledger.codec import Stored
from ledger.errors import LedgerError, StoreClosedError, StoreUnavailableError
from ledger.store import Store
from web.api.common import bearer, divergence_out, event_fields, query_int, role_for, services, visible_seq
from web.api.openapi import QUERY_INT_MAX, Query, route
from web.api.public import public_perspective
from web.api.seat import perspective_of
from web.api.tables import Table
from web.errors import WebError, damaged_match
from web.models import DivergenceOut
from web.narration import Narrator

bp = Blueprint("follow", __name__, url_prefix="/api/matches")
log = logging.getLogger("wonders.web")
#: The longest one wait of a stream on a store that wakes on appends (a client that has gone
#: keeps its slot at most this long).
LONG_WAIT_S = 15.0
#: What a stream's look finds (one per perspective and length): the table's length, the last
#: seq it may send, whether that is the end, the narrator and the divergence mark up to it.
Horizon = tuple[int, int, bool, Narrator, DivergenceOut | None]

#: The most SSE messages a stream writes at once (a look's new events are written together).
MESSAGES_PER_WRITE = 64

#: The most idle seconds a client may ask a stream to wait (``?timeout=``; the server's own
#: ``follow_timeout`` is the bound that counts).
FOLLOW_MAX_TIMEOUT = 3600

#: Seconds a refused client is told to wait (``Retry-After``).
RETRY_AFTER = 5


class StreamsFullError(WebError):
    """Too many live-follow streams are open (on the server, or from this address)."""

    status, kind = 503, "unavailable"


def once(lock: threading.Lock, action: Callable[[], None]) -> Callable[[], None]:
    """``action`` run under ``lock`` the first time the returned release is called, never
    again (a stream's release may be called by its generator's end and by the server)."""
    done = False

    def release() -> None:
        nonlocal done
        with lock:
            if not done:
                done = True
                action()
    return release


class Slots:
    """The open live-follow streams of one app: at most ``total``, ``per_client`` per address."""

    def __init__(self, total: int, per_client: int):
        self.total, self.per_client = total, per_client
        self.lock = threading.Lock()
        self.open = 0
        self.by_client: dict[str, int] = {}

    def take(self, client: str) -> Callable[[], None]:
        """A slot for ``client`` (503 when there is none); returns its release (idempotent)."""
        with self.lock:
            mine = self.by_client.get(client, 0)
            if mine >= self.per_client:
                raise StreamsFullError(
                    f"{mine} live-follow streams are open from your address, the most one "
                    f"client may have; close one, or retry in {RETRY_AFTER} s")
            if self.open >= self.total:
                raise StreamsFullError(
                    f"{self.open} live-follow streams are open, the most this server serves; "
                    f"retry in {RETRY_AFTER} s, or poll /state")
            self.open += 1
            self.by_client[client] = mine + 1

        def free() -> None:
            self.open -= 1
            left = self.by_client[client] - 1
            if left:
                self.by_client[client] = left
            else:
                del self.by_client[client]
        return once(self.lock, free)


class Feed:
    """The recorded events of one match, read from the store as it grows: each read starts
    at the first seq not read yet.  The store checks what it reads (canonical bytes, hash
    chain, seq) and gives whole batches only (a file's unfinished or torn batch is left for
    the next read)."""

    def __init__(self, store: Store, match_id: str):
        self.store, self.name = store, match_id
        self.lock = threading.Lock()
        self.events: list[Stored] = []
        self._messages: dict[tuple, str] = {}  # (seq, perspective, hidden, last) -> SSE message

    def message(self, narrator: Narrator, stored: Stored) -> str:
        """The SSE message of one event for a perspective, rendered once for every stream on
        this match that sees it the same way (the redaction and narration are the cost)."""
        key = (stored.seq, narrator.perspective, narrator.hidden, narrator.last)
        text = self._messages.get(key)
        if text is None:
            out = event_fields(narrator, stored)  # (no model: the same dict, a third the time)
            text = f"id: {stored.seq}\nevent: event\ndata: {json.dumps(out)}\n\n"
            if len(self._messages) >= 4096:
                self._messages.clear()
            self._messages[key] = text
        return text

    def between(self, first: int, last: int) -> list[Stored]:
        """Events ``first``..``last`` (fewer if the file has fewer whole batches)."""
        with self.lock:
            if len(self.events) <= last:
                self._grow()
            return self.events[first:last + 1]

    def _grow(self) -> None:
        self.events += self.store.read(self.name, len(self.events))


class Follows:
    """One app's live-follow bookkeeping: the stream slots and the shared feeds."""

    def __init__(self, slots: Slots):
        self.slots = slots
        self.lock = threading.Lock()
        self.feeds: dict[str, tuple[Feed, int]] = {}  # match id → (feed, streams on it)

    def open(self, client: str, match_id: str, store: Store) -> tuple[Feed, Callable[[], None]]:
        """A slot (or 503) and the match's feed; returns the feed and the stream's release."""
        free_slot = self.slots.take(client)
        with self.lock:
            feed, users = self.feeds.get(match_id) or (Feed(store, match_id), 0)
            self.feeds[match_id] = (feed, users + 1)

        def leave() -> None:
            shared, users = self.feeds[match_id]
            if users > 1:
                self.feeds[match_id] = (shared, users - 1)
            else:
                del self.feeds[match_id]
        left = once(self.lock, leave)

        def release() -> None:
            left()
            free_slot()  # idempotent too: a second release frees nothing
        return feed, release


_FOLLOWS_LOCK = threading.Lock()


def follows() -> Follows:
    """This app's live-follow bookkeeping (made on first use, from its settings)."""
    ext = current_app.extensions
    with _FOLLOWS_LOCK:
        if "wonders.follow" not in ext:
            settings = services().settings
            ext["wonders.follow"] = Follows(Slots(settings.follow_max_streams,
                                                  settings.follow_max_per_client))
        return ext["wonders.follow"]


#: One server-sent event of the stream (OpenAPI 3.1: an event stream's ``schema`` describes
#: each event): ``event`` names it -- ``event`` (``data``: an EventOut, ``id``: its seq),
#: ``divergence`` (``data``: ``{seq, message}``), ``end`` (``data``: ``{}``) or ``error``
#: (``data``: ``{error, message}``: the stream's token was replaced, the store can't be read
#: or the match is damaged; the stream ends).
SSE_EVENT = {"type": "object", "required": ["event", "data"],
             "properties": {"id": {"type": "string"},
                            "event": {"type": "string",
                                      "enum": ["event", "divergence", "end", "error"]},
                            "data": {"type": "string", "description": "a JSON object"}}}


@bp.after_request
def _retry_after(response: Response) -> Response:
    if response.status_code == 503:
        response.headers.setdefault("Retry-After", str(RETRY_AFTER))
    return response


@route(bp, "/<match_id>/follow", "GET", "Server-sent events of new events for your perspective",
       errors=(400, 401, 403, 404, 503),
       query=(Query("from", {"type": "integer", "minimum": 0, "maximum": QUERY_INT_MAX}),
              Query("timeout", {"type": "integer", "minimum": 0, "maximum": FOLLOW_MAX_TIMEOUT},
                    "idle seconds before the stream closes (at most WONDERS_FOLLOW_TIMEOUT)"),
              Query("as", {"type": "string", "enum": ["spectator", "A", "B", "omniscient"]})),
       content={"response": {"text/event-stream": {"schema": SSE_EVENT}}})
def follow(match_id: str) -> Response:
    svc = services()
    settings = svc.settings
    start = query_int("from", _last_event_id() + 1)
    timeout = min(float(query_int("timeout", int(settings.follow_timeout), 0, FOLLOW_MAX_TIMEOUT)),
                  settings.follow_timeout)
    token = bearer()
    role = role_for(match_id) if token is not None else None
    if role is not None:
        perspective, delayed = perspective_of(role), False
    else:
        perspective = svc.tables.using(match_id, public_perspective)
        delayed = True
    tables, poll, delay = svc.tables, settings.follow_poll, settings.spectator_delay
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
    # last: a refused request holds nothing
    feed, release = follows().open(request.remote_addr or "?", match_id, svc.store)
    store = svc.store
    # A file store is polled: a head read less than half a poll ago (by a seat's request,
    # another stream on the match) stands, as this stream looks again within a poll anyway.
    # A store that wakes a stream on an append is read at every wake.
    fresh_within = None if store.wakes_on_append else poll / 2
    tokens = svc.tokens

    def revoked() -> str | None:
        """The stream's last message if its token no longer holds the role it opened with (a
        reissue or revoke, by this server or another process), else ``None``: a ``stat`` of
        the token file, or one query."""
        if role is None or tokens.role_of(match_id, token) == role:
            return None
        return _revoked_message(match_id, role)

    def horizon(table: Table, seen: int, nxt: int) -> tuple[Horizon, list[Stored] | None] | None:
        if table.length == seen:  # nothing new: the cheap answer, every poll
            return None
        # The same for every stream of this perspective at this length: computed once.
        now = table.view(("follow", perspective, delayed), lambda: _horizon(table))
        # the events to send, as the table read or wrote them (None: the feed reads them)
        return now, table.recent(nxt, now[1])

    def _horizon(table: Table) -> Horizon:
        last = visible_seq(table, delay) if delayed else table.length - 1
        return (table.length, last, table.state.over and last == table.length - 1,
                Narrator(table, perspective, last), divergence_out(table, perspective, last))

    def stream() -> Iterator[str]:
        try:
            # a comment first (EventSource ignores it): the answer's headers go out now, not
            # with the first event -- a quiet match's follower would get nothing, not even the
            # status, until an event or the idle timeout
            yield f": following {match_id} from seq {start}\n\n"
            yield from looks()
        except StoreClosedError:  # this server is stopping: its connection is being closed
            return
        except StoreUnavailableError as exc:  # the database went away: say so and end
            log.warning("match %s: a live-follow stream ends: %s", match_id, exc)
            yield _unavailable_message(exc)
        except LedgerError as exc:  # damaged since the stream opened: say where, not what
            if not exc.is_stored_data:
                raise
            log.error("match %s: a live-follow stream ends: %s", match_id, exc)
            yield _error_event("integrity", f"{damaged_match(exc)}; the stream ends")
        finally:
            release()

    def looks() -> Iterator[str]:
        nxt, idle_since, marked, seen = start, time.monotonic(), None, -1
        while not gone():
            looked = tables.using(match_id, partial(horizon, seen=seen, nxt=nxt),
                                  fresh_within=fresh_within)
            if looked is not None:
                last_words = revoked()
                if last_words is not None:
                    yield last_words
                    return
                (seen, last, done, narrator, mark), fresh = looked
                # What one look finds is written at once (up to MESSAGES_PER_WRITE
                # messages a write): the same bytes as message by message, but each write
                # costs the server a chunk, a lock and a wake of its event loop.
                out: list[str] = []
                if mark is not None and mark != marked:  # today's engine disagrees
                    out.append(f"event: divergence\ndata: {json.dumps(mark.model_dump())}\n\n")
                    marked = mark
                if last >= nxt:
                    for stored in fresh if fresh is not None else feed.between(nxt, last):
                        out.append(feed.message(narrator, stored))
                        nxt = stored.seq + 1
                        if len(out) >= MESSAGES_PER_WRITE:
                            yield "".join(out)
                            out = []
                    idle_since = time.monotonic()
                    if nxt <= last:  # the file's last batch was not whole yet: look again
                        seen = -1
                if done and nxt > last:
                    yield "".join(out) + "event: end\ndata: {}\n\n"
                    return
                if out:
                    yield "".join(out)
            if time.monotonic() - idle_since >= timeout:
                return
            left = timeout - (time.monotonic() - idle_since)
            if store.wakes_on_append:
                # PostgreSQL: woken by the next append, so wait long (``gone()`` is looked
                # at again at least every LONG_WAIT_S).
                store.wait(match_id, seen, min(left, LONG_WAIT_S))
            else:
                # A file store: look every ``poll``.  The next turn of the loop reads the
                # head (the table's refresh), so the store's own wait -- a read of the head
                # before and after the same sleep -- would only read it twice more.
                time.sleep(poll)
    response = Response(stream(), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    response.call_on_close(release)  # also when the body was never iterated
    return response


def _revoked_message(match_id: str, role: str) -> str:
    """The last message of a stream whose token was replaced."""
    who = "the judge" if role == "judge" else f"seat {role}"
    return _error_event("unauthenticated", f"match {match_id}: the token of this stream no "
                        f"longer holds {who}'s role (reissued or revoked by the organizer); "
                        f"the stream ends")


def _unavailable_message(exc: StoreUnavailableError) -> str:
    """The last message of a stream whose store could not be read (a client reconnects with
    ``Last-Event-ID`` once the store is back)."""
    return _error_event("unavailable", f"{exc}; the stream ends (reconnect later)")


def _error_event(kind: str, message: str) -> str:
    """An ``error`` message: the one-line JSON error every answer of the service gives."""
    return f"event: error\ndata: {json.dumps({'error': kind, 'message': message})}\n\n"


def _last_event_id() -> int:
    """The seq of ``Last-Event-ID`` (-1: none, or not a seq -- ignored, the stream starts
    over).  ASCII digits only: ``str.isdigit`` also takes ``²`` (a header's byte 0xB2),
    which ``int`` refuses."""
    raw = request.headers.get("Last-Event-ID", "")
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 10 else -1
