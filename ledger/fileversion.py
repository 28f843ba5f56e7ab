"""A file's version, for what a process keeps of what it read from a file (a tournament's fold,
a match's result): which file (device, inode), how long, when it was last written and when its
inode last changed -- and whether that version can be trusted yet.

A file system stamps a write with its clock's tick: a nanosecond on ext4, but a second or two
on FAT, ext3 and some network file systems.  Two edits of the same size within one tick leave
the same stat, so a version taken right after a write can't tell them apart.  As git does for
its index ("racy clean"), a version is *settled* only when the file's modification and change
times are older than the moment it was read by more than :data:`GRANULARITY_NS` (the coarsest
tick: FAT's 2 s, which also covers a network file system's clock a little off ours): any later
write then lands in a later tick and shows in the stat.  An unsettled version
(:class:`Unsettled`) equals nothing but itself, so what was kept under it is read again on the
next look, until the file is old enough.
"""

from __future__ import annotations

import os
from collections.abc import Hashable

#: The coarsest file timestamp tick trusted (FAT's 2 s; ext3 and many network file systems: 1 s).
GRANULARITY_NS = 2_000_000_000

Identity = tuple[int, int, int, int, int]


def identity(found: os.stat_result) -> Identity:
    """Which file, how long, when last written, and when its inode last changed (``st_ctime``:
    no one sets it back, as ``cp -p`` or ``touch -d`` set a modification time back over a file
    restored or edited to the same size)."""
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def is_settled(found: os.stat_result, read_at_ns: int) -> bool:
    """Whether a file found so, read at ``read_at_ns`` (the wall clock, taken before the read),
    was last written and changed more than :data:`GRANULARITY_NS` before: then any change
    after the read shows in its stat."""
    return max(found.st_mtime_ns, found.st_ctime_ns) < read_at_ns - GRANULARITY_NS


class Unsettled:
    """The version of a file read within :data:`GRANULARITY_NS` of its last change: equal only
    to itself, so nothing kept under it is trusted by a later look."""

    __slots__ = ("identity",)

    def __init__(self, found: Identity):
        self.identity = found

    def __repr__(self) -> str:
        return f"Unsettled({self.identity!r})"


def version(found: os.stat_result, read_at_ns: int) -> Hashable:
    """The file's :func:`identity` if it :func:`is_settled`, else an :class:`Unsettled` one."""
    found_identity = identity(found)
    return found_identity if is_settled(found, read_at_ns) else Unsettled(found_identity)
