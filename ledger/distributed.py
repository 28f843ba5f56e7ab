"""Work over many matches on a Dask cluster (DESIGN.md section 6; issue 16): the runner that
``wonders verify --jobs/--scheduler`` and ``wonders ingest --jobs/--scheduler`` share.

:func:`cluster` gives a :class:`distributed.Client`: on an existing cluster (``--scheduler
tcp://HOST:PORT``; its workers must reach the store, by the same directory path or the same
``postgresql://`` URL), else on a :class:`distributed.LocalCluster` of ``jobs`` worker
processes with one thread each, closed when the work is done.

:func:`run_chunks` runs a function over chunks of work items -- a chunk is one task -- and
yields each chunk's result as it completes.  Nothing is dropped silently:

* a task that raises, or whose worker dies under it, is retried (Dask's ``retries=``; a task
  whose worker dies is rescheduled on another one, up to the scheduler's ``allowed-failures``);
* a chunk that still fails is split into one task per item, each retried again, so one bad
  item doesn't take its neighbours with it;
* an item that fails on its own after its retries comes back as a :class:`Failure` naming it,
  with the error as one line; every other item's result is yielded as usual.

Without a client (``client=None``) the same happens in this process, in order (an exception
is a failure at once: the same process would fail the same way again).

Failure injection, for the tests of these paths on real worker processes:
``$WONDERS_TEST_FAULTS`` (read by each task in the worker; :func:`set_test_faults` sets it on
a running cluster's workers) is a comma-separated list of ``raise-once:DIR`` (the first task
anywhere that finds no ``DIR/raised`` raises, once), ``crash-once:DIR`` (the same, but the
worker process dies) and ``raise:ITEM`` (any task holding the item ``ITEM`` always raises).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import msgspec

from ledger.errors import LedgerError

#: Retries of a task that raised (Dask's ``retries=``), before its chunk is split.
RETRIES = 2
#: Names the variable :func:`maybe_fault` reads.
FAULTS_ENV = "WONDERS_TEST_FAULTS"
#: How long to try reaching a scheduler (``--scheduler``).
CONNECT_TIMEOUT = "10s"
#: Seconds a local worker process has to start and reach the scheduler (Dask waits forever
#: otherwise: a ``--jobs`` run once hung there, on a machine busy with two test suites).
START_TIMEOUT_S = 120.0


class DistributedError(LedgerError):
    """The Dask cluster can't be started or reached."""


class Failure(msgspec.Struct, frozen=True):
    """A work item whose task failed after its retries: ``error`` is its last error, one line."""

    item: Any
    error: str


#: The most worker processes ``--jobs`` starts on this machine (a local cluster): more only
#: queue for its cores and memory (each worker is a whole Python process); a bigger cluster
#: is many machines' workers behind one scheduler (``--scheduler``).
MAX_JOBS = 256


@contextmanager
def cluster(jobs: int = 1, scheduler: str | None = None, fork: bool = False) -> Iterator[Any]:
    """A ``distributed.Client`` on the cluster at ``scheduler``, else on a new local cluster
    of ``jobs`` worker processes (one thread each; its HTTP endpoint on a free port), closed
    on exit.

    ``fork``: the local workers are forked from this process instead of spawned (Dask's
    default): they start in a tenth of the time and inherit every module and cache already
    loaded here (on 2 cores spawning 2 workers and importing the program in each cost about
    as much as ingesting 400 matches).  Only for a caller that holds no connection a child
    could inherit (a PostgreSQL store's pool): a forked child shares its sockets."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise DistributedError("dask.distributed is not installed (pip install "
                               "'dask[distributed]')") from None
    if scheduler:
        _reachable(scheduler)
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:
            raise DistributedError(f"{scheduler}: cannot reach the Dask scheduler "
                                   f"({_one_line(exc)})") from None
        try:
            if not client.scheduler_info().get("workers"):
                client.wait_for_workers(1, timeout=30)
            yield client
        except TimeoutError:
            raise DistributedError(f"{scheduler}: the Dask cluster has no worker") from None
        finally:
            client.close()
        return
    import dask

    method = "fork" if fork else dask.config.get("distributed.worker.multiprocessing-method")
    try:
        with dask.config.set({"distributed.worker.multiprocessing-method": method}):
            local = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                 dashboard_address=":0", silence_logs=logging.CRITICAL,
                                 death_timeout=START_TIMEOUT_S)
    except Exception as exc:  # noqa: BLE001 - a worker past START_TIMEOUT_S also trips
        # Dask's own AssertionError while it closes the half-started nanny
        why = (f"a worker did not start within {START_TIMEOUT_S:g} s" if _timed_out(exc)
               else _one_line(exc))
        raise DistributedError(f"cannot start a local Dask cluster of {jobs} worker "
                               f"processes ({why})") from None
    with local, Client(local) as client:
        yield client


def _timed_out(exc: BaseException | None) -> bool:
    """Whether ``exc`` or an exception it was raised while handling is a timeout."""
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, TimeoutError):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def _reachable(scheduler: str) -> None:
    """A ``tcp://HOST:PORT`` nobody listens on is an error at once (Dask's client would
    retry until its timeout)."""
    host, _, port = scheduler.removeprefix("tcp://").rpartition(":")
    if not scheduler.startswith("tcp://") or not (port.isascii() and port.isdigit()):
        return  # another protocol (tls://, ucx://): Dask's client says what is wrong
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as exc:
        raise DistributedError(f"{scheduler}: cannot reach the Dask scheduler "
                               f"({exc.strerror or _one_line(exc)})") from None


def workers(client: Any) -> int:
    """How many workers the client's cluster has now."""
    return len(client.scheduler_info().get("workers", {}))


def run_chunks(fn: Callable[..., Any], chunks: Sequence[list], args: Sequence[Any] = (),
               client: Any = None, retries: int = RETRIES) -> Iterator[Any]:
    """``fn(chunk, *args)`` for every chunk, yielded as each completes (on ``client``'s
    cluster, else here, in order); an item whose task keeps failing is yielded as a
    :class:`Failure` (see the module doc).  ``args`` go to every task (on a cluster they are
    sent to the workers once)."""
    if client is None:
        yield from _run_here(fn, chunks, args)
        return
    from distributed import as_completed

    # (an empty dict or list is sent as it is: Dask's scatter of one fails, "not enough values
    # to unpack")
    shared = [client.scatter(a, broadcast=True) if isinstance(a, dict | list) and a else a
              for a in args]
    pending: dict[str, list] = {}
    done = as_completed()
    for chunk in chunks:
        future = client.submit(fn, chunk, *shared, retries=retries, pure=False)
        pending[future.key] = chunk
        done.add(future)
    for future in done:
        chunk = pending.pop(future.key)
        if future.status == "finished":
            result = future.result()
            future.release()
            yield result
            continue
        error = _error_of(future)
        future.release()
        if len(chunk) == 1:
            yield Failure(chunk[0], error)
            continue
        for item in chunk:  # one task per item: only the bad one fails
            single = client.submit(fn, [item], *shared, retries=retries, pure=False)
            pending[single.key] = [item]
            done.add(single)


def _run_here(fn: Callable[..., Any], chunks: Sequence[list], args: Sequence[Any]) -> Iterator[Any]:
    for chunk in chunks:
        try:
            result = fn(chunk, *args)
        except Exception as exc:  # noqa: BLE001 - reported per item, never dropped
            if len(chunk) == 1:
                yield Failure(chunk[0], _one_line(exc))
                continue
            yield from _run_here(fn, [[item] for item in chunk], args)
            continue
        yield result


def _error_of(future: Any) -> str:
    try:
        exc = future.exception()
    except Exception as err:  # noqa: BLE001 - a cancelled future raises its reason here
        exc = err
    return _one_line(exc) if exc is not None else f"task {future.status}"


def _one_line(exc: BaseException) -> str:
    text = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# -- failure injection (tests) ---------------------------------------------------------------


def maybe_fault(items: Sequence[Any]) -> None:
    """Raise (or die) as ``$WONDERS_TEST_FAULTS`` says, for a task holding ``items``."""
    spec = os.environ.get(FAULTS_ENV, "")
    if not spec:
        return
    for rule in spec.split(","):
        kind, _, where = rule.partition(":")
        if kind == "raise" and any(_names(item, where) for item in items):
            raise RuntimeError(f"injected failure for {where} ({FAULTS_ENV})")
        if kind in ("raise-once", "crash-once") and _first(where):
            if kind == "crash-once":
                os._exit(3)
            raise RuntimeError(f"injected failure, once ({FAULTS_ENV})")


def _names(item: Any, name: str) -> bool:
    parts = item if isinstance(item, list | tuple) else (item,)
    return any(part == name for part in parts)


def _first(directory: str) -> bool:
    try:
        os.close(os.open(os.path.join(directory, "raised"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def set_test_faults(spec: str) -> None:
    """Set ``$WONDERS_TEST_FAULTS`` in this process (``client.run(set_test_faults, spec)`` sets
    it in every worker of a running cluster; ``""`` clears it)."""
    if spec:
        os.environ[FAULTS_ENV] = spec
    else:
        os.environ.pop(FAULTS_ENV, None)
