"""Finding 7 of issue 13: creating a match was not atomic with its tokens.

SIGKILLs during creates left "live" matches without tokens (nobody could ever record them, and
their ids answered 409 for good) and ``.tmp`` files.  Here real ``wonders serve`` processes
(the CLI's entry point, forked from a parent that imported it once) on one store -- three at a
time, so writes are always under way somewhere -- are SIGKILLed again and
again while client threads create matches, record decisions and import match files; each
killed server is restarted at once.  Then every server is killed, the store is checked as the
kills left it, one server is started (it sweeps the store) and:

* every acknowledged write (a 201 answer) is there: each created match with its tokens, each
  recorded decision's events at their seqs, each imported file byte for byte;
* no match file is ever without its tokens -- not even right after the kills, before any sweep;
* after the restart no ``.tmp`` file and no unfinished create is left (a line in the log says
  what was swept), and nothing had to be moved aside;
* the id of every create or import whose answer never came can be used again (201), or its
  match was fully created (409, with its tokens and its first prompt recorded).

The other tests pin the same in process, deterministically: a create failing half-way rolls
back; a create whose server died is rolled back by the next start or the next create of its id;
a live match left without tokens by an older version is moved aside at start, freeing its id.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import msgspec
import pytest

from ledger.codec import GENESIS, encode_line
from ledger.events import MatchOpened, SeatInfo
from ledger.filestore import FileStore
from replay.recorder import Recorder
from replay.wotf.bots import BOTS
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from tests.web.test_api import choose

ROOT = Path(__file__).resolve().parents[2]
ORGANIZER = "crash-test-organizer-token-0123456789abcdef"
SEATS = [{"player": "Ann", "preset": "solfera-blaze"}, {"player": "Bob", "preset": "thalwind-sky"}]
KILLS = 12  # SIGKILLs while clients write (then every server is killed once more)
SLOTS = 3  # servers on the store at once; a kill happens only while another one serves
BETWEEN_KILLS = (0.5, 1.2)  # seconds


# A parent that has imported the service once and forks a ``wonders serve`` process (the CLI's
# own entry point, ``web.cli.main(["serve", …])``) for every start: each start costs a fork,
# not Python's imports, so 16 starts fit the time budget.  Its children are reaped by the
# kernel (SIGCHLD ignored), so a killed server is gone, not a zombie.
FORK_SERVER = r"""
import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
import web.app, web.cli, web.dashboard, web.play, web.serve, web.viewer
from replay.wotf.cards import default_cards
default_cards()
print("ready", flush=True)
for line in sys.stdin:
    out, err, *argv = line.split()
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 1)
        os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
        try:
            web.cli.main(argv)
        finally:
            os._exit(1)
    print(pid, flush=True)
"""


class Servers:
    """``SLOTS`` ``wonders serve`` processes on one store; a killed one is restarted at once
    (in the background, so the others keep serving while it starts)."""

    def __init__(self, store: Path, logs: Path):
        self.store, self.logs = store, logs
        self.lock = threading.Lock()
        self.up: dict[int, tuple[int, str, float]] = {}  # slot → pid, base, since
        self.pids: list[int] = []
        self.starting: list[threading.Thread] = []
        self.starts = 0
        env = dict(os.environ, WONDERS_ORGANIZER_TOKEN=ORGANIZER, WONDERS_SECRET_KEY="k" * 40)
        self.parent = subprocess.Popen([sys.executable, "-c", FORK_SERVER], env=env, cwd=ROOT,
                                       text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.parent.stdout.readline().strip() == "ready"

    def start(self, slot: int) -> None:
        with self.lock:
            self.starts += 1
            out = self.logs / f"serve-{self.starts:02d}.out"
            log = out.with_suffix(".log")
            self.parent.stdin.write(f"{out} {log} serve --store {self.store} --port 0 "
                                    f"--threads 8\n")
            self.parent.stdin.flush()
            pid = int(self.parent.stdout.readline())
            self.pids.append(pid)
        deadline = time.monotonic() + 60
        while "organizer token" not in (text := _read(out)):
            if time.monotonic() > deadline or not _alive(pid):
                raise AssertionError(f"wonders serve did not start: {text!r} {_read(log)!r}")
            time.sleep(0.02)
        base = text.split(" on ")[1].split()[0]
        with self.lock:
            self.up[slot] = (pid, base, time.monotonic())

    def restart_in_background(self, slot: int) -> None:
        thread = threading.Thread(target=self.start, args=(slot,), daemon=True)
        thread.start()
        self.starting.append(thread)

    def bases(self) -> list[str]:
        with self.lock:
            return [base for _, base, _ in self.up.values()]

    def kill_oldest(self) -> bool:
        """SIGKILL the server up the longest, if another one serves meanwhile."""
        with self.lock:
            if len(self.up) < 2:
                return False
            slot = min(self.up, key=lambda s: self.up[s][2])
            pid, _, _ = self.up.pop(slot)
        _kill(pid)
        self.restart_in_background(slot)
        return True

    def kill_all(self) -> None:
        for thread in self.starting:
            thread.join(timeout=60)
        with self.lock:
            pids, self.up = list(self.pids), {}
        for pid in pids:
            _kill(pid)

    def close(self) -> None:
        self.kill_all()
        self.parent.stdin.close()
        self.parent.terminate()
        self.parent.wait(timeout=10)


def _kill(pid: int) -> None:
    """SIGKILL a server and wait until it is gone."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        return ""


def request(base: str, method: str, path: str, token: str | None = None,
            body: bytes | None = None, timeout: float = 15) -> tuple[int, dict]:
    """One request on a fresh connection; raises ``OSError`` (or ``http.client`` errors) when
    the server dies under it -- the answer is then unknown."""
    host, port = base.split("//")[1].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        conn.close()


LOST = (OSError, http.client.HTTPException, ValueError)  # the server died mid-request


class Ledger:
    """What the clients were told: acknowledged writes, and writes whose answer never came."""

    def __init__(self):
        self.lock = threading.Lock()
        self.created: dict[str, dict] = {}  # id → tokens
        self.decided: dict[str, dict[int, str]] = {}  # id → seq → event type (acknowledged)
        self.imported: dict[str, tuple[bytes, dict]] = {}  # id → file, tokens
        self.unanswered_creates: list[str] = []
        self.unanswered_imports: dict[str, bytes] = {}
        self.errors: list[tuple] = []  # 5xx answers: never expected
        self.counter = 0

    def next_id(self, prefix: str) -> str:
        with self.lock:
            self.counter += 1
            return f"{prefix}-{self.counter:04d}"


def creator(servers: Servers, ledger: Ledger, stop: threading.Event, rng: random.Random):
    while not stop.is_set():
        bases = servers.bases()
        if not bases:
            time.sleep(0.05)
            continue
        match_id = ledger.next_id("c")
        body = json.dumps({"seats": SEATS, "match_id": match_id, "previous_loser": "B"}).encode()
        try:
            status, out = request(rng.choice(bases), "POST", "/api/matches", ORGANIZER, body)
        except LOST:
            with ledger.lock:
                ledger.unanswered_creates.append(match_id)
            continue
        with ledger.lock:
            if status == 201:
                ledger.created[match_id] = out["tokens"]
                ledger.decided.setdefault(match_id, {})
            elif status >= 500:
                ledger.errors.append(("create", match_id, status, out))


def decider(servers: Servers, ledger: Ledger, stop: threading.Event, rng: random.Random):
    finished: set[str] = set()
    while not stop.is_set():
        bases = servers.bases()
        with ledger.lock:
            live = [m for m in ledger.created if m not in finished]
        if not bases or not live:
            time.sleep(0.05)
            continue
        match_id = rng.choice(live)
        tokens = ledger.created[match_id]
        base = rng.choice(bases)
        try:
            status, pending = request(base, "GET", f"/api/matches/{match_id}/prompt",
                                      tokens["judge"])
            if status != 200 or pending["prompt"] is None:
                if status == 200:
                    finished.add(match_id)
                elif status >= 500:
                    ledger.errors.append(("prompt", match_id, status, pending))
                continue
            seat = pending["prompt"]["seat"]
            status, prompt = request(base, "GET", f"/api/matches/{match_id}/prompt", tokens[seat])
            if status != 200 or prompt["prompt"] is None or prompt["length"] != pending["length"]:
                continue
            decision = choose(prompt["prompt"], rng)
            body = json.dumps({"expected_seq": prompt["length"], "decision": decision}).encode()
            status, out = request(base, "POST", f"/api/matches/{match_id}/decisions",
                                  tokens[seat], body)
        except LOST:
            continue  # unanswered: the decision may or may not be there
        with ledger.lock:
            if status == 201:
                for event in out["events"]:
                    ledger.decided[match_id][event["seq"]] = event["event"]["type"]
            elif status >= 500:
                ledger.errors.append(("decision", match_id, status, out))


def importer(servers: Servers, ledger: Ledger, stop: threading.Event, rng: random.Random,
             bases_files: list[list]):
    while not stop.is_set():
        bases = servers.bases()
        if not bases:
            time.sleep(0.05)
            continue
        match_id = ledger.next_id("i")
        data = renamed(rng.choice(bases_files), match_id)
        try:
            status, out = request(rng.choice(bases), "POST", "/api/import", ORGANIZER, data)
        except LOST:
            with ledger.lock:
                ledger.unanswered_imports[match_id] = data
            continue
        with ledger.lock:
            if status == 201:
                ledger.imported[match_id] = (data, out["tokens"])
            elif status >= 500:
                ledger.errors.append(("import", match_id, status, out))
        time.sleep(0.02)


def source_matches(tmp_path: Path) -> list[list]:
    """A few matches in progress (their stored events), recorded in process by bots."""
    db = default_cards()
    decks = load_decks(None, db)
    store = FileStore(tmp_path / "source")
    out = []
    for i in range(3):
        a, b = decks[i % len(decks)], decks[(i + 1) % len(decks)]
        opened = MatchOpened(match_id=f"src-{i}", ruleset="1.3.2", seats=[
            SeatInfo("A", "Ann", a.name, a.entries(), a.archive_entries()),
            SeatInfo("B", "Bob", b.name, b.entries(), b.archive_entries())])
        recorder = Recorder.open(store, db, opened, rng=random.Random(i))
        bot = BOTS["greedy"](random.Random(i))
        for _ in range(4 + 3 * i):
            if recorder.engine.prompt is None:
                break
            recorder.submit(bot.decide(recorder.engine))
        out.append(list(store.read(opened.match_id)))
    return out


def renamed(stored: list, match_id: str) -> bytes:
    """The match file with another id: ``MatchOpened`` rewritten, the hash chain recomputed."""
    lines, prev = [], GENESIS
    for s in stored:
        event = msgspec.structs.replace(s.event, match_id=match_id) if s.seq == 0 else s.event
        line, prev = encode_line(event, s.seq, s.at, s.batch, prev)
        lines.append(line)
    return b"\n".join(lines) + b"\n"


def tokenless(store: Path) -> list[str]:
    return sorted(p.stem for p in store.glob("*.jsonl")
                  if not (store / ".tokens" / f"{p.stem}.json").exists())


def leftovers(store: Path) -> list[str]:
    return sorted(str(p.relative_to(store)) for p in store.rglob("*.tmp")) + \
        sorted(str(p.relative_to(store)) for p in (store / ".pending").glob("*"))


@pytest.fixture
def servers(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    servers = Servers(tmp_path / "store", logs)
    yield servers
    servers.close()


def test_sigkills_during_creates_decisions_and_imports_lose_nothing_acknowledged(tmp_path, servers):
    store, logs = servers.store, servers.logs
    sources = source_matches(tmp_path)
    starters = [threading.Thread(target=servers.start, args=(slot,)) for slot in range(SLOTS)]
    for thread in starters:
        thread.start()
    for thread in starters:
        thread.join()
    ledger, stop, rng = Ledger(), threading.Event(), random.Random(13)
    clients = [threading.Thread(target=creator, args=(servers, ledger, stop, random.Random(i)))
               for i in range(3)]
    clients += [threading.Thread(target=decider, args=(servers, ledger, stop, random.Random(10 + i)))
                for i in range(3)]
    clients += [threading.Thread(target=importer,
                                 args=(servers, ledger, stop, random.Random(20 + i), sources))
                for i in range(2)]
    for thread in clients:
        thread.start()
    kills = 0
    try:
        while kills < KILLS:
            time.sleep(rng.uniform(*BETWEEN_KILLS))
            if servers.kill_oldest():
                kills += 1
        time.sleep(rng.uniform(*BETWEEN_KILLS))
    finally:
        servers.kill_all()  # the last kills land mid-write too
        stop.set()
        for thread in clients:
            thread.join(timeout=30)

    assert not ledger.errors, ledger.errors[:3]
    assert len(ledger.created) >= 10 and len(ledger.imported) >= 3, \
        (len(ledger.created), len(ledger.imported))
    # As the kills left it, before any sweep: never a match file without its tokens
    assert tokenless(store) == []

    servers.start(0)  # one server; its start sweeps the store
    base = servers.bases()[0]
    assert leftovers(store) == [], leftovers(store)
    assert not (store / ".orphans").exists()
    assert tokenless(store) == []
    swept = [line for p in sorted(logs.glob("*.log")) for line in _read(p).splitlines()
             if "swept what a stopped server left" in line]
    assert any(" 0 unfinished create" not in line for line in swept), swept

    # every acknowledged create, with its tokens and every acknowledged decision
    for match_id, tokens in ledger.created.items():
        status, view = request(base, "GET", f"/api/matches/{match_id}/state", tokens["judge"])
        assert status == 200, (match_id, view)
        events = [s.event for s in FileStore.read_file(store / f"{match_id}.jsonl")]
        decided = ledger.decided[match_id]
        assert len(events) == view["length"] >= max(decided, default=0) + 1
        for seq, kind in decided.items():
            assert type(events[seq]).__name__ == kind, (match_id, seq)
    # every acknowledged import, byte for byte, with its tokens
    for match_id, (data, tokens) in ledger.imported.items():
        assert (store / f"{match_id}.jsonl").read_bytes() == data, match_id
        status, view = request(base, "GET", f"/api/matches/{match_id}/state", tokens["judge"])
        assert status == 200, (match_id, view)
    # every create or import whose answer never came: its id is free, or it was done
    for match_id in ledger.unanswered_creates:
        body = json.dumps({"seats": SEATS, "match_id": match_id}).encode()
        status, out = request(base, "POST", "/api/matches", ORGANIZER, body)
        assert status in (201, 409), (match_id, status, out)
        if status == 409:  # done, but its answer was lost: its tokens, its first prompt
            assert (store / ".tokens" / f"{match_id}.json").exists(), match_id
            status, view = request(base, "GET", f"/api/public/matches/{match_id}/state")
            assert status == 200 and view["prompt"] is not None, (match_id, view)
    for match_id, data in ledger.unanswered_imports.items():
        status, out = request(base, "POST", "/api/import", ORGANIZER, data)
        assert status in (201, 409), (match_id, status, out)
        assert (store / f"{match_id}.jsonl").read_bytes() == data
    assert tokenless(store) == []
    for path in store.glob("*.jsonl"):
        list(FileStore.read_file(path))  # intact: canonical lines, hash chain
    print(f"{kills + SLOTS} kills; {len(ledger.created)} creates, "
          f"{sum(map(len, ledger.decided.values()))} decided events, {len(ledger.imported)} "
          f"imports acknowledged; {len(ledger.unanswered_creates)} creates and "
          f"{len(ledger.unanswered_imports)} imports unanswered")


# -- the same guarantees in process, deterministically ------------------------------------------


def _app(store: Path):
    from web.app import create_app
    from web.config import Settings
    return create_app(Settings(store=store, organizer_token=ORGANIZER, secret_key="s" * 32))


def _create(client, match_id: str):
    response = client.post("/api/matches", json={"seats": SEATS, "match_id": match_id},
                           headers={"Authorization": f"Bearer {ORGANIZER}"})
    return response.status_code, response.get_json()


def test_a_create_that_fails_half_way_is_rolled_back_and_its_id_is_free(tmp_path, monkeypatch):
    store = tmp_path / "store"
    client = _app(store).test_client()

    def broken(self, batch):
        raise OSError(28, "No space left on device")
    with monkeypatch.context() as patch:  # the match file is written, its first batch fails
        patch.setattr(Recorder, "_append", broken)
        status, out = _create(client, "half-1")
    assert status == 503 and out["error"] == "unavailable", out  # a full disk: docs/api.md
    assert not (store / "half-1.jsonl").exists() and not (store / ".tokens" / "half-1.json").exists()
    assert leftovers(store) == []
    status, out = _create(client, "half-1")
    assert status == 201, out
    assert tokenless(store) == []


def test_a_create_whose_server_died_is_rolled_back_at_start_or_by_the_next_create(tmp_path, caplog):
    store = tmp_path / "store"
    client = _app(store).test_client()
    for match_id in ("dead-1", "dead-2"):
        assert _create(client, match_id)[0] == 201
    # what a server killed inside a create of each leaves: the pending file (marked: the id was
    # checked free), the tokens and the match file -- and a temporary file of a dead process
    for match_id in ("dead-1", "dead-2"):
        (store / ".pending" / f"{match_id}.json").write_bytes(b"id checked free\n")
    (store / ".dead-3.999999999.12345.tmp").write_bytes(b"{")
    with caplog.at_level("WARNING", logger="wonders.web"):
        status, out = _create(client, "dead-1")  # the next create of the id rolls it back
        assert status == 201, out
        client = _app(store).test_client()  # a start rolls back the other one
    assert "1 unfinished create rolled back (dead-2), 1 temporary file removed" in caplog.text
    assert leftovers(store) == [] and not (store / "dead-2.jsonl").exists()
    assert _create(client, "dead-2")[0] == 201
    assert tokenless(store) == []


def test_a_live_match_without_tokens_is_moved_aside_at_start(tmp_path):
    store = tmp_path / "store"
    db = default_cards()
    decks = load_decks(None, db)
    a, b = decks[0], decks[1]
    opened = MatchOpened(match_id="legacy-1", ruleset="1.3.2", seats=[
        SeatInfo("A", "Ann", a.name, a.entries(), a.archive_entries()),
        SeatInfo("B", "Bob", b.name, b.entries(), b.archive_entries())])
    Recorder.open(FileStore(store), db, opened)  # what an older version's dead create left
    ended = ROOT / "fixtures" / "matches" / "golden-s3-r1-132-0001.jsonl"
    (store / ended.name).write_bytes(ended.read_bytes())  # a finished record: stays as it is
    client = _app(store).test_client()
    assert (store / ".orphans" / "legacy-1.jsonl").exists() and (store / ended.name).exists()
    assert _create(client, "legacy-1")[0] == 201
    assert client.get(f"/api/matches/{ended.stem}").status_code == 200
