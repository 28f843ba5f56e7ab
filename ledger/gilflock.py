"""A match file's ``flock`` taken and dropped without letting go of the GIL.

``fcntl.flock`` lets go of the GIL for the system call and takes it back after.  With 20
threads appending at once (the server's writers) taking it back is, most times, a wait on the
GIL's futex and a context switch: measured for issue 19, the five releases of an append
(``flock``, ``stat``, ``write``, ``fsync``, ``flock``) came with ~25 futex calls (``strace
-f -c``) and 10-13 voluntary context switches (``getrusage``) per append, against 3-4
switches per event for the floor's ``write`` + ``fsync``.
The two ``flock`` calls are the cheapest of the five and, called as here, never wait:

* :func:`try_lock` is ``flock(fd, LOCK_EX | LOCK_NB)``: it takes the lock if nobody holds it
  and says whether it did; when another process (or another descriptor of this one) holds
  it, the caller waits with ``fcntl.flock`` (the GIL let go, as before);
* :func:`unlock` is ``flock(fd, LOCK_UN)``, which never waits.

Both call the C library's ``flock`` through :class:`ctypes.PyDLL` (the variant of
:class:`ctypes.CDLL` that keeps the GIL).  Where there is no such C library (not a Unix with
a loadable libc) ``fcntl.flock`` is used instead: the same locks, the GIL let go as before
(:data:`HELD` says which).  A ``flock`` taken either way is the same lock: the cross-process
exclusion of the file store's writers is unchanged.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
from collections.abc import Callable

__all__ = ["HELD", "try_lock", "unlock"]


def _libc_flock() -> Callable[[int, int], int] | None:
    """The C library's ``flock``, called with the GIL held; ``None`` where there is none."""
    try:
        # The running program's symbols (the C library it is linked with): no search for the
        # library (ctypes.util.find_library would run ldconfig at every import).
        libc = ctypes.PyDLL(None, use_errno=True)
        return libc.flock  # no argtypes: Python ints pass as C ints (twice as fast a call)
    except (OSError, AttributeError):
        return None


_FLOCK = _libc_flock()
#: Whether :func:`try_lock` and :func:`unlock` keep the GIL (else they are ``fcntl.flock``).
HELD = _FLOCK is not None
_TRY = fcntl.LOCK_EX | fcntl.LOCK_NB


def try_lock(fd: int) -> bool:
    """Take ``fd``'s exclusive ``flock`` if nobody holds it; ``False`` (at once) if somebody
    does (or a signal came first: the caller then waits with ``fcntl.flock``)."""
    if _FLOCK is None:
        try:
            fcntl.flock(fd, _TRY)
        except BlockingIOError:
            return False
        return True
    if _FLOCK(fd, _TRY) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EWOULDBLOCK, errno.EINTR):
        return False
    raise OSError(code, f"flock of descriptor {fd}: {os.strerror(code)}")


def unlock(fd: int) -> None:
    """Drop ``fd``'s ``flock`` (never waits)."""
    if _FLOCK is None:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return
    while _FLOCK(fd, fcntl.LOCK_UN) != 0:
        code = ctypes.get_errno()
        if code != errno.EINTR:
            raise OSError(code, f"unlock of descriptor {fd}: {os.strerror(code)}")
