"""The embedded default store: a directory with one append-only JSON-lines file per match.

Durability contract (DESIGN.md section 5):

* a batch is written with one ``write`` on a descriptor opened ``O_SYNC`` (durable, with
  ``fsync``'s integrity, when the write returns: :mod:`ledger.gilcalls`) before ``append``
  returns; a new
  match file is written beside, fsynced, hard-linked into place (so an id is never taken
  twice) and the directory is fsynced; :meth:`FileStore.create_many` (a tournament round's
  tables) writes each file whole with its first batch, syncs them all, links them and
  fsyncs the directory once for all of them;
* writers to one match are serialised by an exclusive ``flock`` on the match file, and the
  ``expected_seq`` check happens under that lock; the store appends through a descriptor it
  keeps open per match (:mod:`ledger.openfiles`: bounded, one thread at a time per
  descriptor, never shared with a forked child) and, when it takes the lock, checks that the
  match's path still names that file (else it opens the path again) and where the file ends;
* the store keeps the lock after an append as the match's **lease** (:mod:`ledger.openfiles`):
  its next append, while the lease lasts, neither takes the lock nor looks at the path -- no
  other writer can have touched the file.  It lets go of the lease once the match had no
  append for a whole tick (``lease``, :data:`ledger.openfiles.LEASE`: 5 ms), after 20 ticks
  however busy the match, and on :meth:`close` or eviction: a writer in another process waits
  at most that long, and this store looks at the file again when it next takes the lock.  A
  process that removes or moves a match file takes its lock first (:meth:`discard` does), so
  it waits for the lease; a file removed or moved by one that does not (an operator's ``rm``
  or ``mv`` by hand) is noticed at the first append after the lease ends -- appends made
  meanwhile went to the file as it was moved (or, removed, to no file).  ``lease=0`` takes
  and releases the lock per append, as before;
* a torn tail (a partial line, or the complete lines of a batch whose last line never made
  it to disk) is dropped only by a **writer**: :meth:`FileStore.append`, holding the lock,
  truncates it away with a :class:`TornTailWarning` (the first time this process appends to
  the match, or whenever the file ends mid-batch); nothing acknowledged is ever in a torn tail;
* **readers never modify a file**: :meth:`~FileStore.read`, :meth:`~FileStore.follow`,
  :meth:`~FileStore.list`, :meth:`~FileStore.info_of` and :meth:`~FileStore.read_file` open it
  read-only and return the whole batches before a torn tail; :meth:`~FileStore.torn_tail` and
  ``MatchInfo.torn_tail`` (a :class:`~ledger.store.TornTail`) say that one is there;
* every line is checked to be the canonical encoding of its event, with its hash and chain link,
  the first time this store reads it (:func:`ledger.codec.check_canonical`);
* any other damage is an error naming file, line and seq.

Beside the protocol (:class:`ledger.store.Store`) it keeps what only a directory of files has:
:meth:`FileStore.path`, :meth:`FileStore.files`, :meth:`FileStore.info_of`,
:meth:`FileStore.read_file` and :meth:`FileStore.torn_tail`.  :meth:`FileStore.head` is cheap:
one ``fstat`` while a file is as this store last saw it (device, inode, size, mtime, ctime),
else one read of its last lines -- so incremental readers (the web's tables, the viewer's
listing, ``wonders ingest``) ask the protocol, never the file system; :meth:`FileStore.versions`
is one ``stat`` per match (the file's inode and ctime).  A head or summary kept from a look
within :data:`ledger.fileversion.GRANULARITY_NS` of the file's last change (a coarse file
system clock could hide a same-size edit in that tick) is never trusted by a later look: it
is read again, and the file's version is ``None``, until the file is older ("racy clean",
:mod:`ledger.fileversion`); the wall clock is read only when a file is read, never on a hit.
:meth:`FileStore.append` costs no system call but its synced write while this store holds
the match's lease, and a ``statx`` of the path under the lock when it takes the lock and the
file ends where this store last left it (no read of the file; the lock and the ``statx`` keep
the GIL, :mod:`ledger.gilcalls`: an append lets go of it once, in its synced write), and
:meth:`FileStore.close` closes the descriptors it keeps (and lets go of their leases).  A
one-event append -- the usual one -- runs in one function (:meth:`FileStore._append_one`)
that calls no other Python function in that case but the line's encoding
(:func:`ledger.codec.encode_appended`) and the returned event's
(:func:`ledger.codec.appended_event`: the event's own encoding decoded as its class, what a
read gives, without decoding the line): the same steps, the same contract, fewer
instructions holding the GIL (issue 19).
"""

from __future__ import annotations

import builtins
import fcntl
import functools
import os
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ledger import fileversion, gilcalls
from ledger.codec import (
    GENESIS,
    Envelope,
    Stored,
    _envelope_decoder,
    appended_event,
    check_canonical,
    decode_line,
    encode_appended,
    encode_line,
    now_iso,
)
from ledger.entries import not_regular, open_regular
from ledger.errors import (
    ConflictError,
    MalformedEventError,
    MatchNotFoundError,
    NewerFormatError,
    NonCanonicalLineError,
    StoreUnavailableError,
    Where,
)
from ledger.events import SCHEMA, Event, MatchEnded, MatchOpened
from ledger.integrity import INTACT, NEWER, NON_CANONICAL, FileCheck, check_bytes
from ledger.openfiles import LEASE, OpenFiles, OpenMatch
from ledger.registry import decoder
from ledger.store import (
    SUFFIX,
    Head,
    MatchInfo,
    Store,
    TornTail,
    check_match_id,
    conflict,
    encode_batch,
    line_digest,
    listed,
    misnamed,
    stored_batch,
)

__all__ = ["SUFFIX", "FileStore", "TornTailWarning", "fsync_dir"]


class TornTailWarning(UserWarning):
    """A crash left a partial batch at the end of a match file; it was truncated away."""


#: How many files' verified envelopes a store keeps (a read of one of them hashes only what was
#: appended since).  Measured: 78 MB for 256 files of 466 events (about 650 bytes an event), where
#: an unbounded cache grew by 113 MB per 400 matches read -- without end in a long ingest.
VERIFIED_FILES = 128

#: :meth:`FileStore.create_many` syncs this many new files at once (their ``fsync`` calls
#: overlap: the file system commits them together) ...
SYNC_THREADS = 16
#: ... and writes this many at a time (each an open descriptor until it is synced).
SYNC_CHUNK = 64


def file_in_the_way(directory: str | os.PathLike) -> str | None:
    """Why ``directory`` can't be a store directory when it, or a directory above it, is a
    file (the nearest such path, ``"… is a file"``) or a symbolic link to nothing (a store
    linked to a disk that is not mounted); ``None`` if none is."""
    path = Path(directory)
    for candidate in (path, *path.parents):
        if candidate.is_symlink() and not candidate.exists():
            return (f"{os.fspath(candidate)} is a symbolic link to {os.readlink(candidate)}, "
                    f"which does not exist")
        if candidate.exists():
            return None if candidate.is_dir() else f"{os.fspath(candidate)} is a file"
    return None


class FileStore(Store):
    """A directory of ``<match_id>.jsonl`` files."""

    def __init__(self, root: str | os.PathLike, clock: Callable[[], str] = now_iso,
                 open_files: int = 256, verified_files: int = VERIFIED_FILES,
                 now_ns: Callable[[], int] = time.time_ns, lease: float = LEASE):
        self.root = Path(root)
        #: The wall clock (ns) a read is dated by, to tell a settled file
        #: (:mod:`ledger.fileversion`); a seam: a test looks from past a coarse file-system
        #: clock's tick with it, or plays such a clock.
        self.now_ns = now_ns
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise StoreUnavailableError(f"{self.root}: not a store directory "
                                        f"({file_in_the_way(self.root)})") from None
        self.url = str(self.root)
        self.clock = clock
        self._opened: set[str] = set()
        # Envelopes this process has verified, per file: (device, inode, bytes, envelopes), for
        # the ``verified_files`` files read last (see :data:`VERIFIED_FILES`).
        self._verified: OrderedDict[Path, tuple[int, int, int, list[Envelope]]] = OrderedDict()
        self._verified_files = verified_files
        # Heads this process has read, per file: (the file's version when read -- its
        # (device, inode, size, mtime, ctime), or an Unsettled one that equals no later
        # stat: :func:`ledger.fileversion.version` --, head).
        self._heads: dict[Path, tuple[Hashable, Head]] = {}
        # Summaries this process has read, per file, the same way (only of whole batches: a
        # torn tail's verdict depends on its writer's lock, so such a file is read each time).
        self._infos: dict[Path, tuple[Hashable, MatchInfo]] = {}
        # The files this store appends to, kept open (each knows where the last append left it).
        # (``lease``: the releaser's tick, :data:`ledger.openfiles.LEASE`; 0 keeps no lease.)
        self._files = OpenFiles(functools.partial(_path_in, self.url), open_files, lease)

    def __repr__(self) -> str:
        return f"FileStore({self.url!r})"

    # -- paths ---------------------------------------------------------------------------

    def path(self, match_id: str) -> Path:
        return self.root / f"{check_match_id(match_id)}{SUFFIX}"

    def _existing(self, match_id: str) -> Path:
        """The match's file; an entry of its name that is no regular file (a directory, a
        FIFO, a dangling link) is a :class:`NotAMatchFileError`, and never opened."""
        path = self.path(match_id)
        # The messages name the match, never the server's directories (they reach clients).
        odd = not_regular(path, path.name)
        if odd is not None:
            raise odd
        if not path.exists():
            raise MatchNotFoundError(f"no match {match_id!r} in this store")
        return path

    # -- writing -------------------------------------------------------------------------

    def create(self, opened: MatchOpened, at: str | None = None) -> Stored:
        path = self.path(opened.match_id)
        line, _digest = encode_line(opened, 0, at or self.clock(), 0, GENESIS)
        tmp = self.root / f".{opened.match_id}.{os.getpid()}.{time.monotonic_ns()}.tmp"
        _write_beside(tmp, line + b"\n", path)
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise ConflictError(f"match {opened.match_id!r} already exists") from None
        finally:
            tmp.unlink()
        fsync_dir(self.root)
        self._opened.add(opened.match_id)
        return decode_line(line, Where(str(path), 1))

    def create_many(self, matches: Sequence[tuple[MatchOpened, Sequence[Event]]],
                    at: str | None = None) -> None:
        """Each match's file written whole -- its ``MatchOpened`` and first batch, one
        ``write`` and one ``fsync`` -- beside, hard-linked into place once every file is
        synced (an id is never taken twice), and then **one** directory ``fsync`` for them
        all: a match costs one ``fsync``, not the three of a ``create`` and an ``append``.
        The files' ``fsync`` calls run :data:`SYNC_THREADS` at a time (the file system
        commits concurrent ones together: 150 files synced in 0.08-0.10 s instead of
        0.46-0.54 s one after another, on the disk docs/deploy.md measured)."""
        stamp = at or self.clock()
        files = []
        for opened, first in matches:
            line, digest = encode_line(opened, 0, stamp, 0, GENESIS)
            lines = [line]
            if first:
                lines += encode_batch(opened.match_id, first, 1, 1, digest, stamp)[0]
            tmp = self.root / f".{opened.match_id}.{os.getpid()}.{time.monotonic_ns()}.tmp"
            files.append((tmp, b"\n".join(lines) + b"\n", self.path(opened.match_id)))
        try:
            for chunk in range(0, len(files), SYNC_CHUNK):
                _write_synced(files[chunk:chunk + SYNC_CHUNK])
            for tmp, _data, path in files:
                try:
                    os.link(tmp, path)
                except FileExistsError:
                    taken = ConflictError(f"match {path.name[:-len(SUFFIX)]!r} already exists")
                    taken.match_id = path.name[:-len(SUFFIX)]
                    raise taken from None
                self._opened.add(path.name[:-len(SUFFIX)])
        finally:
            for tmp, _data, _path in files:
                tmp.unlink(missing_ok=True)
            fsync_dir(self.root)  # what was linked is durable (for the caller's roll-back too)

    def append(self, match_id: str, events: Sequence[Event], expected_seq: int,
               at: str | None = None) -> list[Stored]:
        if len(events) == 1:  # the usual append (one decision's event)
            return [self._append_one(match_id, events[0], expected_seq, at or self.clock())]
        if not events:
            return []
        stamp = at or self.clock()
        try:
            entry = self._files.take(match_id)
        except FileNotFoundError:
            raise MatchNotFoundError(f"no match {match_id!r} in this store") from None
        try:
            lines, length, last_hash = self._append_held(entry, events, expected_seq, stamp)
        finally:
            self._files.give(entry)
        return stored_batch(lines, length, last_hash, stamp)

    def _append_one(self, match_id: str, event: Event, expected_seq: int,
                    stamp: str) -> Stored:
        """:meth:`append` of one event, in one function: among 20 writer threads every
        instruction an append runs holding the GIL delays the others (issue 19), so the usual
        case -- the match's lease held, or the file as this store last left it and its lock
        free -- calls no Python function but the line's encoding, the returned event's
        decoding and the bench's seam (:func:`_write_all`); the foreign ``flock`` and
        ``statx`` calls are made directly, and not at all under a lease.  Every other case
        goes through the general steps (:meth:`_end_locked`, :func:`ledger.gilcalls.lock`,
        :func:`_take_back`, :meth:`_keep_or_unlock`)."""
        try:
            entry = self._files.take(match_id)
        except FileNotFoundError:
            raise MatchNotFoundError(f"no match {match_id!r} in this store") from None
        kept = False
        try:
            if entry.leased:  # this process has held the file's lock since its last append
                known = entry.tail
            else:
                if gilcalls.flock_now(entry.fd, gilcalls.LOCK_NOW):
                    gilcalls.lock(entry.fd)  # another process holds it: wait (GIL let go)
                known = entry.tail
                if known is None or entry.probe.key() != entry.expected:
                    known = self._end_locked(entry)  # (may open the path again: a new fd)
            size, length, last_hash = known  # type: ignore[misc]  # (set once locked)
            if expected_seq != length:
                raise conflict(match_id, expected_seq, length)
            data, last, body = encode_appended(event, length, stamp, last_hash)
            fd = entry.fd
            try:
                _write_all(fd, data)  # O_SYNC: durable when it returns (_write_locked)
            except OSError as exc:
                _take_back(fd, size)
                raise OSError(exc.errno, exc.strerror, entry.path) from None
            end = size + len(data)
            entry.tail = (end, length + 1, last)
            found = entry.expected
            if found is not None:  # (the key found under the lock: _end_locked sets it)
                entry.expected = (found[0], end, found[2], found[3])
            kept = True
        finally:
            if not kept or not entry.leased:
                self._keep_or_unlock(entry, kept)
            entry.lock.release()  # OpenFiles.give
        return Stored(length, stamp, length, last_hash, last, appended_event(body, type(event)))

    def _append_held(self, entry: OpenMatch, events: Sequence[Event], expected_seq: int,
                     stamp: str) -> tuple[list[bytes], int, str]:
        """Lock the file (unless this store holds its lease), find its end, write and
        ``fsync`` the batch: its lines, and the length and last hash it was chained onto (the
        caller holds ``entry``)."""
        kept = False
        try:
            if entry.leased:
                known = entry.tail
            else:
                gilcalls.lock(entry.fd)
                known = self._end_locked(entry)
            size, length, last_hash = known  # type: ignore[misc]  # (set once locked)
            lines, last = encode_batch(entry.match_id, events, expected_seq, length, last_hash,
                                       stamp)
            data = b"\n".join(lines) + b"\n"
            _write_locked(entry, data, size)
            # Under the lock nothing else wrote: the file ends where this batch does.
            end = size + len(data)
            entry.tail = (end, length + len(lines), last)
            found = entry.expected
            if found is not None:  # (set by _end_locked)
                entry.expected = (found[0], end, found[2], found[3])
            kept = True
        finally:
            if not kept or not entry.leased:
                self._keep_or_unlock(entry, kept)
        return lines, length, last_hash

    def _keep_or_unlock(self, entry: OpenMatch, appended: bool) -> None:
        """After an append through a held entry whose file is locked: keep the lock as the
        match's lease once the batch is written (:meth:`ledger.openfiles.OpenFiles.keep_lease`;
        not with ``lease=0``), else let go of it -- after a failed append (a conflict, a
        full disk, a damaged file) the next one takes the lock and looks at the file again."""
        if entry.closed:  # its file was gone when opened again: nothing held
            return
        if appended and self._files.lease:
            self._files.keep_lease(entry)
            return
        entry.leased = False
        if gilcalls.flock_now(entry.fd, gilcalls.LOCK_UN):
            gilcalls.unlock(entry.fd)  # (raises the error the foreign call met)

    def _end_locked(self, entry: OpenMatch) -> tuple[int, int, str]:
        """Size, length and last hash of a held entry's file, its lock taken, once the match's
        path names that file (``stat`` under the lock).  A file removed, replaced or moved
        away since it was opened is let go and the path opened (and locked) again: a batch is
        only ever written to the file the match's path names, as when each append opened it.

        What this store last found or left under the lock (:attr:`OpenMatch.tail`, read again
        from the file when its size differs, and kept with the path's ``statx`` key,
        :attr:`OpenMatch.expected`) is trusted while the file has that size: under the lock
        only writers of a file store change a match file, and they append whole batches or
        truncate a torn tail after the last whole batch -- never into one -- so a file that
        ends where a whole batch ended holds those bytes."""
        while True:
            found = entry.probe.key()
            if found is not None and (os.makedev(found[2], found[3]), found[0]) == entry.inode:
                break
            self._reopen_locked(entry)
        known = entry.tail
        if known is None or known[0] != found[1]:  # (else as this store last left it)
            known = entry.tail = self._tail_locked(entry, found[1])
        entry.expected = (found[0], known[0], found[2], found[3])  # (a torn tail cut: smaller)
        return known

    def _reopen_locked(self, entry: OpenMatch) -> None:
        """Let go of a held entry's file (its path names another file, or none) and lock the
        file the path names now (a new file: checked for a torn tail before it is appended to)."""
        gilcalls.unlock(entry.fd)
        try:
            self._files.reopen(entry)
        except FileNotFoundError:
            raise MatchNotFoundError(f"no match {entry.match_id!r} in this store") from None
        self._opened.discard(entry.match_id)
        gilcalls.lock(entry.fd)

    def _tail_locked(self, entry: OpenMatch, size: int) -> tuple[int, int, str]:
        """Size, length and last hash of the stream, read from the end of the file; recovers a
        torn tail (caller holds the lock; ``size`` is the file's, taken under it)."""
        if entry.match_id not in self._opened:
            self._recover_locked(entry.fd, entry.path)
            self._opened.add(entry.match_id)
            size = os.fstat(entry.fd).st_size
        fd = entry.fd
        chunk = min(size, 1 << 12)
        while True:
            data = os.pread(fd, chunk, size - chunk)
            start = data.rfind(b"\n", 0, len(data) - 1)
            if start >= 0 or chunk == size:
                break
            chunk = min(size, chunk * 4)
        last = data[start + 1:]
        env = _parse_envelope(last[:-1], entry.path, "last line", fd, size - len(last)) \
            if last.endswith(b"\n") else None
        if env is None or env.seq != env.batch:
            # Another process crashed mid-append since we first opened the match: half a line
            # (checked before it is parsed), or whole lines of a batch whose last never came.
            if not self._recover_locked(fd, entry.path):
                cause = "the file ends inside a batch and there is no whole batch before it"
                raise MalformedEventError(f"{entry.path}: {cause}",
                                          where=Where(entry.path, 1), cause=cause)
            return self._tail_locked(entry, os.fstat(fd).st_size)
        return size, env.seq + 1, env.hash

    def _recover_locked(self, fd: int, path: str) -> bool:
        """Truncate a torn tail away (caller holds the lock); whether there was one."""
        data = _read_all(fd)
        good_end, suspect = 0, None
        for lineno, line, end in _lines(data):
            if end is None:
                break  # a partial final line: the write never finished
            try:
                env = _envelope_decoder.decode(line)
            except Exception:  # noqa: BLE001 - a complete line that is not a ledger line
                suspect = suspect or lineno
                continue
            if env.seq == env.batch:
                good_end, suspect = end, None
        if suspect is not None:
            # A torn write never leaves a complete garbage line: this is damage, not a crash.
            raise MalformedEventError.at(Where(path, suspect), None, "not a ledger line (corrupt "
                                         "data inside the last batch; refusing to truncate)")
        if good_end < len(data):
            tail = data[good_end:]
            os.ftruncate(fd, good_end)
            os.fsync(fd)
            warnings.warn(TornTailWarning(
                f"{path}: dropped a torn tail of {len(tail)} bytes after byte {good_end} "
                f"(a batch interrupted by a crash; it was never acknowledged)"), stacklevel=6)
            return True
        return False

    # -- reading (never modifies a file) -------------------------------------------------

    def read(self, match_id: str, from_seq: int = 0) -> Iterator[Stored]:
        """Read a match: the events of its whole batches (a torn tail is left out, and left in
        place: see :meth:`torn_tail`).  Lines this store verified before are not hashed again
        (the file is append-only, and its identity, its length and the end of the last line
        verified are checked: a batch taken back is not trusted); new lines are
        verified: canonical bytes, hash, chain, seq."""
        path = self._existing(match_id)
        cached = self._verified.get(path)
        if cached is not None:
            self._verified.move_to_end(path)
        with open(path, "rb") as handle:
            stat = os.fstat(handle.fileno())
            if cached and cached[:2] == (stat.st_dev, stat.st_ino) and \
                    cached[2] <= stat.st_size and 0 < len(cached[3]) <= from_seq:
                # Only what was appended since this store last read the file: read from
                # there, with the end of the last line verified, to see it is still there
                mark = _line_end(cached[3][-1])
                handle.seek(cached[2] - len(mark))
                new = handle.read()
                if new.startswith(mark):
                    yield from self._read_on(path, stat, cached, new[len(mark):], from_seq)
                    return
                handle.seek(0)  # a batch read here was taken back since: verify it all
                cached = None
            data = handle.read()
        known: list[Envelope] = []
        known_bytes = 0
        if cached and cached[3] and cached[:2] == (stat.st_dev, stat.st_ino) and \
                cached[2] <= len(data):
            mark = _line_end(cached[3][-1])
            if data.startswith(mark, cached[2] - len(mark)):  # (else taken back since)
                known, known_bytes = cached[3], cached[2]
        verified: list = []
        yield from _decode_stream(data, path, from_seq, known, verified, known_bytes)
        if verified:
            envelopes, end = verified
            self._remember(path, (stat.st_dev, stat.st_ino, end, envelopes))

    def _remember(self, path: Path, verified: tuple[int, int, int, list[Envelope]]) -> None:
        """Keep what was verified of ``path``; past ``verified_files`` files, the one read
        longest ago is forgotten (its next read verifies it whole again)."""
        self._verified[path] = verified
        self._verified.move_to_end(path)
        while len(self._verified) > self._verified_files:
            self._verified.popitem(last=False)

    def _read_on(self, path: Path, stat: os.stat_result,
                 cached: tuple[int, int, int, list[Envelope]], data: bytes,
                 from_seq: int) -> Iterator[Stored]:
        """The whole batches in ``data``, the bytes after the prefix this store verified
        (``cached``): each line checked (canonical bytes, hash, chain link, seq) and the
        verified prefix extended."""
        envelopes, chain = cached[3], cached[3][-1].hash
        pending: list[tuple[Stored, Envelope]] = []
        fresh: list[Envelope] = []
        taken = 0
        for _lineno, line, end in _lines(data):
            if end is None:
                break  # a partial line being written right now (or torn)
            seq = len(envelopes) + len(fresh) + len(pending)
            where = Where(str(path), seq + 1)
            stored = decode_line(line, where, chain)
            if stored.seq != seq:
                raise MalformedEventError.at(where, stored.seq, f"expected seq {seq}")
            chain = stored.hash
            pending.append((stored, _envelope_decoder.decode(line)))
            if stored.seq == stored.batch:
                for item, env in pending:
                    fresh.append(env)
                    if item.seq >= from_seq:
                        yield item
                pending, taken = [], end
        if fresh:
            self._remember(path, (stat.st_dev, stat.st_ino, cached[2] + taken, envelopes + fresh))

    @staticmethod
    def read_file(path: str | os.PathLike, from_seq: int = 0) -> Iterator[Stored]:
        """Read any match file (also one outside this store): its whole batches, checked, and
        never modified.  :func:`ledger.integrity.check_file` also classifies its end."""
        path = Path(path)
        with open_regular(path) as handle:
            data = handle.read()
        yield from _decode_stream(data, path, from_seq)

    def verifying_reader(self) -> FileStore:
        """Another store on this directory that keeps no verified lines: each :meth:`read`
        checks every line (this store trusts the lines it verified once while the end of the
        last one is where it was: an edit in place that leaves the hash field passes that)."""
        return FileStore(self.root, self.clock, verified_files=0, now_ns=self.now_ns)

    def torn_tail(self, match_id: str) -> TornTail | None:
        """The unfinished batch a crashed writer left at the end of a match file, if any.

        ``None`` if the file ends in a whole batch, or if a writer holds the file's lock right
        now (its batch is in progress, not torn).  Reads only: it probes the lock without
        waiting and never truncates (the next :meth:`append` does)."""
        return _settled_tail(self._existing(match_id))

    def follow(self, match_id: str, from_seq: int = 0, poll: float = 0.05,
               timeout: float | None = None) -> Iterator[Stored]:
        """Yield events of whole batches as they are appended (read-only: a torn tail is
        waited past, never truncated; once a writer replaces it, the new batch follows)."""
        path = self._existing(match_id)
        offset, lineno, prev = 0, 0, GENESIS  # where the last whole batch read ends
        idle_since = time.monotonic()
        with open(path, "rb") as handle:
            while True:
                handle.seek(offset)
                data = handle.read()
                got = False
                pending: list[Stored] = []
                chain, batch_end, batch_lines = prev, 0, 0
                for lineno_rel, line, end in _lines(data):
                    if end is None:
                        break  # a partial line: being written (or torn)
                    where = Where(str(path), lineno + lineno_rel)
                    stored = decode_line(line, where, chain)
                    if stored.seq != lineno + lineno_rel - 1:
                        raise MalformedEventError.at(
                            where, stored.seq, f"expected seq {lineno + lineno_rel - 1}")
                    chain = stored.hash
                    pending.append(stored)
                    if stored.seq == stored.batch:
                        for item in pending:
                            if item.seq >= from_seq:
                                got = True
                                yield item
                                if isinstance(item.event, MatchEnded):
                                    return
                        pending = []
                        prev, batch_end, batch_lines = chain, end, lineno_rel
                # Only whole batches are consumed: an unfinished one is read again next time
                # (a writer may truncate a torn one and append in its place).
                lineno += batch_lines
                offset += batch_end
                if got:
                    idle_since = time.monotonic()
                elif timeout is not None and time.monotonic() - idle_since >= timeout:
                    return
                time.sleep(poll)

    def ids(self) -> builtins.list[str]:
        return [path.name[:-len(SUFFIX)] for path in self.files()]

    def info(self, match_id: str) -> MatchInfo:
        return self.info_of(self._existing(match_id))

    def versions(self, match_ids: Iterable[str] | None = None) -> dict[str, str | None]:
        """Each match file's inode and change time (``"<inode>:<ctime ns>"``): one ``stat``
        per match.  Any write to a file moves its ctime (and so does setting its mtime back);
        a file written anew (an editor saving beside and renaming, a copy of the store) has
        another inode; the device is left out (its number can change when the same disk is
        mounted again, the bytes being the same).  ``None`` for a file last changed within
        :data:`ledger.fileversion.GRANULARITY_NS` of now: a coarse file-system clock could
        give a same-size edit in that tick the same ctime (:mod:`ledger.fileversion`)."""
        read_at = self.now_ns()  # before the stats, so before any read the caller makes
        if match_ids is None:
            paths = [(path.name[:-len(SUFFIX)], path) for path in self.files()]
        else:
            paths = [(match_id, self.path(match_id)) for match_id in match_ids]
        out: dict[str, str | None] = {}
        for match_id, path in paths:
            try:
                out[match_id] = _version(os.stat(path), read_at)
            except OSError:
                continue  # removed meanwhile (or not to be looked at: its head says why)
        return out

    def unversioned(self) -> None:
        """A file's version is its inode and change time: always kept."""
        return None

    def head(self, match_id: str) -> Head:
        """Length, last hash, bytes and last line's digest of the whole batches: one
        ``fstat`` while the file is as last seen, else its last lines (a torn tail is left
        out, as :meth:`read` does)."""
        path = self._existing(match_id)
        try:
            with open(path, "rb") as handle:
                stat = os.fstat(handle.fileno())
                key = _as_last_seen(stat)
                hit = self._heads.get(path)
                if hit is not None and hit[0] == key:
                    return hit[1]  # (an unsettled version equals no key: read again)
                read_at = self.now_ns()  # before the read: a write after it moves the stat
                head = _head_of(handle.fileno(), stat.st_size, path)
        except FileNotFoundError:
            raise MatchNotFoundError(f"no match {match_id!r} in this store") from None
        self._heads[path] = (fileversion.version(stat, read_at), head)
        return head

    def export_lines(self, match_id: str) -> bytes:
        """The file's bytes up to the end of its last whole batch (a torn tail left out).  A
        file whose seq 0 names another match is not this match's (misnamed): an error."""
        path = self._existing(match_id)
        data = path.read_bytes()
        first = data[:data.find(b"\n")] if b"\n" in data else data
        opened = decode_line(first, Where(path.name, 1)).event
        if getattr(opened, "match_id", None) != match_id:
            raise MalformedEventError(misnamed(path.name, opened), where=Where(path.name, 1), seq=0)
        tail = _tail_of(data, path)
        return data[:tail.offset] if tail else data

    def import_lines(self, data: bytes, where: str = "upload") -> Head:
        """Check a match file's bytes, then write them beside, fsync, hard-link into place
        (never over a match) and fsync the directory."""
        opened = _checked_opened(check_bytes(data, where), where)
        path = self.path(opened.match_id)
        if os.path.lexists(path):  # the link below would refuse it: write nothing first
            raise ConflictError(f"match {opened.match_id!r} already exists in this store; "
                                f"nothing was imported")
        tmp = self.root / f".{opened.match_id}.{os.getpid()}.{time.monotonic_ns()}.tmp"
        _write_beside(tmp, data, path)
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise ConflictError(f"match {opened.match_id!r} already exists in this store; "
                                f"nothing was imported") from None
        finally:
            tmp.unlink()
        fsync_dir(self.root)
        return self.head(opened.match_id)

    def discard(self, match_id: str) -> None:
        """Remove a match's file, under its lock: a writer in another process that holds
        the match's lease lets go of it first (its next append finds the path gone)."""
        path = self.path(match_id)
        self._files.forget(match_id)  # this store's descriptor, and its lease, first
        try:  # (non-blocking: never waits on a FIFO in the file's place)
            fd: int | None = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            fd = None  # nothing there (or nothing a writer could lock)
        try:
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            path.unlink(missing_ok=True)
        finally:
            if fd is not None:
                os.close(fd)
        fsync_dir(self.root)
        self._opened.discard(match_id)
        self._verified.pop(path, None)
        self._heads.pop(path, None)
        self._infos.pop(path, None)

    def close(self) -> None:
        """Close the match files this store keeps open for appending (it can append again:
        they are opened again as needed)."""
        self._files.close()

    def files(self) -> builtins.list[Path]:  # `list` here is the protocol's method
        """The match files of the store, sorted by name."""
        return sorted(self.root.glob(f"*{SUFFIX}"))

    def info_of(self, path: Path) -> MatchInfo:
        """What :meth:`list` says of one match file (a malformed file raises its error): the
        whole batches, and the torn tail after them if a crash left one (read-only).

        Read again only when the file changed (its device, inode, size, mtime or ctime, by one
        ``fstat``), or when it was last read within one tick of a coarse file-system clock of
        its last change (:mod:`ledger.fileversion`): listing a day's matches, every one of
        which has ended, would otherwise read every byte of the store for each request
        (``GET /api/matches`` took 5 s with 400 matches)."""
        with open(path, "rb") as handle:
            stat = os.fstat(handle.fileno())
            hit = self._infos.get(path)
            if hit is not None and hit[0] == _as_last_seen(stat):
                return hit[1]  # (an unsettled version equals no key: read again)
            read_at = self.now_ns()  # before the read: a write after it moves the stat
            data = handle.read()
        info = self._info_of(path, data)
        if info.torn_tail is None:
            self._infos[path] = (fileversion.version(stat, read_at), info)
        return info

    def _info_of(self, path: Path, data: bytes) -> MatchInfo:
        first = data.split(b"\n", 1)[0]
        opened = decode_line(first, Where(str(path), 1)).event
        if not isinstance(opened, MatchOpened):
            raise MalformedEventError.at(Where(str(path), 1), 0,
                                         f"expected MatchOpened, got {type(opened).__name__}")
        tail = _tail_of(data, path)
        whole = data[:tail.offset] if tail else data
        complete = [line for _n, line, end in _lines(whole) if end is not None]
        length = len(complete)
        torn = _settled_tail(path) if tail else None
        ended: MatchEnded | None = None
        for number in range(length, 0, -1):  # the last MatchEnded (later notes, take-backs)
            line = complete[number - 1]
            if b'"type":"MatchEnded"' in line[:64]:
                event = decode_line(line, Where(str(path), number)).event
                if isinstance(event, MatchEnded):
                    ended = event
                break
        return MatchInfo(opened.match_id, listed(opened), length, ended is not None,
                         ended.winner if ended else None, ended.reason if ended else None, torn)


# -- helpers ---------------------------------------------------------------------------------


def _checked_opened(check: FileCheck, where: str) -> MatchOpened:
    """The ``MatchOpened`` of a match file's bytes that :func:`check_bytes` found intact; any
    other verdict is the error of its cause (``where`` names the data)."""
    if check.status != INTACT:
        cls = {NON_CANONICAL: NonCanonicalLineError, NEWER: NewerFormatError}.get(
            check.status, MalformedEventError)
        raise cls(f"{check.message} (an import takes an intact match file of whole batches)")
    opened = check.events[0].event
    if not isinstance(opened, MatchOpened):
        raise MalformedEventError(f"{where}:1: seq 0: expected MatchOpened, got "
                                  f"{type(opened).__name__}")
    check_match_id(opened.match_id)
    return opened


def _head_of(fd: int, size: int, path: Path) -> Head:
    """The :class:`Head` of a match file from its last lines: the last line that ends a batch
    (a torn or cut tail after it is left out).  Reads more of the file only if the tail is
    longer than the chunk read."""
    chunk = min(size, 1 << 14)
    while True:
        data = os.pread(fd, chunk, size - chunk)
        base = size - chunk
        end = data.rfind(b"\n") + 1  # complete lines end here
        while end > 0:
            start = data.rfind(b"\n", 0, end - 1) + 1
            if start == 0 and base > 0:
                break  # this line may begin before the chunk: read more
            env = _parse_envelope(data[start:end - 1], path, "a line near the end", fd,
                                  base + start)
            if env.seq == env.batch:
                return Head(env.seq + 1, env.hash, base + end, line_digest(data[start:end - 1]))
            end = start
        if base == 0:
            cause = "no whole batch in the file (a match file starts with seq 0, MatchOpened)"
            raise MalformedEventError(f"{path}: {cause}", where=Where(str(path), 1), cause=cause)
        chunk = min(size, chunk * 4)


def _lines(data: bytes) -> Iterator[tuple[int, bytes, int | None]]:
    """``(line number, line, end offset)``; the end is ``None`` for a final partial line."""
    start, lineno = 0, 0
    while start < len(data):
        lineno += 1
        nl = data.find(b"\n", start)
        if nl < 0:
            yield lineno, data[start:], None
            return
        yield lineno, data[start:nl], nl + 1
        start = nl + 1


def _decode_stream(data: bytes, path: Path, from_seq: int, known: Sequence[Envelope] = (),
                   verified: list | None = None, known_bytes: int = 0) -> Iterator[Stored]:
    """Decode the whole batches of a file, checking seq order and the hash chain.

    ``known`` are the envelopes of the file's first lines as verified earlier by this
    process (``known_bytes`` long): those lines are decoded again but not re-hashed.
    Decoding runs in bulk passes; if anything is off, :func:`_decode_slowly` goes line by
    line and reports the bad line with file, line and seq.  On success ``verified`` receives
    ``(envelopes, bytes)`` of the whole batches read.
    """
    body = data[:data.rfind(b"\n") + 1]
    trusted = len(known)
    try:
        events = decoder().decode_lines(body)
        tail = body[known_bytes:] if trusted else body
        envelopes = list(known) + _envelope_decoder.decode_lines(tail)
        if not len(events) == len(envelopes) == body.count(b"\n"):
            raise ValueError("a blank line")  # decode_lines skips blank lines
    except Exception:  # noqa: BLE001 - the slow path names the bad line
        yield from _decode_slowly(body, path, from_seq)
        return
    # Only whole batches are part of the log: a batch still being written is left out.
    complete = len(envelopes)
    while complete and envelopes[complete - 1].seq != envelopes[complete - 1].batch:
        complete -= 1
    lines = body.split(b"\n") if trusted < complete else ()
    prev, name = GENESIS, str(path)
    for index in range(complete):
        env, event = envelopes[index], events[index]
        if index >= trusted:
            line = lines[index]
            if env.v != SCHEMA.get(env.type) or type(event).__name__ != env.type or \
                    env.prev != prev:
                stored = decode_line(line, Where(name, index + 1), prev)  # upcasts, or raises
                event = stored.event
            else:  # canonical bytes (which proves the hash too), or raises
                check_canonical(line, env, event, Where(name, index + 1))
            if env.seq != index:
                raise MalformedEventError.at(Where(name, index + 1), env.seq,
                                             f"expected seq {index}")
        prev = env.hash
        if index >= from_seq:
            yield Stored(env.seq, env.at, env.batch, env.prev, env.hash, event)
    if verified is not None:
        end = len(body)
        for _ in range(len(envelopes) - complete):
            end = body.rfind(b"\n", 0, end - 1) + 1
        verified.extend([envelopes[:complete], end])


def _decode_slowly(data: bytes, path: Path, from_seq: int) -> Iterator[Stored]:
    """Line by line: slower, and exact about which line is wrong."""
    prev, pending = GENESIS, []
    for lineno, line, end in _lines(data):
        if end is None:
            break  # a partial line being written right now (or torn): not yet part of the log
        where = Where(str(path), lineno)
        stored = decode_line(line, where, prev)
        if stored.seq != lineno - 1:
            raise MalformedEventError.at(where, stored.seq, f"expected seq {lineno - 1}")
        prev = stored.hash
        pending.append(stored)
        if stored.seq == stored.batch:
            for item in pending:
                if item.seq >= from_seq:
                    yield item
            pending = []


def _tail_of(data: bytes, path: Path) -> TornTail | None:
    """What follows the last whole batch of a file's bytes, if anything (scans from the end:
    one envelope decoded in the usual case).  A complete line that is not a ledger line
    inside the unfinished batch is damage, not a crash: an error."""
    body_end = data.rfind(b"\n") + 1
    end = body_end
    while end > 0:
        start = data.rfind(b"\n", 0, end - 1) + 1
        try:
            env = _envelope_decoder.decode(data[start:end - 1])
        except Exception as exc:  # noqa: BLE001
            lineno = data.count(b"\n", 0, start) + 1
            raise MalformedEventError.at(Where(str(path), lineno), None,
                                         f"not a ledger line ({exc})") from None
        if env.seq == env.batch:
            break
        end = start
    if end == len(data):
        return None
    lineno = data.count(b"\n", 0, end) + 1
    return TornTail("torn" if body_end < len(data) else "cut", lineno, lineno - 1, end,
                    len(data) - end)


def _settled_tail(path: Path) -> TornTail | None:
    """:func:`_tail_of` the file, unless a writer holds its lock (then its batch is in
    progress: ``None``).  Takes a shared lock without waiting; never writes."""
    with open(path, "rb") as handle:
        if _tail_of(handle.read(), path) is None:
            return None
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        try:
            handle.seek(0)
            return _tail_of(handle.read(), path)  # no writer can append while we hold it
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _parse_envelope(line: bytes, path: str | Path, what: str, fd: int, offset: int) -> Envelope:
    """The envelope of ``line`` (``what``: how the message names it), which starts at byte
    ``offset`` of the file open as ``fd``; else an error naming it (and, in its fields, its
    line number: the file is read up to it, once it is found wrong)."""
    try:
        return _envelope_decoder.decode(line)
    except Exception as exc:  # noqa: BLE001
        lineno = os.pread(fd, offset, 0).count(b"\n") + 1
        cause = f"{what}: not a ledger line ({exc})"
        raise MalformedEventError(f"{path}: {cause}", where=Where(str(path), lineno),
                                  cause=cause) from None


def _as_last_seen(stat: os.stat_result) -> tuple[int, int, int, int, int]:
    """What says a file is as this process last read it (device, inode, size, mtime, ctime:
    :func:`ledger.fileversion.identity`): a match file only grows, a cut torn tail changes
    its size, and a file edited by hand to the same size with its mtime set back (``cp -p``,
    ``touch -d``) still changes its ctime, so an unchanged key is an unchanged file (the
    heads and summaries kept per file are keyed on it, and kept only once the file is settled:
    :func:`ledger.fileversion.version`)."""
    return fileversion.identity(stat)


def _version(stat: os.stat_result, read_at_ns: int) -> str | None:
    """:meth:`FileStore.versions` of a file found so at ``read_at_ns``: ``inode:ctime`` (ns)
    once it :func:`~ledger.fileversion.is_settled`, else ``None`` (the format warehouses
    written before the rule recorded as ``matches.store_identity``: they keep matching)."""
    if not fileversion.is_settled(stat, read_at_ns):
        return None
    return f"{stat.st_ino}:{stat.st_ctime_ns}"


def _path_in(root: str, match_id: str) -> str:
    """A match's file in a store's directory, as :meth:`FileStore.path` (a ``str``)."""
    return os.path.join(root, f"{check_match_id(match_id)}{SUFFIX}")


def _read_all(fd: int) -> bytes:
    """The whole file behind a descriptor, from its start (whatever its offset)."""
    size = os.fstat(fd).st_size
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, max(size - offset, 1 << 16), offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def _write_beside(tmp: Path, data: bytes, path: Path) -> None:
    """Write and ``fsync`` ``data`` into the new file ``tmp`` (then linked to ``path`` by the
    caller).  If that fails (a full disk), ``tmp`` is removed -- a half-written temporary file
    left behind would hold the very space that ran out, for good -- and the error names
    ``path``, the file the caller meant to write."""
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as exc:  # a directory this process may not write to, say
        raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None


def _write_synced(files: Sequence[tuple[Path, bytes, Path]]) -> None:
    """:func:`_write_beside` for several files: each ``(tmp, data, path)`` written, then all
    of them ``fsync``-ed, :data:`SYNC_THREADS` at a time.  If one fails, every ``tmp`` is
    removed and the error names its ``path``."""
    fds: list[tuple[int, Path]] = []
    try:
        for tmp, data, path in files:
            try:
                fds.append((os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), path))
                _write_all(fds[-1][0], data)
            except OSError as exc:
                raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None
        with ThreadPoolExecutor(min(SYNC_THREADS, len(fds) or 1)) as pool:
            for (_fd, path), failed in zip(fds, pool.map(_fsync_error, [fd for fd, _p in fds]),
                                           strict=True):
                if failed is not None:
                    raise OSError(failed.errno, failed.strerror, os.fspath(path))
    except OSError:
        for tmp, _data, _path in files:
            tmp.unlink(missing_ok=True)
        raise
    finally:
        for fd, _path in fds:
            os.close(fd)


def _fsync_error(fd: int) -> OSError | None:
    """``fsync`` a descriptor; the error, if it failed."""
    try:
        os.fsync(fd)
    except OSError as exc:
        return exc
    return None


def _line_end(env: Envelope) -> bytes:
    """How the line of ``env`` ends in its file (its hash is the last field): a reader that
    verified a file up to that line checks these bytes are still there before it trusts what
    it verified -- a batch it read while it was being written can have been taken back since
    (:func:`_take_back`, in this process or another) and other lines written in its place."""
    return b'"hash":"' + env.hash.encode() + b'"}\n'


def _take_back(fd: int, size: int) -> None:
    """Cut a match file back to ``size`` after a batch failed to be written or synced (the
    caller holds its lock): what was written of it was never acknowledged.  A reader may have
    read the batch meanwhile (readers take no lock): :meth:`FileStore.read` sees it gone by
    :func:`_line_end`.  If even that fails,
    the next append finds the torn tail and truncates it (:meth:`FileStore._tail_locked`)."""
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    except OSError:
        pass


def _write_locked(entry: OpenMatch, data: bytes, size: int) -> None:
    """Write a batch's bytes at the end of a held, locked match file of ``size`` bytes.
    Acknowledged only once on disk: the descriptor is ``O_SYNC`` (:mod:`ledger.gilcalls`), so
    the write returns once the batch and the file's new size are durable, with ``fsync``'s
    integrity (not ``fdatasync``'s: a journal commit either way).  If it fails (a full disk,
    say), what was written of it is cut away: the batch was not acknowledged."""
    try:
        _write_all(entry.fd, data)
    except OSError as exc:
        _take_back(entry.fd, size)
        raise OSError(exc.errno, exc.strerror, entry.path) from None


def _write_all(fd: int, data: bytes) -> None:
    written = os.write(fd, data)
    if written == len(data):
        return  # the usual case: one write took it all
    view = memoryview(data)[written:]
    while view:
        view = view[os.write(fd, view):]


def fsync_dir(path: Path) -> None:
    """Make a directory's entries (a new or renamed file in it) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
