"""The append path's quick system calls, made without letting go of the GIL.

CPython lets go of the GIL around every blocking system call it wraps (``fcntl.flock``,
``os.stat``, ``os.write``, ``os.fsync``).  For a call that returns in a microsecond that is a
loss when other threads want the GIL: letting go wakes one of them, and taking it back is a
wait for that thread to reach its own next call -- two context switches and a futex round
trip per call.  With 20 threads appending to 20 matches (``bench/ledger_bench.py``,
``concurrent20_*``) the file store made five such calls per append (lock, ``stat`` of the path,
write, ``fsync``, unlock) and ``strace`` counted 29 futex calls per append, 16 context switches
and 190 µs of CPU per event against 11 µs single-threaded: the GIL's hand-offs, not the
store's work, set its rate (issue 19).

So the three calls of an append that never wait for the disk on a local file system go through
:data:`ctypes.pydll` (a foreign call that keeps the GIL): taking the match file's ``flock``
*without waiting* (``LOCK_NB``; only if another process holds it does :func:`lock` fall back
to ``fcntl.flock``, which waits with the GIL let go), dropping it, and the ``statx`` of the
match's path that checks it still names the open file (a path lookup answered from the
dentry cache).  The write that must reach the disk is made on a descriptor opened
``O_SYNC`` (:data:`SYNC_FLAG`): one call, with the GIL let go, writes and syncs the batch --
the same durability as ``write`` then ``fsync`` (Linux syncs an ``O_SYNC`` write with
``fsync``'s integrity: data and metadata).  An append lets go of the GIL once, where it
waits for the disk.

Each of those calls is made as cheaply as ``ctypes`` allows, because among 20 writer threads
every instruction an append runs holding the GIL delays the others: no ``argtypes`` and no
``use_errno`` (a call that fails -- a lock another process holds, a path that names nothing
-- is made again through :mod:`os` / :mod:`fcntl`, which waits for the lock or says why),
the ``statx`` answer read in one unpacking (:meth:`PathProbe.key`), and :data:`flock_now` is
the foreign function itself, for the append's hot path to call without a Python frame
around it (:meth:`ledger.filestore.FileStore.append`).

Where these calls do not exist (not Linux with glibc: no ``statx`` or ``flock`` symbol),
each function falls back to the :mod:`os` / :mod:`fcntl` call, which lets go of the GIL:
slower, the same result.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import struct
import sys
from collections.abc import Callable

__all__ = ["LOCK_NOW", "LOCK_UN", "SYNC_FLAG", "Identity", "Key", "PathProbe", "flock_now", "lock",
           "unlock"]

#: The open flag of an appended-to match file: each ``write`` returns once durable.
SYNC_FLAG = getattr(os, "O_SYNC", 0)

#: A path's file as :meth:`PathProbe.identity` sees it: (device, inode, size).
Identity = tuple[int, int, int]
#: The same as :meth:`PathProbe.key` gives it: (inode, size, device major, device minor).
Key = tuple[int, int, int, int]

_AT_FDCWD = -100

_STATX_WANTED = 0x300  # STATX_INO | STATX_SIZE (the device numbers always come)


class _Statx(ctypes.Structure):
    """The kernel's ``struct statx`` (``include/uapi/linux/stat.h``): a fixed layout on every
    architecture, 256 bytes; only the fields read here are named."""

    _fields_ = [
        ("mask", ctypes.c_uint32), ("blksize", ctypes.c_uint32),
        ("attributes", ctypes.c_uint64), ("nlink", ctypes.c_uint32),
        ("uid", ctypes.c_uint32), ("gid", ctypes.c_uint32), ("mode", ctypes.c_uint16),
        ("spare0", ctypes.c_uint16), ("ino", ctypes.c_uint64), ("size", ctypes.c_uint64),
        ("blocks", ctypes.c_uint64), ("attributes_mask", ctypes.c_uint64),
        ("times", ctypes.c_uint8 * 64), ("rdev_major", ctypes.c_uint32),
        ("rdev_minor", ctypes.c_uint32), ("dev_major", ctypes.c_uint32),
        ("dev_minor", ctypes.c_uint32), ("spare", ctypes.c_uint8 * 112),
    ]


#: The fields of a ``struct statx`` :meth:`PathProbe.identity` reads, in one unpacking (not
#: four reads of ctypes fields): the inode, the size, the device's major and minor numbers.
_IDS = struct.Struct(f"={_Statx.ino.offset}xQQ"
                     f"{_Statx.dev_major.offset - _Statx.size.offset - 8}xII")


def _libc_calls() -> tuple[Callable[..., int], Callable[..., int]] | None:
    """glibc's ``flock`` and ``statx`` as GIL-holding foreign functions, or None.  No
    ``argtypes``: every argument passed is already a C-sized value (ints that fit a C
    ``int``, a ``bytes`` path, a pointer), and converting them is most of a call's cost.  No
    ``use_errno`` either (it costs every call a look-up of the thread's saved ``errno``): a
    call that fails is made again through :mod:`os` / :mod:`fcntl`, which waits for a lock
    another process holds, or raises the error the call met."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.PyDLL(None)
        flock, statx = libc.flock, libc.statx
    except (OSError, AttributeError):  # not glibc, or a glibc older than 2.28 (no statx)
        return None
    flock.restype = statx.restype = ctypes.c_int
    return flock, statx


_CALLS = _libc_calls()
_FLOCK = _CALLS[0] if _CALLS is not None else None
_LOCK_NOW = fcntl.LOCK_EX | fcntl.LOCK_NB
#: ``flock_now(fd, LOCK_NOW)`` / ``flock_now(fd, LOCK_UN)``: the foreign ``flock`` itself (no
#: Python frame around it), 0 once done; nonzero -- always, where there is no such call -- when
#: :func:`lock` / :func:`unlock` must do it (they wait, or raise the error).  The append's hot
#: path calls it directly.
LOCK_NOW = _LOCK_NOW
LOCK_UN = fcntl.LOCK_UN


def _not_here(fd: int, operation: int) -> int:
    return -1


flock_now: Callable[[int, int], int] = _FLOCK if _FLOCK is not None else _not_here


def lock(fd: int) -> None:
    """Take ``fd``'s exclusive ``flock``: at once if no other process holds it (GIL kept),
    else waiting for it with the GIL let go."""
    if _FLOCK is None or _FLOCK(fd, _LOCK_NOW) != 0:
        fcntl.flock(fd, fcntl.LOCK_EX)  # held by another process (or an error: raised)


def unlock(fd: int) -> None:
    """Drop ``fd``'s ``flock``."""
    if _FLOCK is None or _FLOCK(fd, fcntl.LOCK_UN) != 0:
        fcntl.flock(fd, fcntl.LOCK_UN)  # (raises the error the foreign call met)


class PathProbe:
    """Which file one path names, asked again and again (a held match file's path, before
    each append): its encoded path and ``statx`` buffer are made once.  One thread at a time
    (the match's :class:`~ledger.openfiles.OpenMatch` is held while it is used)."""

    __slots__ = ("_buffer", "_path", "_ref", "path")

    def __init__(self, path: str):
        self.path = path
        self._path = os.fsencode(path)
        if b"\0" in self._path:  # as os.stat: C would read the path only up to it
            raise ValueError(f"embedded null byte in {path!r}")
        self._buffer = _Statx()
        self._ref = ctypes.byref(self._buffer)

    def identity(self) -> Identity | None:
        """The device, inode and size of the file the path names (following symlinks, as
        :func:`os.stat`), or None if it names nothing.  Other errors raise :class:`OSError`."""
        key = self.key()
        return None if key is None else (os.makedev(key[2], key[3]), key[0], key[1])

    def key(self) -> Key | None:
        """:meth:`identity` as (inode, size, device major, device minor): one foreign call and
        one unpacking of its answer, the form an append compares (no device number made)."""
        if _CALLS is None or _CALLS[1](_AT_FDCWD, self._path, 0, _STATX_WANTED, self._ref):
            return self._stat()  # no statx here, or it failed: os.stat says why
        return _IDS.unpack_from(self._buffer)

    def _stat(self) -> Key | None:
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return None
        return stat.st_ino, stat.st_size, os.major(stat.st_dev), os.minor(stat.st_dev)
