"""Golden matches: recorded matches whose final state hash is pinned, so any change of rules
behaviour shows up as a divergence or a different hash.

To re-record after an intended rules change:
``python -m tests.replay.test_golden --write`` (then review the diff of fixtures/matches/).
"""

import json
import sys
from pathlib import Path

import pytest

from ledger.filestore import FileStore
from replay.cards import default_cards
from replay.replayer import Replay
from replay.state import state_hash

MATCHES = Path(__file__).resolve().parents[2] / "fixtures" / "matches"
HASHES = MATCHES / "hashes.json"


def _final_hashes() -> dict[str, str]:
    out = {}
    for path in sorted(MATCHES.glob("*.jsonl")):
        replay = Replay(list(FileStore.read_file(path)), default_cards())
        out[path.stem] = state_hash(replay.engine.state)
    return out


def test_golden_matches_replay_to_their_recorded_hashes():
    expected = json.loads(HASHES.read_text())
    assert len(expected) >= 3 and sorted(expected) == sorted(p.stem for p in MATCHES.glob("*.jsonl"))
    for path in sorted(MATCHES.glob("*.jsonl")):
        replay = Replay(list(FileStore.read_file(path)), default_cards())
        assert replay.engine.state.over, f"{path.name} should be a finished match"
        assert state_hash(replay.engine.state) == expected[path.stem], path.name


def _write() -> None:  # pragma: no cover - a maintenance command
    import shutil
    import tempfile

    from replay.decks import load_decks
    from replay.simulate import simulate_matches

    db = default_cards()
    decks = load_decks(None, db)
    work = Path(tempfile.mkdtemp())
    # golden-1*: recorded before cards had abilities (old matches must keep replaying);
    # golden-ab-*: the scripted decks, so abilities are pinned too.
    for ruleset, bots, prefix, seed in (("1.3.2", ("greedy", "greedy"), "golden-132", 2026),
                                        ("1.2", ("greedy", "random"), "golden-12", 2026),
                                        ("1.3.2", ("greedy", "random"), "golden-ab-132", 2027),
                                        ("1.2", ("random", "greedy"), "golden-ab-12", 2027)):
        if any(MATCHES.glob(f"{prefix}-*.jsonl")):
            continue  # recorded matches stay as recorded; delete them to record anew
        for opened in simulate_matches(FileStore(work), db, decks, 2, seed=seed,
                                       ruleset=ruleset, bots=bots, prefix=prefix):
            shutil.copy(work / f"{opened.match_id}.jsonl", MATCHES / f"{opened.match_id}.jsonl")
    HASHES.write_text(json.dumps(_final_hashes(), indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":  # pragma: no cover
    if "--write" in sys.argv:
        _write()
        print(f"wrote {HASHES}")
    else:
        pytest.main([__file__])
