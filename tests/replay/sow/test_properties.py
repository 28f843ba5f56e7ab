"""Property tests of the State of Wonder engine: random legal play never crashes and always
ends; a recorded match re-derives identically from its inputs; and the fold property -- for
every n, folding the first n events gives the engine's state right after event n."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.events import Event, MatchEnded, kind_of
from replay.errors import IllegalDecisionError
from replay.sow.engine import Engine
from replay.sow.events import PlayChosen
from replay.sow.evolve import encoded, evolve, fold
from replay.sow.simulate import inputs, open_match, play, rederive
from tests.replay.sow.helpers import deck_pair, played, pool

SEEDS = st.integers(min_value=0, max_value=10_000)
BOTS = st.sampled_from([("random", "random"), ("greedy", "random"), ("greedy", "greedy"),
                        ("random", "greedy")])


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, bots=BOTS)
def test_random_play_ends_with_one_match_ended(seed: int, bots: tuple[str, str]) -> None:
    _, events = played(seed, bots)
    ended = [e for e in events if isinstance(e, MatchEnded)]
    assert len(ended) == 1 and events[-1] is ended[0]
    assert ended[0].reason in ("progress", "state_destroyed", "turn_limit")


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, bots=BOTS)
def test_recorded_matches_rederive_identically(seed: int, bots: tuple[str, str]) -> None:
    opened, events = played(seed, bots)
    again, _ = rederive(opened, events, pool())
    assert msgspec.json.encode(again) == msgspec.json.encode(events)


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, bots=BOTS)
def test_fold_of_every_prefix_is_the_engines_state(seed: int, bots: tuple[str, str]) -> None:
    opened = open_match(f"fold-{seed}", deck_pair(seed), pool())
    snapshots: list[bytes] = []

    def hook(engine: Engine) -> None:
        engine.on_emit = lambda _event: snapshots.append(encoded(engine.state))

    events = play(opened, pool(), seed, bots, engine_hook=hook)
    assert len(snapshots) == len(events)
    state = fold(opened, [])
    for n, event in enumerate(events):
        evolve(state, event)
        assert encoded(state) == snapshots[n], f"state differs after event {n + 1}: {event}"
    assert encoded(fold(opened, events)) == snapshots[-1]


def test_a_rejected_decision_changes_nothing() -> None:
    opened, events = played(7)
    engine = Engine.for_match(opened, pool())
    engine.start()
    fed = [e for e in events if type(e).__name__ in ("CultureOrdered", "InitiativeTossed")]
    for e in fed:
        engine.decide(e)
    before, prompt = encoded(engine.state), engine.prompt
    assert prompt is not None and prompt.kind == "turn"
    bogus: Event = PlayChosen(prompt.seat, "nope")  # type: ignore[arg-type]
    assert engine.check(bogus) is not None
    try:
        engine.decide(bogus)
    except IllegalDecisionError as exc:
        assert "Culture" in str(exc)
    else:
        raise AssertionError("an unknown card was played")
    assert encoded(engine.state) == before and engine.prompt == prompt


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, bots=BOTS, data=st.data())
def test_prompts_always_have_a_choice_and_strangers_are_refused(
        seed: int, bots: tuple[str, str], data: st.DataObject) -> None:
    """No prompt has a single legal answer (it would have been taken), and a decision made
    for another prompt -- or by the other seat -- is refused, the state unchanged."""
    opened = open_match(f"prompts-{seed}", deck_pair(seed), pool())
    events = play(opened, pool(), seed, bots)
    fed = inputs(events)
    seen = [e for e in fed if kind_of(type(e).__name__) == "decision"]
    again = Engine.for_match(opened, pool())
    again.start()
    stop = data.draw(st.integers(min_value=0, max_value=len(fed) - 1))
    for event in fed[:stop]:
        prompt = again.prompt
        assert prompt is not None
        if prompt.choose is None:
            assert len(prompt.options) > 1, prompt
        again.decide(event)
    if again.prompt is None or again.prompt.seat == "chance":
        return
    before, prompt = encoded(again.state), again.prompt
    stranger = data.draw(st.sampled_from(seen))
    if again.check(stranger) is None:
        return  # by chance a legal decision here
    try:
        again.decide(stranger)
    except IllegalDecisionError:
        pass
    else:
        raise AssertionError(f"{stranger} was accepted at {prompt}")
    assert encoded(again.state) == before and again.prompt == prompt
