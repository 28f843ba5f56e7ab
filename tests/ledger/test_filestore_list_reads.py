"""Listing a file store reads only the match files that changed since this store last listed
them (``FileStore.info_of`` remembers each file's summary under its device, inode, size, mtime and
ctime, once the file is older than a coarse file-system clock's tick).

Found by driving ``wonders serve`` through a tournament day (20 tables, the dashboard polling
``GET /api/matches``): every listing read every byte of every match file, so the answer grew
with the day -- 1.2 s at 100 matches, 5.3 s at 400 (p50, measured 2026-11-27 06:37 and
06:40) -- while the ``/matches`` page, which kept its rows by head, stayed under 1 s.

The bytes read are the process's own count (``/proc/thread-self/io``, ``rchar``): a real
measure of what the listing read, not a stand-in.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ledger import FileStore
from ledger.events import JudgeNote, MatchEnded, MatchOpened, SeatInfo
from ledger.fileversion import GRANULARITY_NS

IO = Path("/proc/thread-self/io")
MATCHES, NOTES = 30, 200


def _read_bytes() -> int:
    for line in IO.read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/thread-self/io")


def _store(root: Path) -> list[str]:
    writer = FileStore(root)
    ids = [f"m-{n:02}" for n in range(MATCHES)]
    for match_id in ids:
        writer.create(MatchOpened(match_id=match_id, ruleset="1.3.2",
                                  seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")]))
        writer.append(match_id, [JudgeNote("j", f"note {n} " + "x" * 200) for n in range(NOTES)], 1)
    writer.close()
    return ids


@pytest.mark.skipif(not IO.exists(), reason="needs /proc/thread-self/io (Linux) to count reads")
def test_a_second_listing_reads_no_unchanged_file(tmp_path):
    _store(tmp_path)
    size = sum(p.stat().st_size for p in tmp_path.glob("*.jsonl"))
    # looking from past a coarse file-system clock's tick: the files just written are settled
    # (read within one of their last write, a summary is read again: ledger.fileversion)
    store = FileStore(tmp_path, now_ns=lambda: time.time_ns() + GRANULARITY_NS + 10**9)
    before = _read_bytes()
    assert len(store.list()) == MATCHES
    first = _read_bytes() - before
    before = _read_bytes()
    assert [i.length for i in store.list()] == [NOTES + 1] * MATCHES
    second = _read_bytes() - before
    assert first >= size  # the first listing reads every file
    assert second < size / 100, f"the second listing read {second} of {size} bytes again"


def test_a_listing_sees_what_another_writer_appended_ended_or_replaced(tmp_path):
    ids = _store(tmp_path)
    reader, writer = FileStore(tmp_path), FileStore(tmp_path)  # two processes' stores
    assert not reader.info(ids[0]).ended
    writer.append(ids[0], [JudgeNote("j", "one more")], NOTES + 1)
    writer.append(ids[1], [MatchEnded(winner="B", reason="concession")], NOTES + 1)
    infos = {i.match_id: i for i in reader.list()}
    assert infos[ids[0]].length == NOTES + 2 and not infos[ids[0]].ended
    assert infos[ids[1]].ended and infos[ids[1]].winner == "B"
    assert infos[ids[1]].reason == "concession"
    # the file replaced by one of the same size (another match under the id): read again
    writer.discard(ids[2])
    writer.create(MatchOpened(match_id=ids[2], ruleset="1.3.2",
                              seats=[SeatInfo("A", "Cat"), SeatInfo("B", "Dan")]))
    writer.append(ids[2], [JudgeNote("j", f"note {n} " + "x" * 200) for n in range(NOTES)], 1)
    again = reader.info(ids[2])
    assert [s.player for s in again.opened.seats] == ["Cat", "Dan"]


def test_a_torn_tail_is_read_each_time(tmp_path):
    ids = _store(tmp_path)
    reader = FileStore(tmp_path)
    path = tmp_path / f"{ids[0]}.jsonl"
    with path.open("ab") as handle:
        handle.write(b'{"seq":201,"type":"JudgeNote"')  # a crashed writer's half line
    assert reader.info(ids[0]).torn_tail is not None
    assert reader.info(ids[0]).torn_tail is not None
