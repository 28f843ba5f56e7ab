"""The store contract under concurrency and damage, for every backend unchanged.

* Writers racing on one match -- threads, and real processes each with its own store
  instance -- : exactly one wins each seq, the losers get a conflict and write nothing, the
  stream never forks, and every acknowledged batch is read back at the seq it was
  acknowledged at.
* Damage to stored lines is found on read (the chain and each line's hash are checked), and
  a torn tail (where a backend can have one: the file store) is left out of every read and
  dropped by the next writer.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest

from ledger.errors import ConflictError, IntegrityError, LedgerError
from ledger.events import JudgeNote
from tests.ledger.contract.matches import notes, opened

REPO = Path(__file__).resolve().parents[3]


def check_no_fork(store, acknowledged: list[tuple[int, list[str]]]) -> None:
    """Every acknowledged batch (first seq, its notes' texts) is in the stream at its seq; the
    stream is one chain with nothing else in it."""
    events = list(store.read("m-1"))
    assert [s.seq for s in events] == list(range(len(events)))
    texts = {s.seq: s.event.text for s in events[1:]}
    for first, batch in acknowledged:
        assert [texts[first + i] for i in range(len(batch))] == batch
    assert sum(len(b) for _, b in acknowledged) == len(events) - 1  # nothing unacknowledged


def test_threads_racing_on_one_match_never_fork(store, reopen):
    store.create(opened())
    acknowledged: list[tuple[int, list[str]]] = []
    conflicts = []
    lock = threading.Lock()

    def writer(name: str) -> None:
        mine = reopen()
        for k in range(15):
            batch = [f"{name}-{k}-{i}" for i in range(1 + k % 3)]
            while True:
                seq = mine.head("m-1").length
                try:
                    stored = mine.append("m-1", [JudgeNote("j", t) for t in batch], seq)
                except ConflictError:
                    with lock:
                        conflicts.append(name)
                    continue
                with lock:
                    acknowledged.append((stored[0].seq, batch))
                break

    threads = [threading.Thread(target=writer, args=(f"t{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(acknowledged) == 60
    check_no_fork(reopen(), acknowledged)


def test_two_stale_writers_at_one_seq_exactly_one_wins(store, reopen):
    store.create(opened())
    results: list[str] = []
    barrier = threading.Barrier(6)

    def writer(n: int) -> None:
        mine = reopen()
        barrier.wait()
        try:
            mine.append("m-1", [JudgeNote("j", f"w{n}")], 1)
            results.append("won")
        except ConflictError:
            results.append("conflict")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(results) == ["conflict"] * 5 + ["won"]
    assert reopen().head("m-1").length == 2


WRITER = r"""
import json, sys
from ledger.errors import ConflictError
from ledger.events import JudgeNote
from ledger.stores import open_store
store, name, count = open_store(sys.argv[1]), sys.argv[2], int(sys.argv[3])
conflicts = 0
for k in range(count):
    batch = [f"{name}-{k}-{i}" for i in range(1 + k % 4)]
    while True:
        seq = store.head("m-1").length
        try:
            stored = store.append("m-1", [JudgeNote("j", t) for t in batch], seq)
        except ConflictError:
            conflicts += 1
            continue
        print(json.dumps([stored[0].seq, batch]), flush=True)
        break
print(json.dumps({"conflicts": conflicts}), flush=True)
store.close()
"""


def test_processes_racing_on_one_match_never_fork_nor_lose_an_acknowledged_write(store, reopen):
    store.create(opened())
    url = store.url
    children = [subprocess.Popen([sys.executable, "-c", WRITER, url, f"p{n}", "25"], cwd=REPO,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for n in range(4)]
    acknowledged, conflicts = [], 0
    for child in children:
        out, err = child.communicate(timeout=240)
        assert child.returncode == 0, err
        for line in out.splitlines():
            item = json.loads(line)
            if isinstance(item, dict):
                conflicts += item["conflicts"]
            else:
                acknowledged.append((item[0], item[1]))
    assert len(acknowledged) == 100
    check_no_fork(reopen(), acknowledged)
    print(f"4 processes, 100 batches acknowledged, {conflicts} conflicts refused")


def _tamper(store, seq: int, old: bytes, new: bytes) -> None:
    """Change stored bytes of one line behind the store's back (as a disk or a person might)."""
    if hasattr(store, "pool"):  # PostgreSQL: the row
        with store.pool.connection() as conn:
            line = conn.execute("SELECT line FROM wonders_events WHERE match_id = 'm-1' AND "
                                "seq = %s", [seq]).fetchone()[0]
            conn.execute("UPDATE wonders_events SET line = %s WHERE match_id = 'm-1' AND seq = %s",
                         [bytes(line).replace(old, new), seq])
    else:
        path = store.path("m-1")
        path.write_bytes(path.read_bytes().replace(old, new))


def test_an_altered_line_is_found_on_read(store, reopen):
    store.create(opened())
    store.append("m-1", notes(3), 1)
    _tamper(store, 2, b'"n1"', b'"n7"')
    with pytest.raises(IntegrityError, match=r"m-1\.jsonl:3"):
        list(reopen().read("m-1"))


def test_a_removed_line_breaks_the_chain_on_read(store, reopen):
    store.create(opened())
    store.append("m-1", notes(1), 1)
    store.append("m-1", notes(1, "x"), 2)
    store.append("m-1", notes(1, "y"), 3)
    if hasattr(store, "pool"):
        with store.pool.connection() as conn:
            conn.execute("DELETE FROM wonders_events WHERE match_id = 'm-1' AND seq = 2")
    else:
        path = store.path("m-1")
        lines = path.read_bytes().split(b"\n")
        path.write_bytes(b"\n".join(lines[:2] + lines[3:]))
    with pytest.raises(LedgerError, match=r"m-1\.jsonl:3"):
        list(reopen().read("m-1"))


def test_a_torn_tail_is_never_read_and_the_next_writer_drops_it(store, reopen):
    store.create(opened())
    if not hasattr(store, "path"):  # a PostgreSQL batch is one transaction: whole or absent
        store.append("m-1", notes(2), 1)
        assert store.torn_tail("m-1") is None and store.head("m-1").length == 3
        return
    store.append("m-1", notes(2), 1)
    head = store.head("m-1")
    store.close()  # its writer dies (its lock, and any lease, go with it) mid-append:
    with open(store.path("m-1"), "ab") as handle:
        handle.write(b'{"seq":3,"type":"JudgeNote","judge":"j","te')
    again = reopen()
    assert again.head("m-1") == head and len(list(again.read("m-1"))) == 3
    assert again.export_lines("m-1") == store.export_lines("m-1")
    assert again.torn_tail("m-1") is not None
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        again.append("m-1", notes(1, "z"), 3)
    assert [s.seq for s in reopen().read("m-1")] == [0, 1, 2, 3]


def test_the_database_key_refuses_a_second_event_at_a_seq(store):
    """Even a writer that skipped the store's own check can't fork a PostgreSQL match: the
    ``(match_id, seq)`` primary key refuses the row (the file store has no such second line
    of defence: its check runs under the file's lock)."""
    store.create(opened())
    store.append("m-1", notes(1), 1)
    if not hasattr(store, "pool"):
        return
    before = store.export_lines("m-1")
    with pytest.raises(Exception, match="duplicate key"), store.pool.connection() as conn:
        conn.execute("INSERT INTO wonders_events (match_id, seq, line) VALUES ('m-1', 1, 'x')")
    assert store.export_lines("m-1") == before
