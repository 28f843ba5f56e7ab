"""``wonders serve --processes N``: real servers in subprocesses, real connections, ``/proc``.

Which worker answered a connection is read from the system, not from the answer (no response
carries a pid): the server side of a client's TCP connection is the socket whose inode
``/proc/net/tcp`` lists for that pair of ports, and the worker is the process holding it
(``/proc/<pid>/fd``).  Two clients record a match through both workers; a decision through one
worker is read through the other; a stale decision is refused there (409) and the file still
re-derives; SIGTERM stops every worker and leaves no process; a killed worker is started
again, and one that cannot start, or dies too often, stops the service with one line.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.wotf.cards import default_cards
from tests.web.test_api import SEATS, choose
from web.cli_serve import Processes, core_count
from web.supervise import MAX_RESTARTS

ROOT = Path(__file__).parents[2]
ORGANIZER = "processes-test-organizer-token-0123456789"

pytestmark = pytest.mark.skipif(not Path("/proc/net/tcp").exists() or not hasattr(os, "fork"),
                                reason="needs /proc (Linux) and os.fork to see the workers")


class Server:
    """A ``wonders serve --processes N`` subprocess and what ``/proc`` says about it."""

    def __init__(self, store, processes: int = 2, **env_extra):
        env = dict(os.environ, WONDERS_ORGANIZER_TOKEN=ORGANIZER, **env_extra)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "web.cli", "serve", "--store", str(store), "--port", "0",
             "--threads", "4", "--processes", str(processes)],
            env=env, cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.first_line = self.proc.stdout.readline()
        if "serving" not in self.first_line:
            self.proc.kill()
            raise AssertionError(self.first_line + self.proc.stderr.read())
        address = self.first_line.split("http://")[1].split()[0]
        self.host, port = address.rsplit(":", 1)
        self.port = int(port)

    def workers(self) -> list[int]:
        pid = self.proc.pid
        return sorted(int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split())

    def connect(self) -> http.client.HTTPConnection:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        conn.connect()
        return conn

    def worker_of(self, conn: http.client.HTTPConnection) -> int:
        """The worker holding the server side of ``conn`` (after its first answer)."""
        client_port = conn.sock.getsockname()[1]
        inode = _server_socket_inode(self.port, client_port)
        for pid in self.workers():
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                try:
                    if os.readlink(fd) == f"socket:[{inode}]":
                        return pid
                except OSError:  # an fd closed meanwhile
                    continue
        raise AssertionError(f"no worker holds the connection from port {client_port}")

    def on_each_worker(self, tries: int = 400) -> dict[int, http.client.HTTPConnection]:
        """One open connection per worker: new connections until every worker took one."""
        found: dict[int, http.client.HTTPConnection] = {}
        for _ in range(tries):
            conn = self.connect()
            assert call(conn, "GET", "/api/health")[0] == 200
            pid = self.worker_of(conn)
            if pid in found:
                conn.close()
            else:
                found[pid] = conn
            if len(found) == len(self.workers()):
                break
        assert len(found) == len(self.workers()), f"{tries} connections reached {sorted(found)}"
        return found

    def next_report(self) -> str:
        """The parent's next line about a worker on stderr (waitress's log lines skipped)."""
        while True:
            line = self.proc.stderr.readline()
            if not line or line.startswith(("warning: worker ", "error: ")):
                return line

    def stop(self, sig=signal.SIGTERM) -> tuple[int, str, str]:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=40)
        return self.proc.returncode, out, err


def _server_socket_inode(server_port: int, client_port: int) -> str:
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote, inode = fields[1], fields[2], fields[9]
            if (int(local.rsplit(":", 1)[1], 16) == server_port
                    and int(remote.rsplit(":", 1)[1], 16) == client_port):
                return inode
    raise AssertionError(f"no server socket for the client port {client_port}")


def call(conn, method, path, token=None, body=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, body=None if body is None else json.dumps(body).encode(),
                 headers=headers)
    response = conn.getresponse()
    payload = response.read()
    return response.status, (json.loads(payload) if payload else None)


def is_running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return status != "Z"


def wait_until(predicate, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.fixture
def server(tmp_path):
    started = Server(tmp_path / "store")
    yield started
    workers = started.workers() if started.proc.poll() is None else []
    started.stop()
    assert wait_until(lambda: not any(is_running(pid) for pid in workers), 5)


def _create(conn):
    status, created = call(conn, "POST", "/api/matches", ORGANIZER, {"seats": SEATS})
    assert status == 201, created
    return created["match_id"], created["tokens"]


# -- one port, N processes -----------------------------------------------------------------------


def test_the_startup_line_names_the_processes_and_one_port(server):
    line = server.first_line
    assert " with 2 processes × 4 threads " in line, line
    assert len(server.workers()) == 2 and server.proc.pid not in server.workers()
    assert f"worker pids {' '.join(map(str, server.workers()))}" in line


def test_connections_opened_at_once_are_shared_between_the_workers(server):
    """Kept-alive connections opened together (20 tables starting) end up on both workers
    in about equal numbers (web/balance.py), not most of them on one."""
    conns = [None] * 20

    def open_one(i):
        conns[i] = server.connect()
        assert call(conns[i], "GET", "/api/health")[0] == 200
    threads = [threading.Thread(target=open_one, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    held = [sum(server.worker_of(c) == pid for c in conns) for pid in server.workers()]
    assert sum(held) == 20 and max(held) - min(held) <= 4, held
    for conn in conns:
        conn.close()


def test_two_clients_record_a_match_through_both_workers(server, tmp_path):
    """Each request on a new connection: the seats' requests land on both workers, and each
    worker folds what the other appended (the file, not a fork, is the truth)."""
    mid, tokens = _create(server.connect())
    rng, served = random.Random(19), {pid: 0 for pid in server.workers()}
    for _ in range(3000):
        conn = server.connect()
        status, pending = call(conn, "GET", f"/api/matches/{mid}/prompt", tokens["judge"])
        served[server.worker_of(conn)] += 1
        conn.close()
        if pending["prompt"] is None:
            break
        seat = pending["prompt"]["seat"]  # that seat's client, on a connection of its own
        conn = server.connect()
        status, prompt = call(conn, "GET", f"/api/matches/{mid}/prompt", tokens[seat])
        status, reply = call(conn, "POST", f"/api/matches/{mid}/decisions", tokens[seat],
                             {"expected_seq": prompt["length"],
                              "decision": choose(prompt["prompt"], rng)})
        assert status == 201, reply
        served[server.worker_of(conn)] += 1
        conn.close()
    else:
        raise AssertionError("the match did not end")
    assert all(count > 0 for count in served.values()), served
    views = [call(conn, "GET", f"/api/matches/{mid}/state", tokens["judge"])[1]
             for conn in server.on_each_worker().values()]
    assert views[0] == views[1] and views[0]["board"]["over"]
    replay = Replay(list(FileStore.read_file(tmp_path / "store" / f"{mid}.jsonl")), default_cards())
    assert len(replay) == views[0]["length"] and replay.engine.state.over


def test_a_decision_through_one_worker_is_read_through_the_other_and_a_stale_one_gets_409(
        server, tmp_path):
    one, two = server.on_each_worker().values()
    mid, tokens = _create(one)
    for _ in range(3):
        status, prompt = call(one, "GET", f"/api/matches/{mid}/prompt", tokens["judge"])
        seat = prompt["prompt"]["seat"]
        status, mine = call(one, "GET", f"/api/matches/{mid}/prompt", tokens[seat])
        decision = choose(mine["prompt"], random.Random(3))
        status, reply = call(one, "POST", f"/api/matches/{mid}/decisions", tokens[seat],
                             {"expected_seq": mine["length"], "decision": decision})
        assert status == 201, reply
        # the other worker reads it at once ...
        status, seen = call(two, "GET", f"/api/matches/{mid}/state", tokens["judge"])
        assert status == 200 and seen["length"] > mine["length"]
        assert seen == call(one, "GET", f"/api/matches/{mid}/state", tokens["judge"])[1]
        # ... and refuses the same decision at the old length: nothing is written twice
        status, refused = call(two, "POST", f"/api/matches/{mid}/decisions", tokens[seat],
                               {"expected_seq": mine["length"], "decision": decision})
        assert status == 409 and refused["error"] == "conflict", refused
        assert call(two, "GET", f"/api/matches/{mid}/state", tokens["judge"])[1]["length"] \
            == seen["length"]
    replay = Replay(list(FileStore.read_file(tmp_path / "store" / f"{mid}.jsonl")), default_cards())
    assert len(replay) == seen["length"]


# -- supervision ---------------------------------------------------------------------------------


def test_sigterm_stops_every_worker_and_leaves_no_process(tmp_path):
    server = Server(tmp_path / "store")
    workers = server.workers()
    conns = server.on_each_worker()  # kept-alive connections on both: they must not hold a stop
    started = time.monotonic()
    code, out, err = server.stop(signal.SIGTERM)
    assert code == 0, err
    # idle connections are closed, not waited for: well under the 10 s a drain may take (on a
    # loaded machine the processes' exit alone can take seconds)
    assert time.monotonic() - started < 8
    assert out.strip().splitlines()[-1] == "stopped by SIGTERM: all 2 worker processes ended"
    assert "Traceback" not in err and err.strip() == "", err
    assert not any(is_running(pid) for pid in workers)
    with pytest.raises(OSError):
        server.connect()
    for conn in conns.values():
        conn.close()


def test_a_request_arriving_when_the_stop_comes_is_finished_first(tmp_path):
    """SIGTERM while a create's body is still arriving: the worker reads the rest, records
    the match, answers 201, and only then exits."""
    server = Server(tmp_path / "store")
    body = json.dumps({"seats": SEATS}).encode()
    sock = socket.create_connection((server.host, server.port), timeout=30)
    sock.sendall(f"POST /api/matches HTTP/1.1\r\nHost: test\r\nContent-Type: application/json"
                 f"\r\nAuthorization: Bearer {ORGANIZER}\r\nContent-Length: {len(body)}\r\n"
                 f"\r\n".encode() + body[:10])
    time.sleep(0.5)  # the worker holds half a request
    server.proc.send_signal(signal.SIGTERM)
    time.sleep(1.5)  # the stop is under way
    sock.sendall(body[10:])
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    sock.close()
    assert answer.startswith(b"HTTP/1.1 201 "), answer[:200]
    mid = json.loads(answer.split(b"\r\n\r\n", 1)[1])["match_id"]
    code, out, err = server.stop()
    assert code == 0 and out.strip().endswith("worker processes ended"), err
    assert (tmp_path / "store" / f"{mid}.jsonl").exists()


def test_sigint_stops_them_the_same_way(tmp_path):
    server = Server(tmp_path / "store")
    workers = server.workers()
    code, out, err = server.stop(signal.SIGINT)
    assert code == 0 and out.strip().splitlines()[-1].startswith("stopped by SIGINT"), (out, err)
    assert "Traceback" not in err and not any(is_running(pid) for pid in workers)


def test_a_killed_worker_is_reported_and_started_again(server):
    mid, tokens = _create(server.connect())
    victim, other = server.workers()
    os.kill(victim, signal.SIGKILL)
    assert wait_until(lambda: len(server.workers()) == 2 and victim not in server.workers())
    line = server.next_report()
    assert line.startswith("warning: worker 1 of 2 (pid ") and \
        f"(pid {victim}) was killed by SIGKILL; started again as pid " in line, line
    assert other in server.workers()
    replacement = int(line.split("as pid ")[1].split()[0])
    assert replacement in server.workers()
    connections = server.on_each_worker()  # the new worker serves (its app built after the fork)
    assert set(connections) == {other, replacement}
    for conn in connections.values():
        assert call(conn, "GET", f"/api/matches/{mid}/state", tokens["judge"])[0] == 200


def test_a_worker_dying_again_and_again_stops_the_service_with_one_line(tmp_path):
    server = Server(tmp_path / "store")
    for kill in range(MAX_RESTARTS + 1):
        if kill:  # the replacement serves (a worker that dies before it is ready stops all)
            for conn in server.on_each_worker().values():
                conn.close()
        workers = server.workers()
        os.kill(workers[0], signal.SIGKILL)
        if kill < MAX_RESTARTS:
            assert server.next_report().startswith("warning: worker ")
    server.proc.wait(timeout=30)  # it stops by itself
    code, _, err = server.stop()
    last = err.strip().splitlines()[-1]
    assert code == 1 and last.startswith("error: worker ") and \
        f"workers died {MAX_RESTARTS + 1} times in 60 s, so the service stops" in last, err
    assert "Traceback" not in err and not any(is_running(pid) for pid in workers)


def test_a_worker_that_cannot_start_stops_the_service_with_its_reason(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the store should be\n")
    done = subprocess.run([sys.executable, "-m", "web.cli", "serve", "--store", str(blocker),
                           "--port", "0", "--processes", "2"],
                          env=dict(os.environ, WONDERS_ORGANIZER_TOKEN=ORGANIZER), cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("error: worker ") and "before it was ready: " in lines[0]
    assert str(blocker) in lines[0]


def test_workers_stop_when_the_parent_is_killed(tmp_path):
    """No orphans: a parent killed without stopping them (SIGKILL) leaves the workers' lifeline
    at its end, and each stops itself."""
    server = Server(tmp_path / "store")
    workers = server.workers()
    server.proc.kill()
    server.proc.wait(timeout=10)
    assert wait_until(lambda: not any(is_running(pid) for pid in workers), 15), workers


# -- one process: no parent ----------------------------------------------------------------------


def test_one_process_is_the_server_itself(tmp_path):
    server = Server(tmp_path / "store", processes=1)
    try:
        assert server.workers() == []
        assert " with 4 threads (and " in server.first_line and "processes" not in server.first_line
        conn = server.connect()
        assert call(conn, "GET", "/api/health")[0] == 200
        inode = _server_socket_inode(server.port, conn.sock.getsockname()[1])
        held = {os.readlink(fd) for fd in Path(f"/proc/{server.proc.pid}/fd").iterdir()}
        assert f"socket:[{inode}]" in held  # the process we started answers itself
    finally:
        server.stop()


def test_processes_counts_auto_and_refuses_nonsense():
    assert Processes().convert("auto", None, None) == core_count()
    assert Processes().convert("0", None, None) == core_count()
    assert Processes().convert("3", None, None) == 3
    done = subprocess.run([sys.executable, "-m", "web.cli", "serve", "--processes", "many"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "'many' is neither a number of processes nor 'auto'" in done.stderr


# -- PostgreSQL ----------------------------------------------------------------------------------


def test_two_workers_on_postgresql(pg_url):
    server = Server(pg_url)
    try:
        one, two = server.on_each_worker().values()
        mid, tokens = _create(one)
        status, prompt = call(two, "GET", f"/api/matches/{mid}/prompt", tokens["judge"])
        seat = prompt["prompt"]["seat"]
        decision = choose(prompt["prompt"], random.Random(1))
        body = {"expected_seq": prompt["length"], "decision": decision}
        assert call(two, "POST", f"/api/matches/{mid}/decisions", tokens[seat], body)[0] == 201
        seen = call(one, "GET", f"/api/matches/{mid}/state", tokens["judge"])[1]
        assert seen["length"] > prompt["length"]
        status, refused = call(one, "POST", f"/api/matches/{mid}/decisions", tokens[seat], body)
        assert status == 409, refused
    finally:
        code, _, err = server.stop()
    assert code == 0, err
