"""The backends every contract test runs against, unchanged: ``store`` is a fresh, empty store
of each kind, and ``reopen()`` opens the same store again (a new instance, as another process
or a restart would).

* ``file`` -- :class:`ledger.filestore.FileStore` on a temporary directory;
* ``postgres`` -- :class:`ledger.pgstore.PgStore` on a schema of its own in the session's
  throwaway cluster (``tests/postgres.py``; skipped with a line saying how to get
  PostgreSQL, and failed instead under ``WONDERS_REQUIRE_POSTGRES=1``).

``settled()`` opens the same store as seen from past a coarse file-system clock's tick: a file
store whose wall clock is :data:`ledger.fileversion.GRANULARITY_NS` and a second ahead (every
file written so far is settled: its version is one to keep); PostgreSQL's store as it is.
"""

from __future__ import annotations

import time

import pytest

from ledger.fileversion import GRANULARITY_NS
from ledger.stores import open_store

BACKENDS = ("file", "postgres")


@pytest.fixture(params=BACKENDS)
def target(request, tmp_path) -> str:
    """What ``open_store`` takes for this backend: a directory or a URL."""
    if request.param == "file":
        return str(tmp_path / "store")
    return request.getfixturevalue("pg_url")


@pytest.fixture
def reopen(target):
    opened = []

    def make():
        store = open_store(target)
        opened.append(store)
        return store
    yield make
    for store in opened:
        store.close()


@pytest.fixture
def store(reopen):
    return reopen()


@pytest.fixture
def settled(target, reopen):
    opened = []

    def make():
        if target.startswith("postgresql://"):
            return reopen()
        store = open_store(target, now_ns=lambda: time.time_ns() + GRANULARITY_NS + 10**9)
        opened.append(store)
        return store
    yield make
    for store in opened:
        store.close()
