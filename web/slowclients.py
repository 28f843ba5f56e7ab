"""Connections held by clients that send nothing, given up when the server is full.

waitress serves at most ``connection_limit`` connections at once; at the limit it stops
accepting until one closes, and it closes a connection only after ``channel_timeout`` seconds
without a byte from it.  So a client that opened that many connections and sent a request's
bytes a few at a time (one byte a minute is enough), or nothing at all, kept every other
client out: 150 sockets of unfinished headers on loopback, and ``/api/health`` did not answer
(slowloris; ``tests/security/test_slow_clients.py``).

At the limit, :func:`relieve` closes the connections that have waited on their clients the
longest -- idle between requests since their last byte, or receiving a request since its first
byte -- oldest first, until :func:`room` connections are free.  A connection with a request
being served or queued (a live-follow stream among them) or an answer still being sent is
never closed.  A client that sends its request at once is served: the connections it competes
with have waited longer.  Below the limit nothing changes (waitress's idle timeout still
applies).  Closing an idle keep-alive connection costs its client a reconnect.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Any

# waitress ships no types: its servers and channels are Any to mypy (pyproject.toml)
from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer

from web.wireerrors import JsonErrorTask

log = logging.getLogger("wonders.web")
#: Seconds between two log lines about relieving a full server.
LOG_EVERY_S = 10.0


class Channel(HTTPChannel):
    """waitress's channel, knowing since when the request it is receiving has been arriving
    (and answering waitress's own refusals as the service's one-line JSON error)."""

    arriving_since = 0.0
    error_task_class = JsonErrorTask

    def received(self, data: bytes) -> bool:
        if self.request is None:  # the first bytes of a request (or of nothing yet)
            self.arriving_since = time.time()
        return super().received(data)


def waiting_since(channel: HTTPChannel) -> float | None:
    """Since when ``channel`` has waited on its client (``None``: the server owes it work --
    a request running or queued, an answer being sent -- or it is closing anyway)."""
    if channel.requests or channel.total_outbufs_len or channel.will_close:
        return None
    if channel.request is not None:  # a request still arriving
        return getattr(channel, "arriving_since", 0.0) or channel.creation_time
    return channel.last_activity  # idle: since its last byte in or out


def room(limit: int) -> int:
    """Connections freed at once when a server holding ``limit`` is relieved."""
    return max(1, limit // 10)


def oldest_waiting(channels: Iterable[HTTPChannel], count: int) -> list[HTTPChannel]:
    """The ``count`` channels (at most) that have waited on their clients the longest."""
    waiting = [(since, id(c), c) for c in channels if (since := waiting_since(c)) is not None]
    waiting.sort()
    return [c for _, _, c in waiting[:count]]


class Relief:
    """What relieves one waitress server (see the module's docstring)."""

    def __init__(self, server: BaseWSGIServer) -> None:
        self.server = server
        self.logged = 0.0

    def __call__(self) -> int:
        """Mark for closing the connections waiting on their clients longest if the server is
        at its limit; returns how many were marked."""
        server = self.server
        limit = server.adj.connection_limit
        if len(server._map) < limit:
            return 0
        channels = list(server.active_channels.values())
        # those marked before and not closed yet count as room already made
        excess = (len(server._map) - limit + room(limit)
                  - sum(1 for c in channels if c.will_close))
        closing = oldest_waiting(channels, excess) if excess > 0 else []
        if not closing:
            return 0
        now = time.time()
        longest = now - (waiting_since(closing[0]) or now)
        for channel in closing:
            # closed by the event loop's next turn, as waitress closes an idle one: this
            # turn is polling the channels' sockets already
            channel.will_close = True
        if now - self.logged >= LOG_EVERY_S:
            self.logged = now
            log.warning("%d connections open, the most this server holds: closed the %d that "
                        "had waited longest on their clients (up to %.0f s) for new ones",
                        limit, len(closing), longest)
        return len(closing)


def guard(server: Any) -> None:
    """Make ``server`` (what waitress's ``create_server`` returned: one listening server, or
    several sharing one event loop) relieve itself at its connection limit: its channels know
    when a request started arriving, and every turn of the event loop -- which asks each
    listening server whether to accept (``readable``) -- relieves it first."""
    for listener in listeners(server):
        _guard_one(listener)


def listeners(server: Any) -> list[BaseWSGIServer]:
    """The listening servers of what ``create_server`` returned (one, or several sharing one
    event loop)."""
    return [server] if hasattr(server, "active_channels") else [
        s for s in server.map.values() if isinstance(s, BaseWSGIServer)]


def _guard_one(server: BaseWSGIServer) -> None:
    server.channel_class = Channel
    relieve = Relief(server)
    readable = server.readable

    def relieved_readable() -> bool:
        if server.accepting:
            relieve()
        return readable()
    server.readable = relieved_readable
