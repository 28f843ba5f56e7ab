"""One Dask ``LocalCluster`` of 2 worker processes (1 thread each) for the whole test run,
started on first use and closed when the run ends: the tests of distributed verify and
ingest reach it by its address, as ``--scheduler tcp://HOST:PORT`` reaches an existing
cluster (starting one costs seconds on a 2-core machine)."""

from __future__ import annotations

import atexit
import logging
from typing import Any

_RUNNING: list[Any] = []


def address() -> str:
    """The shared cluster's scheduler address (``tcp://127.0.0.1:PORT``)."""
    if not _RUNNING:
        from distributed import LocalCluster

        local = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                             dashboard_address=":0", silence_logs=logging.CRITICAL)
        _RUNNING.append(local)
        atexit.register(local.close)
    return _RUNNING[0].scheduler_address
