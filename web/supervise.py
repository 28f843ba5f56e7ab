"""Worker processes on one listening socket: forked, watched, started again, stopped.

``wonders serve --processes N`` (N > 1) is one parent and N workers.  The parent binds the
listening socket (so ``--port 0`` is one port), then forks the workers before anything else
exists in it -- no store opened, no thread started, no app built -- so no lock, pool or
connection is shared across the fork; each worker builds its own app and serves on the
inherited socket (the kernel hands each new connection to one worker's ``accept``).  The
parent does nothing else: it serves no request.

* **Start**: the parent waits until every worker says it is ready (its app built, its server
  listening) before it returns; a worker that fails first sends its one error line back
  (a pipe) and the parent stops the others and raises :class:`WorkerFailed` with that line.
* **Watch**: a worker that dies later is reported in one line and started again -- at most
  :data:`MAX_RESTARTS` times within :data:`RESTART_WINDOW` seconds; one more death and the
  parent stops everything and raises :class:`WorkerFailed`.
* **Stop**: SIGINT or SIGTERM to the parent sends SIGTERM to every worker, which stops taking
  connections, finishes the requests it has (:func:`web.serve.serve_worker`) and exits;
  a worker still there after :data:`STOP_GRACE` seconds is killed.  Workers ignore SIGINT (a
  terminal's Ctrl-C reaches the whole process group: the parent alone decides), and each
  watches a pipe only the parent holds open (the *lifeline*): if the parent dies without
  stopping them, they stop themselves instead of serving on as orphans.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType

from ledger.errors import LedgerError
from replay.errors import ReplayError
from web.errors import WebError

#: A worker's word to the parent on its pipe: ready, or failed (followed by its error line).
READY, FAILED = b"R", b"E"
#: Deaths of running workers tolerated within :data:`RESTART_WINDOW` seconds (more: stop).
MAX_RESTARTS = 5
RESTART_WINDOW = 60.0
#: Seconds the workers have to finish after SIGTERM before they are killed.
STOP_GRACE = 15.0

#: What a worker runs: ``work(number, ready)``; it calls ``ready()`` once it serves, and
#: returns when it has stopped.
Work = Callable[[int, Callable[[], None]], None]


class WorkerFailed(WebError):
    """A worker could not start, or died too often: every worker was stopped."""


@dataclass
class Worker:
    """One worker process as the parent knows it."""

    number: int  # 1..N, kept by its replacement
    pid: int
    pipe: int  # the read end of the worker's pipe to the parent
    is_ready: bool = False
    said: bytes = b""  # what it wrote on its pipe so far


@dataclass
class Supervisor:
    """Forks ``count`` workers running ``work`` and keeps them running (see the module)."""

    count: int
    work: Work
    report: Callable[[str], None]  # one line about a worker (its death, its restart)
    gone: Callable[[int], None] = lambda number: None  # told each worker number that ended
    workers: dict[int, Worker] = field(default_factory=dict)  # pid -> worker
    deaths: list[float] = field(default_factory=list)  # when running workers died
    stop_signal: str | None = None

    def __post_init__(self) -> None:
        self._wake_r, self._wake_w = os.pipe()  # signals wake the parent's select
        self._life_r, self._life_w = os.pipe()  # the lifeline: EOF in a worker = parent gone
        for fd in (self._wake_r, self._wake_w):
            os.set_blocking(fd, False)

    # -- the parent's side ---------------------------------------------------------------------

    def start(self) -> None:
        """Fork every worker and wait until all are ready (:class:`WorkerFailed` if one
        fails first; it returns early, with every worker stopped, on SIGINT or SIGTERM)."""
        if threading.active_count() > 1:
            raise WorkerFailed(f"cannot fork worker processes: this process already runs "
                               f"{threading.active_count()} threads (their locks would be "
                               f"copied held)")
        self._catch_signals()
        try:
            for number in range(1, self.count + 1):
                self._fork(number)
            while not self.stop_signal and not all(w.is_ready for w in self.workers.values()):
                self._step()
        except BaseException:
            self.stop()
            raise
        if self.stop_signal:
            self.stop()

    def run(self) -> str:
        """Watch the workers until SIGINT or SIGTERM; then stop them all and return the
        signal's name (:class:`WorkerFailed`, all stopped, if a worker fails for good)."""
        try:
            while not self.stop_signal:
                self._step()
        finally:
            self.stop()
        return self.stop_signal or "?"

    def stop(self) -> None:
        """SIGTERM to every worker; SIGKILL to those still there after :data:`STOP_GRACE`."""
        for pid in list(self.workers):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        while self.workers and time.monotonic() < deadline:
            self._reap(stopping=True)
            if self.workers:
                time.sleep(0.05)
        for pid in list(self.workers):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            self._forget(pid)

    def pids(self) -> list[int]:
        return sorted(self.workers)

    def _catch_signals(self) -> None:
        def stop(signum: int, _frame: FrameType | None) -> None:
            self.stop_signal = self.stop_signal or signal.Signals(signum).name
        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so that it wakes us
        signal.set_wakeup_fd(self._wake_w, warn_on_full_buffer=False)

    def _step(self) -> None:
        """Wait for a signal or a worker's word (a second at most), then act on it."""
        waiting = [w.pipe for w in self.workers.values() if not w.is_ready]
        readable, _, _ = select.select([self._wake_r, *waiting], [], [], 1.0)
        if self._wake_r in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_r, 512)
        for worker in list(self.workers.values()):
            if worker.pipe in readable:
                self._listen(worker)
        self._reap(stopping=bool(self.stop_signal))

    def _listen(self, worker: Worker) -> None:
        with contextlib.suppress(OSError):
            worker.said += os.read(worker.pipe, 4096)
        if worker.said.startswith(READY):
            worker.is_ready = True

    def _reap(self, stopping: bool) -> None:
        """Collect dead workers; one that died unexpectedly is started again or, if it never
        got ready or died too often, fails the whole service."""
        while self.workers:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            worker = self.workers.get(pid)
            if worker is None:
                continue
            self.gone(worker.number)
            self._listen(worker)
            self._forget(pid)
            if not stopping:
                self._died(worker, status)

    def _died(self, worker: Worker, status: int) -> None:
        how = _death(status)
        name = f"worker {worker.number} of {self.count} (pid {worker.pid})"
        if not worker.is_ready:
            said = worker.said[len(FAILED):].decode("utf-8", "replace").strip()
            raise WorkerFailed(f"{name} {how} before it was ready" + (f": {said}" if said else ""))
        now = time.monotonic()
        self.deaths = [t for t in self.deaths if now - t < RESTART_WINDOW] + [now]
        if len(self.deaths) > MAX_RESTARTS:
            raise WorkerFailed(f"{name} {how}: workers died {len(self.deaths)} times in "
                               f"{RESTART_WINDOW:.0f} s, so the service stops")
        new = self._fork(worker.number)
        self.report(f"{name} {how}; started again as pid {new.pid} (restart "
                    f"{len(self.deaths)} of at most {MAX_RESTARTS} in {RESTART_WINDOW:.0f} s)")

    def _forget(self, pid: int) -> None:
        worker = self.workers.pop(pid, None)
        if worker is not None:
            with contextlib.suppress(OSError):
                os.close(worker.pipe)

    def _fork(self, number: int) -> Worker:
        pipe_r, pipe_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the worker: never returns
            os.close(pipe_r)
            self._be_worker(number, pipe_w)
        os.close(pipe_w)
        worker = self.workers[pid] = Worker(number, pid, pipe_r)
        return worker

    # -- the worker's side ---------------------------------------------------------------------

    def _be_worker(self, number: int, pipe: int) -> None:
        """In the forked child: drop the parent's handlers and pipes, watch the lifeline, run
        ``work`` and exit (0 once it returns after a stop; 1 on an error)."""
        code = 1
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for fd in (self._wake_r, self._wake_w, self._life_w,
                       *(w.pipe for w in self.workers.values())):
                os.close(fd)
            self.workers.clear()
            threading.Thread(target=_watch_lifeline, args=(self._life_r,), daemon=True,
                             name="wonders-lifeline").start()

            def ready() -> None:
                os.write(pipe, READY)

            self.work(number, ready)
            code = 0
        except BaseException as exc:  # noqa: BLE001 - one line to the parent, never a traceback
            with contextlib.suppress(OSError):
                os.write(pipe, FAILED + _one_line(exc).encode("utf-8", "replace"))
            code = 0 if isinstance(exc, SystemExit) and not exc.code else 1
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)


def _watch_lifeline(fd: int) -> None:
    """Block on the lifeline; at its end (the parent is gone) stop this worker."""
    with contextlib.suppress(OSError):
        while os.read(fd, 1):
            pass
    os.kill(os.getpid(), signal.SIGTERM)


def _death(status: int) -> str:
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def _one_line(exc: BaseException) -> str:
    """The project's errors say what, where and why; anything else is named by its type."""
    text = " ".join(str(exc).split())
    if isinstance(exc, (WebError, LedgerError, ReplayError)) and text:
        return text
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename or ''}: {exc.strerror}".lstrip(": ")
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
