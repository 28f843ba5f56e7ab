"""Golden State of Wonder matches: committed files whose head hashes are pinned.

Each ``fixtures/sow/matches/*.jsonl`` is read through the codec, re-derived from its inputs,
re-encoded line by line with the recorded envelopes and compared with the pinned head hash
(``hashes.json``).  ``python -m tests.replay.sow.test_golden --write`` records the missing ones.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ledger.codec import GENESIS, encode_line
from ledger.events import MatchOpened
from ledger.filestore import FileStore
from replay.resources import data_root
from replay.sow.simulate import open_match, play, rederive
from tests.replay.sow.helpers import decks, pool

GOLDEN = {  # match id -> (deck A, deck B, seed, bots)
    "sow-golden-1": ("Ashen Raid", "Ironhold Walls", 11, ("greedy", "greedy")),
    "sow-golden-2": ("Sunmarch Spire", "Steppe Colossus", 12, ("greedy", "random")),
    "sow-golden-3": ("Stonewatch Hold", "Ashen Raid", 13, ("random", "greedy")),
}
AT = "2026-11-24T04:00:00.000000Z"


def golden_dir() -> Path:
    return data_root() / "sow" / "matches"


def pinned() -> dict[str, str]:
    path = golden_dir() / "hashes.json"
    return json.loads(path.read_text()) if path.exists() else {}


def head_of_rederived(path: Path) -> str:
    stored = list(FileStore.read_file(path))
    opened = stored[0].event
    assert isinstance(opened, MatchOpened)
    again, _ = rederive(opened, [s.event for s in stored[1:]], pool())
    prev = GENESIS
    _, prev = encode_line(opened, 0, stored[0].at, stored[0].batch, prev)
    assert len(again) == len(stored) - 1
    for event, original in zip(again, stored[1:], strict=True):
        _, prev = encode_line(event, original.seq, original.at, original.batch, prev)
    return prev


@pytest.mark.parametrize("match_id", sorted(GOLDEN))
def test_golden_match_rederives_to_its_pinned_hash(match_id: str) -> None:
    path = golden_dir() / f"{match_id}.jsonl"
    assert path.exists(), f"{path} is missing: run python -m tests.replay.sow.test_golden --write"
    assert head_of_rederived(path) == pinned()[match_id]
    assert list(FileStore.read_file(path))[-1].hash == pinned()[match_id]


def write_missing() -> list[str]:
    out, hashes = golden_dir(), pinned()
    written = []
    store = FileStore(out)
    for match_id, (deck_a, deck_b, seed, bots) in sorted(GOLDEN.items()):
        if (out / f"{match_id}.jsonl").exists():
            continue
        opened = open_match(match_id, (decks()[deck_a], decks()[deck_b]), pool())
        store.create(opened, at=AT)
        seq = 1

        def append(batch: list, match_id: str = match_id) -> None:
            nonlocal seq
            store.append(match_id, batch, seq, at=AT)
            seq += len(batch)

        play(opened, pool(), seed, bots, on_batch=append)
        hashes[match_id] = list(store.read(match_id))[-1].hash
        written.append(match_id)
    (out / "hashes.json").write_text(json.dumps(hashes, indent=2, sort_keys=True) + "\n")
    return written


if __name__ == "__main__":
    if "--write" not in sys.argv[1:]:
        raise SystemExit("usage: python -m tests.replay.sow.test_golden --write")
    print("recorded:", ", ".join(write_missing()) or "nothing (all present)")
