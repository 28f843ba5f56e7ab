"""The file store's read paths that the everyday tests never take, and its imports, exports
and discards, each pinned by what a caller sees.

* **Old match files** (a schema-1 ``MatchOpened``, upcast on read) are decoded line by line
  (the bulk decoder refuses the old shape): the same whole batches, ``from_seq``, chain and
  seq checks as the fast path, with the bad line named.
* **Incremental reads**: a store that has read a match reads only what was appended since;
  those lines are checked as a first read checks them (chain, seq), and the error names the
  line.
* **Imports** say why a match file is refused, under the name the caller gave it; the file is
  written with mode 0644 like every match file.
* **Exports** leave out a torn tail; **discard** forgets the match (a new match under the same
  id reads as itself).
"""

from __future__ import annotations

import hashlib
import os
import stat

import pytest

from ledger.codec import GENESIS, encode_line
from ledger.errors import (
    IntegrityError,
    MalformedEventError,
    NewerFormatError,
    NonCanonicalLineError,
)
from ledger.events import JudgeNote, MatchOpened
from ledger.filestore import FileStore
from tests.ledger.contract.matches import notes, opened

AT = "2025-03-01T10:00:00.000Z"


def _hashed(body: bytes) -> tuple[bytes, str]:
    digest = hashlib.sha256(body + b"}").hexdigest()
    return body + b',"hash":"' + digest.encode() + b'"}', digest


# A schema-1 MatchOpened (``rules``, ``players``: the shape before seats), as docs/format.md's
# upcasting describes.
V1_BODY = (b'{"seq":0,"type":"MatchOpened","match_id":"old-1","rules":"1.2","players":'
           b'{"A":{"player":"Al"},"B":{"player":"Bo"}},'
           b'"v":1,"at":"' + AT.encode() + b'","batch":0,"prev":"' + GENESIS.encode() + b'"')


def old_file(batches: list[int]) -> tuple[list[bytes], list[str]]:
    """The lines of an old match file: the v1 ``MatchOpened``, then batches of judge notes
    of the given sizes (each line chained to the one before); and every line's hash."""
    line, digest = _hashed(V1_BODY)
    lines, hashes = [line], [digest]
    seq = 1
    for size in batches:
        for i in range(size):
            line, digest = encode_line(JudgeNote("j", f"note {seq}"), seq, AT, seq - i + size - 1,
                                       hashes[-1])
            lines.append(line)
            hashes.append(digest)
            seq += 1
    return lines, hashes


def write(root, match_id: str, lines: list[bytes], end: bytes = b"\n") -> FileStore:
    (root / f"{match_id}.jsonl").write_bytes(b"\n".join(lines) + end)
    return FileStore(root)


# -- old match files: the line-by-line path ----------------------------------------------------


def test_an_old_match_file_reads_upcast_from_any_seq(tmp_path):
    lines, hashes = old_file([2, 1, 3])
    store = write(tmp_path, "old-1", lines)
    events = list(store.read("old-1"))
    assert [s.seq for s in events] == list(range(7))
    assert [s.hash for s in events] == hashes
    first = events[0].event
    assert isinstance(first, MatchOpened) and [s.player for s in first.seats] == ["Al", "Bo"]
    assert [s.seq for s in store.read("old-1", from_seq=3)] == [3, 4, 5, 6]
    assert [s.seq for s in FileStore.read_file(tmp_path / "old-1.jsonl", 6)] == [6]


def test_an_old_match_file_ending_inside_a_batch_reads_its_whole_batches(tmp_path):
    lines, _ = old_file([2, 3])
    store = write(tmp_path, "old-1", lines[:-1])  # the last line of the second batch is missing
    assert [s.seq for s in store.read("old-1")] == [0, 1, 2]
    store = write(tmp_path, "old-1", [*lines[:-1], lines[-1][:20]], end=b"")  # torn mid-line
    assert [s.seq for s in store.read("old-1")] == [0, 1, 2]


def test_a_broken_chain_in_an_old_match_file_names_its_line(tmp_path):
    lines, hashes = old_file([1, 1, 1])
    # Line 4 (seq 3) re-encoded to chain onto seq 1 instead of seq 2: its own hash is right.
    lines[3], _ = encode_line(JudgeNote("j", "note 3"), 3, AT, 3, hashes[1])
    store = write(tmp_path, "old-1", lines)
    with pytest.raises(IntegrityError, match=r"old-1\.jsonl:4: seq 3: hash chain broken"):
        list(store.read("old-1"))


def test_a_line_out_of_order_in_an_old_match_file_names_its_line_and_seqs(tmp_path):
    lines, hashes = old_file([1, 1])
    # Line 3 says seq 5, correctly chained and hashed: only the seq is wrong.
    lines[2], _ = encode_line(JudgeNote("j", "note 2"), 5, AT, 5, hashes[1])
    store = write(tmp_path, "old-1", lines)
    with pytest.raises(MalformedEventError) as raised:
        list(store.read("old-1"))
    assert str(raised.value) == f"{tmp_path / 'old-1.jsonl'}:3: seq 5: expected seq 2"


# -- incremental reads -------------------------------------------------------------------------


def _two_histories(tmp_path):
    """The same match recorded twice at different times (so every hash differs): a reader on
    the first, and the second's lines to splice in."""
    ours = FileStore(tmp_path / "ours", clock=lambda: "2025-01-01T00:00:00.000Z")
    theirs = FileStore(tmp_path / "theirs", clock=lambda: "2025-01-02T00:00:00.000Z")
    for store in (ours, theirs):
        store.create(opened("m-1"))
        store.append("m-1", notes(2), 1)
        store.append("m-1", notes(1), 3)
        store.append("m-1", notes(2), 4)
    return ours, theirs


def test_an_incremental_read_checks_the_chain_of_what_was_appended(tmp_path):
    ours, theirs = _two_histories(tmp_path)
    path, other = ours.path("m-1"), theirs.path("m-1").read_bytes().split(b"\n")
    data = path.read_bytes()
    path.write_bytes(b"\n".join(data.split(b"\n")[:3]) + b"\n")  # seq 0-2: the first batches
    reader = FileStore(tmp_path / "ours")
    assert [s.seq for s in reader.read("m-1")] == [0, 1, 2]
    # Appended since: our own batch of seq 3 (valid), then their seq 4-5 (chained to theirs).
    with open(path, "ab") as handle:
        handle.write(data.split(b"\n")[3] + b"\n" + b"\n".join(other[4:6]) + b"\n")
    with pytest.raises(IntegrityError) as raised:
        list(reader.read("m-1", from_seq=3))
    assert str(raised.value).startswith(f"{path}:5: seq 4: hash chain broken")


def test_an_incremental_read_checks_the_seq_of_what_was_appended(tmp_path):
    ours, _ = _two_histories(tmp_path)
    path = ours.path("m-1")
    lines = path.read_bytes().split(b"\n")[:-1]
    path.write_bytes(b"\n".join(lines[:3]) + b"\n")
    reader = FileStore(tmp_path / "ours")
    assert [s.seq for s in reader.read("m-1")] == [0, 1, 2]
    # The batch of seq 3, then a line that says seq 9 chained onto it.
    bad, _ = encode_line(JudgeNote("j", "late"), 9, AT, 9, reader_hash(lines[3]))
    with open(path, "ab") as handle:
        handle.write(lines[3] + b"\n" + bad + b"\n")
    with pytest.raises(MalformedEventError) as raised:
        list(reader.read("m-1", from_seq=3))
    assert str(raised.value) == f"{path}:5: seq 9: expected seq 4"


def reader_hash(line: bytes) -> str:
    return line[line.rfind(b'"hash":"') + 8:-2].decode()


def test_incremental_reads_follow_several_appends(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened("m-1"))
    reader = FileStore(tmp_path)
    assert [s.seq for s in reader.read("m-1")] == [0]
    store.append("m-1", notes(2), 1)
    store.append("m-1", notes(1), 3)
    assert [s.seq for s in reader.read("m-1", from_seq=1)] == [1, 2, 3]
    store.append("m-1", notes(3), 4)
    assert [s.seq for s in reader.read("m-1", from_seq=5)] == [5, 6]
    assert [s.seq for s in reader.read("m-1", from_seq=4)] == [4, 5, 6]
    assert [s.hash for s in reader.read("m-1")] == [s.hash for s in FileStore(tmp_path).read("m-1")]


# -- imports -----------------------------------------------------------------------------------


def test_an_import_of_non_canonical_lines_says_so_under_the_callers_name(tmp_path):
    good = FileStore(tmp_path / "a")
    good.create(opened("m-1"))
    data = good.export_lines("m-1").replace(b'"seq":0,', b'"seq": 0,', 1)
    target = FileStore(tmp_path / "b")
    with pytest.raises(NonCanonicalLineError) as raised:
        target.import_lines(data, where="cup.jsonl")
    message = str(raised.value)
    assert message.startswith("cup.jsonl:1: seq 0:")
    assert message.endswith("(an import takes an intact match file of whole batches)")
    assert target.ids() == []
    with pytest.raises(NonCanonicalLineError, match=r"^upload:1: seq 0:"):
        target.import_lines(data)


def test_an_import_of_a_newer_file_is_a_newer_format_error(tmp_path):
    line, _ = _hashed(V1_BODY.replace(b'"v":1', b'"v":99'))
    target = FileStore(tmp_path)
    with pytest.raises(NewerFormatError, match=r"^upload:1: seq 0: written by a newer program"):
        target.import_lines(line + b"\n")


def test_an_import_that_does_not_start_with_match_opened_is_refused(tmp_path):
    line, _ = encode_line(JudgeNote("j", "alone"), 0, AT, 0, GENESIS)
    target = FileStore(tmp_path)
    with pytest.raises(MalformedEventError) as raised:
        target.import_lines(line + b"\n", where="notes.jsonl")
    assert str(raised.value) == "notes.jsonl:1: seq 0: expected MatchOpened, got JudgeNote"
    assert target.ids() == []


def test_an_imported_match_file_has_mode_0644(tmp_path):
    source = FileStore(tmp_path / "a")
    source.create(opened("m-1"))
    old = os.umask(0o022)
    try:
        target = FileStore(tmp_path / "b")
        target.import_lines(source.export_lines("m-1"))
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.path("m-1").stat().st_mode) == 0o644


# -- exports and discards ----------------------------------------------------------------------


def test_an_export_leaves_out_a_torn_tail(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened("m-1"))
    store.append("m-1", notes(2), 1)
    whole = store.path("m-1").read_bytes()
    with open(store.path("m-1"), "ab") as handle:
        handle.write(b'{"seq":3,"type":"Judge')  # a writer died mid-line
    assert store.export_lines("m-1") == whole


def test_an_export_of_damage_inside_the_last_batch_names_the_file(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened("m-1"))
    lines, _ = encode_line(JudgeNote("j", "first of two"), 1, AT, 2, store.head("m-1").last_hash)
    with open(store.path("m-1"), "ab") as handle:
        handle.write(lines + b"\nnot a ledger line\n")
    with pytest.raises(MalformedEventError, match=r"m-1\.jsonl:3: not a ledger line"):
        store.export_lines("m-1")


def test_discard_of_a_match_never_created_is_quiet(tmp_path):
    store = FileStore(tmp_path)
    store.discard("never")
    assert store.ids() == []


def test_a_match_discarded_and_created_again_reads_as_the_new_one(tmp_path):
    store = FileStore(tmp_path, clock=lambda: "2025-01-01T00:00:00.000Z")
    store.create(opened("m-1", ("Ann", "Bob")))
    store.append("m-1", notes(1), 1)
    assert store.head("m-1").length == 2 and len(list(store.read("m-1"))) == 2
    store.discard("m-1")
    assert not store.exists("m-1")
    store.clock = lambda: "2025-01-02T00:00:00.000Z"
    again = store.create(opened("m-1", ("Cid", "Dee")))
    store.append("m-1", notes(1, "x"), 1)
    fresh = FileStore(tmp_path)
    assert store.head("m-1") == fresh.head("m-1")
    assert [(s.seq, s.hash) for s in store.read("m-1")] == \
        [(s.seq, s.hash) for s in fresh.read("m-1")]
    assert [s.player for s in store.info("m-1").opened.seats] == ["Cid", "Dee"]
    assert next(iter(store.read("m-1"))).hash == again.hash
