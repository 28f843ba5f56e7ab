"""Benchmark: the analytics warehouse (ingest rate, ``cards`` latency) next to a naive baseline.

Prints one JSON object.  The corpus is 10,000 simulated matches (half under ruleset 1.3.2,
half under 1.2, two simulator processes), generated once and cached under
``/tmp/wonders-analytics-bench/<parameters>/`` (the output says where and whether it was reused).

* ``ingest_matches_per_s`` / ``ingest_events_per_s`` / ``ingest_10k_s``: a fresh ``ingest`` of
  the 10,000 match files (every line's hash and chain link checked) into a new DuckDB file;
* ``cards_10k_s``: the ``cards`` statistic (SQL plus Wilson intervals) over that warehouse;
* ``cards_100k_s``: the same over a 100,000-match warehouse that repeats the 10,000 simulated
  matches ten times under new ids (``<id>~0`` … ``<id>~9``, rows replicated inside DuckDB);
* ``naive_cards_10k_s`` / ``naive_cards_100k_s``: the same statistic computed in plain Python
  (:mod:`ledger.plainstats`: decode every file, loop over the events) over the same files --
  for 100,000 matches every file is decoded and counted ten times, under the ten ids;
* ``cards_naive_ratio``: naive / DuckDB at 10,000 matches (``cards_naive_ratio_100k`` at 100,000).

``--quick`` uses 400 matches (and 4 repeats) for a smoke test.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CACHE = Path("/tmp/wonders-analytics-bench")
SEED = 6
RULESETS = ("1.3.2", "1.2")


def _simulate_shard(args: tuple[str, int, int, str, str]) -> int:
    """One simulator process: ``count`` matches with ids ``<prefix>-0001`` … into ``out``."""
    out, count, seed, ruleset, prefix = args
    from ledger.filestore import FileStore
    from replay.cards import default_cards
    from replay.decks import load_decks
    from replay.simulate import simulate_matches

    db = default_cards()
    decks = load_decks(None, db)
    store = FileStore(out)
    done = 0
    for _ in simulate_matches(store, db, decks, count, seed, ruleset, ("greedy", "greedy"), prefix):
        done += 1
    return done


def corpus(matches: int) -> tuple[Path, bool]:
    """The cached corpus directory for ``matches`` simulated matches; built if missing."""
    key = f"n{matches}-seed{SEED}-rules{'+'.join(RULESETS)}-greedy"
    root = CACHE / key
    ready = root / "READY"
    if ready.exists():
        return root / "store", True
    if root.exists():
        shutil.rmtree(root)
    store = root / "store"
    store.mkdir(parents=True)
    shards = len(RULESETS)
    jobs = [(str(store), matches // shards + (1 if k < matches % shards else 0), SEED * 100 + k,
             RULESETS[k], f"s{k}") for k in range(shards)]
    with multiprocessing.get_context("spawn").Pool(shards) as pool:
        pool.map(_simulate_shard, jobs)
    ready.write_text("ok\n")
    return store, False


if __name__ == "__main__" and "--corpus-only" in sys.argv:
    path, reused = corpus(int(sys.argv[sys.argv.index("--corpus-only") + 1]))
    print(json.dumps({"corpus": str(path), "reused": reused}))
    sys.exit(0)
