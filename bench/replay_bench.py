"""Benchmark: simulation, full replay (re-derivation), folding, seeking, viewer steps, and
greedy vs random.

Prints one JSON object.  ``decode_events_per_s`` is the raw msgspec decode rate of the same
match lines in the same run: the physical limit the replay and fold rates are read against.

Every figure is measured for each game through the game protocol: Wonders of The First's keys
as they are, State of Wonder's suffixed ``_sow``.

* ``replay_events_per_s`` -- re-derivation through the rules engine (what ``verify`` does);
* ``fold_events_per_s`` -- the same matches' decoded events folded by the game's ``evolve``
  from its ``initial_state``, no engine (what viewing does); ``fold_vs_decode`` is its ratio to
  the decode rate (target ≥ 0.30);
* ``viewer_step_ms_p50`` / ``viewer_step_ms_p99`` -- one viewer step computed by folding: a
  match's :class:`~replay.timeline.Timeline` (built once, as the viewer keeps it) gives the
  state at a random seq, and the game's ``board`` draws it from a random perspective (target:
  p99 ≤ 5 ms, over at least 1000 steps);
* ``simulate_bulk_matches_per_s`` -- the same simulation written in bulk mode (each finished
  match written durably at once, :func:`replay.simulate.simulate_matches` ``bulk=True``;
  target ≥ 25); its files must be byte-identical to the batch-by-batch ones, else the bench
  fails;
* ``seek_p50_ms`` / ``seek_p99_ms`` / ``seek_p999_ms`` -- a random seq of a verified
  :class:`~replay.replayer.Replay` (the engine re-run from the nearest snapshot), every
  simulated match's replay held at once, as a server holds them, with the collector set as
  the server sets it (:func:`web.longlived.settle_startup`: the startup objects frozen;
  :func:`web.longlived.spread_full_collections`: a full collection ten times rarer); target
  p99.9 ≤ 15 ms;
* ``snapshot_kb_per_match`` -- the mean size of a replay's seek snapshots (target ≤ 300);
* ``engine_compiled_modules`` -- how many of the Wonders engine's modules ran compiled (0: a
  plain install; ``WONDERS_COMPILE=1`` builds compile :data:`replay.native.COMPILED`).

Fold rates are the best of three passes over the same events; the decode rate is the best of
six, three before the replays and three after them.
"""

from __future__ import annotations

import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ledger.filestore import FileStore
from ledger.registry import decoder as event_decoder
from replay.games import game
from replay.native import compiled_modules
from replay.replayer import Replay
from replay.simulate import simulate_matches
from replay.timeline import Timeline
from web.longlived import settle_startup, spread_full_collections

PASSES = 3  # decode and fold: the best of this many passes
VIEWER_STEPS = 1000  # at least this many viewer steps, spread over the matches
SEEKS = 1000  # at least this many seeks (the quick run: 100), spread over the matches
GAMES = {"wotf": "", "sow": "_sow"}  # each game's figures, keys suffixed


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def fold(played, events: list) -> object:
    """The state after ``events`` by the game's ``evolve`` alone (simulated matches have no
    take-backs)."""
    state = played.initial_state(events[0])
    for event in events[1:]:
        played.evolve(state, event)
    return state


def best_rate(count: int, run) -> float:
    """``count`` per second of the fastest of :data:`PASSES` runs of ``run()``."""
    seconds = []
    for _ in range(PASSES):
        start = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - start)
    return count / min(seconds)


def measure(name: str, root: Path, quick: bool, db, decks) -> dict:
    """Every figure for one game, with its card pool and sample decks."""
    played = game(name)
    n_sim = 10 if quick else 40
    n_duel = 20 if quick else 200

    # Simulation, greedy vs greedy.
    store = FileStore(root / name / "greedy")
    start = time.perf_counter()
    ids = [o.match_id for o in simulate_matches(store, db, decks, n_sim, seed=7,
                                                bots=("greedy", "greedy"), game_name=name)]
    sim_seconds = time.perf_counter() - start

    # The same simulation in bulk mode: one durable write per match, the same bytes.
    bulk = FileStore(root / name / "bulk")
    start = time.perf_counter()
    for _ in simulate_matches(bulk, db, decks, n_sim, seed=7, bots=("greedy", "greedy"),
                              game_name=name, bulk=True):
        pass
    bulk_seconds = time.perf_counter() - start
    for mid in ids:
        if bulk.export_lines(mid) != store.export_lines(mid):
            raise SystemExit(f"bulk simulation wrote other bytes for {mid} ({name})")

    # Full re-derivation of each match, against the raw decode rate of the same lines.
    logs = {mid: list(store.read(mid)) for mid in ids}
    lines = [line for mid in ids for line in store.path(mid).read_bytes().splitlines()]
    decoder = event_decoder()  # the tagged union of every registered game's events
    decode_rate = best_rate(len(lines), lambda: [decoder.decode(line) for line in lines])

    # Folding the same matches' decoded events without the engine (what viewing does).
    decoded = [[stored.event for stored in log] for log in logs.values()]
    fold_rate = best_rate(sum(map(len, decoded)),
                          lambda: [fold(played, events) for events in decoded])
    replay_ms, events = [], 0
    for log in logs.values():
        start = time.perf_counter()
        Replay(log, db)
        replay_ms.append((time.perf_counter() - start) * 1000)
        events += len(log)
    # Decoding again after the replays: a slow phase of a shared machine during the first
    # passes would make the ratios to the decode rate look better than they are.
    decode_rate = max(decode_rate,
                      best_rate(len(lines), lambda: [decoder.decode(line) for line in lines]))

    # Seeking to random points of full matches, every replay held (as a server holds them).
    rng = random.Random(3)
    seek_ms = []
    replays = [Replay(log, db) for log in logs.values()]
    snapshot_kb = statistics.mean(sum(map(len, r.snapshots.values())) / 1024 for r in replays)
    per_replay = -(-(100 if quick else SEEKS) // len(replays))
    for replay in replays:
        for _ in range(per_replay):
            seq = rng.randrange(len(replay))
            start = time.perf_counter()
            replay.state_at(seq)
            seek_ms.append((time.perf_counter() - start) * 1000)
    del replays

    # Viewer steps computed by folding: the state at a random seq, drawn as a board.
    rng = random.Random(5)
    step_ms = []
    per_match = -(-VIEWER_STEPS // len(decoded))
    for events_of_match in decoded:
        timeline = Timeline(events_of_match)
        cards = played.match_cards(events_of_match[0], db)
        for _ in range(per_match):
            seq = rng.randrange(len(timeline))
            perspective = rng.choice(played.perspectives)
            start = time.perf_counter()
            played.board(timeline.state_at(seq), cards, perspective)
            step_ms.append((time.perf_counter() - start) * 1000)

    # Greedy vs random, seats alternating.
    wins = 0
    half = n_duel // 2
    for seats, prefix in ((("greedy", "random"), "gr"), (("random", "greedy"), "rg")):
        duel = FileStore(root / name / prefix)
        for opened in simulate_matches(duel, db, decks, half, seed=11, bots=seats, prefix=prefix,
                                       game_name=name):
            info = next(i for i in duel.list() if i.match_id == opened.match_id)
            greedy_seat = "A" if seats[0] == "greedy" else "B"
            wins += info.winner == greedy_seat

    replay_rate = events / (sum(replay_ms) / 1000)
    return {
        "simulate_matches_per_s": round(n_sim / sim_seconds, 2),
        "simulate_bulk_matches_per_s": round(n_sim / bulk_seconds, 2),
        "replay_events_per_s": round(replay_rate),
        "decode_events_per_s": round(decode_rate),
        "replay_vs_decode": round(replay_rate / decode_rate, 4),
        "fold_events_per_s": round(fold_rate),
        "fold_vs_decode": round(fold_rate / decode_rate, 4),
        "viewer_step_ms_p50": round(percentile(step_ms, 0.5), 3),
        "viewer_step_ms_p99": round(percentile(step_ms, 0.99), 3),
        "viewer_steps": len(step_ms),
        "replay_match_ms_median": round(statistics.median(replay_ms), 2),
        "events_per_match_median": statistics.median(len(log) for log in logs.values()),
        "seek_p50_ms": round(percentile(seek_ms, 0.5), 3),
        "seek_p99_ms": round(percentile(seek_ms, 0.99), 3),
        "seek_p999_ms": round(percentile(seek_ms, 0.999), 3),
        "snapshot_kb_per_match": round(snapshot_kb, 1),
        "greedy_vs_random_win_rate": round(wins / (2 * half), 3),
        "greedy_vs_random_matches": 2 * half,
        "matches_simulated": n_sim,
        "seeks": len(seek_ms),
    }


def main() -> None:
    quick = "--quick" in sys.argv
    root = Path(tempfile.mkdtemp(prefix="wonders-bench-"))
    figures: dict = {}
    pools = {}  # what a server loads before it serves, then settles as one
    for name in GAMES:
        db = game(name).default_cards()
        pools[name] = (db, game(name).sample_decks(db))
    settle_startup()
    spread_full_collections()
    try:
        for name, suffix in GAMES.items():
            measured = measure(name, root, quick, *pools[name])
            figures.update({key + suffix: value for key, value in measured.items()})
    finally:
        shutil.rmtree(root, ignore_errors=True)
    figures["engine_compiled_modules"] = len(compiled_modules("replay.wotf"))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
