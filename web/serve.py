"""Serving the app with a real WSGI server (waitress: one process, pools of threads).

Threads suit this service: requests spend their time in fsync and file I/O (which release
the GIL), the table cache is shared by all threads of the process, and writers to one match
are serialised by the table lock and the store (the file store's ``flock``, PostgreSQL's row
lock and ``(match_id, seq)`` key).  Several ``wonders serve`` processes over one store
directory -- or one PostgreSQL database, on many machines -- are safe too: each table notices
another process's appends (the store's head) and reloads, and a stale writer gets a 409.

A live-follow stream (``GET /api/matches/<id>/follow``) keeps its thread until it ends, so
those requests run on a pool of their own (:class:`SplitDispatcher`): ``--threads`` threads
serve everything else, and however many streams are open (at most ``follow_max_streams``,
:mod:`web.api.follow`) recording never waits for a thread a stream holds.  The follow pool
has a few threads more than that cap, so that a request past it is refused (503) at once
instead of queueing behind the open streams.  Each channel reads on while its request runs
(``channel_request_lookahead``), so a client that hangs up is noticed and its stream ends.
"""

from __future__ import annotations

import logging
import re
import sys

from waitress.server import create_server
from waitress.task import ThreadedTaskDispatcher

from ledger.stores import describe
from web.app import create_app
from web.config import Settings
from web.longlived import settle_startup, spread_full_collections

#: Paths served by the follow pool (waitress gives the decoded path, without the query).
FOLLOW_PATH = re.compile(r"/api/matches/[^/]+/follow")
#: Threads of the follow pool beyond ``follow_max_streams``: they answer the refusals.
FOLLOW_SPARE_THREADS = 4


class SplitDispatcher:
    """Waitress's task dispatcher, in two pools: live-follow requests and everything else.

    Waitress hands a channel to ``add_task`` once per request, with that request first in
    ``channel.requests`` (and the channel's request lock held); the next request on a
    kept-alive connection is dispatched anew, so each request goes to its own pool.
    """

    def __init__(self, threads: int, follow_threads: int):
        self.main = ThreadedTaskDispatcher()
        self.main.set_thread_count(threads)
        self.follow = ThreadedTaskDispatcher()
        self.follow.set_thread_count(follow_threads)

    @staticmethod
    def is_follow(channel) -> bool:
        try:
            request = channel.requests[0]
            path = request.path or ""
            return (path.endswith("/follow") and not request.error  # (most requests stop here)
                    and request.command in ("GET", "HEAD")
                    and FOLLOW_PATH.fullmatch(path) is not None)
        except (AttributeError, IndexError, TypeError):  # not a request we can read: main pool
            return False

    def add_task(self, channel) -> None:
        (self.follow if self.is_follow(channel) else self.main).add_task(channel)

    def set_thread_count(self, count: int) -> None:
        self.main.set_thread_count(count)

    def shutdown(self, cancel_pending: bool = True, timeout: float = 5) -> bool:
        follow = self.follow.shutdown(cancel_pending, timeout)
        return self.main.shutdown(cancel_pending, timeout) and follow


def serve(settings: Settings, host: str, port: int, threads: int, announce=print) -> None:
    """Run until interrupted; prints the address (and the organizer token) first."""
    app = create_app(settings)
    follow_threads = settings.follow_max_streams + FOLLOW_SPARE_THREADS
    server = create_server(app, host=host, port=port, threads=threads, ident="wonders",
                           connection_limit=max(100, threads * 8) + follow_threads,
                           channel_timeout=120, channel_request_lookahead=1,
                           clear_untrusted_proxy_headers=True,
                           _dispatcher=SplitDispatcher(threads, follow_threads))
    actual_port = server.effective_port
    settle_startup()  # what startup loaded is walked by no later collection (web.longlived)
    spread_full_collections()  # and the cached tables by fewer of them
    announce(f"serving {describe(settings.store)} on http://{host}:{actual_port} with {threads} threads "
             f"(and {follow_threads} for live follow: at most {settings.follow_max_streams} "
             f"streams, {settings.follow_max_per_client} per address)")
    announce(f"organizer token: {settings.organizer_token}")
    sys.stdout.flush()
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # "task queue depth" noise
    try:
        server.run()
    finally:
        server.close()
