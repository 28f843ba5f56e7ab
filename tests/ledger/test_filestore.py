"""The file store: create, append with expected seq, read, list, follow, torn tails."""

import threading
import time

import pytest

from ledger import ConflictError, FileStore, MalformedEventError, MatchNotFoundError, TornTailWarning
from ledger.events import JudgeNote, MatchEnded, MatchOpened, SeatInfo
from replay.wotf.events import Passed


def opened(match_id="m-1", **meta):
    return MatchOpened(match_id=match_id, ruleset="1.3.2",
                       seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")], **meta)


def test_create_append_read_and_list(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened(tournament="Cup", round=2, table=5))
    stored = store.append("m-1", [Passed("A"), Passed("B")], 1)
    assert [s.seq for s in stored] == [1, 2] and stored[0].batch == 2
    assert [type(s.event).__name__ for s in store.read("m-1")] == ["MatchOpened", "Passed", "Passed"]
    assert [s.seq for s in store.read("m-1", from_seq=2)] == [2]
    store.append("m-1", [MatchEnded("A", "concession", {"A": 0, "B": 0})], 3)
    (info,) = store.list()
    assert (info.match_id, info.length, info.ended, info.winner) == ("m-1", 4, True, "A")
    assert (info.opened.tournament, info.opened.round, info.opened.table) == ("Cup", 2, 5)


def test_a_stale_expected_seq_is_a_conflict_and_writes_nothing(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened())
    store.append("m-1", [Passed("A")], 1)
    before = (tmp_path / "m-1.jsonl").read_bytes()
    with pytest.raises(ConflictError, match="expected seq 1 but the match has 2 events"):
        store.append("m-1", [Passed("B")], 1)
    assert (tmp_path / "m-1.jsonl").read_bytes() == before


def test_ids_are_unique_validated_and_missing_matches_are_errors(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened())
    with pytest.raises(ConflictError, match="already exists"):
        store.create(opened())
    with pytest.raises(MatchNotFoundError):
        list(store.read("m-2"))
    with pytest.raises(MatchNotFoundError):
        store.append("m-2", [Passed("A")], 1)
    with pytest.raises(MalformedEventError, match="not valid"):
        store.create(opened("../evil"))


def test_follow_yields_events_as_they_are_appended(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened())
    seen = []

    def writer():
        writer_store = FileStore(tmp_path)
        for seq in range(1, 4):
            time.sleep(0.05)
            writer_store.append("m-1", [JudgeNote("j", str(seq))], seq)
        writer_store.append("m-1", [MatchEnded(None, "draw", {"A": 0, "B": 0})], 4)

    thread = threading.Thread(target=writer)
    thread.start()
    for stored in store.follow("m-1", from_seq=1, poll=0.01, timeout=5):
        seen.append(stored.seq)
    thread.join()
    assert seen == [1, 2, 3, 4]  # stopped by MatchEnded, not by the timeout


def test_follow_stops_after_an_idle_timeout(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened())
    assert [s.seq for s in store.follow("m-1", poll=0.01, timeout=0.1)] == [0]


def _torn(tmp_path, tail: bytes):
    store = FileStore(tmp_path)
    store.create(opened())
    store.append("m-1", [Passed("A"), Passed("B")], 1)
    path = tmp_path / "m-1.jsonl"
    good = path.read_bytes()
    with open(path, "ab") as handle:
        handle.write(tail)
    return good


def test_a_partial_last_line_is_left_by_readers_and_truncated_by_the_next_writer(tmp_path):
    torn = b'{"seq":3,"type":"Passed","seat":"A","au'
    good = _torn(tmp_path, torn)
    store = FileStore(tmp_path)
    assert [e.seq for e in store.read("m-1")] == [0, 1, 2]
    assert (tmp_path / "m-1.jsonl").read_bytes() == good + torn  # readers never modify a file
    tail = store.torn_tail("m-1")
    assert (tail.kind, tail.line, tail.seq, tail.offset, tail.size) == ("torn", 4, 3, len(good), len(torn))
    assert store.list()[0].torn_tail == tail and store.list()[0].length == 3
    with pytest.warns(TornTailWarning, match="dropped a torn tail"):
        FileStore(tmp_path).append("m-1", [Passed("A")], 3)  # the writer drops it, and the log goes on
    assert (tmp_path / "m-1.jsonl").read_bytes().startswith(good)
    assert [e.seq for e in store.read("m-1")] == [0, 1, 2, 3] and store.torn_tail("m-1") is None


def test_complete_lines_of_an_unfinished_batch_are_torn_too(tmp_path):
    from ledger.codec import encode_line
    store = FileStore(tmp_path)
    store.create(opened())
    last = list(store.read("m-1"))[-1]
    good = (tmp_path / "m-1.jsonl").read_bytes()
    # batch 1..3, only line 1 written
    line, _ = encode_line(Passed("A"), 1, "2026-01-01T00:00:00.000Z", 3, last.hash)
    with open(tmp_path / "m-1.jsonl", "ab") as handle:
        handle.write(line + b"\n")
    assert [e.seq for e in FileStore(tmp_path).read("m-1")] == [0]
    assert (tmp_path / "m-1.jsonl").read_bytes() == good + line + b"\n"
    assert FileStore(tmp_path).torn_tail("m-1").kind == "cut"
    with pytest.warns(TornTailWarning):
        FileStore(tmp_path).append("m-1", [Passed("B")], 1)
    assert [type(e.event).__name__ for e in FileStore(tmp_path).read("m-1")] == ["MatchOpened", "Passed"]


def test_a_corrupt_complete_line_is_an_error_not_a_truncation(tmp_path):
    _torn(tmp_path, b"garbage that is a whole line\n")
    with pytest.raises(MalformedEventError, match=r"m-1.jsonl:4: not a ledger line"):
        list(FileStore(tmp_path).read("m-1"))
