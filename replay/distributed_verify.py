"""Verify many matches on a Dask cluster: ``wonders verify --jobs N`` / ``--scheduler``.

The matches to verify are :data:`Source` s -- a match file by its path, or a match of a store
(a directory or a ``postgresql://`` URL) by the store's URL and its id --, so a worker opens
what it verifies itself, on any machine that sees the same path or database.  Each worker
task verifies a chunk of them exactly as the one-process ``wonders verify`` does
(:func:`replay.verify.verify_file`, :func:`replay.verify.verify_lines`: the same levels, the
same report lines).  The runner is :func:`ledger.distributed.run_chunks`: a task that raises
or loses its worker is retried, then match by match; a match whose task still fails is a
``FAIL`` report naming it with the error, and every other match is reported as usual.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ledger.distributed import RETRIES, Failure, maybe_fault, run_chunks, workers
from ledger.errors import LedgerError
from ledger.store import SUFFIX, Store
from replay import resources
from replay.verify import FAIL, Report, verify_file, verify_lines

#: ``("file", path, "", opened)``: a match file given by itself; ``("file", path, match_id,
#: opened)``: a store directory's file (named ``<match_id>.jsonl``); ``("store", url,
#: match_id, "")``: a match of a store.  A file's ``path`` is as the command was given it (its
#: report names it so), ``opened`` its absolute path, which the worker opens: a worker of a
#: ``--scheduler`` cluster runs in a directory of its own, where a relative path named another
#: file or none (every match failed 'no such file').
Source = tuple[str, str, str, str]

CHUNK = 20  # matches per task at most (a task is at least ~0.3 s of work)


def sources(paths: Sequence[str]) -> list[Source]:
    """What ``wonders verify PATH…`` verifies, in its order: a match file itself, each match
    file of a store directory, each match of a ``postgresql://`` store (by id).  A path that
    is neither a file nor a directory is a :class:`FileNotFoundError`."""
    from ledger.filestore import FileStore
    from ledger.stores import is_url, open_store

    out: list[Source] = []
    for raw in paths:
        if is_url(raw):
            with open_store(raw) as store:
                out += [("store", raw, match_id, "") for match_id in store.ids()]
            continue
        path = Path(raw)
        if path.is_dir():
            out += [("file", str(file), file.name[:-len(SUFFIX)], os.path.abspath(file))
                    for file in FileStore(path).files()]
        elif path.is_file():
            out.append(("file", str(path), "", os.path.abspath(path)))
        else:
            raise FileNotFoundError(f"{raw}: no such file or directory")
    return out


def verify_many(found: Sequence[Source], against_current: bool = False, client: Any = None,
                retries: int = RETRIES) -> Iterator[tuple[int, Report]]:
    """``(index in found, report)`` for every source, as they complete: on ``client``'s
    cluster (a ``distributed.Client``), else in this process."""
    spread = workers(client) if client is not None else 1
    size = max(1, min(CHUNK, len(found) // (4 * spread) or 1))
    indexed = list(enumerate(found))
    chunks = [indexed[i:i + size] for i in range(0, len(indexed), size)]
    shipped = resources.shipped_cards_dir()
    chosen = resources.cards_dir()
    cards = None if chosen == shipped else os.fspath(chosen)
    for result in run_chunks(verify_chunk, chunks, (against_current, cards), client, retries):
        if isinstance(result, Failure):
            index, source = result.item
            name = _name(source)
            yield index, Report(_where(source), FAIL,
                                f"{name}: not verified: its worker task failed after "
                                f"{retries} retries: {result.error}")
        else:
            yield from result


def verify_chunk(chunk: list[tuple[int, Source]], against_current: bool,
                 cards: str | None) -> list[tuple[int, Report]]:
    """A worker's task: verify a chunk of sources (``cards``: the ``--cards`` pool, if one
    was chosen)."""
    maybe_fault([_name(source).removesuffix(SUFFIX) for _index, source in chunk])
    previous = resources.use_cards(cards) if cards else None
    try:
        return [(index, _verify(source, against_current)) for index, source in chunk]
    finally:
        if cards:
            resources.use_cards(previous)


#: Stores open in this process, by URL (a worker opens each once).
_STORES: dict[str, Store] = {}


def _verify(source: Source, against_current: bool) -> Report:
    kind, where, match_id, opened = source
    if kind == "file":
        return verify_file(opened, None, against_current=against_current,
                           match_id=match_id or None, shown=where)
    from ledger.stores import describe, open_store

    store = _STORES.get(where)
    if store is None:
        store = _STORES[where] = open_store(where)
    try:
        data = store.export_lines(match_id)
    except LedgerError as exc:
        return Report(f"{describe(store)}/{match_id}", FAIL, f"{match_id}{SUFFIX}: {exc}")
    return verify_lines(data, f"{match_id}{SUFFIX}", None, against_current,
                        f"{describe(store)}/{match_id}", match_id)


def _name(source: Source) -> str:
    kind, where, match_id, _opened = source
    return os.path.basename(where) if kind == "file" else f"{match_id}{SUFFIX}"


def _where(source: Source) -> str:
    kind, where, match_id, _opened = source
    if kind == "file":
        return where
    from ledger.stores import describe

    return f"{describe(where)}/{match_id}"
