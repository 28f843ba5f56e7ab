"""Live follow for the PostgreSQL store: appends announced with ``NOTIFY``, heard with ``LISTEN``.

Every server on one database wakes its followers of a match the moment any server appends to
it (DESIGN.md section 5), without polling the tables:

* :class:`Announcer` -- after an append is committed (and acknowledged), the match id is handed
  to one thread per store that sends ``pg_notify('wonders_appended', match_id)`` on a
  connection of its own, for every match appended since its previous statement at once: the
  first append after a quiet spell is announced at once, then at most one statement goes per
  :data:`GAP_S` (a busy server's hundreds of appends a second cost a few statements, and a
  follower hears of an append at most that much later).  Off
  the writer's path on purpose: a ``NOTIFY`` inside the writing transaction takes PostgreSQL's
  database-wide notify lock from pre-commit to the end, WAL flush included, which queued every
  server's commits behind each other; in a transaction of its own on the writer's connection it
  was a second round trip and a second WAL flush per append.  The announcing transactions
  carry no data, only notifications, which PostgreSQL never keeps across a crash anyway: they
  commit with ``synchronous_commit = off`` (that one session only; every append keeps the
  server's ``synchronous_commit``).
* :class:`Listener` -- one thread per store doing ``LISTEN`` on a connection of its own,
  counting the notifications heard per match and waking the threads waiting on that match.
  The store's own appends wake its waiters at once (:meth:`Listener.heard`); the
  notifications its own announcer sent (known by the sending backend's pid) are not counted
  again.

A notification can be lost (a connection drops, a server dies between its commit and its
announcement): waiters read the head again every few seconds anyway (the store's
``SAFETY_S``), so a lost one costs latency, never an event.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Iterable

try:  # the optional extra: pip install 'wonders-ledger[postgres]'
    import psycopg
except ImportError:  # pragma: no cover - the store reports it when opened
    psycopg = None  # type: ignore[assignment]

CHANNEL = "wonders_appended"
#: How long a dropped connection waits before connecting again.
RECONNECT_S = 0.5
#: The least time between two announcing statements of one store.
GAP_S = 0.005
#: How long a process that exits without closing its store waits for its announcements.
EXIT_FLUSH_S = 2.0
_ANNOUNCE = "SELECT pg_notify(%s, match_id) FROM unnest(%s::text[]) AS m(match_id)"


class Announcer:
    """Sends ``NOTIFY`` for appended matches from a thread of its own (see the module)."""

    def __init__(self, url: str, channel: str = CHANNEL):
        self.url, self.channel = url, channel
        self._cond = threading.Condition()
        self._pending: dict[str, None] = {}  # match ids to announce, in order, once each
        self._sending = False
        self._thread: threading.Thread | None = None
        self._closed = False
        #: The backend pid of the announcing connection (``None`` before it connects).
        self.pid: int | None = None

    def announce(self, match_id: str) -> None:
        """Have ``match_id``'s followers on every server woken (soon; never blocks)."""
        with self._cond:
            if self._closed:
                return
            self._pending[match_id] = None
            if self._thread is None or not self._thread.is_alive():
                if self._thread is None:  # a command that never closes its store: still sent
                    atexit.register(self._flush_at_exit)
                self._thread = threading.Thread(target=self._run, name="wonders-pg-notify",
                                                daemon=True)
                self._thread.start()
            self._cond.notify()

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything announced so far was sent (``False``: ``timeout`` passed)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending and not self._sending,
                                       timeout)

    def close(self, timeout: float = 2.0) -> None:
        """Send what is pending (up to ``timeout`` seconds), then stop the thread."""
        atexit.unregister(self._flush_at_exit)
        self.flush(timeout)
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    def _flush_at_exit(self) -> None:
        self.flush(EXIT_FLUSH_S)

    def _take(self, after: float) -> list[str] | None:
        """The match ids to announce next (waits for some, and until the monotonic time
        ``after``); ``None`` once closed."""
        wait = after - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        with self._cond:
            self._cond.wait_for(lambda: self._closed or bool(self._pending))
            if self._closed:
                return None
            ids, self._pending = list(self._pending), {}
            self._sending = True
            return ids

    def _sent(self, ids: list[str] | None) -> None:
        """``ids`` were sent (``None``), or were not and go back in front of the queue."""
        with self._cond:
            if ids:
                self._pending = {**dict.fromkeys(ids), **self._pending}
            self._sending = False
            self._cond.notify_all()

    def _run(self) -> None:
        while not self._closed:
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute("SET synchronous_commit TO off")  # notifications only
                    self.pid = conn.info.backend_pid
                    after = 0.0
                    while (ids := self._take(after)) is not None:
                        try:
                            conn.execute(_ANNOUNCE, [self.channel, ids])
                        except BaseException:
                            self._sent(ids)
                            raise
                        self._sent(None)
                        after = time.monotonic() + GAP_S
            except psycopg.Error:
                if not self._closed:
                    time.sleep(RECONNECT_S)


class Listener:
    """Counts the notifications heard per match and wakes its waiters (see the module)."""

    def __init__(self, url: str, channel: str = CHANNEL, own: Announcer | None = None):
        self.url, self.channel, self.own = url, channel, own
        self._cond = threading.Condition()
        self._heard: dict[str, int] = {}  # match id -> notifications heard
        self._thread: threading.Thread | None = None
        self._closed = False

    def seen(self, match_id: str) -> int:
        """How many notifications of ``match_id`` were heard (starts listening, once)."""
        self._start()
        with self._cond:
            return self._heard.get(match_id, 0)

    def heard(self, match_id: str) -> None:
        """Count one for ``match_id`` and wake its waiters (this process appended to it)."""
        with self._cond:
            self._bump([match_id])

    def wait(self, match_id: str, seen: int, timeout: float) -> None:
        """Block until a notification of ``match_id`` after ``seen``, ``timeout`` or close."""
        with self._cond:
            self._cond.wait_for(lambda: self._closed or self._heard.get(match_id, 0) != seen,
                                timeout)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _bump(self, ids: Iterable[str]) -> None:
        """Count one for each id (the caller holds the lock) and wake the waiters."""
        for match_id in ids:
            self._heard[match_id] = self._heard.get(match_id, 0) + 1
        self._cond.notify_all()

    def _start(self) -> None:
        with self._cond:
            if self._thread is not None and self._thread.is_alive():
                return
            ready = threading.Event()
            self._thread = threading.Thread(target=self._run, args=(ready,),
                                            name="wonders-pg-listen", daemon=True)
            self._thread.start()
        ready.wait(5)

    def _run(self, ready: threading.Event) -> None:
        while not self._closed:
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {self.channel}")
                    with self._cond:  # anything appended while not listening: look again
                        self._bump(list(self._heard))
                    # ready after that count: a first waiter's `seen` includes it, else it
                    # woke at once for nothing new (a head read more, by the threads' race)
                    ready.set()
                    while not self._closed:
                        for note in conn.notifies(timeout=0.5):
                            if self.own is not None and note.pid == self.own.pid:
                                continue  # this store's own append: its waiters were woken
                            with self._cond:
                                self._bump([note.payload])
            except psycopg.Error:
                ready.set()
                if not self._closed:
                    time.sleep(RECONNECT_S)  # the waiters' timed wait is the safety net
