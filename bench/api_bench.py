"""Benchmark: the recording API under load, on loopback, against a real ``wonders serve``.

20 tables record at once (one client thread per table: read the state, pick a legal option,
submit it; a finished match is replaced by a new one), for a bounded time and count.  Prints
one JSON object with ``decisions_per_s`` (durable: every accepted decision was fsynced before
its response) and ``state_p50_ms`` / ``state_p99_ms`` (the state endpoint as the tables saw
it under that load).  The physical limits are measured in the same run: the disk's raw
``fsync`` rate (one writer, and 20 writers on 20 files) and the server's request rate on a
no-op endpoint (``/api/health``) with the same 20 client threads.

A second load, in the same run on the same server, adds 32 live-follow streams (anonymous
spectators, each from its own loopback address 127.0.1.x): 12 tables are followed by two
streams and 8 by one, each stream opened when its table creates a match and read until the
match ends (or the load stops).  ``decisions_per_s_with_streams`` and
``state_p99_ms_with_streams`` are that load's figures; the streams must not cost recording
more than 20% (``with_streams_ratio`` ≥ 0.8).  ``follow_refused`` counts 503s (a new stream
can come a moment before its table's previous stream has let its slot go; it retries).

Ratios to the limits: ``decisions_vs_fsync_20_writers`` (durable decisions per second over the
disk's fsync rate with 20 writers) and ``requests_vs_noop`` (all requests the tables made per
second -- state reads and decisions -- over the no-op request rate).

The server runs as ``wonders serve --processes N`` with N the cores this process may use
(``--processes N`` here to choose; printed as ``server_processes``; 1 is the single process
without a parent).  What the server spent, read from ``/proc/<pid>/stat`` around the first
load (``null`` where there is no ``/proc``) and summed over the server's process and its
workers (its children, ``/proc/<pid>/task/<pid>/children``, and those it has reaped):
``server_cpu_ms_per_decision`` (the server's CPU time, user and system, over the decisions it
accepted -- with the state reads the tables made around them) and ``server_cpu_busy`` (that
CPU time per second of the load: 1.0 is one core, N the most N processes can spend); and
the same two for the second load, with its streams (``server_cpu_ms_per_decision_with_streams``,
``server_cpu_busy_with_streams``: the streams' cost per decision recorded).  On a shared,
loaded machine the rates move with the load; the CPU per decision moves much less.

The benchmark fails loudly (exit 1, the first error on stderr) if any client thread or process
raises, if the server answers any request with a 5xx, or if no decision was accepted: a crash
never reads as a low rate.

``--profile PATH`` (needs ``py-spy`` on the PATH; not a dependency of the project) samples the
server during the first load -- its workers included (``--subprocesses``), in each only the
thread holding the interpreter lock, that is the CPU spent in Python -- writes the samples
to PATH (py-spy's collapsed stacks) and prints on stderr where they went, by layer: the
rules engine (``replay/``), the store (``ledger/``), this service's own code (``web/``, with
the libraries it calls), Flask/Werkzeug around the views, and waitress (its event loop and
its workers' request handling).  The figures on stdout are the same keys either way
(sampling slows the server a little).  With ``--profile-streams`` as well it samples the
second load (the one with the live-follow streams) instead.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLES = 20
CLIENT_PROCESSES = 4  # 5 tables (threads) each
ORGANIZER = "bench-organizer-token-0123456789abcdef"
PRESETS = ["solfera-blaze", "thalwind-sky", "petraia-stone", "umbrathene-shade"]
STREAMS = 32  # live-follow streams in the second load: two on each of the first 12 tables


def streams_of(table: int) -> int:
    return 2 if table < STREAMS - TABLES else 1


class BenchFailed(Exception):
    """A client thread or process failed: the figures would be wrong, so none are printed."""


def guarded(errors: list[str], target, *args) -> threading.Thread:
    """A thread running ``target(*args)`` that records its exception in ``errors``."""
    def run() -> None:
        try:
            target(*args)
        except Exception:  # noqa: BLE001 - any failure is recorded; the caller raises BenchFailed
            errors.append(traceback.format_exc(limit=3).strip().splitlines()[-1])
    return threading.Thread(target=run, daemon=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# -- physical limits -------------------------------------------------------------------------------


def fsync_rate(root: Path, writers: int, seconds: float) -> float:
    """Appends of one small line + fsync per second, ``writers`` threads on their own files."""
    counts = [0] * writers
    stop = time.perf_counter() + seconds

    def work(i: int) -> None:
        fd = os.open(root / f"fsync-{writers}-{i}.bin", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            while time.perf_counter() < stop:
                os.write(fd, b"x" * 300 + b"\n")
                os.fsync(fd)
                counts[i] += 1
        finally:
            os.close(fd)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(writers)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - start)


# -- a tiny HTTP client -------------------------------------------------------------------------------


class Client:
    def __init__(self, host: str, port: int):
        self.conn = http.client.HTTPConnection(host, port, timeout=30)

    def call(self, method: str, path: str, token: str | None = None, body=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        payload = response.read()
        return response.status, (json.loads(payload) if payload else None)


def start_server(store: Path, threads: int, processes: int) -> tuple[subprocess.Popen, str, int]:
    env = dict(os.environ, WONDERS_ORGANIZER_TOKEN=ORGANIZER)
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--store", str(store),
                             "--port", "0", "--threads", str(threads),
                             "--processes", str(processes)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=(store.parent / "server.err").open("w"),
                            text=True)
    line = proc.stdout.readline()
    if "serving" not in line:
        proc.kill()
        raise SystemExit(f"wonders serve did not start: {line!r}")
    address = line.split("http://")[1].split()[0]
    host, port = address.rsplit(":", 1)
    return proc, host, int(port)


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of the server so far: process ``pid``, the children it has
    waited for (a worker that died and was started again) and its live children (the
    workers of ``--processes``); ``None`` without ``/proc``."""
    try:
        fields = _stat(pid)
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return None
    ticks = sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    for child in children:
        try:
            ticks += sum(int(f) for f in _stat(int(child))[11:13])
        except OSError:  # it ended between the two reads: its parent's cutime has it next time
            continue
    return ticks / os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command's name (field 3 on)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def server_processes() -> int:
    """``--processes N`` (default: the cores this process may use, as ``wonders serve
    --processes auto`` counts them)."""
    if "--processes" in sys.argv:
        at = sys.argv.index("--processes") + 1
        if at >= len(sys.argv) or not sys.argv[at].isdigit() or int(sys.argv[at]) < 1:
            raise SystemExit("api bench: --processes needs a number of server processes (1 or more)")
        return int(sys.argv[at])
    sys.path.insert(0, str(ROOT))
    from web.cli_serve import core_count

    return core_count()


def noop_worker(host: str, port: int, seconds: float, threads: int, results) -> None:
    """``threads`` clients calling the no-op endpoint as fast as they can."""
    counts = [0] * threads
    stop = time.perf_counter() + seconds

    errors: list[str] = []

    def work(i: int) -> None:
        client = Client(host, port)
        while time.perf_counter() < stop:
            status, _ = client.call("GET", "/api/health")
            if status != 200:
                raise BenchFailed(f"/api/health answered {status}")
            counts[i] += 1
    pool = [guarded(errors, work, i) for i in range(threads)]
    start = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    results.put({"count": sum(counts), "seconds": time.perf_counter() - start, "errors": errors})


def noop_rate(host: str, port: int, seconds: float) -> float:
    """The server's bare request rate, from the same 20 clients in the same processes."""
    results = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=noop_worker, args=(
        host, port, seconds, TABLES // CLIENT_PROCESSES, results)) for _ in range(CLIENT_PROCESSES)]
    for p in procs:
        p.start()
    parts = collect(results, procs)
    return sum(p["count"] for p in parts) / max(p["seconds"] for p in parts)


def collect(results, procs: list) -> list[dict]:
    """Each client process's result; a process that died or whose threads failed fails the
    benchmark (with its first error) instead of hanging or reading as a low rate."""
    parts = []
    while len(parts) < len(procs):
        try:
            parts.append(results.get(timeout=5))
        except Exception as gone:
            dead = [p for p in procs if p.exitcode not in (None, 0)]
            if dead:
                raise BenchFailed(f"client process exited with {dead[0].exitcode}") from gone
    for p in procs:
        p.join()
    errors = [e for part in parts for e in part["errors"]]
    if errors:
        raise BenchFailed(f"{len(errors)} client thread(s) failed; first: {errors[0]}")
    return parts


# -- where the server's CPU goes (--profile) ------------------------------------------------------------

#: Layers of a sampled stack, by the first rule that matches a frame (see :func:`layer_of`).
LAYERS = ("engine (replay/)", "store (ledger/)", "service (web/)", "flask/werkzeug", "waitress",
          "other")


#: The modules every frame of a server's thread sits under (the command, the worker processes).
SERVING = ("cli", "serve.py", "supervise.py")


def layer_of(frames: list[str]) -> str:
    """The layer a sampled stack (outermost frame first) spends its time in: the engine or the
    store wherever they are called from; the service's own code (and what it calls) under a
    view; Flask around the view; waitress for the rest of a request's handling."""
    if any("(replay/" in f for f in frames):
        return LAYERS[0]
    if any("(ledger/" in f for f in frames):
        return LAYERS[1]
    if any("(web/" in f and not f.split("(web/", 1)[1].startswith(SERVING) for f in frames):
        return LAYERS[2]
    if any("(flask/" in f or "(werkzeug/" in f for f in frames):
        return LAYERS[3]
    if any("(waitress/" in f for f in frames):
        return LAYERS[4]
    return LAYERS[5]


def profile_summary(path: Path) -> dict:
    """Shares of the samples by layer, and the ten functions most often on top of the stack."""
    layers = dict.fromkeys(LAYERS, 0)
    tops: dict[str, int] = {}
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = stack.split(";")
        layers[layer_of(frames)] += int(count)
        top = frames[-1].rsplit(":", 1)[0] + ")" if ":" in frames[-1] else frames[-1]
        tops[top] = tops.get(top, 0) + int(count)
    total = sum(layers.values()) or 1
    return {"samples": total,
            "share": {k: round(v / total, 3) for k, v in layers.items()},
            "top_self": [[k, round(v / total, 3)] for k, v in
                         sorted(tops.items(), key=lambda kv: -kv[1])[:10]]}


def start_sampler(pid: int, path: Path, seconds: float) -> subprocess.Popen:
    """py-spy sampling process ``pid`` and its subprocesses (the workers) for ``seconds``
    (each one's GIL holder only) into ``path``."""
    return subprocess.Popen(["py-spy", "record", "--pid", str(pid), "--subprocesses", "--duration",
                             str(max(1, round(seconds))), "--rate", "200", "--gil",
                             "--nonblocking", "--format", "raw", "--output", str(path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def profile_path() -> Path | None:
    """``--profile PATH`` (checked before anything runs: py-spy must be there)."""
    if "--profile" not in sys.argv:
        return None
    at = sys.argv.index("--profile") + 1
    if at >= len(sys.argv):
        raise SystemExit("api bench: --profile needs a file to write the samples to")
    if shutil.which("py-spy") is None:
        raise SystemExit("api bench: --profile samples the server with py-spy, which is not on "
                         "the PATH (pip install py-spy, outside the project's lock)")
    return Path(sys.argv[at]).resolve()


# -- the load -------------------------------------------------------------------------------------------


def pick(prompt: dict, rng: random.Random) -> dict:
    if prompt["choose"]:
        spec = prompt["choose"]
        if spec["multiset"]:
            return {"type": "Answered", "kind": prompt["kind"], "pick": spec["of"]}
        ids = sorted(set(spec["of"]))
        return {"type": "Answered", "kind": prompt["kind"],
                "pick": rng.sample(ids, rng.randint(spec["min"], spec["max"]))}
    return rng.choice(prompt["options"])["decision"]


class Load:
    def __init__(self, host: str, port: int, seconds: float, max_decisions: int,
                 streams: bool = False):
        self.host, self.port = host, port
        self.streams = streams
        self.followers: list[threading.Thread] = []
        self.follow = {"opened": 0, "refused": 0, "bytes": 0}
        self.stop_at = time.perf_counter() + seconds
        self.max_decisions = max_decisions
        self.decisions = 0
        self.matches = 0
        self.refused: dict[int, int] = {}
        self.state_ms: list[float] = []
        self.errors: list[str] = []
        self.lock = threading.Lock()

    def is_done(self) -> bool:
        return time.perf_counter() >= self.stop_at or self.decisions >= self.max_decisions

    def table(self, number: int) -> None:
        client, rng = Client(self.host, self.port), random.Random(number)
        while not self.is_done():
            status, created = client.call("POST", "/api/matches", ORGANIZER, {
                "seats": [{"player": f"P{number}a", "preset": rng.choice(PRESETS)},
                          {"player": f"P{number}b", "preset": rng.choice(PRESETS)}],
                "tournament": "Bench Open", "table": number + 1})
            if status != 201:
                raise BenchFailed(f"creating a match answered {status}: {created}")
            if self.streams:
                for j in range(streams_of(number)):
                    follower = guarded(self.errors, self.spectate, created["match_id"],
                                       f"127.0.1.{number * 2 + j + 1}")
                    follower.start()
                    self.followers.append(follower)
            self.play(client, rng, created["match_id"], created["tokens"])

    def spectate(self, mid: str, source: str) -> None:
        """An anonymous follow stream on ``mid`` from ``source``, read (HTTP/1.0: to the
        server's close) until the match has ended or the load stops; a 503 is retried."""
        while not self.is_done():
            sock = socket.create_connection((self.host, self.port), timeout=30,
                                            source_address=(source, 0))
            sock.settimeout(0.5)
            head, tail, total = b"", b"", 0
            try:
                sock.sendall(f"GET /api/matches/{mid}/follow HTTP/1.0\r\n"
                             f"Host: {self.host}\r\n\r\n".encode())
                while not self.is_done():
                    try:
                        chunk = sock.recv(65536)
                    except TimeoutError:
                        continue
                    if not chunk:
                        break
                    if len(head) < 12:
                        head += chunk[:12]
                    tail = (tail + chunk)[-64:]
                    total += len(chunk)
            finally:
                sock.close()
            status = head[9:12]
            with self.lock:
                self.follow["bytes"] += total
                self.follow["refused" if status == b"503" else "opened"] += 1
            if status == b"503":
                time.sleep(0.2)
            elif b"event: end" in tail:
                return

    def play(self, client: Client, rng: random.Random, mid: str, tokens: dict) -> None:
        seat = "A"
        while not self.is_done():
            start = time.perf_counter()
            status, state = client.call("GET", f"/api/matches/{mid}/state", tokens[seat])
            if status != 200:
                raise BenchFailed(f"state of {mid} answered {status}: {state}")
            elapsed = (time.perf_counter() - start) * 1000
            with self.lock:
                self.state_ms.append(elapsed)
            prompt = state["prompt"]
            if prompt is None:
                with self.lock:
                    self.matches += 1
                return
            if prompt["seat"] != seat:
                seat = prompt["seat"]  # the other seat's client reads its own state next
                continue
            status, reply = client.call("POST", f"/api/matches/{mid}/decisions", tokens[seat],
                                        {"expected_seq": state["length"], "decision": pick(prompt, rng)})
            if status >= 500:
                raise BenchFailed(f"a decision on {mid} answered {status}: {reply}")
            with self.lock:
                if status == 201:
                    self.decisions += 1
                else:
                    self.refused[status] = self.refused.get(status, 0) + 1

    def run(self, tables: range) -> dict:
        threads = [guarded(self.errors, self.table, i) for i in tables]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seconds = time.perf_counter() - start
        for t in self.followers:
            t.join()
        return {"seconds": seconds, "decisions": self.decisions, "follow": self.follow,
                "matches": self.matches, "refused": self.refused, "state_ms": self.state_ms,
                "errors": self.errors}


def client_process(host: str, port: int, seconds: float, max_decisions: int, tables: range,
                   streams: bool, results) -> None:
    """One client process driving some of the tables (threads), so that the clients' own
    interpreter lock does not add to the latencies they measure."""
    try:
        results.put(Load(host, port, seconds, max_decisions, streams).run(tables))
    except Exception:  # noqa: BLE001 - any failure goes back to the parent, which fails
        results.put({"errors": [traceback.format_exc(limit=3).strip().splitlines()[-1]]})


def run_load(host: str, port: int, seconds: float, max_decisions: int,
             streams: bool = False) -> dict:
    results = multiprocessing.Queue()
    per = TABLES // CLIENT_PROCESSES
    procs = [multiprocessing.Process(target=client_process, args=(
        host, port, seconds, max_decisions // CLIENT_PROCESSES, range(i * per, (i + 1) * per),
        streams, results)) for i in range(CLIENT_PROCESSES)]
    for p in procs:
        p.start()
    parts = collect(results, procs)
    total: dict = {"seconds": max(p["seconds"] for p in parts), "refused": {}, "state_ms": []}
    for key in ("decisions", "matches"):
        total[key] = sum(p[key] for p in parts)
    total["follow"] = {key: sum(p["follow"][key] for p in parts) for key in parts[0]["follow"]}
    for p in parts:
        total["state_ms"] += p["state_ms"]
        for status, count in p["refused"].items():
            total["refused"][status] = total["refused"].get(status, 0) + count
    if not total["decisions"]:
        raise BenchFailed(f"no decision was accepted (refused: {total['refused']})")
    return total


def main() -> None:
    quick = "--quick" in sys.argv
    profile = profile_path()
    profile_streams = "--profile-streams" in sys.argv  # sample the second load instead
    processes = server_processes()
    seconds = 4.0 if quick else 20.0
    max_decisions = 2_000 if quick else 20_000
    server_threads = 24
    root = Path(tempfile.mkdtemp(prefix="wonders-api-bench-"))
    try:
        fsync_1 = fsync_rate(root, 1, 1.0 if quick else 3.0)
        fsync_20 = fsync_rate(root, TABLES, 1.0 if quick else 3.0)
        proc, host, port = start_server(root / "store", server_threads, processes)
        try:
            noop = noop_rate(host, port, 1.0 if quick else 3.0)
            sampler = start_sampler(proc.pid, profile, seconds) \
                if profile and not profile_streams else None
            cpu_before = cpu_seconds(proc.pid)
            load = run_load(host, port, seconds, max_decisions)
            cpu_after = cpu_seconds(proc.pid)
            if sampler is not None:
                sampler.wait(timeout=seconds + 30)
            elapsed = load["seconds"]
            sampler = start_sampler(proc.pid, profile, seconds) \
                if profile and profile_streams else None
            cpu_streamed = cpu_seconds(proc.pid)
            streamed = run_load(host, port, seconds, max_decisions, streams=True)
            if sampler is not None:
                sampler.wait(timeout=seconds + 30)
            cpu_streamed = (None if cpu_streamed is None or (end := cpu_seconds(proc.pid)) is None
                            else end - cpu_streamed)
        except BenchFailed as failed:  # what the server said about its workers, if anything
            said = [line for line in (root / "server.err").read_text(errors="replace").splitlines()
                    if line.startswith(("warning: worker", "error:"))]
            raise BenchFailed(f"{failed}" + (f"; the server said: {said[0]}" if said else "")) \
                from None
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    rate = load["decisions"] / elapsed
    server_cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    requests = (load["decisions"] + sum(load["refused"].values()) + len(load["state_ms"])) / elapsed
    print(json.dumps({
        "tables": TABLES,
        "server_processes": processes,
        "server_threads": server_threads,
        "seconds": round(elapsed, 2),
        "client_processes": CLIENT_PROCESSES,
        "decisions": load["decisions"],
        "decisions_per_s": round(load["decisions"] / elapsed, 1),
        "matches_finished": load["matches"],
        "refused": {str(k): v for k, v in sorted(load["refused"].items())},
        "state_requests": len(load["state_ms"]),
        "state_p50_ms": round(percentile(load["state_ms"], 0.50), 2),
        "state_p99_ms": round(percentile(load["state_ms"], 0.99), 2),
        "follow_streams": STREAMS,
        "seconds_with_streams": round(streamed["seconds"], 2),
        "decisions_with_streams": streamed["decisions"],
        "decisions_per_s_with_streams": round(streamed["decisions"] / streamed["seconds"], 1),
        "with_streams_ratio": round(streamed["decisions"] / streamed["seconds"]
                                    / (load["decisions"] / elapsed), 3),
        "refused_with_streams": {str(k): v for k, v in sorted(streamed["refused"].items())},
        "state_p50_ms_with_streams": round(percentile(streamed["state_ms"], 0.50), 2),
        "state_p99_ms_with_streams": round(percentile(streamed["state_ms"], 0.99), 2),
        "follow_opened": streamed["follow"]["opened"],
        "follow_refused": streamed["follow"]["refused"],
        "follow_mb": round(streamed["follow"]["bytes"] / 1e6, 2),
        "noop_requests_per_s": round(noop, 1),
        "fsync_per_s_1_writer": round(fsync_1, 1),
        "fsync_per_s_20_writers": round(fsync_20, 1),
        "decisions_vs_fsync_20_writers": round(rate / fsync_20, 3),
        "requests_vs_noop": round(requests / noop, 3),
        "server_cpu_ms_per_decision": None if server_cpu is None
        else round(1000 * server_cpu / load["decisions"], 3),
        "server_cpu_busy": None if server_cpu is None else round(server_cpu / elapsed, 3),
        "server_cpu_ms_per_decision_with_streams": None if cpu_streamed is None
        else round(1000 * cpu_streamed / streamed["decisions"], 3),
        "server_cpu_busy_with_streams": None if cpu_streamed is None
        else round(cpu_streamed / streamed["seconds"], 3),
        "targets": {"decisions_per_s": 300, "state_p99_ms": 50, "with_streams_ratio": 0.8},
    }))
    if profile is not None:
        if not profile.exists():
            raise BenchFailed(f"py-spy wrote no samples to {profile} (may it trace processes "
                              f"here? it needs ptrace)")
        print(json.dumps({"server_profile": str(profile), **profile_summary(profile)}),
              file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except BenchFailed as failed:
        raise SystemExit(f"api bench failed: {failed}") from None
