"""Readers never modify a file (a torn tail stays until the next writer drops it), and
``ledger.integrity.check_file`` classifies a file: intact, torn, cut, non-canonical, corrupt,
newer."""

import hashlib
import warnings

import pytest

from ledger.codec import encode_line
from ledger.events import JudgeNote
from ledger.filestore import FileStore, TornTailWarning
from ledger.integrity import CORRUPT, CUT, INTACT, NON_CANONICAL, TORN, check_file
from tests.ledger.forgeries import FORGERIES, sample_match


def _fingerprint(path):
    data = path.read_bytes()
    return len(data), hashlib.sha256(data).hexdigest()


def _with_cut_batch(root):
    """A match whose last batch (seqs 6..8) lost its last line: two whole lines of it remain."""
    sample_match(root)
    path = root / "m-1.jsonl"
    last = list(FileStore.read_file(path))[-1]
    lines, prev = [], last.hash
    for seq in (6, 7):
        line, prev = encode_line(JudgeNote("j", f"lost {seq}"), seq, "2026-01-01T00:00:00.000Z", 8, prev)
        lines.append(line)
    with open(path, "ab") as handle:
        handle.write(b"\n".join(lines) + b"\n")
    return path


def _with_partial_line(root):
    sample_match(root)
    path = root / "m-1.jsonl"
    with open(path, "ab") as handle:
        handle.write(b'{"seq":6,"type":"JudgeNote","judge":"j","te')
    return path


@pytest.mark.parametrize("make, kind", [(_with_partial_line, "torn"), (_with_cut_batch, "cut")])
def test_reading_a_torn_tail_leaves_the_file_byte_identical(tmp_path, make, kind):
    path = make(tmp_path)
    before = _fingerprint(path)
    store = FileStore(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # readers neither truncate nor warn
        assert [s.seq for s in store.read("m-1")] == list(range(6))
        assert [s.seq for s in FileStore.read_file(path)] == list(range(6))
        assert [s.seq for s in store.follow("m-1", poll=0.01, timeout=0.05)] == list(range(6))
        (info,) = store.list()
        assert store.info_of(path) == info
        tail = store.torn_tail("m-1")
        check = check_file(path)
    assert _fingerprint(path) == before
    assert info.length == 6 and info.torn_tail == tail
    assert (tail.kind, tail.line, tail.seq, tail.offset + tail.size) == (kind, 7, 6, before[0])
    assert (check.status, check.line, check.seq, check.length) == (kind, 7, 6, 6)
    assert f"{kind} final batch at line 7 (seq 6)" in check.message and f"{path}:7: seq 6" in check.message
    # the next writer (holding the lock) truncates it, and the log goes on
    prefix = path.read_bytes()[:tail.offset]
    with pytest.warns(TornTailWarning, match="dropped a torn tail"):
        FileStore(tmp_path).append("m-1", [JudgeNote("j", "after")], 6)
    assert path.read_bytes().startswith(prefix) and b"lost" not in path.read_bytes()
    assert [s.event.text for s in list(store.read("m-1"))[-2:]] == ["last", "after"]
    assert store.torn_tail("m-1") is None and check_file(path).ok


def test_a_tail_being_written_under_the_lock_is_not_reported_torn(tmp_path):
    import fcntl
    path = _with_partial_line(tmp_path)
    with open(path, "rb+") as writer:
        fcntl.flock(writer.fileno(), fcntl.LOCK_EX)  # as a writer in the middle of an append
        assert FileStore(tmp_path).torn_tail("m-1") is None
        check = check_file(path)
        assert check.status == TORN and check.writing and "in progress" in check.message
    assert FileStore(tmp_path).torn_tail("m-1") is not None and not check_file(path).writing


def test_check_file_classifies_intact_non_canonical_and_corrupt_files(tmp_path):
    good = sample_match(tmp_path / "a")
    check = check_file(tmp_path / "a" / "m-1.jsonl")
    assert (check.status, check.ok, check.length, check.line, check.seq) == (INTACT, True, 6, None, None)
    forged = FORGERIES["duplicate seats after the hash"](good)
    path = tmp_path / "forged.jsonl"
    path.write_bytes(forged.data)
    check = check_file(path)
    assert (check.status, check.line, check.seq, check.events) == (NON_CANONICAL, 1, 0, ())
    assert f"{path}:1: seq 0:" in check.message and "duplicate key 'seats'" in check.message
    lines = good.split(b"\n")
    lines[4] = lines[4].replace(b"fourth", b"FOURTH")
    path.write_bytes(b"\n".join(lines))
    check = check_file(path)
    assert (check.status, check.line, check.seq, check.length) == (CORRUPT, 5, 4, 4)
    assert "hash mismatch" in check.message
    lines = good.split(b"\n")
    del lines[2]
    path.write_bytes(b"\n".join(lines))
    assert (check_file(path).status, check_file(path).line) == (CORRUPT, 3)
    path.write_bytes(b"")
    assert check_file(path).status == CORRUPT
    path.write_bytes(b'{"seq":0,"ty')
    assert (check_file(path).status, check_file(path).line, check_file(path).seq) == (TORN, 1, 0)
    assert CUT != TORN
