"""The re-derivation's shortcuts change nothing it derives.

* Settling (101.6: a Wonder with negative power dies) asks ``View.power`` only of the
  Wonders ``View.can_have_negative_power`` names: after every event of random play with the
  sample decks (scripted cards, counters, statics), the Wonders it leaves out have power ≥ 0,
  so the incremental settle finds exactly the Wonders the full one finds.
* Settling needs no static table when no static ability in force can change power
  (``View.has_power_statics``): then a fresh view's table has no power entries.
* ``View.links`` is kept until the next event: after every event it equals the links a fresh
  view (no cache) works out.
* "Whenever" triggers skip a card only when ``View.may_react_to`` says no ability on the
  event can be in force on it: a fresh view lists no such ability for it.
"""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.events import MatchOpened, SeatInfo
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from replay.wotf.engine import Engine
from replay.wotf.queries import View
from tests.replay.helpers import play_out

DB = default_cards()
DECKS = load_decks(None, db=DB)
EVENTS = sorted({a.on.event for c in DB for a in c.abilities if a.on is not None})


def check_shortcuts(engine: Engine, event) -> None:
    """Every shortcut against the full computation, on the state after ``event``."""
    view, fresh = engine.view, View(engine.state, engine.view.db)
    for c in view.world():
        if view.is_wonder(c.id) and not view.can_have_negative_power(c.id):
            # nothing lowers it: its power is its printed base (a growth land's count of
            # lands) plus its +1 counters, never below 0 -- settling may skip it
            d = fresh.db[c.name]
            growth = d.type == "land" and c.counters.get("growth", 0) > 0
            base = fresh.lands_controlled(c.controller) if growth else d.base_power
            assert fresh.power(c.id) == base + c.counters.get("+1", 0) >= 0, (
                f"after {event}: {c.id} has power {fresh.power(c.id)} but settling skips it")
        for name in EVENTS:
            if not view.may_react_to(c.id, name):
                assert not any(a.when == "whenever" and a.on is not None and a.on.event == name
                               for a in fresh.abilities(c.id, include_nullified=True)), (
                    f"after {event}: {c.id} has a 'whenever' on {name} but is skipped")
    for seat in ("A", "B"):
        assert view.links(seat) == fresh.links(seat), f"after {event}: stale links of {seat}"
    if not view.has_power_statics():
        table = fresh.statics()
        assert not (table.power_add or table.power_mul or table.base), (
            f"after {event}: a static changes power but has_power_statics says none can")


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=st.integers(0, len(DECKS) - 1), b=st.integers(0, len(DECKS) - 1),
       seed=st.integers(0, 2**32 - 1), ruleset=st.sampled_from(["1.3.2", "1.2"]))
def test_shortcuts_agree_with_full_computation_under_random_play(a, b, seed, ruleset):
    seats = [SeatInfo(seat, seat, deck.name, deck.entries(), deck.archive_entries())
             for seat, deck in (("A", DECKS[a]), ("B", DECKS[b]))]
    engine = Engine.for_match(MatchOpened(match_id="cache", ruleset=ruleset, seats=seats), DB)
    seen = []

    def on_emit(event):
        seen.append(event)
        check_shortcuts(engine, event)

    engine.on_emit = on_emit
    engine.start()
    play_out(engine, random.Random(seed))
    assert engine.state.over and len(seen) > 50


def _engine_with_world(seed: int = 3) -> Engine:
    """A match of two sample decks, played at random until each seat has a land and a
    Wonder in The World (Deck A's and Deck B's first sample decks)."""
    seats = [SeatInfo(seat, seat, deck.name, deck.entries(), deck.archive_entries())
             for seat, deck in (("A", DECKS[0]), ("B", DECKS[-1]))]
    for attempt in range(20):
        engine = Engine.for_match(MatchOpened(match_id="cache", ruleset="1.3.2", seats=seats), DB)
        engine.start()
        rng = random.Random(seed + attempt)

        def ready(e: Engine) -> bool:
            v = e.view
            return any(v.is_wonder(c.id) and DB[c.name].type == "wonder" for c in v.world()) and \
                any(DB[c.name].type == "land" for c in v.world())
        steps = 0
        while engine.prompt is not None and not ready(engine) and steps < 2000:
            play_out(engine, rng, limit=1)
            steps += 1
        if ready(engine):
            return engine
    raise AssertionError("no seed put a Wonder and a land in The World")


def test_minus_one_counters_make_a_wonder_a_candidate_of_settling():
    # 101.6: a Wonder with negative power dies; −1 counters lower power (Counters)
    engine = _engine_with_world()
    wonder = next(c.id for c in engine.view.world()
                  if engine.view.is_wonder(c.id) and DB[c.name].type == "wonder")
    engine.out = []
    engine.add_counters(wonder, "-1", int(engine.view.power(wonder)) + 1)
    assert engine.view.power(wonder) < 0
    assert engine.view.can_have_negative_power(wonder)


def test_links_are_forgotten_when_a_null_counter_lands():
    # Link: orbitals linked by non-nullified cards; a null counter nullifies (Nullify)
    engine = _engine_with_world()
    land = next(c for c in engine.view.world() if DB[c.name].type == "land")
    seat = land.controller
    assert engine.view.links(seat) == View(engine.state, engine.view.db).links(seat)
    engine.out = []
    for c in engine.view.world():
        if c.controller == seat:
            engine.add_counters(c.id, "null", 1)
    assert engine.view.links(seat) == View(engine.state, engine.view.db).links(seat) == frozenset()
