"""Serving the app with a real WSGI server (waitress: pools of threads, in one process or more).

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

One process runs Python on one core at a time (the interpreter lock), and the engine's work
per request is Python.  ``--processes N`` (:func:`serve_processes`) binds the socket once and
forks N workers (:mod:`web.supervise`) that each build their own app -- store, caches, pools
-- after the fork and run this same waitress server on the shared socket; what is safe for
several ``wonders serve`` processes on one store is safe for them.  Each worker takes only its
share of the connections (:mod:`web.balance`).  A stopping worker
(SIGTERM, from the parent) stops accepting and finishes its requests first (:func:`drain`), and
so does the one process of ``--processes 1`` on SIGTERM or SIGINT.
"""

from __future__ import annotations

import errno
import importlib
import importlib.util
import logging
import os
import re
import select
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from flask import Flask

# waitress ships no types: its server, channels and dispatchers are Any here (pyproject.toml)
from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.server import create_server
from waitress.task import ThreadedTaskDispatcher

from ledger import typeinfo
from ledger.stores import describe, is_url
from replay.games import game, names
from web import slowclients
from web.app import create_app
from web.balance import Shares
from web.bodylimits import limit_bodies
from web.config import Settings
from web.errors import WebError
from web.longlived import settle_startup, spread_full_collections
from web.supervise import Supervisor, WorkerFailed

#: Paths served by the follow pool (waitress gives the decoded path, without the query).
FOLLOW_PATH = re.compile(r"/api/matches/[^/]+/follow")
#: Threads of the follow pool beyond ``follow_max_streams``: they answer the refusals.
FOLLOW_SPARE_THREADS = 4
#: Connections waiting for a worker's ``accept`` on the shared socket (waitress's default).
BACKLOG = 1024
#: Seconds a stopping worker has to finish the requests it has (the parent waits longer).
DRAIN_SECONDS = 10.0
#: Seconds the live-follow streams have to end once their connections and the store are
#: closed (a file store's stream looks every ``WONDERS_FOLLOW_POLL``, 0.2 s by default).
STREAMS_END_S = 2.0
#: Seconds between two looks at the shared counts while a worker holds more than its share.
PASS_S = 0.05


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
    def is_follow(channel: HTTPChannel) -> bool:
        try:
            request = channel.requests[0]
            path = request.path or ""
            return (path.endswith("/follow") and not request.error  # (most requests stop here)
                    and request.command in ("GET", "HEAD")
                    and FOLLOW_PATH.fullmatch(path) is not None)
        except (AttributeError, IndexError, TypeError):  # not a request we can read: main pool
            return False

    def add_task(self, channel: HTTPChannel) -> None:
        (self.follow if self.is_follow(channel) else self.main).add_task(channel)

    def set_thread_count(self, count: int) -> None:
        self.main.set_thread_count(count)

    def shutdown(self, cancel_pending: bool = True, timeout: float = 5) -> bool:
        follow = self.follow.shutdown(cancel_pending, timeout)
        return self.main.shutdown(cancel_pending, timeout) and follow


class CannotListenError(WebError):
    """The server can't listen on its address (taken, not this machine's, not allowed)."""


#: What to do when binding fails, by ``errno``.
LISTEN_HINTS = {
    errno.EADDRINUSE: "another server is running there? choose another --port, or --port 0 "
                      "for any free port",
    errno.EACCES: "ports below 1024 need privileges; choose another --port",
    errno.EADDRNOTAVAIL: "this machine has no such address; check --host",
}


@contextmanager
def listening_on(host: str, port: int) -> Iterator[None]:
    """Bind inside: an ``OSError`` (or waitress's ``ValueError`` for a host it can't
    resolve) becomes one line naming ``host:port``, why and what to do."""
    try:
        yield
    except (OSError, ValueError) as exc:
        why = (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__).rstrip(".")
        hint = LISTEN_HINTS.get(getattr(exc, "errno", None) or 0, "check --host and --port")
        raise CannotListenError(f"cannot listen on {host}:{port}: {why[:1].lower()}{why[1:]} "
                                f"({hint})") from None


def store_named(store: Any) -> str:
    """The store as the start line names it; a directory that isn't there yet is said to be
    made now, empty: a typo in ``--store`` (or a server started in the wrong directory) shows
    on the first line, not as a console that has lost every tournament."""
    named = describe(store)
    if isinstance(store, str | os.PathLike) and not is_url(store) and not os.path.isdir(store):
        return f"{named} (a new, empty store: no directory was there, it is made now)"
    return named


def serve(settings: Settings, host: str, port: int, threads: int,
          announce: Callable[[str], None] = print, processes: int = 1,
          report: Callable[[str], None] = print) -> None:
    """Run until interrupted; prints the address (and the organizer token) first.

    ``processes`` > 1: that many worker processes on one socket bound here
    (:func:`serve_processes`); 1 is one process, the server itself, with no parent."""
    if processes > 1:
        serve_processes(settings, host, port, threads, processes, announce, report)
        return
    preload_games()
    named = store_named(settings.store)  # before the app makes a directory that isn't there
    app = create_app(settings)
    typeinfo.prepare()  # before the request threads decode (ledger.typeinfo: msgspec's race)
    with listening_on(host, port):
        server = _server(app, settings, threads, host=host, port=port)
    settle_startup()  # what startup loaded is walked by no later collection (web.longlived)
    spread_full_collections()  # and the cached tables by fewer of them
    stopping: list[int] = []  # before the address is announced: a stop may follow it at once
    previous = signal.signal(signal.SIGTERM, lambda signum, _frame: stopping.append(signum))
    announce(f"serving {named} on http://{host}:{server.effective_port} "
             f"with {threads} threads (and {_follow_threads(settings)} for live follow: at most "
             f"{settings.follow_max_streams} streams, {settings.follow_max_per_client} per "
             f"address)")
    announce(organizer_line(settings))
    sys.stdout.flush()
    try:
        stopped_by = run_until_stopped(server, stopping)
    finally:
        signal.signal(signal.SIGTERM, previous)  # a second SIGTERM while draining: stop now
    drain(server, time.monotonic() + DRAIN_SECONDS, app.extensions["wonders"].store.close)
    announce(f"stopped by {stopped_by}")


def run_until_stopped(server: Any, stopping: list[int]) -> str:
    """Run the one process's server until SIGTERM (a service manager's stop: the caller's
    handler appends it to ``stopping``) or SIGINT (Ctrl-C); returns the signal's name.  The
    caller then drains it (:func:`drain`) as a ``--processes`` worker does: the requests it
    has are finished, not cut off (waitress's own ``run`` ends at once on Ctrl-C, and
    SIGTERM's default action killed the process mid-request: a decision answered with a reset
    connection, a board cut off mid-body)."""
    adj, channels = server.adj, server._map
    try:
        while not stopping:
            wasyncore.loop(timeout=adj.asyncore_loop_timeout, map=channels,
                           use_poll=adj.asyncore_use_poll, count=1)
    except KeyboardInterrupt:
        stopping.append(signal.SIGINT)
    return signal.Signals(stopping[0]).name


def serve_processes(settings: Settings, host: str, port: int, threads: int, processes: int,
                    announce: Callable[[str], None] = print,
                    report: Callable[[str], None] = print) -> None:
    """``processes`` workers (:mod:`web.supervise`) on one socket bound here, each building
    its own app after the fork (:func:`serve_worker`); the address is announced once every
    worker is ready.  Returns after SIGINT or SIGTERM with every worker stopped (one line);
    :class:`~web.supervise.WorkerFailed` if a worker could not start or died too often."""
    if not hasattr(os, "fork"):
        raise WorkerFailed("--processes above 1 needs os.fork (a POSIX system); use --processes 1")
    named = store_named(settings.store)
    with listening_on(host, port):
        sock = listening_socket(host, port)
    try:
        shares = Shares(processes)  # before the fork: every worker sees every count
        supervisor = Supervisor(processes, partial(serve_worker, settings, sock, threads, shares),
                                report, gone=shares.leave)
        preload_games()  # before the fork: imported once, not by each worker's first requests
        typeinfo.prepare()  # before the fork: worked out once, on one thread (ledger.typeinfo)
        settle_startup()  # before the fork: what the parent imported stays shared, unwalked
        supervisor.start()
        if supervisor.stop_signal:
            announce(f"stopped by {supervisor.stop_signal} while starting: all {processes} "
                     f"worker processes ended")
            return
        announce(f"serving {named} on http://{host}:{sock.getsockname()[1]} "
                 f"with {processes} processes × {threads} threads (each also {_follow_threads(settings)} "
                 f"for live follow: at most {settings.follow_max_streams} streams, "
                 f"{settings.follow_max_per_client} per address, per process); worker pids "
                 f"{' '.join(map(str, supervisor.pids()))}")
        announce(organizer_line(settings))
        sys.stdout.flush()
        stopped_by = supervisor.run()
        announce(f"stopped by {stopped_by}: all {processes} worker processes ended")
    finally:
        sock.close()


def organizer_line(settings: Settings) -> str:
    """The start's line about the organizer token: the token itself only when this start made
    it (``WONDERS_ORGANIZER_TOKEN`` unset: nobody else knows it).  A token the operator set is
    not written out: the server's output goes to logs (journald, a container's log) that
    more people read than may create matches."""
    if "organizer_token" in settings.model_fields_set:
        return "organizer token: the one WONDERS_ORGANIZER_TOKEN sets (not shown)"
    return f"organizer token: {settings.organizer_token}"


#: The modules of a game's package that its recording API imports on first use (a game's
#: ``decision``, ``prompt_view``, ``seat_decision``, ``ruling``: replay/wotf/game.py).
LAZY_GAME_MODULES = ("api",)


def preload_games() -> list[str]:
    """Import each game and the modules its recording API imports on first use, before
    serving: else the first state reads and decisions of every worker import them under load
    (py-spy put 5% of a short bench's server samples there, the threads of both workers
    queueing on the import lock).  Returns the modules imported."""
    loaded = []
    for name in names():
        package = type(game(name)).__module__.rpartition(".")[0]
        for part in LAZY_GAME_MODULES:
            module = f"{package}.{part}"
            if importlib.util.find_spec(module) is not None:
                importlib.import_module(module)
                loaded.append(module)
    return loaded


def listening_socket(host: str, port: int) -> socket.socket:
    """The socket every worker accepts on, bound and listening (connections wait in its
    backlog until a worker takes them)."""
    info = socket.getaddrinfo(host, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0,
                              socket.AI_PASSIVE)
    family, kind, proto, _, address = info[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
    except BaseException:
        sock.close()
        raise
    return sock


def serve_worker(settings: Settings, sock: socket.socket, threads: int, shares: Shares,
                 number: int, ready: Callable[[], None]) -> None:
    """Worker ``number`` of :func:`serve_processes`, in its own process: build the app, serve
    on ``sock`` taking only its share of the connections (:mod:`web.balance`), and on SIGTERM
    stop taking connections, finish what it has and return."""
    app = create_app(settings)
    typeinfo.prepare()  # what the app defined, before its threads decode (ledger.typeinfo)
    server = _server(app, settings, threads, sockets=[sock])
    settle_startup()
    spread_full_collections()
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, _frame: stopping.append(signum))
    ready()
    adj, channels = server.adj, server._map
    # one turn of waitress's event loop (wasyncore.loop's, called directly: a turn is run
    # thousands of times a second under load, so its own costs count)
    poll = wasyncore.poll2 if adj.asyncore_use_poll and hasattr(select, "poll") else wasyncore.poll
    published = -1
    try:
        while not stopping:
            held = len(channels)
            if held != published:  # (the others read the slot: written only when it changes)
                shares.publish(number, held)
                published = held
            server.accepting = accepting = shares.may_accept(number)
            # not accepting: look again soon, as the others' counts change
            poll(adj.asyncore_loop_timeout if accepting else PASS_S, channels)
    finally:
        shares.leave(number)
    drain(server, time.monotonic() + DRAIN_SECONDS, app.extensions["wonders"].store.close)


def drain(server: Any, deadline: float, close_store: Callable[[], None]) -> None:
    """Stop accepting, close idle connections, and run the loop until no request but a
    live-follow stream is being received, served or sent (a follower reconnects, with
    ``Last-Event-ID``, to another worker), or until ``deadline``; then end the streams, close
    the store and everything else.

    The streams are ended, not left running: their connections are closed first (a stream
    looks at whether its client is gone before each look at the match), then the store
    (``close_store``: a PostgreSQL store's close wakes a stream waiting for a notification),
    so their threads have ended when the pools are shut down -- waitress said ``3 thread(s)
    still running`` on stderr at every stop with streams open."""
    server.accepting = False  # its readable() is then False: the socket is no longer polled
    adj = server.adj
    while time.monotonic() < deadline:
        channels = [c for c in list(server._map.values()) if isinstance(c, HTTPChannel)]
        for channel in channels:
            if not (channel.requests or channel.request or channel.total_outbufs_len):
                channel.handle_close()
        if not any(_is_busy(c) for c in channels):
            break
        wasyncore.loop(timeout=0.05, map=server._map, use_poll=adj.asyncore_use_poll, count=1)
    for channel in [c for c in list(server._map.values()) if isinstance(c, HTTPChannel)]:
        channel.handle_close()  # the live-follow streams' (the others are done or past time)
    close_store()  # a database pool says goodbye, not just drops
    server.task_dispatcher.shutdown(cancel_pending=True, timeout=STREAMS_END_S)
    wasyncore.close_all(server._map)


def _is_busy(channel: HTTPChannel) -> bool:
    """A connection with a request arriving, running (a live-follow stream aside) or unsent."""
    if not channel.connected or (channel.requests and SplitDispatcher.is_follow(channel)):
        return False
    return bool(channel.requests or channel.request or channel.total_outbufs_len)


def _follow_threads(settings: Settings) -> int:
    return settings.follow_max_streams + FOLLOW_SPARE_THREADS


def largest_body(settings: Settings) -> int:
    """The largest request body the app takes (an upload, else a JSON body): waitress's bound
    for every request (``max_request_body_size`` refuses one of exactly that size, hence +1);
    each request's own, lower for all but an upload, is its endpoint's (:mod:`web.bodylimits`)."""
    return max(settings.max_body_bytes, settings.max_import_bytes)


def _server(app: Flask, settings: Settings, threads: int, **where: Any) -> Any:
    """The waitress server of one process (``where``: ``host`` and ``port``, or ``sockets``)."""
    follow_threads = _follow_threads(settings)
    server = create_server(app, threads=threads, ident="wonders",
                           connection_limit=max(100, threads * 8) + follow_threads,
                           # a body over every limit of the app is refused (413) from its
                           # headers, not buffered first (waitress's default: 1 GiB, to disk);
                           # each request's is its endpoint's, lower (web.bodylimits)
                           max_request_body_size=largest_body(settings) + 1,
                           channel_timeout=120, channel_request_lookahead=1,
                           clear_untrusted_proxy_headers=True,
                           _dispatcher=SplitDispatcher(threads, follow_threads), **where)
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # "task queue depth" noise
    slowclients.guard(server)  # at the limit, connections that send nothing make room
    limit_bodies(slowclients.listeners(server), settings)  # each request: its endpoint's limit
    return server
