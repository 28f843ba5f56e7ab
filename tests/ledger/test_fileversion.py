"""A file's version (:mod:`ledger.fileversion`): its stat identity, trusted only once the file
is older than the moment it was read by more than the coarsest timestamp tick (2 s: "racy
clean", as git's index).  Stat values are given (``os.stat_result`` built from a real stat
with chosen times): a file system's clock can't be set back by a test."""

from __future__ import annotations

import os

from ledger.fileversion import GRANULARITY_NS, Unsettled, identity, is_settled, version

SECOND = 1_000_000_000
T = 1_700_000_000 * SECOND


def stamped(tmp_path, mtime_ns: int, ctime_ns: int) -> os.stat_result:
    path = tmp_path / "log"
    path.write_bytes(b"x")
    real = os.stat(path)
    return os.stat_result(tuple(real)[:10], {"st_mtime_ns": mtime_ns, "st_ctime_ns": ctime_ns})


def test_a_file_written_more_than_a_tick_before_the_read_is_settled(tmp_path):
    found = stamped(tmp_path, T, T)
    assert is_settled(found, T + GRANULARITY_NS + 1)
    assert version(found, T + GRANULARITY_NS + 1) == identity(found)
    assert version(found, T + 3 * SECOND) == version(found, T + 4 * SECOND)  # equal: trusted


def test_a_file_written_within_a_tick_of_the_read_is_unsettled_and_equal_to_nothing(tmp_path):
    found = stamped(tmp_path, T, T)
    for read_at in (T, T + SECOND // 2, T + GRANULARITY_NS):
        assert not is_settled(found, read_at)
    first, second = version(found, T + SECOND), version(found, T + SECOND)
    assert isinstance(first, Unsettled) and first.identity == identity(found)
    assert first != second and first != identity(found) and first == first


def test_a_change_time_newer_than_the_modification_time_counts(tmp_path):
    """``touch -d`` or ``cp -p`` set the modification time back; the change time is now."""
    found = stamped(tmp_path, T - 60 * SECOND, T)
    assert not is_settled(found, T + SECOND)
    assert is_settled(found, T + 3 * SECOND)
