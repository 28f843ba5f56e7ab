"""State of Wonder matches recorded through a real store (``ledger.filestore.FileStore``):
written batch by batch, read back through the codec, re-derived from their inputs."""

from __future__ import annotations

from pathlib import Path

import msgspec

from ledger.events import Event, MatchOpened
from ledger.filestore import FileStore
from replay.sow.evolve import encoded, fold
from replay.sow.simulate import open_match, play, rederive
from tests.replay.sow.helpers import deck_pair, pool

AT = "2026-11-24T04:00:00.000000Z"


def record(store: FileStore, seed: int, bots: tuple[str, str]) -> tuple[MatchOpened, list[Event]]:
    opened = open_match(f"sow-store-{seed}", deck_pair(seed), pool())
    store.create(opened, at=AT)
    seq = 1

    def append(batch: list[Event]) -> None:
        nonlocal seq
        store.append(opened.match_id, batch, seq, at=AT)
        seq += len(batch)

    return opened, play(opened, pool(), seed, bots, on_batch=append)


def test_matches_written_to_files_read_back_and_rederive(tmp_path: Path) -> None:
    store = FileStore(tmp_path)
    for seed, bots in ((1, ("random", "greedy")), (2, ("greedy", "greedy")), (3, ("random", "random"))):
        opened, events = record(store, seed, bots)
        stored = list(store.read(opened.match_id))
        assert [s.seq for s in stored] == list(range(len(events) + 1))
        read_opened = stored[0].event
        assert isinstance(read_opened, MatchOpened) and read_opened == opened
        read_events = [s.event for s in stored[1:]]
        assert msgspec.json.encode(read_events) == msgspec.json.encode(events)
        again, engine = rederive(read_opened, read_events, pool())
        assert msgspec.json.encode(again) == msgspec.json.encode(read_events)
        assert encoded(fold(read_opened, read_events)) == encoded(engine.state)
    assert len(store.list()) == 3


def test_the_file_replays_without_the_pool(tmp_path: Path) -> None:
    """The embedded card definitions are enough: an empty pool still re-derives the match."""
    from replay.sow.cards import CardPool
    store = FileStore(tmp_path)
    opened, events = record(store, 5, ("greedy", "random"))
    stored = list(store.read(opened.match_id))
    again, _ = rederive(stored[0].event, [s.event for s in stored[1:]], CardPool())  # type: ignore[arg-type]
    assert msgspec.json.encode(again) == msgspec.json.encode(events)
