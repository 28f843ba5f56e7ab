"""PostgreSQL behind the whole program: real ``wonders serve`` processes racing on one database,
and the CLI (simulate, verify, ingest, upgrade, copy) with ``postgresql://`` stores.

* Three ``wonders serve --store postgresql://…`` processes record concurrently: racing seats
  get exactly one 201 per seq and 409s, many judges' notes on every server all land, no match
  forks, and every acknowledged write is in the database at the seq it was acknowledged at.
* ``wonders copy`` between a directory and PostgreSQL is byte-identical line for line, and a
  simulation into PostgreSQL exports the same bytes as the same simulation into a directory.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ledger.events import JudgeNote
from ledger.stores import open_store
from replay.replayer import Replay
from replay.wotf.cards import default_cards
from tests.web.live_http import call as _call
from tests.web.serve_process import serving

ROOT = Path(__file__).parents[2]
ORGANIZER = "pg-serve-test-organizer-token-0123456789"


@pytest.fixture
def servers(pg_url):
    with serving(pg_url, ORGANIZER, 3) as started:
        for _base, line in started:
            assert "postgresql://" in line and "options" not in line  # the store named, no secrets
        yield [base for base, _line in started], pg_url


def _create(base, match_id):
    status, created = _call(base, "POST", "/api/matches", ORGANIZER, {
        "match_id": match_id,
        "seats": [{"player": "Ann", "preset": "solfera-blaze"},
                  {"player": "Bob", "preset": "thalwind-sky"}], "previous_loser": "B"})
    assert status == 201, created
    return created["tokens"]


def test_servers_on_one_database_record_concurrently_without_fork_or_loss(servers):
    bases, url = servers
    tokens = {mid: _create(bases[n], mid) for n, mid in enumerate(["pg-1", "pg-2", "pg-3"])}
    # A create of a taken id on another server is refused, and leaves the match as it was
    status, _ = _call(bases[2], "POST", "/api/matches", ORGANIZER, {
        "match_id": "pg-1", "seats": [{"player": "X", "preset": "solfera-blaze"},
                                      {"player": "Y", "preset": "thalwind-sky"}]})
    assert status == 409
    # 1. Racing seats: 9 clients on 3 servers send the same decision at the same seq
    for mid in tokens:
        for round_ in range(3):
            status, pending = _call(bases[round_ % 3], "GET", f"/api/matches/{mid}/prompt",
                                    tokens[mid]["judge"])
            seat = pending["prompt"]["seat"]
            status, prompt = _call(bases[0], "GET", f"/api/matches/{mid}/prompt",
                                   tokens[mid][seat])
            option = prompt["prompt"]["options"][0]["decision"] if prompt["prompt"]["options"] \
                else {"type": "Answered", "kind": prompt["prompt"]["kind"], "pick": []}
            results: list[int] = []
            barrier = threading.Barrier(9)

            def send(base, mid=mid, seat=seat, pending=pending, option=option,
                     results=results, barrier=barrier):
                barrier.wait()
                results.append(_call(base, "POST", f"/api/matches/{mid}/decisions",
                                     tokens[mid][seat],
                                     {"expected_seq": pending["length"], "decision": option})[0])
            threads = [threading.Thread(target=send, args=(bases[i % 3],)) for i in range(9)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(results) == [201] + [409] * 8, (mid, round_, results)
    # 2. Many writers: 6 judges' clients per match spread over the servers, each adding notes
    #    at the length it last saw and retrying on 409, all at once on all three matches
    acknowledged: dict[str, list[tuple[int, str]]] = {mid: [] for mid in tokens}
    conflicts = []
    lock = threading.Lock()

    def judge(base, mid, name):
        for k in range(6):
            text = f"{name}-{k}"
            while True:
                status, state = _call(base, "GET", f"/api/matches/{mid}/state",
                                      tokens[mid]["judge"])
                status, out = _call(base, "POST", f"/api/matches/{mid}/notes",
                                    tokens[mid]["judge"],
                                    {"text": text, "expected_seq": state["length"]})
                if status == 409:
                    with lock:
                        conflicts.append(mid)
                    continue
                assert status == 201, out
                with lock:
                    acknowledged[mid].append((out["events"][0]["seq"], text))
                break

    threads = [threading.Thread(target=judge, args=(bases[i % 3], mid, f"j{i}"))
               for mid in tokens for i in range(6)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    took = time.monotonic() - started
    store = open_store(url)
    try:
        for mid in tokens:
            assert len(acknowledged[mid]) == 36
            stored = list(store.read(mid))  # every line's hash and chain link checked
            assert [s.seq for s in stored] == list(range(len(stored)))
            notes = {s.seq: s.event.text for s in stored if isinstance(s.event, JudgeNote)}
            for seq, text in acknowledged[mid]:
                assert notes[seq] == text  # acknowledged at that seq, and there
            assert len(notes) == 36  # and nothing else was written
            replay = Replay(stored, default_cards())  # one match, re-derived: no fork
            assert len(replay) == len(stored)
            views = [_call(base, "GET", f"/api/matches/{mid}/state", tokens[mid]["judge"])[1]
                     for base in bases]
            assert views[0] == views[1] == views[2] and views[0]["length"] == len(stored)
    finally:
        store.close()
    print(f"3 servers, 3 matches: 27 decision races (1 win + 8 conflicts each), "
          f"{sum(map(len, acknowledged.values()))} notes acknowledged by 18 clients, "
          f"{len(conflicts)} conflicts refused, in {took:.1f} s")


def test_a_follower_on_one_server_is_woken_by_an_append_on_another(servers):
    bases, _url = servers
    tokens = _create(bases[0], "pg-follow")
    status, state = _call(bases[0], "GET", "/api/matches/pg-follow/state", tokens["judge"])
    length = state["length"]
    request = urllib.request.Request(
        f"{bases[1]}/api/matches/pg-follow/follow?from={length}&timeout=20",
        headers={"Authorization": f"Bearer {tokens['judge']}"})
    got: list[tuple[str, float]] = []

    def follow():
        with urllib.request.urlopen(request, timeout=30) as response:
            for raw in response:
                line = raw.decode().strip()
                if line.startswith("data:") and "note from server 3" in line:
                    got.append((line, time.monotonic()))
                    return

    thread = threading.Thread(target=follow)
    thread.start()
    time.sleep(1.0)
    sent = time.monotonic()
    status, _ = _call(bases[2], "POST", "/api/matches/pg-follow/notes", tokens["judge"],
                      {"text": "note from server 3", "expected_seq": length})
    assert status == 201
    thread.join(30)
    assert got, "the follower on another server never saw the note"
    assert got[0][1] - sent < 3.0


def _wonders(*args, check=True):
    done = subprocess.run([sys.executable, "-m", "web.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.glob("*.jsonl"))}


def test_copy_between_a_directory_and_postgresql_is_byte_identical(pg_url, tmp_path,
                                                                   postgres_cluster):
    # The same simulation into a directory and into PostgreSQL: the same bytes
    _wonders("simulate", "--matches", "3", "--seed", "7", "--out", str(tmp_path / "files"))
    _wonders("simulate", "--matches", "3", "--seed", "7", "--out", pg_url)
    _wonders("copy", pg_url, str(tmp_path / "back"))
    files = _files(tmp_path / "files")
    assert len(files) == 3 and _files(tmp_path / "back") == files
    # directory -> another database -> directory: byte-identical line for line
    other = postgres_cluster.schema_url()
    out = _wonders("copy", str(tmp_path / "files"), other).stdout
    assert out.strip().splitlines()[-1].startswith("3 copied, 0 already there, 0 failed")
    again = _wonders("copy", str(tmp_path / "files"), other).stdout
    assert again.strip().splitlines()[-1].startswith("0 copied, 3 already there, 0 failed")
    _wonders("copy", other, str(tmp_path / "round-trip"))
    assert _files(tmp_path / "round-trip") == files
    # verify reads a postgresql:// store; ingest from it equals ingest from the directory
    verified = _wonders("verify", other).stdout
    assert verified.strip().splitlines()[-1] == "3 passed, 0 failed"
    _wonders("ingest", other, "--db", str(tmp_path / "pg.duckdb"))
    _wonders("ingest", str(tmp_path / "files"), "--db", str(tmp_path / "files.duckdb"))
    import duckdb

    rows = []
    for db in ("pg.duckdb", "files.duckdb"):
        con = duckdb.connect(str(tmp_path / db), read_only=True)
        rows.append(con.execute("SELECT * EXCLUDE (store_identity) FROM matches "  # (a file's)
                                "ORDER BY match_id").fetchall())
        con.close()
    assert rows[0] == rows[1] and len(rows[0]) == 3
    second = _wonders("ingest", other, "--db", str(tmp_path / "pg.duckdb")).stdout
    assert "0 new, 0 grown, 3 unchanged" in second


def test_copy_refuses_a_match_the_target_has_otherwise(pg_url, tmp_path):
    _wonders("simulate", "--matches", "1", "--seed", "3", "--out", str(tmp_path / "a"))
    (path,) = (tmp_path / "a").glob("*.jsonl")
    _wonders("copy", str(tmp_path / "a"), pg_url)
    store = open_store(pg_url)
    try:
        match_id = path.name[:-len(".jsonl")]
        before = store.export_lines(match_id)
    finally:
        store.close()
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(lines[:-2]) + b"\n")  # an earlier copy of the match, say
    done = _wonders("copy", pg_url, str(tmp_path / "a"), check=False)
    assert done.returncode == 1 and "FAIL" in done.stdout and "left as it is" in done.stdout
    store = open_store(pg_url)
    try:
        assert store.export_lines(match_id) == before
    finally:
        store.close()


def test_an_unreachable_database_is_one_line(tmp_path):
    done = _wonders("verify", f"postgresql://nobody@/none?host={tmp_path}&connect_timeout=2",
                    check=False)
    assert done.returncode == 1
    assert done.stderr.startswith("error: PostgreSQL store postgresql://nobody@")
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_upgrade_reads_and_writes_postgresql_stores(tmp_path, postgres_cluster):
    import shutil

    from replay.resources import golden_dir

    old = sorted(p for p in golden_dir().glob("golden-*.jsonl")
                 if not p.name.startswith("golden-s3"))[:2]
    (tmp_path / "old").mkdir()
    for path in old:
        shutil.copy(path, tmp_path / "old" / path.name)
    source, target = postgres_cluster.schema_url(), postgres_cluster.schema_url()
    _wonders("copy", str(tmp_path / "old"), source)
    out = _wonders("upgrade", source, target).stdout
    assert out.strip().splitlines()[-1] == "2 upgraded, 0 already schema 3, 0 failed"
    verified = _wonders("verify", target).stdout
    assert verified.strip().splitlines()[-1] == "2 passed, 0 failed"
    assert all("schema 3" in line for line in verified.splitlines()[:-1])
