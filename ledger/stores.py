"""Opening a store from what a user types: a directory, or a ``postgresql://`` URL.

Every command and setting that takes a store (``wonders serve --store``, ``simulate --out``,
``verify``, ``ingest``, ``upgrade``, ``copy``, ``WONDERS_STORE``) goes through
:func:`open_store`, so each accepts both.
"""

from __future__ import annotations

import os

from ledger.errors import StoreUnavailableError
from ledger.store import Store

URL_SCHEMES = ("postgresql://", "postgres://")


def is_url(target: str | os.PathLike) -> bool:
    """Whether ``target`` names a database rather than a directory."""
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


def open_store(target: str | os.PathLike | Store, must_exist: bool = False,
               **options: object) -> Store:
    """The store at ``target``: a :class:`~ledger.pgstore.PgStore` for a ``postgresql://``
    URL, else a :class:`~ledger.filestore.FileStore` on that directory (created if missing,
    unless ``must_exist``: then a missing directory is a
    :class:`~ledger.errors.StoreUnavailableError`).  A store given is returned as it is."""
    if isinstance(target, Store):
        return target
    if is_url(target):
        from ledger.pgstore import PgStore

        return PgStore(str(target), **options)  # type: ignore[arg-type]
    from ledger.filestore import FileStore, file_in_the_way

    if must_exist and not os.path.isdir(target):
        raise StoreUnavailableError(f"{os.fspath(target)}: not a store directory "
                                    f"({file_in_the_way(target) or 'no such directory'})")

    return FileStore(target, **options)  # type: ignore[arg-type]


def describe(target: str | os.PathLike | Store) -> str:
    """How to name a store in a message (a URL without its password)."""
    if isinstance(target, Store):
        target = target.url
    if is_url(target):
        from ledger.pgstore import _safe

        return _safe(str(target))
    return os.fspath(target)
