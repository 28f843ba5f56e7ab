"""Golden matches: recorded matches whose final state hash is pinned, so any change of rules
behaviour shows up as a divergence or a different hash.

The corpus is re-derived at each file's recorded ruleset and rules revision (issue 12, point 5):
a change to what the engine derives that is not kept behind a revision bump fails here.
Files of schema 2 (golden-1*, golden-ab-*) were recorded before events were fold-complete;
golden-s3-* are schema 3, recorded at revisions 1 to 13.

To re-record after an intended rules change:
``python -m tests.replay.test_golden --write`` (then review the diff of fixtures/matches/).
"""

import json
import sys
from pathlib import Path

import msgspec
import pytest

from ledger.filestore import FileStore
from replay.replayer import Divergence, Replay
from replay.wotf.cards import default_cards
from replay.wotf.revisions import effective
from replay.wotf.state import state_hash

MATCHES = Path(__file__).resolve().parents[2] / "fixtures" / "matches"
HASHES = MATCHES / "hashes.json"


def _final_hashes() -> dict[str, str]:
    out = {}
    for path in sorted(MATCHES.glob("*.jsonl")):
        replay = Replay(list(FileStore.read_file(path)), default_cards())
        out[path.stem] = state_hash(replay.engine.state)
    return out


def assert_diverges_as(events: list, revision: int) -> None:
    """Claimed as rules revision ``revision`` (its ``MatchOpened`` says so), the match's events
    diverge from what the engine derives."""
    events[0] = msgspec.structs.replace(events[0], rules_revision=revision)
    with pytest.raises(Divergence):
        Replay(events, default_cards())


def recorded_today(tmp_path: Path, seed: int, prefix: str, revision: int) -> list:
    """One v1.3.2 match (greedy against random) recorded today at rules revision ``revision``
    into ``tmp_path``, its lines as stored, verified by a replay at that revision."""
    from replay.simulate import simulate_matches
    from replay.wotf.decks import load_decks

    db = default_cards()
    store = FileStore(tmp_path)
    [opened] = simulate_matches(store, db, load_decks(None, db), 1, seed=seed, ruleset="1.3.2",
                                bots=("greedy", "random"), prefix=prefix,
                                rules_revision=revision)
    stored = list(store.read(opened.match_id))
    Replay(stored, default_cards())  # raises Divergence if it does not re-derive
    return stored


def test_golden_matches_replay_to_their_recorded_hashes():
    expected = json.loads(HASHES.read_text())
    assert len(expected) >= 3 and sorted(expected) == sorted(p.stem for p in MATCHES.glob("*.jsonl"))
    for path in sorted(MATCHES.glob("*.jsonl")):
        replay = Replay(list(FileStore.read_file(path)), default_cards())
        assert replay.engine.state.over, f"{path.name} should be a finished match"
        assert state_hash(replay.engine.state) == expected[path.stem], path.name


def test_each_golden_match_derives_under_its_recorded_revision():
    for path in sorted(MATCHES.glob("*.jsonl")):
        replay = Replay(list(FileStore.read_file(path)), default_cards())
        assert replay.engine.state.revision == effective(replay.opened.rules_revision), path.name
        assert (replay.opened.schema_version >= 3) == path.name.startswith("golden-s3-")


def test_a_revision_1_match_keeps_its_behaviour_and_revision_2_would_differ():
    """Equip's arriving-Wonder choice came with revision 2: the revision-1 golden match had
    that situation and re-derives without it; claimed as revision 2, it diverges."""
    stored = list(FileStore.read_file(MATCHES / "golden-s3-r1-132-0001.jsonl"))
    Replay(stored, default_cards())  # verifies at revision 1
    twin = [s.event for s in FileStore.read_file(MATCHES / "golden-s3-r2-132-0001.jsonl")]
    assert any(getattr(e, "ability", "") == "equip_move" for e in twin)
    events = [s.event for s in stored]
    assert_diverges_as(events, 2)


def test_a_revision_8_match_keeps_its_behaviour_and_revision_7_would_differ():
    """Revision 8's tokens created together (R28): the revision-8 golden match plays Drone
    Swarm, whose two tokens go to the one target realm asked once; claimed as revision 7,
    which asked the realm for each token, it diverges."""
    stored = list(FileStore.read_file(MATCHES / "golden-s3-r8-132-0001.jsonl"))
    Replay(stored, default_cards())  # verifies at revision 8
    events = [s.event for s in stored]
    made = [e for e in events if type(e).__name__ == "TokenCreated"]
    assert len(made) == 2 and made[0].realm == made[1].realm
    assert_diverges_as(events, 7)


def test_a_revision_10_match_keeps_its_behaviour_and_revision_9_would_differ():
    """Revision 10 (R42, R43): the revision-10 golden matches record a flier's move as a
    `flying` trigger of the end-of-battle batch (v1.3.2) and a Stormcaller Adept equipped by
    the equipment of the realm it moved into (v1.2); claimed as revision 9, each diverges."""
    for name, sign in (("golden-s3-r10-132-0001", "flying"), ("golden-s3-r10-12-0001", "equip")):
        stored = list(FileStore.read_file(MATCHES / f"{name}.jsonl"))
        Replay(stored, default_cards())  # verifies at revision 10
        events = [s.event for s in stored]
        assert any(getattr(e, "ability", "") == sign or getattr(e, "kind", "") == sign
                   for e in events), name
        assert_diverges_as(events, 9)


def test_a_revision_11_match_keeps_its_behaviour_and_revision_10_would_differ():
    """Revision 11 (R42, R43): the v1.3.2 golden match of revision 11 has a rage Wonder's
    sacrifice as a `rage_sacrifice` trigger ordered with another end-of-battle effect, the
    v1.2 one a Midnight Theft whose new Wonder its thief's unequipped Nightfang Blade equips;
    claimed as revision 10, each diverges."""
    for name in ("golden-s3-r11-132-0001", "golden-s3-r11-12-0001"):
        stored = list(FileStore.read_file(MATCHES / f"{name}.jsonl"))
        Replay(stored, default_cards())  # verifies at revision 11
        events = [s.event for s in stored]
        names = [type(e).__name__ for e in events]
        if name.endswith("-132-0001"):
            assert any(t.ability == "rage_sacrifice" for e in events
                       if type(e).__name__ == "TriggersQueued" for t in e.triggers), name
        else:
            at = names.index("ControlChanged")
            assert "Equipped" in names[at:at + 4], name
        assert_diverges_as(events, 10)


def test_a_revision_10_recording_made_today_keeps_its_behaviour_and_revision_11_would_differ(
        tmp_path):
    """Recorded today at revision 10 with the v1.3.2 revision-11 golden match's arguments, a
    match with rage attacks sacrifices each rage Wonder after the end-of-battle batch, with no
    `rage_sacrifice` trigger, and re-derives at revision 10; claimed as revision 11, it
    diverges.  (Revision 10's engine is the one that recorded golden-s3-r10-*: their hashes
    are pinned above.)"""
    stored = recorded_today(tmp_path, 3039, "r10", 10)  # verifies at revision 10
    events = [s.event for s in stored]
    assert any(getattr(e, "reason", "") == "sacrifice: rage" for e in events)
    assert not any(getattr(e, "ability", "") == "rage_sacrifice" for e in events)
    assert_diverges_as(events, 11)


def test_a_revision_12_match_keeps_its_behaviour_and_revision_11_would_differ():
    """Revision 12 (R20, R46): each revision-12 golden match buries a group in its owner's
    order with a `bury_order` answer, beside an `order` answer of triggers (502); claimed as
    revision 11, whose bury asks an `order` prompt, each diverges at that answer."""
    for name in ("golden-s3-r12-132-0001", "golden-s3-r12-12-0001"):
        stored = list(FileStore.read_file(MATCHES / f"{name}.jsonl"))
        Replay(stored, default_cards())  # verifies at revision 12
        events = [s.event for s in stored]
        kinds = [e.kind for e in events if type(e).__name__ == "Answered"]
        assert "bury_order" in kinds and "order" in kinds, name
        assert_diverges_as(events, 11)


def test_a_revision_11_recording_made_today_keeps_its_behaviour_and_revision_12_would_differ(
        tmp_path):
    """Recorded today at revision 11 with the v1.3.2 revision-12 golden match's arguments, the
    same bury's order is an `order` answer, as revision 11 recorded it, and re-derives at 11;
    claimed as revision 12, it diverges."""
    stored = recorded_today(tmp_path, 3040, "r11", 11)  # verifies at revision 11
    events = [s.event for s in stored]
    twin = [s.event for s in FileStore.read_file(MATCHES / "golden-s3-r12-132-0001.jsonl")]
    assert [getattr(e, "kind", None) for e in events if type(e).__name__ == "Answered"] == \
        [{"bury_order": "order"}.get(e.kind, e.kind) for e in twin if type(e).__name__ == "Answered"]
    assert not any(getattr(e, "kind", "") == "bury_order" for e in events)
    assert_diverges_as(events, 12)


def test_a_revision_13_match_keeps_its_behaviour_and_revision_12_would_differ():
    """Revision 13 (501, R47): each revision-13 golden match has triggers set off in the
    middle of an effect that waited until it was finished (`TriggersDeferred`, then
    `EffectFinished`); claimed as revision 12, which resolved them inside the operation that
    set them off, each diverges."""
    for name in ("golden-s3-r13-132-0001", "golden-s3-r13-12-0001"):
        stored = list(FileStore.read_file(MATCHES / f"{name}.jsonl"))
        Replay(stored, default_cards())  # verifies at revision 13
        events = [s.event for s in stored]
        names = [type(e).__name__ for e in events]
        assert "TriggersDeferred" in names, name
        assert names.index("TriggersDeferred") < names.index("EffectFinished"), name
        assert_diverges_as(events, 12)


def test_a_revision_12_recording_made_today_keeps_its_behaviour_and_revision_13_would_differ(
        tmp_path):
    """Recorded today at revision 12 with the v1.3.2 revision-13 golden match's arguments, the
    match has no waiting triggers and re-derives at 12; claimed as revision 13, it
    diverges."""
    stored = recorded_today(tmp_path, 3072, "r12", 12)  # verifies at revision 12
    events = [s.event for s in stored]
    assert not any(type(e).__name__ in ("TriggersDeferred", "EffectFinished") for e in events)
    assert_diverges_as(events, 13)


def _write() -> None:  # pragma: no cover - a maintenance command
    import shutil
    import tempfile

    from replay.simulate import simulate_matches
    from replay.wotf.decks import load_decks

    db = default_cards()
    decks = load_decks(None, db)
    work = Path(tempfile.mkdtemp())
    # golden-1*: recorded before cards had abilities (old matches must keep replaying);
    # golden-ab-*: the scripted decks, so abilities are pinned too.
    # golden-s3-r<N>-*: schema 3 at rules revision N (revision 3: stable ability ids;
    # revision 4: a face-down card can't be activated; revision 5: issue 15's first slice;
    # revision 6: the stack is recorded -- seed 3012 has v1.2 fliers scheduled; seed
    # 3001 makes Equip's revision-2 choice come up: an arriving Wonder may take its ally's
    # equipment; revision 7: issue 15's player choices and R22; revision 8: issue 15 beyond
    # its list -- tokens arriving together, triggers about different cards ordered, ...;
    # revision 9: the rules audit -- banished realms' stones, v1.2 banished realms, protectors
    # on Wonders only, rage where no attack can take place; revision 10: the end-of-battle
    # batch -- seed 3019 has a flier's flying trigger -- and equipment equipping a Wonder
    # that moves in -- seed 3034's Stormcaller Adept moves onto its ally's equipment;
    # revision 11: seed 3039's rage sacrifice is ordered with another end-of-battle effect,
    # seed 3314's Midnight Theft takes a Wonder beside its thief's unequipped equipment;
    # revision 12: a bury's order is a bury_order answer -- seeds 3040 and 3065 each have one,
    # beside an order answer of triggers; revision 13: triggers set off in the middle of an
    # effect wait until it is finished (501, R47) -- seeds 3072 and 3068 each have some).
    for ruleset, bots, prefix, seed, revision in (
            ("1.3.2", ("greedy", "greedy"), "golden-132", 2026, 0),
            ("1.2", ("greedy", "random"), "golden-12", 2026, 0),
            ("1.3.2", ("greedy", "random"), "golden-ab-132", 2027, 0),
            ("1.2", ("random", "greedy"), "golden-ab-12", 2027, 0),
            ("1.3.2", ("greedy", "random"), "golden-s3-r1-132", 3001, 1),
            ("1.3.2", ("greedy", "random"), "golden-s3-r2-132", 3001, 2),
            ("1.2", ("random", "greedy"), "golden-s3-r2-12", 3002, 2),
            ("1.3.2", ("greedy", "random"), "golden-s3-r3-132", 3003, 3),
            ("1.2", ("random", "greedy"), "golden-s3-r3-12", 3004, 3),
            ("1.3.2", ("greedy", "random"), "golden-s3-r4-132", 3005, 4),
            ("1.2", ("random", "greedy"), "golden-s3-r4-12", 3006, 4),
            ("1.3.2", ("greedy", "random"), "golden-s3-r5-132", 3007, 5),
            ("1.2", ("random", "greedy"), "golden-s3-r5-12", 3008, 5),
            ("1.3.2", ("greedy", "random"), "golden-s3-r6-132", 3009, 6),
            ("1.2", ("random", "greedy"), "golden-s3-r6-12", 3012, 6),
            ("1.3.2", ("greedy", "random"), "golden-s3-r7-132", 3013, 7),
            ("1.2", ("random", "greedy"), "golden-s3-r7-12", 3014, 7),
            ("1.3.2", ("greedy", "random"), "golden-s3-r8-132", 3015, 8),
            ("1.2", ("random", "greedy"), "golden-s3-r8-12", 3016, 8),
            ("1.3.2", ("greedy", "random"), "golden-s3-r9-132", 3017, 9),
            ("1.2", ("random", "greedy"), "golden-s3-r9-12", 3018, 9),
            ("1.3.2", ("greedy", "random"), "golden-s3-r10-132", 3019, 10),
            ("1.2", ("random", "greedy"), "golden-s3-r10-12", 3034, 10),
            ("1.3.2", ("greedy", "random"), "golden-s3-r11-132", 3039, 11),
            ("1.2", ("random", "greedy"), "golden-s3-r11-12", 3314, 11),
            ("1.3.2", ("greedy", "random"), "golden-s3-r12-132", 3040, 12),
            ("1.2", ("random", "greedy"), "golden-s3-r12-12", 3065, 12),
            ("1.3.2", ("greedy", "random"), "golden-s3-r13-132", 3072, 13),
            ("1.2", ("random", "greedy"), "golden-s3-r13-12", 3068, 13)):
        if any(MATCHES.glob(f"{prefix}-*.jsonl")):
            continue  # recorded matches stay as recorded; delete them to record anew
        for opened in simulate_matches(FileStore(work), db, decks, 1, seed=seed,
                                       ruleset=ruleset, bots=bots, prefix=prefix,
                                       rules_revision=revision):
            shutil.copy(work / f"{opened.match_id}.jsonl", MATCHES / f"{opened.match_id}.jsonl")
    HASHES.write_text(json.dumps(_final_hashes(), indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":  # pragma: no cover
    if "--write" in sys.argv:
        _write()
        print(f"wrote {HASHES}")
    else:
        pytest.main([__file__])
