"""Opening a match file for reading: a regular file only, never waiting on it.

A store directory may hold an entry named ``<match_id>.jsonl`` that is no match file -- a
directory, a FIFO, a socket, a dangling symbolic link.  :func:`open_regular` opens a path
without blocking (``O_NONBLOCK``: a FIFO with no writer would block a plain ``open`` and its
read forever), checks what it opened, and raises :class:`~ledger.errors.NotAMatchFileError`
naming the entry and what it is instead; :func:`not_regular` says the same from ``stat``
alone.  A symbolic link to a regular file is a regular file.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

from ledger.errors import NotAMatchFileError, Where

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"))


def open_regular(path: str | os.PathLike, name: str | None = None,
                 kind: str = "match file") -> BinaryIO:
    """``path`` opened for reading in binary, if it is a regular file (``name``: how errors
    name it, default the path; ``kind``: what it was to be, "not a {kind}" -- a decklist
    file a command was given, say)."""
    name = name or os.fspath(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        what = _unopenable(path, exc)
        if what is None:
            raise
        raise _error(name, what, kind) from None
    try:
        what = _kind(os.fstat(fd).st_mode)
        if what is not None:
            raise _error(name, what, kind)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def not_regular(path: str | os.PathLike, name: str | None = None,
                kind: str = "match file") -> NotAMatchFileError | None:
    """The error :func:`open_regular` would raise for what ``path`` is (``stat`` only, nothing
    opened), or ``None``: a regular file, or no entry at all."""
    try:
        what = _kind(os.stat(path).st_mode)
    except OSError as exc:
        what = _unopenable(path, exc)
    return None if what is None else _error(name or os.fspath(path), what, kind)


def _kind(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a file")


def _unopenable(path: str | os.PathLike, exc: OSError) -> str | None:
    """What an entry that could not be opened (or stat-ed) is, if that is why."""
    if exc.errno == errno.ELOOP:
        return "a loop of symbolic links"
    if exc.errno == errno.ENXIO:
        return "a socket"
    if exc.errno == errno.ENOENT and os.path.islink(path):
        return "a dangling symbolic link (what it names does not exist)"
    return None


def _error(name: str, what: str, kind: str = "match file") -> NotAMatchFileError:
    """The error of the entry ``name``; its fields say where and why (an error about stored
    data: a reader that answers someone else says so from them, :mod:`ledger.errors`)."""
    return NotAMatchFileError.at(Where(name), None, f"not a {kind}: {what}, not a regular "
                                                    f"file (nothing was read from it)")
