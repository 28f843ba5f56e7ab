"""Seat and judge tokens: issued at random, kept only as SHA-256 hashes, checked in constant time.

When a match is created each role -- seat ``A``, seat ``B`` and the ``judge`` -- gets a token
from ``secrets.token_urlsafe(32)`` (256 bits).  Only the hashes are kept, one small JSON file
per match under ``<store>/.tokens/``, written atomically; a token is shown once, in the
create response.  :meth:`TokenBook.role_of` compares a presented token with every role's hash
using ``hmac.compare_digest``, so its timing says nothing about which role (if any) matched.

A match and its tokens appear together or not at all (:meth:`TokenBook.creating`).  A create
or an import first takes the match id with a *pending* file, ``<store>/.pending/<match>.json``,
held under an exclusive ``flock`` for as long as the create runs (linked into place already
locked, so no one ever sees it unlocked while its creator lives).  Under it, the id is checked
to be free and the pending file marked (from then on, any match file of that id is this
create's); then the tokens are written, then the match file; then the pending file is removed
and the directory fsynced -- only then is the create acknowledged.  A create that fails rolls
back (match file, then tokens, then the pending file); one whose process died leaves a pending
file nobody holds, which :meth:`TokenBook.recover_pending` (at every start) or the next create
of that id rolls back the same way.  So the id of a create that was never acknowledged can be
used again, and there is never a match file without its tokens.

A tournament round's tables are created as one (:meth:`TokenBook.creating_many`): the round's
ids are held by *one* pending file linked under each id's name (one lock; one ``CHECKED``
mark, written once every id is checked free), its tokens are *one* file of hashes
(``{"matches": {id: {role: hash}}}``) linked under each id's name, and its match files are
written by :meth:`ledger.store.Store.create_many` -- one ``fsync`` per match file and seven
for the round, where creating each table alone cost eight.  A reissue or revoke of one table
replaces its name by a file of its own; each pending name is rolled back alone, as above.

That is the file store's book (:class:`TokenBook`, files beside the match files).  A
PostgreSQL store keeps the hashes in its ``wonders_tokens`` table (:class:`PgTokenBook`): a
create holds the id with an advisory lock on a session of its own (a crashed server's lock goes
with its connection), writes the tokens, then the match; a create that fails rolls back the
same way, and one whose server died leaves tokens without a match, which the next create of
that id or :meth:`PgTokenBook.recover_pending` removes.  :func:`token_book` picks the book of
a store.  At start the app has the book sweep what a killed server left (:meth:`TokenBook.sweep`).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ledger.errors import ConflictError
from ledger.filestore import SUFFIX, FileStore, fsync_dir
from ledger.store import Store
from replay.counted import counted

log = logging.getLogger("wonders.web")
ORPHANS = ".orphans"  # under a file store: live matches without tokens, moved aside

ROLES = ("A", "B", "judge")
PENDING = ".pending"  # under the store: the creates in progress (see the module's docstring)
CHECKED = b"id checked free; tokens and match file may follow\n"
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")  # the store's match-id rule


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def is_same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison of two secrets of any length (via their hashes)."""
    return hmac.compare_digest(hash_token(given), hash_token(expected))


class Book:
    """What every token book answers: which role a token holds, from the stored hashes."""

    def _hashes(self, match_id: str) -> dict[str, str]:
        raise NotImplementedError

    def role_of(self, match_id: str, token: str | None) -> str | None:
        """The role ``token`` holds in ``match_id`` (``None``: no role at all)."""
        if not token or not _SAFE_ID.fullmatch(match_id):
            return None
        hashes = self._hashes(match_id)
        digest = hash_token(token)  # once: each role's hash is compared with it
        found = None
        for role in ROLES:  # every role is compared, whatever matched
            if role in hashes and hmac.compare_digest(digest, hashes[role]):
                found = role
        return found

    def is_role_hash(self, match_id: str, role: str, digest: str) -> bool:
        """Whether ``digest`` is the stored hash of ``role``'s token (constant time)."""
        if not _SAFE_ID.fullmatch(match_id):
            return False
        stored = self._hashes(match_id).get(role, "")
        return bool(stored) and hmac.compare_digest(stored, digest)

    def has_tokens(self, match_id: str) -> bool:
        return bool(self._hashes(match_id))

    def replace_roles(self, match_id: str, hashes: dict[str, str]) -> None:
        """Give the roles in ``hashes`` these token hashes, the match's other roles as they
        are -- as one change against whatever another desk or server changed meanwhile (two
        revokes of one table at once both hold)."""
        raise NotImplementedError


def token_book(store: Store) -> TokenBook | PgTokenBook:
    """The token book of a store: files beside a file store's, a table in PostgreSQL."""
    if isinstance(store, FileStore):
        return TokenBook(store.root)
    if hasattr(store, "put_tokens"):
        return PgTokenBook(store)
    raise TypeError(f"{store!r} keeps no tokens")


@dataclass
class Swept:
    """What a start swept of what a killed server left."""

    rolled_back: list[str] = field(default_factory=list)  # creates that never finished
    temporary: list[str] = field(default_factory=list)  # .tmp files of dead processes
    orphans: list[str] = field(default_factory=list)  # live matches without tokens, moved aside
    # live matches whose token file is there but can't be read (damaged): left in place
    unreadable: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.rolled_back or self.temporary or self.orphans or self.unreadable)

    def describe(self, root: object) -> str:
        live = functools.partial(counted, one="live match", many="live matches")
        damaged = (f"; {live(len(self.unreadable))} whose token file can't be read "
                   f"left in place{_names(self.unreadable)} (their seats and judge can't "
                   f"record until the organizer reissues their tokens)"
                   if self.unreadable else "")
        return (f"store {root}: swept what a stopped server left: "
                f"{counted(len(self.rolled_back), 'unfinished create')} rolled back"
                f"{_names(self.rolled_back)}, {counted(len(self.temporary), 'temporary file')} removed, "
                f"{live(len(self.orphans))} without tokens moved to {ORPHANS}/"
                f"{_names(self.orphans)}{damaged}")


class TokenBook(Book):
    """The hashed tokens of every match in one file store's directory."""

    def __init__(self, store_root: str | os.PathLike):
        self.store_root = Path(store_root)
        self.root = self.store_root / ".tokens"
        self.root.mkdir(parents=True, exist_ok=True)
        self.pending = self.store_root / PENDING
        self.pending.mkdir(exist_ok=True)
        # match id -> (the token file's identity when read, its hashes): a file replaced by
        # another process (a reissue or revoke from `wonders tournament`) is read again.
        self._cache: dict[str, tuple[tuple[int, int, int], dict[str, str]]] = {}
        self._lock = threading.Lock()
        self._prefix = os.path.join(self.root, "")  # every request's check joins a plain string

    def issue(self, match_id: str) -> dict[str, str]:
        """New tokens for every role of a match; only their hashes are written."""
        _check_id(match_id)
        tokens = {role: new_token() for role in ROLES}
        hashes = {role: hash_token(token) for role, token in tokens.items()}
        path = self.root / f"{match_id}.json"
        tmp = path.with_name(f".{match_id}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as handle:
                json.dump(hashes, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        fsync_dir(self.root)  # durable before the create that issued them is acknowledged
        return tokens

    def revoke(self, match_id: str) -> None:
        """Remove a match's tokens (a create rolled back)."""
        _check_id(match_id)
        with self._lock:
            self._cache.pop(match_id, None)
        (self.root / f"{match_id}.json").unlink(missing_ok=True)
        fsync_dir(self.root)

    # -- atomic creates ----------------------------------------------------------------------

    @contextmanager
    def creating(self, match_id: str, match_path: Path | None = None) -> Iterator[Creation]:
        """Hold ``match_id`` while a match is created at ``match_path`` with its tokens:
        409 (:class:`~ledger.errors.ConflictError`) if the id is taken or being created.
        Inside, call :meth:`Creation.issue` before writing the match file; on leaving without
        an error the create is committed (durably), on an error it is rolled back."""
        _check_id(match_id)
        yield from _held(Creation(self, match_id, match_path or self.match_path(match_id)))

    @contextmanager
    def creating_many(self, match_ids: Sequence[str]) -> Iterator[ManyCreation]:
        """:meth:`creating` for many matches at once (a tournament round's tables), at a
        cost that does not grow with their number: the ids are held by *one* pending file
        linked under each id's name (one lock, one ``CHECKED`` mark: one ``fsync`` and one of
        the directory for all), their tokens are one file linked under each id's name
        (:meth:`ManyCreation.issue`), and leaving drops every pending name with one
        directory ``fsync``.  An id being created elsewhere or taken already is left out of
        :attr:`ManyCreation.ids`; the rest is created or rolled back together."""
        for match_id in match_ids:
            _check_id(match_id)
        yield from _held(ManyCreation(self, list(dict.fromkeys(match_ids))))

    def match_path(self, match_id: str) -> Path:
        return self.store_root / f"{match_id}{SUFFIX}"

    def sweep(self, store: Store) -> Swept:
        """Leftovers of a server that was killed, swept at start (a create or import in
        progress in another live process is left alone): unfinished creates rolled back,
        temporary files of dead processes removed, and live matches without tokens (no one
        can ever continue them; only a create or import that died half-way under an older
        version leaves one) moved to ``<store>/.orphans/``, which frees their ids."""
        swept = Swept(rolled_back=self.recover_pending())
        for folder in (self.store_root, self.root, self.pending):
            for path in sorted(folder.glob("*.tmp")):
                if path.is_file() and not _writer_alive(path):
                    path.unlink(missing_ok=True)
                    swept.temporary.append(path.name)
        for match_id in store.ids():
            if self.has_tokens(match_id) or self.is_pending(match_id):
                continue
            try:
                ended = store.info(match_id).ended
            except Exception:  # noqa: BLE001 - unreadable: listed as such, never moved
                continue
            if not ended and (self.root / f"{match_id}.json").exists():
                # its tokens are there but can't be read (a damaged disk): not a create that
                # died half-way -- never moved aside (a round's tables share one token file:
                # moving them would stop every table of the round); a reissue mends it
                swept.unreadable.append(match_id)
            elif not ended:
                orphans = self.store_root / ORPHANS
                orphans.mkdir(exist_ok=True)
                os.replace(self.match_path(match_id), orphans / f"{match_id}{SUFFIX}")
                swept.orphans.append(match_id)
        _log_swept(swept, self.store_root)
        return swept

    def recover_pending(self) -> list[str]:
        """Roll back every create whose process died (its pending file held by no one);
        returns their match ids.  Creates in progress in live processes are left alone."""
        rolled = []
        for path in sorted(self.pending.glob("*.json")):
            match_id = path.name[:-len(".json")]
            if _SAFE_ID.fullmatch(match_id) and self._recover(path, match_id):
                rolled.append(match_id)
        return rolled

    def is_pending(self, match_id: str) -> bool:
        """Whether a create of ``match_id`` holds (or a dead one left) a pending file."""
        return (self.pending / f"{match_id}.json").exists()

    def _recover(self, path: Path, match_id: str) -> bool:
        """Roll back the create behind an abandoned pending file; ``False`` if its creator
        still holds it (or it is gone)."""
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            return False
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # a live create
            try:
                if os.stat(path).st_ino != os.fstat(fd).st_ino:
                    return False  # committed, and the id taken again since
            except FileNotFoundError:
                return False  # committed or rolled back meanwhile
            checked = os.fstat(fd).st_size > 0
            self._undo(match_id, path, self.match_path(match_id), checked)
            return True
        finally:
            os.close(fd)

    def _undo(self, match_id: str, pending: Path, match_path: Path, checked: bool,
              own_file: bool = True) -> None:
        """Roll back a create whose pending file the caller holds: the match file (only if the
        id was checked free under this pending file: then it can only be this create's), then
        the tokens, then the pending file -- never a match file without its tokens."""
        if checked:
            if own_file:
                match_path.unlink(missing_ok=True)
                fsync_dir(match_path.parent)
            self.revoke(match_id)
        pending.unlink(missing_ok=True)
        fsync_dir(self.pending)

    def replace_roles(self, match_id: str, hashes: dict[str, str]) -> None:
        """As :meth:`Book.replace_roles`: read, changed and replaced whole (``os.replace``)
        under an exclusive ``flock`` of the match's lock file, which every thread and process
        changing the match's tokens takes (each by a descriptor of its own)."""
        _check_id(match_id)
        path = self.root / f"{match_id}.json"
        with open(self.root / f".{match_id}.lock", "a") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # released when the file is closed
            try:
                with open(path, encoding="utf-8") as handle:
                    current = _entry(json.load(handle), match_id)
            except FileNotFoundError:
                current = {}
            except ValueError:  # damaged (not JSON): its roles were unusable already; the
                current = {}  # reissue replaces the file (the sweep left it for this)
            tmp = path.with_name(f".{match_id}.{os.getpid()}.{threading.get_ident()}.tmp")
            try:
                with open(tmp, "w", encoding="utf-8") as handle:
                    json.dump({**current, **hashes}, handle)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(tmp, path)
            finally:
                tmp.unlink(missing_ok=True)
            fsync_dir(self.root)

    def _hashes(self, match_id: str) -> dict[str, str]:
        """The match's token hashes; one ``stat`` per call checks that the file is the one
        read before (tokens are replaced whole, by ``os.replace``: a new file, a new inode).
        Runs for every request with a token: the path is a string, not a ``Path`` (whose join
        cost as much as the ``stat``)."""
        path = f"{self._prefix}{match_id}.json"
        try:
            st = os.stat(path)
        except OSError:
            with self._lock:
                self._cache.pop(match_id, None)
            return {}
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        with self._lock:
            cached = self._cache.get(match_id)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            with open(path, encoding="utf-8") as handle:
                hashes = _entry(json.load(handle), match_id)
        except (OSError, ValueError):
            return {}
        with self._lock:
            self._cache[match_id] = (stamp, hashes)
        return hashes


class Creation:
    """One create in progress (see :meth:`TokenBook.creating`)."""

    def __init__(self, book: TokenBook, match_id: str, match_path: Path):
        self.book, self.match_id, self.match_path = book, match_id, match_path
        self.path = book.pending / f"{match_id}.json"
        self.fd: int | None = None
        self.checked = False
        self.own_file = True

    def take(self) -> None:
        """Hold the id (a pending file, linked into place already locked) and check it is free."""
        book = self.book
        tmp = book.pending / f".{self.match_id}.{os.getpid()}.{threading.get_ident()}.tmp"
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            for attempt in (1, 2):
                try:
                    os.link(tmp, self.path)
                    break
                except FileExistsError:
                    # another create of this id: in progress (409), or left by a dead process
                    if attempt == 2 or not book._recover(self.path, self.match_id):
                        raise ConflictError(f"match {self.match_id!r} is being created right "
                                            f"now; nothing was written") from None
        except BaseException:
            os.close(fd)
            raise
        finally:
            tmp.unlink(missing_ok=True)
        self.fd = fd
        if self.match_path.exists():
            self.release()
            raise ConflictError(f"match {self.match_id!r} already exists in this store; "
                                f"nothing was written")
        try:
            os.write(fd, CHECKED)  # from now on a match file of this id is this create's
            os.fsync(fd)
            fsync_dir(book.pending)
        except BaseException:
            self.release()
            raise
        self.checked = True

    def issue(self) -> dict[str, str]:
        """The match's tokens, written (durably) before its file is."""
        return self.book.issue(self.match_id)

    def not_ours(self) -> None:
        """The match file turned out to be someone else's (a writer that does not take the id,
        e.g. a file copied in meanwhile): rolling back leaves it alone."""
        self.own_file = False

    def commit(self) -> None:
        """The match and its tokens are in place: drop the pending file, durably."""
        self.release()

    def roll_back(self) -> None:
        if self.fd is None:
            return
        try:
            self.book._undo(self.match_id, self.path, self.match_path, self.checked,
                            self.own_file)
        finally:
            if self.fd is not None:
                os.close(self.fd)
            self.fd = None

    def release(self) -> None:
        try:
            self.path.unlink(missing_ok=True)
            fsync_dir(self.book.pending)
        finally:
            if self.fd is not None:
                os.close(self.fd)
            self.fd = None


class ManyCreation:
    """Many creates in progress as one (see :meth:`TokenBook.creating_many`)."""

    def __init__(self, book: TokenBook, match_ids: list[str]):
        self.book, self.wanted = book, match_ids
        self.ids: list[str] = []  # held and checked free: this creation's
        self.fd: int | None = None
        self.foreign: set[str] = set()  # match files found to be someone else's

    def _name(self, folder: Path, match_id: str) -> Path:
        """A temporary name of this thread in ``folder`` (swept once its process is dead)."""
        return folder / f".{match_id}.{os.getpid()}.{threading.get_ident()}.tmp"

    def take(self) -> None:
        """Link one locked pending file under every free id's name, check each id's match
        file is absent, and only then mark them all checked, durably (one ``fsync`` and one
        of the directory).  An id whose name is taken by another live create, or whose match
        exists, is let go -- its name unlinked, durably, before the mark."""
        if not self.wanted:
            return
        pending = self.book.pending
        tmp = self._name(pending, self.wanted[0])
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        self.fd = fd
        held: list[str] = []
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                for match_id in self.wanted:
                    if self._link(tmp, match_id):
                        held.append(match_id)
            finally:
                tmp.unlink(missing_ok=True)
            self.ids = [m for m in held if not self.book.match_path(m).exists()]
            if len(self.ids) < len(held):  # never marked while a let-go id still names it
                self._unlink(set(held) - set(self.ids))
            if self.ids:
                os.write(fd, CHECKED)  # from now on a match file of these ids is this creation's
                os.fsync(fd)
                fsync_dir(pending)
        except BaseException:  # nothing marked: let every name go (unmarked: nothing to undo)
            self.ids = []
            try:
                self._unlink(held)
            finally:
                self._close()
            raise

    def _unlink(self, match_ids: Iterable[str]) -> None:
        """Drop these ids' pending names, durably (one directory ``fsync``)."""
        for match_id in match_ids:
            (self.book.pending / f"{match_id}.json").unlink(missing_ok=True)
        fsync_dir(self.book.pending)

    def _link(self, tmp: Path, match_id: str) -> bool:
        """Hold ``match_id`` by linking the pending file under its name; ``False`` if
        another live create holds it (one left by a dead process is rolled back first)."""
        path = self.book.pending / f"{match_id}.json"
        for attempt in (1, 2):
            try:
                os.link(tmp, path)
                return True
            except FileExistsError:
                if attempt == 2 or not self.book._recover(path, match_id):
                    return False
        return False

    def issue(self) -> dict[str, dict[str, str]]:
        """Every held match's tokens (match id → role → token): their hashes written as one
        file (one ``fsync``), linked under each match's name, and the directory ``fsync``-ed
        once -- durable before any match file is written.  A later reissue or revoke of one
        match replaces its name by a file of its own (:meth:`TokenBook.replace_roles`)."""
        if not self.ids:
            return {}
        root = self.book.root
        tokens = {m: {role: new_token() for role in ROLES} for m in self.ids}
        shared = {"matches": {m: {r: hash_token(t) for r, t in roles.items()}
                              for m, roles in tokens.items()}}
        tmp = self._name(root, f"round-{self.ids[0]}")
        try:
            with open(tmp, "w", encoding="utf-8") as handle:
                json.dump(shared, handle)
                handle.flush()
                os.fsync(handle.fileno())
            for match_id in self.ids:
                name = self._name(root, match_id)
                os.link(tmp, name)
                os.replace(name, root / f"{match_id}.json")
        finally:
            tmp.unlink(missing_ok=True)
        fsync_dir(root)
        return tokens

    def not_ours(self, match_ids: Sequence[str]) -> None:
        """These ids' match files turned out to be someone else's (written by a writer that
        does not take ids, e.g. copied in): rolling back leaves them alone."""
        self.foreign.update(match_ids)

    def commit(self) -> None:
        """Every match and its tokens are in place: drop every pending name, durably."""
        try:
            if self.ids:
                self._unlink(self.ids)
        finally:
            self._close()

    def roll_back(self) -> None:
        """Undo every held create (match file, tokens, pending name: never a match file
        without its tokens); ids let go were never touched."""
        try:
            for match_id in self.ids:
                self.book._undo(match_id, self.book.pending / f"{match_id}.json",
                                self.book.match_path(match_id), True,
                                match_id not in self.foreign)
        finally:
            self._close()

    def _close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
        self.fd = None


class PgTokenBook(Book):
    """The hashed tokens of a PostgreSQL store's matches (its ``wonders_tokens`` table)."""

    def __init__(self, store: Any):
        self.store = store

    @contextmanager
    def creating(self, match_id: str, match_path: object = None) -> Iterator[PgCreation]:
        """As :meth:`TokenBook.creating`: 409 if the id is taken or being created (by any
        server on the database); on leaving without an error the create is committed, on an
        error it is rolled back."""
        _check_id(match_id)
        with self.store.claim(match_id) as claimed:
            if not claimed:
                raise ConflictError(f"match {match_id!r} is being created right now; nothing "
                                    f"was written")
            if self.store.exists(match_id):
                raise ConflictError(f"match {match_id!r} already exists in this store; "
                                    f"nothing was written")
            self._drop(match_id)  # tokens of a create whose server died, if any
            creation = PgCreation(self, match_id)
            try:
                yield creation
            except BaseException:
                creation.roll_back()
                raise

    @contextmanager
    def creating_many(self, match_ids: Sequence[str]) -> Iterator[PgManyCreation]:
        """As :meth:`TokenBook.creating_many`: the ids held on one session (one connection,
        not one each), checked in one query, their tokens one transaction
        (:meth:`PgManyCreation.issue`); an id held or taken already is left out of
        :attr:`PgManyCreation.ids`."""
        for match_id in match_ids:
            _check_id(match_id)
        with self.store.claim_many(list(dict.fromkeys(match_ids))) as claimed:
            taken = self.store.existing(claimed) if claimed else set()
            free = [m for m in claimed if m not in taken]
            if free:
                self.store.drop_tokens_many(free)  # of creates whose server died, if any
            creation = PgManyCreation(self, free)
            try:
                yield creation
            except BaseException:
                creation.roll_back()
                raise

    def issue(self, match_id: str) -> dict[str, str]:
        _check_id(match_id)
        tokens = {role: new_token() for role in ROLES}
        hashes = {role: hash_token(token) for role, token in tokens.items()}
        self.store.put_tokens(match_id, hashes)  # committed before the match is created
        return tokens

    def revoke(self, match_id: str) -> None:
        _check_id(match_id)
        self._drop(match_id)

    def replace_roles(self, match_id: str, hashes: dict[str, str]) -> None:
        """As :meth:`Book.replace_roles`: one ``UPDATE`` merging the roles into the row."""
        _check_id(match_id)
        self.store.merge_tokens(match_id, hashes)

    def _drop(self, match_id: str) -> None:
        self.store.drop_tokens(match_id)

    def recover_pending(self) -> list[str]:
        """Remove the tokens of every create whose server died before making its match (a
        create in progress on a live server holds its claim and is left alone)."""
        rolled = []
        for match_id in self.store.tokens_without_match():
            with self.store.claim(match_id) as claimed:
                if claimed and not self.store.exists(match_id):
                    self._drop(match_id)
                    rolled.append(match_id)
        return rolled

    def is_pending(self, match_id: str) -> bool:
        return self.has_tokens(match_id) and not self.store.exists(match_id)

    def sweep(self, store: Store) -> Swept:
        """Creates that died half-way are rolled back; a database has no temporary files, and
        a match without tokens (copied in with ``wonders copy``) is left where it is."""
        swept = Swept(rolled_back=self.recover_pending())
        _log_swept(swept, store)
        return swept

    def _hashes(self, match_id: str) -> dict[str, str]:
        # Read from the database every time, never from a cache: another server on the same
        # database may have reissued or revoked a table's token since (an organizer's console
        # on any server), and a revoked token must stop working on every server at once.
        return self.store.token_hashes(match_id)


class PgCreation:
    """One create in progress on a PostgreSQL store (see :meth:`PgTokenBook.creating`)."""

    def __init__(self, book: PgTokenBook, match_id: str):
        self.book, self.match_id = book, match_id
        self.issued = False
        self.own_file = True

    def issue(self) -> dict[str, str]:
        tokens = self.book.issue(self.match_id)
        self.issued = True
        return tokens

    def not_ours(self) -> None:
        self.own_file = False

    def roll_back(self) -> None:
        if not self.issued:
            return
        if self.own_file:
            with contextlib.suppress(Exception):
                self.book.store.discard(self.match_id)
        self.book.revoke(self.match_id)


class PgManyCreation:
    """Many creates in progress on a PostgreSQL store (see :meth:`PgTokenBook.creating_many`)."""

    def __init__(self, book: PgTokenBook, match_ids: list[str]):
        self.book, self.ids = book, match_ids
        self.issued = False
        self.foreign: set[str] = set()

    def issue(self) -> dict[str, dict[str, str]]:
        """Every held match's tokens, their hashes committed in one transaction before any
        match is created."""
        if not self.ids:
            return {}
        tokens = {m: {role: new_token() for role in ROLES} for m in self.ids}
        self.book.store.put_tokens_many({m: {r: hash_token(t) for r, t in roles.items()}
                                         for m, roles in tokens.items()})
        self.issued = True
        return tokens

    def not_ours(self, match_ids: Sequence[str]) -> None:
        self.foreign.update(match_ids)

    def roll_back(self) -> None:
        if not self.issued:
            return
        for match_id in self.ids:
            if match_id not in self.foreign:
                with contextlib.suppress(Exception):
                    self.book.store.discard(match_id)
        self.book.store.drop_tokens_many(self.ids)


def _log_swept(swept: Swept, where: object) -> None:
    if swept:
        log.warning(swept.describe(where))
    else:
        log.info("store %s: nothing to sweep", where)


_PID = re.compile(r"^\.(?:import-(\d+)-[0-9a-f]+|.+\.(\d+)\.\d+)\.tmp$")


def _writer_alive(path: Path) -> bool:
    """Whether the process named in a temporary file's name (its writer) still runs.  This
    process has no write of its own in progress while it starts."""
    found = _PID.match(path.name)
    if found is None:
        return False
    pid = int(found.group(1) or found.group(2))
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _names(ids: list[str]) -> str:
    if not ids:
        return ""
    shown = ", ".join(ids[:5])
    return f" ({shown}{', …' if len(ids) > 5 else ''})"


def _check_id(match_id: str) -> None:
    if not _SAFE_ID.fullmatch(match_id):
        raise ValueError(f"match id {match_id!r} is not valid (letters, digits, '.', '_', '-')")


class _Holding(Protocol):
    def take(self) -> None: ...
    def roll_back(self) -> None: ...
    def commit(self) -> None: ...


C = TypeVar("C", bound=_Holding)


def _held(creation: C) -> Iterator[C]:
    """A creation taken, yielded, then committed -- or rolled back if the block raised."""
    creation.take()
    try:
        yield creation
    except BaseException:
        creation.roll_back()
        raise
    creation.commit()


def _entry(stored: Any, match_id: str) -> dict[str, str]:
    """A match's hashes in a token file: the file's own (role → hash), or its entry in a
    round's shared file (``{"matches": {match id: {role: hash}}}``, :meth:`ManyCreation.issue`;
    a role's hash is a string, so the two never mix)."""
    if isinstance(stored, dict) and isinstance(stored.get("matches"), dict):
        found = stored["matches"].get(match_id)
        return dict(found) if isinstance(found, dict) else {}
    return stored if isinstance(stored, dict) else {}
