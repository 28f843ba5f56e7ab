"""A match file's lock, taken as another cooperating process takes it: a writer or a
process that removes or moves the file (``flock`` on a descriptor of its own, waiting for
it -- so for any lease a store holds on the file, :mod:`ledger.openfiles`)."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold ``path``'s exclusive ``flock`` (waiting for it) for the ``with`` block."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
