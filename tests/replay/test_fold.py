"""The state is the fold of the events (DESIGN.md section 2, issue 12 point 1).

For recorded matches of both rulesets, random full-pool play and the golden matches (upgraded
to schema 3), ``fold(events[:n])`` equals the engine's state after event ``n``, for every n.
Both sides are compared by state hash (from rules revision 6 it holds the stack: pending
triggers, resolutions, loops, targeting, fliers; the simulated matches record at today's
revision); the events are the ones read back from the file, so the codec is part of what is
checked.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.codec import GENESIS, decode_line, encode_line
from ledger.events import DeckEntry, Event, MatchOpened, SeatInfo
from ledger.filestore import FileStore
from replay.simulate import simulate_matches
from replay.wotf.bots import RandomBot, answer_chance
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from replay.wotf.engine import Engine
from replay.wotf.evolve import evolve, fold, initial_state
from replay.wotf.game import GAME
from replay.wotf.revisions import RULES_REVISION
from replay.wotf.state import state_hash

is_fed = GAME.is_fed

DB = default_cards()


def engine_hashes(events: list[Event]) -> list[str]:
    """Re-derive a match through the engine: its state hash after each event, by seq."""
    engine = Engine.for_match(events[0], DB)
    hashes = [state_hash(engine.state)]
    engine.on_emit = lambda _event: hashes.append(state_hash(engine.state))
    engine.start()
    seq = len(hashes)
    while seq < len(events):
        fed = events[seq]
        assert is_fed(fed), f"seq {seq}: {type(fed).__name__} is not fed"
        engine.decide(fed)
        seq = len(hashes)
    return hashes


def fold_hashes(events: list[Event]) -> list[str]:
    """The hash of ``fold(events[:n + 1])`` for every n, folding once from the start."""
    state = initial_state(events[0])
    hashes = [state_hash(state)]
    for event in events[1:]:
        hashes.append(state_hash(evolve(state, event)))
    return hashes


def assert_fold_matches_engine(events: list[Event], where: str) -> None:
    derived, folded = engine_hashes(events), fold_hashes(events)
    assert len(derived) == len(folded) == len(events), where
    for seq, (mine, theirs) in enumerate(zip(folded, derived, strict=True)):
        assert mine == theirs, (f"{where} seq {seq} ({type(events[seq]).__name__}): the fold "
                                f"differs from the engine's state")


def read_back(events: list[Event]) -> list[Event]:
    """The events as a reader gets them from a file: encoded, then decoded."""
    out, prev = [], GENESIS
    for seq, event in enumerate(events):
        line, prev_next = encode_line(event, seq, "2026-01-01T00:00:00.000Z", seq, prev)
        out.append(decode_line(line, f"mem:{seq + 1}", prev).event)
        prev = prev_next
    return out


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> FileStore:
    store = FileStore(tmp_path_factory.mktemp("fold"))
    decks = load_decks()
    for ruleset, bots in (("1.3.2", ("greedy", "random")), ("1.2", ("random", "greedy"))):
        list(simulate_matches(store, DB, decks, 100, seed=17, ruleset=ruleset, bots=bots,
                              prefix=f"f{ruleset}"))
    return store


def test_simulated_matches_of_both_rulesets_are_folds(simulated):
    infos = simulated.list()
    assert len(infos) == 200
    for info in infos:
        events = [s.event for s in simulated.read(info.match_id)]
        assert events[0].schema_version == 3
        assert_fold_matches_engine(events, info.match_id)


def test_fold_of_a_file_is_its_final_state(simulated):
    info = simulated.list()[0]
    events = [s.event for s in simulated.read(info.match_id)]
    assert state_hash(fold(events)) == engine_hashes(events)[-1]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), ruleset=st.sampled_from(["1.3.2", "1.2"]),
       picks=st.lists(st.integers(0, 10**6), min_size=100, max_size=100),
       revision=st.sampled_from([0, RULES_REVISION]))
def test_full_pool_random_play_is_a_fold(seed, ruleset, picks, revision):
    """Random legal play with decks drawn from the whole pool (scripted abilities, tokens,
    equipment, face-down cards, manual prompts answered with no operations), recorded before
    revisions (0) or at today's revision (whose hash holds the stack: pending triggers,
    resolutions, loops, targeting)."""
    names = sorted(c.name for c in DB if not c.token)
    decks = [[DeckEntry(names[p % len(names)], 1) for p in picks[i::2][:50]] for i in (0, 1)]
    archive = [DeckEntry(c.name, 1) for c in DB if c.token][:6]
    opened = MatchOpened(match_id="pool", ruleset=ruleset, format="prerelease",
                         rules_revision=revision, seats=[
        SeatInfo("A", "a", deck=decks[0], archive=archive),
        SeatInfo("B", "b", deck=decks[1], archive=archive)])
    rng = random.Random(seed)
    engine = Engine.for_match(opened, DB)
    events: list[Event] = [opened, *engine.start()]
    bot = RandomBot(rng)
    while engine.prompt is not None and len(events) < 6000:
        prompt = engine.prompt
        decision = answer_chance(prompt, rng) if prompt.kind == "chance" else bot.decide(engine)
        events += engine.decide(decision)
    assert_fold_matches_engine(read_back(events), f"pool seed {seed}")


def test_the_timeline_shows_every_seq_as_the_engine_derived_it(simulated):
    """Viewing folds the recorded events (no engine); it agrees with re-derivation at every
    seq, including after a take-back."""
    from replay.replayer import Replay
    from replay.timeline import Timeline

    for info in simulated.list()[:3] + simulated.list()[100:102]:
        stored = list(simulated.read(info.match_id))
        timeline, replay = Timeline(stored, every=16), Replay(stored, DB)
        for seq in range(len(stored)):
            assert state_hash(timeline.state_at(seq)) == state_hash(replay.state_at(seq)), seq
        assert timeline.index == replay.index


def test_a_take_back_folds_to_the_state_it_returns_to(tmp_path):
    from replay.recorder import Recorder
    from replay.timeline import Timeline
    from tests.replay.helpers import opened, small_db

    store = FileStore(tmp_path)
    recorder = Recorder.open(store, small_db(), opened(), rng=random.Random(2))
    bot = RandomBot(random.Random(3))
    while recorder.engine.prompt.kind != "turn":
        recorder.submit(bot.decide(recorder.engine))
    mark = recorder.length - 1
    for _ in range(6):
        recorder.submit(bot.decide(recorder.engine))
    recorder.take_back(mark)
    timeline = Timeline(list(store.read("m-test")))
    assert state_hash(timeline.state) == state_hash(timeline.state_at(mark)) == \
        state_hash(recorder.engine.state)


def test_the_golden_matches_are_folds(tmp_path):
    """The schema-3 golden matches as recorded, and the older ones as ``wonders upgrade``
    copies them (their own files did not record every change of state)."""
    from replay.resources import golden_dir
    from replay.wotf.upgrade import upgrade

    for path in sorted(golden_dir().glob("*.jsonl")):
        stored = list(FileStore.read_file(path))
        if stored[0].event.schema_version < 3:
            copy = FileStore(tmp_path / path.stem)
            stored = list(copy.read(upgrade(stored, DB, copy).match_id))
        assert_fold_matches_engine([s.event for s in stored], path.stem)


def test_fold_handles_a_take_back_to_the_very_start():
    from ledger.events import TakenBack
    from tests.replay.helpers import opened, small_db

    match = opened()
    engine = Engine.for_match(match, small_db())
    events = [match, *engine.start()]
    assert state_hash(fold([*events, TakenBack(0)])) == state_hash(initial_state(match))
