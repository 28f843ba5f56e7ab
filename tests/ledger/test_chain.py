"""The hash chain detects a changed byte, a deleted line and reordered lines."""

import pytest

from ledger import FileStore, IntegrityError, LedgerError
from ledger.events import JudgeNote, MatchOpened, SeatInfo


def opened(match_id="m-1"):
    return MatchOpened(match_id=match_id, ruleset="1.3.2",
                       seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")])


@pytest.fixture
def match(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened())
    for i in range(6):
        store.append("m-1", [JudgeNote("j", f"note {i}a"), JudgeNote("j", f"note {i}b")], 1 + 2 * i)
    return tmp_path / "m-1.jsonl"


def _read(path):
    return list(FileStore.read_file(path))


def test_an_intact_file_reads(match):
    assert [s.seq for s in _read(match)] == list(range(13))


def test_a_changed_byte_is_detected_with_file_line_and_seq(match):
    lines = match.read_bytes().split(b"\n")
    lines[5] = lines[5].replace(b"note 2a", b"note 2x")
    match.write_bytes(b"\n".join(lines))
    with pytest.raises(IntegrityError, match=rf"{match}:6: seq 5: hash mismatch"):
        _read(match)


def test_a_deleted_line_is_detected(match):
    lines = match.read_bytes().split(b"\n")
    del lines[4]
    match.write_bytes(b"\n".join(lines))
    with pytest.raises(IntegrityError, match=r":5: seq 5: hash chain broken"):
        _read(match)


def test_reordered_lines_are_detected(match):
    lines = match.read_bytes().split(b"\n")
    lines[3], lines[4] = lines[4], lines[3]
    match.write_bytes(b"\n".join(lines))
    with pytest.raises(LedgerError, match=r":4: seq 4"):
        _read(match)


def test_a_store_refuses_a_tampered_match_too(match):
    raw = bytearray(match.read_bytes())
    raw[raw.index(b"note 4b") + 5] ^= 1
    match.write_bytes(bytes(raw))
    with pytest.raises(IntegrityError):
        list(FileStore(match.parent).read("m-1"))


def test_a_store_verifies_new_lines_and_replaced_files_again(match):
    store = FileStore(match.parent)
    assert len(list(store.read("m-1"))) == 13  # verified once, envelopes remembered
    store.append("m-1", [JudgeNote("j", "later")], 13)
    assert len(list(store.read("m-1"))) == 14
    # A file replaced under the store (a new inode) is verified from scratch.
    lines = match.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b"note 0b", b"note 0x")
    replacement = match.with_suffix(".new")
    replacement.write_bytes(b"\n".join(lines))
    replacement.replace(match)
    with pytest.raises(IntegrityError, match=r":3: seq 2: hash mismatch"):
        list(store.read("m-1"))
