"""Finding 1 of issue 13: anonymous live-follow streams starving the recording service.

Each ``GET /api/matches/<id>/follow`` stream used to hold a waitress worker thread until its
idle timeout, with no cap: 16 anonymous streams (reconnecting when they ended) stalled every
create and decision for as long as they were open.  Against a real ``wonders serve`` on
loopback with 4 worker threads, the defaults (at most 32 streams, 2 per client address) and a
30 s idle timeout, anonymous streams from many loopback addresses (127.0.0.x) must not slow
recording: a create and every decision answer well under a second while 16, then 32 streams
are open and while they reconnect; a stream past either cap gets 503 at once with
``Retry-After`` and the one-line JSON error; a closed stream's slot is free again at once.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.web.test_api import choose

ROOT = Path(__file__).resolve().parents[2]
ORGANIZER = "follow-streams-test-organizer-token-0123456789"
THREADS = 4  # recording threads of the server; the streams far outnumber them
MAX_STREAMS, PER_CLIENT = 32, 2  # the defaults (WONDERS_FOLLOW_MAX_STREAMS / _PER_CLIENT)
PROMPT = 1.0  # seconds: "well under a second" for every recording request
SEATS = [{"player": "Ann", "preset": "solfera-blaze"}, {"player": "Bob", "preset": "thalwind-sky"}]


@pytest.fixture
def server(tmp_path):
    env = dict(os.environ, WONDERS_ORGANIZER_TOKEN=ORGANIZER, WONDERS_SPECTATOR_DELAY="0",
               WONDERS_FOLLOW_TIMEOUT="30")
    for name in ("WONDERS_FOLLOW_MAX_STREAMS", "WONDERS_FOLLOW_MAX_PER_CLIENT"):
        env.pop(name, None)
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--store",
                             str(tmp_path / "store"), "--port", "0", "--threads", str(THREADS)],
                            env=env, cwd=ROOT, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    line = proc.stdout.readline()
    if "serving" not in line:
        proc.kill()
        raise AssertionError(line)
    host, port = line.split("http://")[1].split()[0].rsplit(":", 1)
    yield host, int(port)
    proc.terminate()
    proc.wait(timeout=20)


class Recorder:
    """One keep-alive client recording a match, timing every request."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.conn = http.client.HTTPConnection(host, port, timeout=10)
        self.seconds: list[float] = []

    def call(self, method: str, path: str, token: str, body=None):
        start = time.perf_counter()
        try:
            self.conn.request(method, path, body=None if body is None else json.dumps(body),
                              headers={"Authorization": f"Bearer {token}",
                                       "Content-Type": "application/json"})
            response = self.conn.getresponse()
            data = json.loads(response.read())
        except (TimeoutError, OSError) as exc:
            self.conn.close()
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
            raise AssertionError(f"{method} {path}: no answer in 10 s ({exc!r}): recording "
                                 f"is stalled") from None
        self.seconds.append(time.perf_counter() - start)
        return response.status, data

    def create(self) -> tuple[str, dict]:
        status, created = self.call("POST", "/api/matches", ORGANIZER, {"seats": SEATS})
        assert status == 201, created
        return created["match_id"], created["tokens"]

    def decide(self, mid: str, tokens: dict, count: int, rng: random.Random) -> None:
        for _ in range(count):
            status, pending = self.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])
            assert status == 200 and pending["prompt"] is not None, pending
            seat = pending["prompt"]["seat"]
            status, prompt = self.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])
            status, out = self.call("POST", f"/api/matches/{mid}/decisions", tokens[seat],
                                    {"expected_seq": prompt["length"],
                                     "decision": choose(prompt["prompt"], rng)})
            assert status == 201, out

    def slowest(self) -> float:
        worst, self.seconds = max(self.seconds), []
        return worst


class Stream:
    """An anonymous follow stream from one loopback address (the request is sent at once)."""

    def __init__(self, host: str, port: int, source: str, mid: str):
        self.source = source
        self.conn = http.client.HTTPConnection(host, port, timeout=10, source_address=(source, 0))
        self.conn.request("GET", f"/api/matches/{mid}/follow?from=0")
        self.sock = self.conn.sock  # (http.client lets go of it once a streamed answer came)
        self.response: http.client.HTTPResponse | None = None

    def answer(self, deadline: float) -> int:
        """The status, waiting at most until ``deadline``; 0 when none came."""
        if self.response is None:
            self.sock.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                self.response = self.conn.getresponse()
            except (TimeoutError, OSError):
                return 0
        return self.response.status

    def first_line(self) -> str:
        """The first line of the stream's first message (the opening comment aside)."""
        self.sock.settimeout(5)
        line = self.response.readline().decode()
        while line.startswith(":") or line == "\n":
            line = self.response.readline().decode()
        return line

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        if self.response is not None:
            self.response.close()
        self.conn.close()
        self.sock.close()


def sources(first: int, count: int) -> list[str]:
    """``PER_CLIENT`` streams from each of ``count`` addresses 127.0.0.<first>…"""
    return [f"127.0.0.{first + i}" for i in range(count) for _ in range(PER_CLIENT)]


def open_streams(host, port, mid, addresses, within: float = 5.0) -> list[Stream]:
    """Streams from ``addresses``, each answered 200 within ``within`` s (a refused one is
    retried until then: a closed stream's slot must be free again by then)."""
    streams = [Stream(host, port, source, mid) for source in addresses]
    deadline = time.monotonic() + within
    for i, stream in enumerate(streams):
        while (status := stream.answer(deadline)) == 503 and time.monotonic() < deadline:
            stream.close()
            time.sleep(0.1)
            streams[i] = stream = Stream(host, port, stream.source, mid)
        assert status == 200, (f"stream {i} from {stream.source}: "
                               f"{status or 'no answer'} within {within} s")
        assert stream.response.getheader("Content-Type", "").startswith("text/event-stream")
    return streams


def refused(host, port, mid, source) -> dict:
    """A stream past a cap: 503 at once, ``Retry-After``, the one-line JSON error."""
    stream = Stream(host, port, source, mid)
    try:
        status = stream.answer(time.monotonic() + 2)
        assert status == 503, f"a stream past the cap from {source}: {status or 'no answer'}"
        assert int(stream.response.getheader("Retry-After")) > 0
        body = stream.response.read()
        assert b"\n" not in body.strip()
        error = json.loads(body)
        assert error["error"] and "live-follow" in error["message"]
        return error
    finally:
        stream.close()


def test_anonymous_follow_streams_do_not_stall_recording(server):
    host, port = server
    rng = random.Random(13)
    recorder = Recorder(host, port)
    mid, tokens = recorder.create()  # the match the crowd follows
    recorder.decide(mid, tokens, 2, rng)
    assert recorder.slowest() < PROMPT * 3  # (first requests warm the server up)

    # 16 anonymous streams, 2 from each of 8 addresses: sent, then recording goes on at once
    crowd = [Stream(host, port, source, mid) for source in sources(10, 8)]
    time.sleep(0.5)
    other, other_tokens = recorder.create()
    recorder.decide(mid, tokens, 5, rng)
    recorder.decide(other, other_tokens, 5, rng)
    worst = recorder.slowest()
    assert worst < PROMPT, f"with 16 follow streams open a recording request took {worst:.2f} s"
    deadline = time.monotonic() + 5
    assert [s.answer(deadline) for s in crowd] == [200] * len(crowd)
    assert crowd[0].first_line().startswith(("id: 0", "event: divergence"))  # they do stream

    # they reconnect over and over while recording goes on; each closed slot is free at once
    churn_errors: list[BaseException] = []

    def churn():
        nonlocal crowd
        try:
            for _ in range(3):
                for stream in crowd:
                    stream.close()
                crowd = open_streams(host, port, mid, sources(10, 8))
        except BaseException as exc:  # noqa: BLE001 -- reported below
            churn_errors.append(exc)
    churner = threading.Thread(target=churn)
    churner.start()
    recorder.decide(mid, tokens, 10, rng)
    churner.join(timeout=60)
    assert not churner.is_alive() and not churn_errors, churn_errors
    worst = recorder.slowest()
    assert worst < PROMPT, f"with 16 streams reconnecting a recording request took {worst:.2f} s"

    # up to the cap: 16 more from 8 more addresses; recording still answers at once
    crowd += open_streams(host, port, mid, sources(18, 8))
    assert len(crowd) == MAX_STREAMS
    recorder.decide(mid, tokens, 5, rng)
    worst = recorder.slowest()
    assert worst < PROMPT, f"with {MAX_STREAMS} streams open a recording request took {worst:.2f} s"

    # past the caps: the address's (a third stream) and the server's (a fresh address)
    assert "from your address" in refused(host, port, mid, crowd[0].source)["message"]
    assert "most this server serves" in refused(host, port, mid, "127.0.0.60")["message"]
    for stream in crowd[:PER_CLIENT]:  # two leave: two others may come in
        stream.close()
    crowd = crowd[PER_CLIENT:] + open_streams(host, port, mid, sources(61, 1), within=3)
    assert "most this server serves" in refused(host, port, mid, "127.0.0.62")["message"]

    for stream in crowd:  # all gone: every slot is free again
        stream.close()
    crowd = open_streams(host, port, mid, sources(70, MAX_STREAMS // PER_CLIENT), within=5)
    recorder.decide(mid, tokens, 3, rng)
    assert recorder.slowest() < PROMPT
    for stream in crowd:
        stream.close()
