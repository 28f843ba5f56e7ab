"""The stack is in the state (rules revision 6): what the Wonders engine holds while an ability
resolves -- the triggered abilities waiting to resolve (502), the abilities resolving and a
voluntary loop's stated repetitions (503), the effects choosing targets (Nullify), v1.2's
end-of-turn fliers -- is ``GameState.stack``, written by the fold from recorded events.  So at
a prompt in the middle of a resolution the state folded from the recorded events alone
(``evolve``, no engine) holds the stack, and once the resolution is over it is empty.  Matches
of revisions 1–5 derive exactly the events they always did (their engine applies the stack
events without recording them).

The positions are the conformance cases of loops, Nullify and Flying (``fixtures/conformance``)
and positions of their own (v1.2 Flying, two batches of triggers one inside the other); random
full-pool play of both rulesets checks the fold at every prompt and an empty stack at every
turn prompt.
"""

from __future__ import annotations

import random
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import msgspec
import pytest

from ledger.events import DeckEntry, Event, MatchOpened, SeatInfo
from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.resources import conformance_dir, golden_dir
from replay.simulate import simulate_matches
from replay.timeline import Timeline
from replay.wotf import conformance
from replay.wotf import events as ev
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from replay.wotf.engine import Engine
from replay.wotf.evolve import evolve, fold, initial_state
from replay.wotf.perspective import redact_event
from replay.wotf.revisions import RULES_REVISION, STACK_REVISION
from replay.wotf.state import GameState, canonical, clone, state_hash

DB = default_cards()
STACK_TYPES = tuple(ev.STACK_EVENTS)

#: v1.2 Flying with a prompt while the flier waits for the end of the turn: Stormcaller Adept's
#: "End of battle: you may move this" asks after the flier was scheduled (battle step 6).
FLYING_12 = """
name = "stack-v12-flier-waits-while-the-battle-ends"
rules = "1.2"
[cards."Filler"]
type = "wonder"
power = 1
cost = 9
[cards."Sky Hawk"]
type = "wonder"
power = 4
cost = 3
keywords = ["flying"]
[state]
round = 3
turn = "A"
[state.A]
deck = ["Filler", "Filler", "Filler", "Filler", "Filler"]
[state.B]
deck = ["Filler", "Filler", "Filler", "Filler", "Filler"]
[[state.world]]
id = "hawk"
card = "Sky Hawk"
controller = "A"
realm = 2
[[state.world]]
id = "adept"
card = "Stormcaller Adept"
controller = "A"
realm = 2
"""


#: 502 with two batches, one inside the other: Howler arrives (rage and call trigger
#: together; A orders them), rages into a tie with B's Tie Wolf, and both deathstrikes trigger
#: while Howler's call still waits; the Wolf's shield asks B while its own deathstrike waits.
PENDING = """
name = "stack-pending-triggers"
rules = "1.3.2"
[cards."Filler"]
type = "wonder"
power = 1
cost = 9
[cards."Howler"]
type = "wonder"
power = 3
cost = 1
keywords = ["rage", "call", "deathstrike"]
[cards."Tie Wolf"]
type = "wonder"
power = 3
cost = 3
keywords = ["deathstrike"]
[state]
round = 3
turn = "A"
[state.A]
energy = 5
hand = [{ id = "h", card = "Howler" }]
deck = ["Filler", "Filler", "Filler", "Filler", "Filler"]
[state.B]
deck = ["Filler", "Filler", "Filler", "Filler", "Filler"]
[[state.world]]
id = "bw"
card = "Tie Wolf"
controller = "B"
realm = 2
counters = { shield = 1 }
"""
PENDING_STEPS: list[dict[str, Any]] = [
    {"player": "A", "action": "play", "card": "h", "realm": 2},
    {"player": "A", "expect_prompt": "order", "pick": ["h:rage", "h:call"]},
    {"player": "A", "expect_prompt": "may", "pick": "yes"},  # rage: attack now
    {"player": "A", "expect_prompt": "order", "pick": ["h", "bw"]},  # the deathstrikes
    {"player": "B", "expect_prompt": "may", "pick": "no"},  # keep the shield: the Wolf dies
]


class Run:
    """A conformance position played through the engine at a revision, keeping what it
    records; :meth:`folded` is the state from those events alone."""

    def __init__(self, case: dict[str, Any], revision: int):
        self.cards = conformance._case_cards(case.get("cards", {}), DB)
        state = conformance.build_state(case.get("state", {}), case.get("rules", "1.3.2"),
                                        self.cards)
        state.revision = revision
        self.start = clone(state)
        self.engine = Engine(self.cards, state)
        self.events: list[Event] = list(self.engine.start())

    def play(self, step: dict[str, Any]) -> None:
        prompt = self.engine.prompt
        assert prompt is not None and prompt.seat == step["player"]
        if "expect_prompt" in step:
            assert prompt.kind == step["expect_prompt"]
        decision = conformance._decision(step, step["player"], prompt.kind, "step")
        self.events += self.engine.decide(decision)

    def folded(self) -> GameState:
        state = clone(self.start)
        for event in self.events:
            evolve(state, event)
        return state

    def stack_events(self) -> list[Event]:
        return [e for e in self.events if isinstance(e, STACK_TYPES)]


def _case(name: str) -> dict[str, Any]:
    path = next(conformance_dir().rglob(f"{name}.toml"))
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _assert_fold_is_the_engine(run: Run) -> GameState:
    folded = run.folded()
    assert state_hash(folded) == state_hash(run.engine.state)
    assert folded.stack == run.engine.state.stack
    return folded


# -- revision 6: the stack is folded from the recorded events -------------------------------


def test_the_current_revision_records_the_stack():
    assert RULES_REVISION >= STACK_REVISION == 6


def test_a_voluntary_loop_is_on_the_stack_at_its_amount_prompt():
    """503 (R18): Echo Chorus answers each token with another.  At the "how many more
    times" prompt the Chorus is resolving twice inside Wolf Mother's ability; once A states
    3, the loop's repetitions are recorded and the stack empties when it is over."""
    case = _case("ab-voluntary-loop-stated-count")
    run = Run(case, revision=6)
    steps = case["steps"]
    for step in steps[:-1]:
        run.play(step)
    prompt = run.engine.prompt
    assert prompt is not None and prompt.kind == "amount"
    folded = _assert_fold_is_the_engine(run)
    assert folded.stack is not None
    chorus = [r for r in folded.stack.resolving if r.source == "chorus"]
    assert len(chorus) == 2 and folded.stack.loops == []
    assert b'"stack":{"pending":' in canonical(folded)  # hashed from revision 6
    assert folded.stack.resolving[0].source == "wm"  # Wolf Mother's ability, outermost

    run.play(steps[-1])
    folded = _assert_fold_is_the_engine(run)
    assert folded.stack is None  # the resolution is over: nothing on the stack
    stated = [e for e in run.events if isinstance(e, ev.LoopStated)]
    assert [(e.source, e.times) for e in stated] == [("chorus", 3)]
    assert sum(isinstance(e, ev.LoopRepeated) for e in run.events) == 3
    starts = sum(isinstance(e, ev.ResolutionStarted) for e in run.events)
    assert starts == sum(isinstance(e, ev.ResolutionEnded) for e in run.events) > 3
    conformance.check_expect(run.engine, case["expect"])  # the case's outcome still holds


def test_a_loop_is_on_the_stack_between_its_repetitions():
    """Folding event by event: after ``LoopStated`` the state holds the stated count, each
    ``LoopRepeated`` takes one off, and the last ``ResolutionEnded`` clears the loop."""
    case = _case("ab-voluntary-loop-stated-count")
    run = Run(case, revision=6)
    for step in case["steps"]:
        run.play(step)
    state = clone(run.start)
    lefts: list[int] = []
    for event in run.events:
        evolve(state, event)
        if isinstance(event, (ev.LoopStated, ev.LoopRepeated)):
            assert state.stack is not None
            lefts.append(state.stack.loops[0].left)
    assert lefts == [3, 2, 1, 0]
    assert state.stack is None


def test_a_nullify_on_targeting_is_on_the_stack_at_its_pay_prompt():
    """Nullify (Feline Entity of Dreams): while Feline's ability asks B whether to pay, B's
    Rootling Terror effect is the one choosing targets; B declines, the effect is nullified
    and the stack empties."""
    case = _case("ab-feline-entity-nullifies-an-effect-declined")
    run = Run(case, revision=6)
    steps = case["steps"]
    for step in steps[:-1]:
        run.play(step)
    prompt = run.engine.prompt
    assert prompt is not None and prompt.kind == "may" and prompt.seat == "B"
    folded = _assert_fold_is_the_engine(run)
    assert folded.stack is not None
    [targeting] = folded.stack.targeting
    assert (targeting.source, targeting.controller, targeting.nullified) == ("terror", "B", False)
    assert [r.source for r in folded.stack.resolving] == ["terror", "feline"]

    run.play(steps[-1])
    folded = _assert_fold_is_the_engine(run)
    assert folded.stack is None
    assert [(e.source, e.card) for e in run.events if isinstance(e, ev.EffectNullified)] == \
        [("terror", "feline")]
    order = [type(e).__name__ for e in run.stack_events()]
    assert order.index("TargetingStarted") < order.index("EffectNullified") < \
        order.index("TargetingEnded")
    conformance.check_expect(run.engine, case["expect"])


def test_a_nullified_target_is_recorded_when_the_controller_pays_nothing_is_nullified():
    case = _case("ab-feline-entity-nullifies-an-effect-paid")
    run = Run(case, revision=6)
    for step in case["steps"]:
        run.play(step)
    _assert_fold_is_the_engine(run)
    assert not any(isinstance(e, ev.EffectNullified) for e in run.events)
    assert any(isinstance(e, ev.TargetingStarted) for e in run.events)
    conformance.check_expect(run.engine, case["expect"])


def test_a_v12_flier_waits_on_the_stack_until_the_end_of_the_turn():
    """v1.2 Flying: the attacking flier is scheduled at the end of battle; while Stormcaller
    Adept's end-of-battle ability asks, it is on the stack; at the end of the turn it leaves
    the stack and may fly."""
    run = Run(tomllib.loads(FLYING_12), revision=6)
    run.play({"player": "A", "action": "attack", "realm": 2})
    prompt = run.engine.prompt
    assert prompt is not None and prompt.kind == "may" and prompt.card == "adept"
    folded = _assert_fold_is_the_engine(run)
    assert folded.stack is not None and folded.stack.fliers == ["hawk"]
    assert [r.source for r in folded.stack.resolving] == ["adept"]  # its "may" is asking
    assert [e.cards for e in run.events if isinstance(e, ev.FlightScheduled)] == [["hawk"]]

    run.play({"player": "A", "expect_prompt": "may", "pick": "no"})
    prompt = run.engine.prompt
    assert prompt is not None and prompt.kind == "realm" and prompt.card == "hawk"
    folded = _assert_fold_is_the_engine(run)
    assert folded.stack is None  # the flier left the stack as the turn ended
    assert [e.cards for e in run.events if isinstance(e, ev.FlightsCleared)] == [["hawk"]]

    run.play({"player": "A", "expect_prompt": "realm", "pick": 3})
    assert _assert_fold_is_the_engine(run).stack is None
    assert run.engine.state.cards["hawk"].realm == 3


def _waiting(state: GameState) -> list[list[tuple[str, str]]]:
    """The pending batches (502) as (source, ability), innermost last."""
    return [[(t.source, t.ability) for t in batch]
            for batch in (state.stack.pending if state.stack else [])]


def test_triggers_waiting_to_resolve_are_on_the_stack_at_the_prompts_of_their_batch():
    """502: once the active player ordered Howler's rage and call, the call waits on the stack
    while the rage asks (and attacks); the deathstrikes of the tie are a batch of their own,
    above it, whose second waits while the first's target asks about its shield.  Folded from
    the recorded events alone at every prompt; empty again at the turn prompt."""
    run = Run(tomllib.loads(PENDING), revision=6)
    seen = []
    for step in PENDING_STEPS:
        run.play(step)
        prompt = run.engine.prompt
        assert prompt is not None
        seen.append((prompt.kind, _waiting(_assert_fold_is_the_engine(run))))
    assert seen == [
        ("order", []),  # being ordered: in the prompt, not yet queued
        ("may", [[("h", "call")]]),  # the rage asks; the call waits
        ("order", [[("h", "call")]]),  # the tie's deathstrikes are being ordered
        ("may", [[("h", "call")], [("bw", "deathstrike")]]),  # the Wolf's shield
        ("turn", []),
    ]
    assert run.folded().stack is None
    queued = [[(t.source, t.ability) for t in e.triggers]
              for e in run.events if isinstance(e, ev.TriggersQueued)]
    assert queued == [[("h", "rage"), ("h", "call")], [("h", "deathstrike"), ("bw", "deathstrike")]]
    dequeued = [(e.source, e.ability) for e in run.events if isinstance(e, ev.TriggerDequeued)]
    assert dequeued == [("h", "rage"), ("h", "deathstrike"), ("bw", "deathstrike"),
                        ("h", "call")]  # the outer batch's last, after the inner batch
    assert {run.engine.state.cards[c].zone for c in ("h", "bw")} == {"abyss"}


def test_revision_5_holds_the_pending_triggers_without_recording_them():
    old, new = Run(tomllib.loads(PENDING), revision=5), Run(tomllib.loads(PENDING), revision=6)
    for step in PENDING_STEPS:
        old.play(step)
        new.play(step)
        assert old.engine.state.stack == new.engine.state.stack
        assert state_hash(old.folded()) == state_hash(old.engine.state)
    assert old.stack_events() == []
    assert old.events == [e for e in new.events if not isinstance(e, STACK_TYPES)]


def _play_randomly(opened: MatchOpened, seed: int) -> tuple[int, int]:
    """Random legal play from the whole pool, checking at every prompt that the state folded
    from the recorded events is the engine's, stack included, and that nothing is on the stack
    at a turn prompt.  Returns (turn prompts, prompts with triggers waiting)."""
    from replay.wotf.bots import RandomBot, answer_chance

    rng = random.Random(seed)
    engine = Engine.for_match(opened, DB)
    folded = initial_state(opened)
    bot = RandomBot(rng)
    turns = waiting = 0
    new = engine.start()
    while True:
        for event in new:
            evolve(folded, event)
        assert state_hash(folded) == state_hash(engine.state)
        assert folded.stack == engine.state.stack
        prompt = engine.prompt
        if prompt is None:
            break
        if prompt.kind == "turn":
            turns += 1
            assert engine.state.stack is None, f"seed {seed}: a stack at a turn prompt"
        waiting += bool(folded.stack and folded.stack.pending)
        decision = answer_chance(prompt, rng) if prompt.kind == "chance" else bot.decide(engine)
        new = engine.decide(decision)
    assert engine.state.over and engine.state.stack is None
    return turns, waiting


@pytest.mark.parametrize("ruleset", ["1.3.2", "1.2"])
def test_random_matches_fold_with_their_stack_and_empty_it_at_every_turn_prompt(ruleset):
    names = sorted(c.name for c in DB if not c.token)
    archive = [DeckEntry(c.name, 1) for c in DB if c.token][:6]
    turns = waiting = 0
    for seed in range(12, 20):  # some of these come to a prompt while triggers wait
        rng = random.Random(seed)
        decks = [[DeckEntry(rng.choice(names), 1) for _ in range(50)] for _ in "AB"]
        opened = MatchOpened(match_id=f"pool-{seed}", ruleset=ruleset, format="prerelease",
                             rules_revision=RULES_REVISION, seats=[
                                 SeatInfo("A", "a", deck=decks[0], archive=archive),
                                 SeatInfo("B", "b", deck=decks[1], archive=archive)])
        t, w = _play_randomly(opened, seed)
        turns, waiting = turns + t, waiting + w
    assert turns > 100 and waiting > 0, (turns, waiting)


def test_a_match_that_ends_mid_resolution_leaves_no_stack():
    """A match can end in the middle of a resolution (a concession here; a deck-out, 405,
    likewise): ``MatchEnded`` clears the stack."""
    case = _case("ab-feline-entity-nullifies-an-effect-declined")
    run = Run(case, revision=6)
    for step in case["steps"][:-1]:
        run.play(step)
    assert run.folded().stack is not None
    run.events += run.engine.decide(ev.Conceded("A"))
    assert isinstance(run.events[-1], ev.MatchEnded)
    assert run.folded().stack is None and run.engine.state.stack is None


def test_the_stack_events_reveal_a_face_down_card_to_no_seat():
    """The stack events name a card in play; a face-down one is hidden like in any event,
    its ability (which names the card) too."""
    seen = redact_event(ev.ResolutionStarted("A7", "ab:Echo Chorus#again"), "B", {"A7"})
    assert seen == ev.ResolutionStarted("?", "?")
    assert redact_event(ev.FlightScheduled(["A7", "A8"]), "spectator", {"A7"}) == \
        ev.FlightScheduled(["?", "A8"])
    assert redact_event(ev.EffectNullified("B2", "A7"), "B", {"A7"}) == \
        ev.EffectNullified("B2", "?")
    public = ev.ResolutionStarted("A7", "ab:Echo Chorus#again")
    assert redact_event(public, "spectator") == public  # nothing hidden: shown as recorded
    queued = ev.TriggersQueued([ev.Trigger("A7", "A", "ab:Echo Chorus#again", 2),
                                ev.Trigger("B2", "B", "equip_move", 2, subject="A7")])
    assert redact_event(queued, "B", {"A7"}) == ev.TriggersQueued(
        [ev.Trigger("?", "A", "?", 2), ev.Trigger("B2", "B", "equip_move", 2, subject="?")])
    assert redact_event(queued, "A", {"C1"}) == queued
    assert redact_event(ev.TriggerDequeued("A7", "ab:Echo Chorus#again"), "spectator",
                        {"A7"}) == ev.TriggerDequeued("?", "?")


def test_the_stack_events_narrate_as_short_sentences():
    names = {"chorus": "Echo Chorus", "feline": "Feline Entity", "terror": "Rootling Terror"}
    from replay.wotf.narrate import narrate

    assert narrate(ev.LoopStated("chorus", "ab:Echo Chorus#again", 3), 3, names) == \
        "Loop: Echo Chorus's ability repeats 3 more times"
    assert narrate(ev.EffectNullified("terror", "feline"), 3, names) == \
        "Feline Entity nullifies Rootling Terror's effect"
    queued = ev.TriggersQueued([ev.Trigger("feline", "A", "guardian"),
                                ev.Trigger("chorus", "A", "ab:Echo Chorus#again")])
    assert narrate(queued, 3, names) == ("Triggered abilities wait to resolve: Feline Entity's "
                                         "guardian, Echo Chorus's ability")
    assert narrate(ev.TriggerDequeued("feline", "guardian"), 3, names) == \
        "Next to resolve: Feline Entity's guardian"
    for cls in STACK_TYPES:
        fields = {"source": "chorus", "ability": "ab:Echo Chorus#again", "times": 1,
                  "controller": "A", "card": "feline", "cards": ["chorus"],
                  "triggers": [ev.Trigger("chorus", "A", "ab:Echo Chorus#again")]}
        event = cls(**{f: fields[f] for f in cls.__struct_fields__})
        assert not narrate(event, 3, names).startswith(cls.__name__)  # a sentence, not a dump


# -- revisions 1-5: the same events, unrecorded ---------------------------------------------


@pytest.mark.parametrize("name", ["ab-voluntary-loop-stated-count",
                                  "ab-feline-entity-nullifies-an-effect-declined"])
def test_revision_5_records_no_stack_and_derives_the_same_events(name):
    """At revision 5 the engine holds the same stack in its state, but records nothing of
    it: its events are revision 6's without the stack events, and the hash (which leaves an
    unrecorded stack out) is the fold's at every prompt."""
    case = _case(name)
    old, new = Run(case, revision=5), Run(case, revision=6)
    for step in case["steps"][:-1]:
        old.play(step)
        new.play(step)
    assert old.stack_events() == []
    assert old.engine.state.stack == new.engine.state.stack is not None  # held, not recorded
    assert state_hash(old.folded()) == state_hash(old.engine.state)
    assert b'"stack"' not in canonical(old.engine.state)
    old.play(case["steps"][-1])
    new.play(case["steps"][-1])
    assert old.events == [e for e in new.events if not isinstance(e, STACK_TYPES)]
    assert old.engine.state.stack is None


def test_revision_5_v12_flying_records_no_stack():
    old, new = Run(tomllib.loads(FLYING_12), revision=5), Run(tomllib.loads(FLYING_12), revision=6)
    for run in (old, new):
        run.play({"player": "A", "action": "attack", "realm": 2})
        run.play({"player": "A", "expect_prompt": "may", "pick": "no"})
        run.play({"player": "A", "expect_prompt": "realm", "pick": 3})
    assert old.stack_events() == [] and new.stack_events()
    assert old.events == [e for e in new.events if not isinstance(e, STACK_TYPES)]


def _simulate(seed: int, ruleset: str, bots: tuple[str, str], prefix: str,
              revision: int) -> list[Event]:
    with tempfile.TemporaryDirectory() as work:
        store = FileStore(Path(work))
        [opened] = simulate_matches(store, DB, load_decks(None, DB), 1, seed=seed,
                                    ruleset=ruleset, bots=bots, prefix=prefix,
                                    rules_revision=revision)
        return [s.event for s in store.read(opened.match_id)]


#: Card definitions fixed in the pool since the golden matches were recorded (a match keeps
#: the definitions it embeds): Stormcaller Adept's move chooses among the adjacent realms
#: (``realm = "target"``, docs/rulings.md R42).
_FIXED_SINCE = {"Stormcaller Adept"}


def _unfixed(cards: list) -> list:
    return [c for c in cards if c["name"] not in _FIXED_SINCE]


@pytest.mark.parametrize(("seed", "ruleset", "bots", "prefix"), [
    (3007, "1.3.2", ("greedy", "random"), "golden-s3-r5-132"),
    (3008, "1.2", ("random", "greedy"), "golden-s3-r5-12")])
def test_a_revision_5_recording_made_today_is_its_golden_match(seed, ruleset, bots, prefix):
    """Recorded today at revision 5 with the golden match's arguments, a match has exactly
    the golden file's events.  (Its ``MatchOpened`` records today's card pool: the same card
    definitions, whose canonical key order -- and so ``cards_digest`` -- changed since; that
    is the pool, not the engine.)  At revision 6 the same play records the same events plus
    the stack's."""
    today = _simulate(seed, ruleset, bots, prefix, revision=5)
    golden = [s.event for s in FileStore.read_file(golden_dir() / f"{prefix}-0001.jsonl")]
    assert today[1:] == golden[1:]
    opened, recorded = today[0], golden[0]
    assert isinstance(opened, MatchOpened) and isinstance(recorded, MatchOpened)
    assert _unfixed(opened.cards) == _unfixed(recorded.cards)
    assert msgspec.structs.replace(opened, cards_digest="", cards=[]) == \
        msgspec.structs.replace(recorded, cards_digest="", cards=[])
    current = _simulate(seed, ruleset, bots, prefix, revision=6)
    assert [e for e in current[1:] if not isinstance(e, STACK_TYPES)] == golden[1:]
    assert any(isinstance(e, STACK_TYPES) for e in current)


def test_the_revision_6_golden_matches_fold_with_their_stack_at_every_seq():
    """The viewer folds without the engine; for the revision-6 golden matches it agrees with
    re-derivation at every seq, the stack included (the hash encodes it from revision 6)."""
    seen_stack = seen_pending = False
    for path in sorted(golden_dir().glob("golden-s3-r6-*.jsonl")):
        stored = list(FileStore.read_file(path))
        replay, timeline = Replay(stored, DB), Timeline(stored, every=16)
        assert replay.opened.rules_revision == 6
        for seq in range(len(stored)):
            mine, theirs = timeline.state_at(seq), replay.state_at(seq)
            assert state_hash(mine) == state_hash(theirs), (path.name, seq)
            assert mine.stack == theirs.stack, (path.name, seq)
            seen_stack = seen_stack or mine.stack is not None
            seen_pending = seen_pending or bool(mine.stack and mine.stack.pending)
        assert fold([s.event for s in stored]).stack is None
    assert seen_stack and seen_pending
