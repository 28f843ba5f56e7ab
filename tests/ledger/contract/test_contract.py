"""The store contract (DESIGN.md section 5): every backend runs these tests unchanged.

Durability (a reopened store reads back every acknowledged batch), conflicts (a stale
``expected_seq`` is refused with a clear error and writes nothing), heads and summaries,
listing with filters, follow (a blocked follower wakes on an append), export → import
byte-identical, ids validated, and the chain checked on read.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
import time

import msgspec
import pytest

from ledger.codec import GENESIS
from ledger.errors import ConflictError, LedgerError, MalformedEventError, MatchNotFoundError
from ledger.events import JudgeNote, MatchEnded, MatchOpened
from ledger.stores import open_store
from tests.ledger.contract.matches import ended, notes, opened


def test_create_append_read_back_after_reopening(store, reopen):
    first = store.create(opened(tournament="Cup", round=2, table=5))
    assert (first.seq, first.batch, first.prev) == (0, 0, GENESIS)
    stored = store.append("m-1", notes(3), 1)
    assert [s.seq for s in stored] == [1, 2, 3] and {s.batch for s in stored} == {3}
    store.append("m-1", notes(1, "x"), 4)
    again = reopen()
    events = list(again.read("m-1"))
    assert [s.seq for s in events] == [0, 1, 2, 3, 4]
    assert [s.hash for s in events[1:4]] == [s.hash for s in stored]
    assert events[4].event == JudgeNote("judge", "x0") and events[4].batch == 4
    assert isinstance(events[0].event, MatchOpened) and events[0].event.tournament == "Cup"
    for before, after in itertools.pairwise(events):
        assert after.prev == before.hash
    assert [s.seq for s in again.read("m-1", from_seq=3)] == [3, 4]
    assert list(again.read("m-1", from_seq=5)) == []


def test_a_stale_expected_seq_is_refused_clearly_and_writes_nothing(store, reopen):
    store.create(opened())
    store.append("m-1", notes(2), 1)
    before = store.export_lines("m-1")
    for stale in (1, 2, 4, 0):
        with pytest.raises(ConflictError, match=f"expected seq {stale} but the match has 3 events"):
            store.append("m-1", notes(1), stale)
    assert reopen().export_lines("m-1") == before
    assert store.head("m-1").length == 3
    store.append("m-1", notes(1), 3)  # the right seq still works
    assert store.head("m-1").length == 4


def test_a_match_id_is_taken_once_and_validated(store):
    store.create(opened())
    with pytest.raises(ConflictError, match="already exists"):
        store.create(opened())
    for bad in ("../evil", "", "a b", "m\n", "x" * 129, ".hidden"):
        with pytest.raises(MalformedEventError, match="not valid"):
            store.create(opened(bad))
        with pytest.raises(MalformedEventError, match="not valid"):
            store.check_id(bad)
    assert store.ids() == ["m-1"]


def test_a_missing_match_is_its_own_error(store):
    store.create(opened())
    with pytest.raises(MatchNotFoundError, match="no match 'm-2'"):
        list(store.read("m-2"))
    with pytest.raises(MatchNotFoundError):
        store.append("m-2", notes(1), 1)
    with pytest.raises(MatchNotFoundError):
        store.head("m-2")
    with pytest.raises(MatchNotFoundError):
        store.info("m-2")
    with pytest.raises(MatchNotFoundError):
        store.export_lines("m-2")
    assert store.exists("m-1") and not store.exists("m-2")


def test_head_is_length_last_hash_and_bytes(store, reopen):
    store.create(opened())
    stored = store.append("m-1", notes(4), 1)
    head = store.head("m-1")
    assert (head.length, head.last_hash) == (5, stored[-1].hash)
    assert head.size == len(store.export_lines("m-1"))
    last_line = store.export_lines("m-1").split(b"\n")[-2]
    assert head.last_line_sha256 == hashlib.sha256(last_line).hexdigest()
    assert reopen().head("m-1") == head
    assert store.length("m-1") == 5
    assert store.heads() == {"m-1": head}


def test_summary_of_one_match_and_how_it_ended(store):
    cards = [{"name": "Card"}]
    store.create(opened("m-1", tournament="Cup", cards=cards,
                        cards_digest=hashlib.sha256(msgspec.json.encode(cards)).hexdigest()))
    store.create(opened("m-2"))
    store.append("m-1", notes(2) + ended("B"), 1)
    info = store.info("m-1")
    assert (info.match_id, info.length, info.ended, info.winner, info.reason) == \
        ("m-1", 4, True, "B", "concession")
    assert info.opened.tournament == "Cup" and info.torn_tail is None
    # a listing's opening leaves the embedded card definitions out (kept per match between
    # listings, they would be most of a store's summaries); the record keeps them
    assert info.opened.cards == [] and info.opened.cards_digest
    assert next(iter(store.read("m-1"))).event.cards == cards
    other = store.info("m-2")
    assert (other.length, other.ended, other.winner) == (1, False, None)


def test_listing_with_filters(store):
    store.create(opened("c-1", ("Ann", "Bob"), tournament="Cup", round=1, table=1))
    store.create(opened("c-2", ("Cid", "Ann"), tournament="Cup", round=1, table=2))
    store.create(opened("c-3", ("Bob", "Cid"), tournament="Cup", round=2, table=1))
    store.create(opened("f-1", ("Dee", "Eve")))
    store.append("c-2", ended("A"), 1)
    ids = lambda **f: [i.match_id for i in store.list(**f)]  # noqa: E731
    assert ids() == ["c-1", "c-2", "c-3", "f-1"] == store.ids()
    assert ids(tournament="Cup") == ["c-1", "c-2", "c-3"]
    assert ids(tournament="Cup", round=1) == ["c-1", "c-2"]
    assert ids(table=1) == ["c-1", "c-3"]
    assert ids(player="Ann") == ["c-1", "c-2"]
    assert ids(player="Cid", round=2) == ["c-3"]
    assert ids(ended=True) == ["c-2"] and ids(ended=False) == ["c-1", "c-3", "f-1"]
    assert ids(game="wotf") == ["c-1", "c-2", "c-3", "f-1"] and ids(game="sow") == []
    assert ids(player="Nobody") == []
    with pytest.raises(TypeError, match="unknown filter"):
        store.list(colour="red")


def test_follow_wakes_a_blocked_follower_on_append(store, reopen):
    store.create(opened())
    got: list[tuple[int, float]] = []
    started = threading.Event()

    def follower():
        started.set()
        for item in reopen().follow("m-1", from_seq=1, timeout=20):
            got.append((item.seq, time.monotonic()))

    thread = threading.Thread(target=follower)
    thread.start()
    started.wait()
    time.sleep(0.5)  # the follower is blocked: nothing to yield
    assert got == []
    writer = reopen()
    appended_at = time.monotonic()
    writer.append("m-1", notes(2), 1)
    deadline = time.monotonic() + 10
    while len(got) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [seq for seq, _ in got] == [1, 2]
    assert got[0][1] - appended_at < 2.0  # woken by the append, not by the idle timeout
    writer.append("m-1", ended(), 3)  # the follow ends with the match
    thread.join(10)
    assert not thread.is_alive() and [seq for seq, _ in got] == [1, 2, 3]


def test_follow_gives_up_after_its_idle_timeout(store):
    store.create(opened())
    store.append("m-1", notes(1), 1)
    started = time.monotonic()
    assert [s.seq for s in store.follow("m-1", 0, timeout=0.5)] == [0, 1]
    assert 0.4 < time.monotonic() - started < 5


def test_export_then_import_is_byte_identical_in_both_directions(store, reopen, tmp_path):
    store.create(opened(tournament="Cup"))
    store.append("m-1", notes(3), 1, at="2026-04-21T19:35:23.946Z")
    store.append("m-1", notes(2, "é∞\u2028") + ended(), 4)
    data = store.export_lines("m-1")
    assert data.endswith(b"\n") and data.count(b"\n") == 7
    other = open_store(str(tmp_path / "elsewhere"))
    head = other.import_lines(data)
    assert (head.length, head.size) == (7, len(data))
    assert other.export_lines("m-1") == data
    assert other.info("m-1").ended
    store.discard("m-1")
    assert not store.exists("m-1")
    assert store.import_lines(other.export_lines("m-1")) == head
    assert reopen().export_lines("m-1") == data
    assert [s.hash for s in reopen().read("m-1")] == [s.hash for s in other.read("m-1")]
    with pytest.raises(ConflictError, match="already exists"):
        store.import_lines(data)


def test_import_refuses_damaged_lines_and_stores_nothing(store):
    store.create(opened("m-1"))
    store.append("m-1", notes(2), 1)
    good = store.export_lines("m-1")
    store.discard("m-1")
    lines = good.split(b"\n")
    damaged = {
        "torn": good[:-5],
        "cut": b"\n".join(lines[:2]) + b"\n",
        "hash": good.replace(b'"n1"', b'"n9"'),
        "order": b"\n".join([lines[0], lines[2], lines[1]]) + b"\n",
        "spaces": good.replace(b'"seq":1,', b'"seq": 1,'),
        "empty": b"",
    }
    for name, data in damaged.items():
        with pytest.raises(LedgerError):
            store.import_lines(data, where=f"{name}.jsonl")
        assert store.ids() == [], name


def test_a_batch_is_atomic_and_batches_are_never_split(store, reopen):
    store.create(opened())
    for n in range(1, 6):
        store.append("m-1", notes(n), store.head("m-1").length)
    events = list(reopen().read("m-1"))
    batches: dict[int, list[int]] = {}
    for s in events:
        batches.setdefault(s.batch, []).append(s.seq)
    assert [len(v) for k, v in sorted(batches.items())] == [1, 1, 2, 3, 4, 5]
    assert all(max(v) == k for k, v in batches.items())


def test_an_ended_match_is_listed_as_ended_after_later_notes(store):
    store.create(opened())
    store.append("m-1", ended("A"), 1)
    store.append("m-1", [JudgeNote("judge", "after")], 2)
    info = store.info("m-1")
    assert info.ended and info.winner == "A" and info.length == 3
    assert isinstance(list(store.read("m-1"))[1].event, MatchEnded)


def test_a_reader_sees_another_writers_appends_from_where_it_stopped(store, reopen):
    store.create(opened())
    store.append("m-1", notes(3), 1)
    reader, writer = reopen(), reopen()
    seen = list(reader.read("m-1"))
    for n in range(1, 6):
        writer.append("m-1", notes(n, f"b{n}-"), writer.head("m-1").length)
        new = list(reader.read("m-1", len(seen)))
        assert [s.seq for s in new] == list(range(len(seen), len(seen) + n))
        assert new[0].prev == seen[-1].hash
        seen += new
    assert [s.hash for s in reader.read("m-1")] == [s.hash for s in seen]
    assert reader.head("m-1") == writer.head("m-1")


def test_many_creates_at_once_read_back_as_a_create_and_an_append_each(store, reopen):
    """``create_many`` (a tournament round's tables): each match its ``MatchOpened`` and
    first batch, read back as a ``create`` and an ``append`` of them; a taken id is a
    conflict naming it, and the match that had it is untouched."""
    at = "2026-11-27T10:00:00.000000Z"
    store.create_many([(opened("r-1", table=1), notes(3)), (opened("r-2", table=2), []),
                       (opened("r-3", table=3), notes(1))], at=at)
    store.create(opened("ref-1", table=1), at=at)
    reference = store.append("ref-1", notes(3), 1, at=at)
    again = reopen()
    assert [again.head(m).length for m in ("r-1", "r-2", "r-3")] == [4, 1, 2]
    events = list(again.read("r-1"))  # the chain and every line checked on the way
    assert [(s.seq, s.batch, s.at, s.event) for s in events[1:]] == \
        [(s.seq, s.batch, s.at, s.event) for s in reference]
    assert again.info("r-3").opened.table == 3 and again.info("r-2").length == 1
    store.append("r-2", notes(1), 1)  # an append after goes on where the create left off
    with pytest.raises(ConflictError, match="already exists") as taken:
        store.create_many([(opened("r-4"), notes(1)), (opened("r-1"), [])])
    assert taken.value.match_id == "r-1"
    assert len(list(reopen().read("r-1"))) == 4  # the match that was there: untouched
