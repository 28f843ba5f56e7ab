"""PostgreSQL's ``wait`` is driven by ``NOTIFY``: an idle waiter reads the head only at its
start, at its end and every ``SAFETY_S`` seconds (it polled twice a second before), and an
append by another store instance (another server) wakes it at once.  Needs the throwaway
cluster of tests/postgres.py (skipped, with a line saying how to get PostgreSQL, without it)."""

from __future__ import annotations

import threading
import time

from ledger.errors import StoreClosedError, StoreUnavailableError
from ledger.events import MatchOpened, SeatInfo
from ledger.pgstore import SAFETY_S, PgStore
from replay.wotf.events import ResourcesChanged


class CountingStore(PgStore):
    """A real PgStore that counts its head reads (each one a query)."""

    heads_read = 0

    def head(self, match_id):
        self.heads_read += 1
        return super().head(match_id)


def _opened(match_id: str) -> MatchOpened:
    return MatchOpened(match_id=match_id, ruleset="1.3.2",
                       seats=[SeatInfo("A", "a"), SeatInfo("B", "b")])


def test_an_idle_wait_reads_the_head_at_its_start_and_end_only(pg_url):
    assert SAFETY_S >= 5
    with CountingStore(pg_url) as store:
        store.create(_opened("idle"))
        start = time.monotonic()
        assert store.wait("idle", 1, 2.5) is False
        assert 2.4 <= time.monotonic() - start < 4
        assert store.heads_read == 2


def test_an_append_elsewhere_wakes_the_waiter_at_once(pg_url):
    with CountingStore(pg_url) as waiter, PgStore(pg_url) as writer:
        waiter.create(_opened("live"))
        waiter.wait("live", 1, 0.1)  # the listener is up
        got: list = []
        thread = threading.Thread(target=lambda: got.append(
            (waiter.wait("live", 1, 30), time.monotonic())))
        thread.start()
        time.sleep(0.5)
        appended = time.monotonic()
        writer.append("live", [ResourcesChanged("A", "play", energy=1, actions=1)], 1)
        thread.join(10)
        assert got and got[0][0] is True
        assert got[0][1] - appended < 1.0  # not the safety period: the notification
        assert waiter.heads_read <= 5


def test_a_waiter_woken_by_the_close_meets_a_closed_store_not_an_outage(pg_url):
    """A server stopping closes its store while a live-follow stream waits on it: the stream's
    next read is told the store was closed here (it ends quietly), not that the database went
    away (a warning in the server's log at every stop: CI, stop 35)."""
    store = PgStore(pg_url)
    store.create(_opened("closing"))
    store.wait("closing", 1, 0.1)  # the listener is up
    woke: list = []

    def follower():
        store.wait("closing", 1, 30)
        try:
            store.head("closing")
        except StoreUnavailableError as exc:
            woke.append(exc)

    thread = threading.Thread(target=follower)
    thread.start()
    store.close()
    thread.join(10)
    assert not thread.is_alive()
    assert len(woke) == 1 and isinstance(woke[0], StoreClosedError), woke
    assert "closed by this process" in str(woke[0])
