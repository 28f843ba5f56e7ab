"""The file store's memory of verified lines is bounded: a store keeps the verified envelopes of
the ``verified_files`` files it read last (128 by default), so a long ingest (a worker reading
matches one after another) does not grow without end (113 MB per 400 matches read, measured,
before the bound).  A file it forgot is verified whole again on its next read."""

import pytest

from ledger import FileStore, IntegrityError
from ledger.events import MatchOpened, SeatInfo
from replay.wotf.events import Passed


def _matches(store: FileStore, count: int) -> list[str]:
    ids = [f"m-{n}" for n in range(count)]
    for match_id in ids:
        store.create(MatchOpened(match_id=match_id, ruleset="1.3.2",
                                 seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")]))
        store.append(match_id, [Passed("A"), Passed("B")], 1)
    return ids


def _kinds(store: FileStore, match_id: str) -> list[str]:
    return [type(item.event).__name__ for item in store.read(match_id)]


def test_only_the_files_read_last_are_remembered(tmp_path):
    store = FileStore(tmp_path, verified_files=2)
    ids = _matches(FileStore(tmp_path), 3)
    for match_id in ids:
        assert _kinds(store, match_id) == ["MatchOpened", "Passed", "Passed"]
    assert [path.name for path in store._verified] == ["m-1.jsonl", "m-2.jsonl"]
    _kinds(store, "m-1")  # read again: now the one read last
    assert [path.name for path in store._verified] == ["m-2.jsonl", "m-1.jsonl"]


def test_a_forgotten_file_is_verified_whole_again(tmp_path):
    store = FileStore(tmp_path, verified_files=2)
    ids = _matches(FileStore(tmp_path), 3)
    for match_id in ids:
        _kinds(store, match_id)
    # m-0 was forgotten: an edit in place (same length) is found by its next read.
    path = tmp_path / "m-0.jsonl"
    path.write_bytes(path.read_bytes().replace(b'"Ann"', b'"Anx"', 1))
    with pytest.raises(IntegrityError, match="hash mismatch"):
        _kinds(store, "m-0")


def test_appends_after_a_remembered_read_are_still_verified_and_read(tmp_path):
    store = FileStore(tmp_path, verified_files=1)
    (match_id,) = _matches(store, 1)
    _kinds(store, match_id)
    store.append(match_id, [Passed("A")], 3)
    assert _kinds(store, match_id) == ["MatchOpened", "Passed", "Passed", "Passed"]
    assert len(store._verified) == 1
