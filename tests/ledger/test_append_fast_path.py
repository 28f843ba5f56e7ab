"""The file store's append path as issue 19 (20 writers on 20 matches) left it.

What the leaner path must keep: the open-files table evicts the match least recently
*appended to* (not the one opened first), although taking an open match no longer goes
through the table's guard; what the store remembers of a file's end after it truncated a
torn tail is the file's real end (so the next append needs no read of the file); a
one-event batch and a longer batch give the lines and stored events a read gives; what a
store read of a file's end under the lock (after another writer appended) is what its next
append chains onto; the usual one-event append makes one ``statx`` and no read (none
while the store holds the match's lease).
(``now_iso``, which now makes a millisecond's text once, is pinned by test_now_iso.py.)
"""

from __future__ import annotations

import os
import sys
import threading
import warnings

import pytest

from ledger import FileStore
from ledger.errors import ConflictError
from ledger.events import JudgeNote, MatchOpened, SeatInfo
from ledger.filestore import TornTailWarning
from ledger.integrity import INTACT, check_file
from ledger.openfiles import LEASE, OpenFiles


def opened(match_id: str = "m-1") -> MatchOpened:
    return MatchOpened(match_id=match_id, ruleset="1.3.2",
                       seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")])


def note(text: str) -> JudgeNote:
    return JudgeNote("judge", text)


def test_the_table_evicts_the_match_least_recently_taken(tmp_path):
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.jsonl").write_bytes(b"")
    table = OpenFiles(lambda match_id: str(tmp_path / f"{match_id}.jsonl"), limit=2)
    try:
        first_a = table.take("a")
        table.give(first_a)
        first_b = table.take("b")
        table.give(first_b)
        table.give(table.take("a"))  # "a" was opened first but taken last
        table.give(table.take("c"))  # one too many: "b" goes
        assert first_b.closed is True
        assert first_a.closed is False
        again = table.take("a")
        table.give(again)
        assert again is first_a and len(table) == 2
    finally:
        table.close()


def test_threads_taking_and_evicting_never_write_through_a_closed_descriptor(tmp_path):
    """Eight threads on eight matches through a table of three: every take gives an entry
    that is open while held (eviction closes an entry only after its holder gives it back)."""
    ids = [f"m{n}" for n in range(8)]
    for match_id in ids:
        (tmp_path / f"{match_id}.jsonl").write_bytes(b"")
    table = OpenFiles(lambda match_id: str(tmp_path / f"{match_id}.jsonl"), limit=3)
    failures: list[str] = []

    def worker(match_id: str) -> None:
        for _ in range(200):
            entry = table.take(match_id)
            try:
                if entry.closed:
                    failures.append(f"{match_id}: took a closed entry")
                os.fstat(entry.fd)  # raises if the descriptor was closed under us
            except OSError as exc:
                failures.append(f"{match_id}: {exc}")
            finally:
                table.give(entry)

    threads = [threading.Thread(target=worker, args=(match_id,)) for match_id in ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    table.close()
    assert failures == []


def test_after_truncating_a_torn_tail_the_store_knows_where_the_file_ends(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened())
    store.append("m-1", [note("one")], 1)
    store.close()
    path = tmp_path / "m-1.jsonl"
    with open(path, "ab") as handle:  # a writer that crashed mid-line
        handle.write(b'{"seq":2,"type":"JudgeNote","ju')
    fresh = FileStore(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fresh.append("m-1", [note("two")], 2)
    assert [w.category for w in caught] == [TornTailWarning]
    entry = fresh._files.take("m-1")
    try:
        assert entry.tail is not None
        assert entry.tail[:2] == (path.stat().st_size, 3)  # the real end, not the torn one's
    finally:
        fresh._files.give(entry)
    fresh.append("m-1", [note("three")], 3)
    assert [s.event.text for s in list(FileStore(tmp_path).read("m-1"))[1:]] == \
        ["one", "two", "three"]
    assert check_file(path).status == INTACT


def test_one_event_and_many_event_batches_return_what_a_read_gives(tmp_path):
    store = FileStore(tmp_path)
    genesis = store.create(opened())
    single = store.append("m-1", [note("alone")], 1)
    several = store.append("m-1", [note("first"), note("second"), note("third")], 2)
    read = list(FileStore(tmp_path).read("m-1"))[1:]
    assert single + several == read
    assert [(s.seq, s.batch) for s in read] == [(1, 1), (2, 4), (3, 4), (4, 4)]
    assert read[0].prev == genesis.hash
    assert check_file(tmp_path / "m-1.jsonl").status == INTACT


def test_after_a_conflict_the_next_append_chains_onto_the_real_end(tmp_path):
    # Two stores (as two processes) on one match: the second appends, so the first's stale
    # append is refused -- and what the first read of the file's end under the lock is what
    # its next append chains onto (not the end its own last append left).
    mine, other = FileStore(tmp_path), FileStore(tmp_path)
    mine.create(opened())
    mine.append("m-1", [note("one")], 1)
    other.append("m-1", [note("two"), note("three")], 2)
    try:
        mine.append("m-1", [note("stale")], 2)
    except ConflictError:
        pass
    else:
        raise AssertionError("a stale expected_seq was accepted")
    stored = mine.append("m-1", [note("four")], 4)
    assert [s.seq for s in stored] == [4]
    assert [s.event.text for s in list(FileStore(tmp_path).read("m-1"))[1:]] == [
        "one", "two", "three", "four"]
    assert check_file(tmp_path / "m-1.jsonl").status == INTACT


@pytest.mark.parametrize("lease", [LEASE, 0])
def test_a_one_event_append_to_a_file_as_left_reads_nothing_else(tmp_path, lease):
    # Counting work, not time: the usual append (the file as this store last left it) makes
    # one statx of the path -- none while the store holds the match's lease (its lock kept
    # since its last append: ledger/openfiles.py) -- and takes the general steps (the file's
    # end read under the lock) only when another writer changed the file.
    mine, other = FileStore(tmp_path, lease=lease), FileStore(tmp_path, lease=lease)
    mine.create(opened())
    mine.append("m-1", [note("one")], 1)
    calls: list[str] = []

    def profile(frame, event, _arg):
        if event == "call":
            calls.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        mine.append("m-1", [note("two")], 2)
    finally:
        sys.setprofile(None)
    assert "_end_locked" not in calls and "_tail_locked" not in calls
    assert calls.count("key") == (0 if lease else 1)
    other.append("m-1", [note("three")], 3)
    calls.clear()
    sys.setprofile(profile)
    try:
        mine.append("m-1", [note("four")], 4)
    finally:
        sys.setprofile(None)
    assert calls.count("_end_locked") == 1 and calls.count("_tail_locked") == 1
    assert [s.event.text for s in list(FileStore(tmp_path).read("m-1"))[1:]] == [
        "one", "two", "three", "four"]


def _odd_events() -> list:
    """Events of several shapes, some with values a read gives back in another form: an
    integer in a number field (read as a float), a tuple in a list field (read as a list),
    an infinite number (recorded as "inf")."""
    from replay.wotf.events import BattleResolved, CardMoved, PlayDeclared, ResourcesChanged
    return [CardMoved("A1", "Granite Warden", "A", "deck", "hand", "draw"),
            CardMoved("A2", "Granite Warden", "A", "deck", "hand", "draw", to_realm=2),
            ResourcesChanged("B", "play", energy=3, actions=2),
            ResourcesChanged("B", "play", energy=float("inf")),
            BattleResolved(3, "A", 7, 5, "attacker"), PlayDeclared("A", "A3", 2),
            JudgeNote("judge", "ünïcode \"quoted\" \\ text"),
            MatchOpened(match_id="m-1", ruleset="1.3.2",
                        seats=(SeatInfo("A", "Ann"), SeatInfo("B", "Bob")))]  # type: ignore[arg-type]


def _shape(value: object) -> object:
    """A value with the type of every part of it (equal values of other types differ)."""
    import msgspec
    if isinstance(value, msgspec.Struct):
        return (type(value), tuple(_shape(v) for v in msgspec.structs.astuple(value)))
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_shape(v) for v in value))
    return (type(value), value)


def test_a_one_event_append_returns_what_a_read_gives_without_decoding_the_line(tmp_path):
    # The returned event is its own encoding decoded as its class (ledger.codec.
    # appended_event), not the line through the union decoder a read uses: counted, and
    # equal -- type for type, at every depth -- to what a read gives.
    from ledger.registry import decoder
    store = FileStore(tmp_path)
    store.create(opened())
    union = decoder()
    decoded_lines = []

    def profile(_frame, event, arg):
        if event == "c_call" and getattr(arg, "__self__", None) is union:
            decoded_lines.append(arg)

    returned = []
    for n, event in enumerate(_odd_events()):
        sys.setprofile(profile)
        try:
            returned += store.append("m-1", [event], n + 1)
        finally:
            sys.setprofile(None)
    assert decoded_lines == []
    read = list(FileStore(tmp_path).read("m-1"))[1:]
    assert returned == read
    assert [_shape(s) for s in returned] == [_shape(s) for s in read]
