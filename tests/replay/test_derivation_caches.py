"""The re-derivation's shortcuts change nothing it derives.

* Settling (101.6: a Wonder with negative power dies) asks ``View.power`` only of the
  Wonders ``View.can_have_negative_power`` names: after every event of random play with the
  sample decks (scripted cards, counters, statics), the Wonders it leaves out have power ≥ 0,
  so the incremental settle finds exactly the Wonders the full one finds; the cards it asks
  about (``View.may_be_negative``, partly kept until a card changes area) are those a fresh
  view's ``can_have_negative_power`` names.  An effect on a card makes it a candidate only
  if it may lower its power (a base, an addition or a multiplier below 0).
* Settling needs no static table when no static ability in force can change power
  (``View.has_power_statics``): then a fresh view's table has no power entries; nor when
  none can lower it (``View.has_lowering_statics``): then every power entry of a fresh
  view's table is 0 or more, and every Wonder settling skips has power ≥ 0.  Likewise
  each other part of the table (nullified, granted keywords, restrictions -- any, and each
  one alone --, deck plays, stones, any-power symbiosis: ``View.statics_for``) is skipped
  only while a fresh view's table has it empty.
* ``View.links`` is kept until the next event: after every event it equals the links a fresh
  view (no cache) works out.
* Keyword triggers (On Arrival's rage, call and symbiosis; Guardian; Unstable) skip a card
  only when ``View.may_have_keyword`` says none can be in force on it: a fresh view counts
  none; the keyword counts (granted keywords kept per card for the generation) are a fresh
  view's.
* "Whenever" triggers skip a card only when ``View.may_react_to`` says no ability on the
  event can be in force on it: a fresh view lists no such ability for it.  The cards that
  may react to an event (``View.reactors``, kept until a card changes area) are those a
  fresh view finds; so are the cards in each realm (``View.in_realm``).  A card's own
  triggers of a timing are collected only from cards ``View.may_have_timing`` names: no
  other card has such an ability in force.
* The static abilities' sources (looked for only on cards of a name with a printed static
  ability, or with copied abilities, kept until such a card changes area: a move of any
  other card keeps them) are those a scan of every card in The World finds; a view that
  keeps them across a static card's move is caught.
* A turn action keeps the static table unless a static ability in The World has a
  ``took_last_turn`` condition (cards with one added to random play, both rulesets); a
  view that overlooks such a condition is caught.
* The static-ability table and the links are kept across the events of
  ``evolve.VIEW_UNCHANGED`` (those evolve ignores, and those writing only the phase, the
  turn, pass counts, resources or event counts): after every event the view's kept table
  equals the one a fresh view works out.  A deliberately broken shortcut (every event keeps
  the view) is caught by the same check.
* The facts a view keeps about single cards for one generation (``has_null_mark``,
  ``is_nullified``, ``ability_refs``, ``is_wonder``, ``power``; and
  ``can_have_negative_power``, worked out from them) equal a fresh view's after every
  event, in every zone, with and without statics; a view that never drops them is caught
  by the same check, under both rulesets.
* Settling is skipped while the view's generation is the one at which it last found nothing
  to do: at every settle where a full settle (a fresh view) finds a +1/−1 pair or a Wonder
  with negative power, settling emits something.
"""

import random

import pytest
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
TIMINGS = sorted({a.when for c in DB for a in c.abilities})
#: the keywords that trigger (the handlers on the event bus ask keyword_count of them)
TRIGGERING = ("rage", "call", "symbiosis", "guardian", "unstable", "deathstrike", "flying",
              "heart of a legend")


#: the facts about one card a view keeps for its generation (``View._forget`` drops them),
#: and one worked out from them
CARD_FACTS = ("has_null_mark", "is_nullified", "is_wonder", "can_have_negative_power", "power")


def check_card_facts(engine: Engine, event) -> None:
    """Every fact the view keeps about single cards for one generation equals a fresh view's
    (no cache), for every card in every zone; asked here, each is kept into the next event,
    so a memo the next event forgot to drop shows as stale."""
    view, fresh = engine.view, View(engine.state, engine.view.db)
    for views in ((view, fresh), (view.without_statics(), fresh.without_statics())):
        kept, new = views
        for cid in engine.state.cards:
            for name in CARD_FACTS:
                assert getattr(kept, name)(cid) == getattr(new, name)(cid), (
                    f"after {event}: stale {name} of {cid}")
            for include in (False, True):
                assert kept.ability_refs(cid, include) == new.ability_refs(cid, include), (
                    f"after {event}: stale ability_refs of {cid} (include_nullified={include})")


def check_table_parts(view: View, fresh: View, event) -> None:
    """A question about one part of the static table skips the table (``View.statics_for``)
    only when no static ability in force fills that part: a fresh view's table has it empty."""
    from replay.wotf import statics as st
    table = fresh.statics()
    parts = ((st.NULLIFY_OPS, bool(table.nullified) or any("be_nullified" in r for r in table.cant.values())),
             (st.GRANT_OPS, any(table.grants.values())),
             (st.CANT_OPS, any(table.cant.values())),
             (st.DECK_OPS, bool(table.deck_play)),
             (st.STONE_OPS, any(table.extra_stones.values())),
             (st.ANY_POWER_OPS, bool(table.any_power)))
    from typing import get_args

    from replay.wotf.abilities import Restriction
    parts += tuple((st.cant_ops(r), any(r in found for found in table.cant.values()))
                   for r in get_args(Restriction))
    for ops, filled in parts:
        if view.statics_for(ops) is st.EMPTY:
            assert not filled, f"after {event}: the table's {sorted(ops)} part is skipped but filled"


def check_shortcuts(engine: Engine, event) -> None:
    """Every shortcut against the full computation, on the state after ``event``."""
    check_card_facts(engine, event)
    view, fresh = engine.view, View(engine.state, engine.view.db)
    # the cards in The World, kept across a move by adding or taking out the card moved
    assert [id(c) for c in view.world()] == [id(c) for c in fresh.world()], (
        f"after {event}: stale cards in The World")
    for c in view.world():
        if view.is_wonder(c.id) and not view.can_have_negative_power(c.id):
            # nothing lowers it: its power is its printed base (a growth land's count of
            # lands) plus its +1 counters, what statics add and its effects of amounts of 0
            # or more (all never below 0), never below 0 -- settling may skip it
            d = fresh.db[c.name]
            growth = d.type == "land" and c.counters.get("growth", 0) > 0
            base = fresh.lands_controlled(c.controller) if growth else d.base_power
            assert fresh.power(c.id) >= 0, (
                f"after {event}: {c.id} has power {fresh.power(c.id)} but settling skips it")
            if not fresh.has_power_statics() and not c.effects:
                assert fresh.power(c.id) == base + c.counters.get("+1", 0), (
                    f"after {event}: {c.id} has power {fresh.power(c.id)} but settling skips it")
        for name in EVENTS:
            if not view.may_react_to(c.id, name):
                assert not any(a.when == "whenever" and a.on is not None and a.on.event == name
                               for a in fresh.abilities(c.id, include_nullified=True)), (
                    f"after {event}: {c.id} has a 'whenever' on {name} but is skipped")
    for c in view.world():
        for keyword in TRIGGERING:
            # granted keywords are kept per card for the generation (View._granted)
            assert view.keyword_count(c.id, keyword) == fresh.keyword_count(c.id, keyword), (
                f"after {event}: stale count of {keyword} on {c.id}")
            assert view.has(c.id, keyword) == (keyword in fresh.keywords(c.id)), (
                f"after {event}: has({keyword}) of {c.id} is not its keywords'")
            if not view.may_have_keyword(c.id, (keyword,)):
                assert not fresh.keyword_count(c.id, keyword), (
                    f"after {event}: {c.id} has {keyword} but is skipped")
    for when in TIMINGS:
        assert [c.id for c in view.with_timing(when)] == [
            c.id for c in fresh.world() if fresh.may_have_timing(c.id, when)], (
            f"after {event}: stale cards that may have a {when!r} ability")
    for cid in engine.state.cards:
        for when in TIMINGS:
            if not view.may_have_timing(cid, when):
                assert not any(a.when == when for a in fresh.abilities(cid, include_nullified=True)), (
                    f"after {event}: {cid} has a {when!r} ability but is skipped")
    assert [c.id for c in view.may_be_negative()] == [
        c.id for c in fresh.world() if fresh.can_have_negative_power(c.id)], (
        f"after {event}: stale cards whose power may be negative")
    # worked out from the names of the match of which a fact of the definition holds
    # (View._names_where), kept until a card changes area: a fresh scan asks each card
    assert view.has_stable_power() == (not fresh.has_power_statics() and not any(
        fresh._stat_defining(c.name) for c in fresh.world())), (
        f"after {event}: stale stable power")
    from replay.wotf.queries import _MAY_LOWER, _STAT_DEFINING
    names = {c.name for c in engine.state.cards.values()}
    assert view._names_where(_STAT_DEFINING) == {n for n in names if fresh._stat_defining(n)}, (
        f"after {event}: stale names of stat-defining cards")
    assert view._names_where(_MAY_LOWER) == {n for n in names if fresh._may_lower(n)}, (
        f"after {event}: stale names of cards whose definition may lower power")
    for realm in range(0, 8):
        for seat in (None, "A", "B"):
            assert [c.id for c in view.in_realm(realm, seat)] == [
                c.id for c in fresh.world() if c.realm == realm
                and (seat is None or c.controller == seat)], (
                f"after {event}: stale cards of {seat} in realm {realm}")
    for name in EVENTS:
        assert [c.id for c in view.reactors(name)] == [
            c.id for c in fresh.world() if fresh.may_react_to(c.id, name)], (
            f"after {event}: stale cards that may react to {name}")
    from replay.wotf import statics as static_rules
    assert view._sources() == static_rules.sources(fresh.without_statics()), (
        f"after {event}: stale static sources (every card in The World scanned)")
    kept = view._statics  # the table the view kept, if it has one (statics() would refill it)
    if kept is not None:
        assert kept == fresh.statics(), f"after {event}: the kept static table is stale"
    for seat in ("A", "B"):
        assert view.links(seat) == fresh.links(seat), f"after {event}: stale links of {seat}"
    check_table_parts(view, fresh, event)
    if not view.has_power_statics():
        table = fresh.statics()
        assert not (table.power_add or table.power_mul or table.base), (
            f"after {event}: a static changes power but has_power_statics says none can")
    if not view.has_lowering_statics():
        # settling skips the static table: every power entry in it is 0 or more (101.6)
        table = fresh.statics()
        assert all(value >= 0 for part in (table.power_add, table.power_mul, table.base)
                   for value in part.values()), (
            f"after {event}: a static may lower power but has_lowering_statics says none can")


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
    check_settling(engine)
    engine.start()
    play_out(engine, random.Random(seed))
    assert engine.state.over and len(seen) > 50


@pytest.mark.parametrize("ruleset", ["1.3.2", "1.2"])
def test_shortcuts_agree_with_stat_defining_cards_in_play(ruleset):
    # Gem Primordial and Orionis Skydreamer define their own power (rule 1): no sample deck
    # has them, so random play with them added checks the names of the match's cards of
    # which a definition's fact holds (View._names_where: stat-defining, may lower power)
    # after every event, against a fresh view that asks each card.
    from ledger.events import DeckEntry
    extra = (DeckEntry("Gem Primordial", 3), DeckEntry("Orionis Skydreamer", 3))
    checked = 0
    for seed in range(3):
        seats = [SeatInfo(seat, seat, deck.name, [*extra, *deck.entries()], deck.archive_entries())
                 for seat, deck in (("A", DECKS[seed % len(DECKS)]), ("B", DECKS[(seed + 1) % len(DECKS)]))]
        engine = Engine.for_match(MatchOpened(match_id="defining", ruleset=ruleset, seats=seats), DB)

        def on_emit(event, engine=engine):
            nonlocal checked
            check_shortcuts(engine, event)
            checked += any(engine.view._stat_defining(c.name) for c in engine.view.world())

        engine.on_emit = on_emit
        engine.start()
        play_out(engine, random.Random(seed))
    assert checked > 20  # events after which such a card was in The World


def settle_needed(engine: Engine) -> bool:
    """Whether a full settle has something to do: a card with +1 and −1 counters (Counters) or
    a Wonder with negative power (101.6), asked of a fresh view."""
    fresh = View(engine.state, engine.view.db)
    return any((c.counters.get("+1", 0) and c.counters.get("-1", 0))
               or (fresh.is_wonder(c.id) and fresh.power(c.id) < 0) for c in fresh.world())


def check_settling(engine: Engine) -> None:
    """Every settle of ``engine`` checked: when a full settle has something to do, it emits."""
    settle = engine._effects.settle

    def checked():
        needed, before = settle_needed(engine), len(engine.out)
        yield from settle()
        assert not needed or len(engine.out) > before, "settling was skipped but was needed"
    engine._effects.settle = checked  # type: ignore[method-assign]
    # the engine's own word, bound to the component's method when it was made (Engine.__init__)
    engine.settle = checked  # type: ignore[method-assign]


def _play_checked(a: int, b: int, seed: int, ruleset: str) -> None:
    seats = [SeatInfo(seat, seat, deck.name, deck.entries(), deck.archive_entries())
             for seat, deck in (("A", DECKS[a]), ("B", DECKS[b]))]
    engine = Engine.for_match(MatchOpened(match_id="cache", ruleset=ruleset, seats=seats), DB)
    check_settling(engine)

    def on_emit(event):
        view = engine.view
        view.statics()  # keep a table (and links) into the next event, as settling does
        view.links("A"), view.links("B")
        check_shortcuts(engine, event)

    engine.on_emit = on_emit
    engine.start()
    play_out(engine, random.Random(seed))


def test_kept_static_table_matches_a_fresh_one_every_event():
    # The table is kept into every next event, so a stale one would show (rule 508 order).
    for a, b, seed in ((0, len(DECKS) - 1, 1), (1, 2, 2), (len(DECKS) - 1, 0, 3)):
        for ruleset in ("1.3.2", "1.2"):
            _play_checked(a % len(DECKS), b % len(DECKS), seed, ruleset)


def test_a_broken_view_shortcut_is_caught(monkeypatch):
    # Keeping the view across every event (counters, stones, turn actions ...) goes stale.
    from replay.wotf import engine as engine_module
    from replay.wotf import events as ev
    every = frozenset(cls for cls in vars(ev).values()
                      if isinstance(cls, type) and issubclass(cls, ev.Event))
    monkeypatch.setattr(engine_module, "_KEEPS_VIEW", every)
    with pytest.raises(AssertionError, match="stale"):
        for seed in range(40):
            _play_checked(seed % len(DECKS), (seed * 7 + 3) % len(DECKS), seed, "1.3.2")


@pytest.mark.parametrize("ruleset", ["1.3.2", "1.2"])
def test_card_facts_kept_past_their_generation_are_caught(monkeypatch, ruleset):
    # A view that never drops its per-card facts (has_null_mark, power, ability_refs ...)
    # answers from an earlier state: the check after every event sees it.
    monkeypatch.setattr(View, "_forget", lambda self, kind=None: None)
    with pytest.raises(AssertionError, match="stale"):
        for seed in range(40):
            _play_checked(seed % len(DECKS), (seed * 7 + 3) % len(DECKS), seed, ruleset)


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


def test_only_an_effect_that_may_lower_power_makes_a_wonder_a_candidate_of_settling():
    # 101.6: a "gets +2" effect never makes a power negative, so settling skips the Wonder
    # (and needs no static table for it); a "gets -N" effect may, so settling asks it
    engine = _engine_with_world()
    view = engine.view
    wonder = next(c.id for c in view.world()
                  if view.is_wonder(c.id) and DB[c.name].type == "wonder"
                  and not view.can_have_negative_power(c.id))
    engine.out = []
    engine.add_effect(wonder, "power+", 2, "round", "test")
    assert not view.can_have_negative_power(wonder)
    assert wonder not in [c.id for c in view.may_be_negative()]
    engine.add_effect(wonder, "power+", -(int(view.power(wonder)) + 1), "round", "test")
    assert view.power(wonder) < 0
    assert view.can_have_negative_power(wonder)
    assert wonder in [c.id for c in view.may_be_negative()]


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


def _settle_after_minus_counters() -> tuple[Engine, str]:
    """Settle a quiet board (nothing to do), then give a Wonder enough −1 counters to make
    its power negative and settle again (101.6: it dies)."""
    engine = _engine_with_world()
    check_settling(engine)
    wonder = next(c.id for c in engine.view.world()
                  if engine.view.is_wonder(c.id) and DB[c.name].type == "wonder")
    engine.out = []
    for _ in engine.settle():
        break
    assert engine._effects._quiet is not None and not engine.out  # nothing to do: kept quiet
    engine.add_counters(wonder, "-1", int(engine.view.power(wonder)) + 1)
    assert settle_needed(engine)
    for _ in engine.settle():  # dying may ask something (a trigger): the check ran before
        break
    return engine, wonder


def test_settling_after_a_change_is_not_skipped():
    engine, wonder = _settle_after_minus_counters()
    assert engine.state.cards[wonder].zone != "world"


def test_a_broken_settle_shortcut_is_caught(monkeypatch):
    # Settling skipped whenever it once found nothing, whatever changed since (101.6).
    from replay.wotf.effects import Effects
    settle = Effects.settle

    def stale(self):
        if self._quiet is None:
            yield from settle(self)
    monkeypatch.setattr(Effects, "settle", stale)
    with pytest.raises(AssertionError, match="skipped but was needed"):
        _settle_after_minus_counters()


def every_turn_action(engine: Engine, seat: str) -> list:
    """Every turn action the check allows, asked one by one: each card of the hand (and a
    playable deck top) into no realm and into every realm 1-7, in that order (404.2), and
    an attack in every realm 1-7 (404.3) and every ability of each card the seat controls
    in The World (404.4)."""
    from replay.wotf.events import ActivationDeclared, AttackDeclared, Passed, PlayDeclared
    turns = engine._turns
    allowed = [Passed(seat)]
    legal = list(turns._candidate_actions(seat))
    plays = [*engine.state.players[seat].hand, *turns._deck_top_playable(seat)]
    draws = [d for d in legal if type(d).__name__ == "DrawDeclared"]
    allowed += draws
    for cid in plays:
        for realm in (None, *range(1, 8)):
            play = PlayDeclared(seat, cid, realm)
            if turns.why_not_turn(seat, play) is None:
                allowed.append(play)
    for realm in range(1, 8):
        attack = AttackDeclared(seat, realm)
        if turns.why_not_turn(seat, attack) is None:
            allowed.append(attack)
    for c in engine.view.world():
        if c.controller == seat:
            for index in range(max(len(engine.view.ability_refs(c.id)), 1)):
                act = ActivationDeclared(seat, c.id, index)
                if turns.why_not_turn(seat, act) is None:
                    allowed.append(act)
    harvests = [d for d in legal if type(d).__name__ == "HarvestDeclared"]
    # every single harvest the check allows is offered, and the one of them all (Harvest)
    from replay.wotf.events import HarvestDeclared
    singles = [HarvestDeclared(seat, [c.id]) for c in engine.view.world() if c.controller == seat]
    singles = [h for h in singles if turns.why_not_turn(seat, h) is None]
    assert harvests[:len(singles)] == singles, "a harvest the check allows is not offered"
    allowed += harvests
    return allowed


@pytest.mark.parametrize("ruleset", ["1.3.2", "1.2"])
def test_offered_plays_are_those_the_check_allows(ruleset):
    # Legal options check a card's cost once for all the active realms (404.2), and only the
    # activated abilities (404.4): at every turn prompt of random matches they are exactly
    # the plays and activations the check allows one by one.
    turns_seen = 0
    for seed in range(4):
        a, b = seed % len(DECKS), (seed * 5 + 1) % len(DECKS)
        seats = [SeatInfo(seat, seat, deck.name, deck.entries(), deck.archive_entries())
                 for seat, deck in (("A", DECKS[a]), ("B", DECKS[b]))]
        engine = Engine.for_match(MatchOpened(match_id="plays", ruleset=ruleset, seats=seats), DB)

        def on_step(e: Engine) -> None:
            nonlocal turns_seen
            if e.prompt is not None and e.prompt.kind == "turn":
                seat = e.prompt.seat
                turns_seen += 1
                assert e.legal_options() == every_turn_action(e, seat), (
                    f"offered plays differ from the check's at {len(e.state.cards)} cards")

        engine.start()
        play_out(engine, random.Random(seed), on_step=on_step)
    assert turns_seen > 50


@pytest.mark.parametrize("ruleset", ["1.3.2", "1.2"])
def test_has_turn_action_is_whether_the_check_allows_anything_but_a_pass(ruleset):
    # 403.4 / 404.5: a seat with no legal turn action passes automatically. has_turn_action
    # answers at once when an action is left (drawing is legal, 404.1) and skips activations
    # and harvests the check is sure to refuse: at every turn prompt it is True, and at
    # every automatic pass False, and both agree with the check asked one by one.
    from replay.wotf.events import Passed
    prompts = autos = 0
    for seed in range(4):
        a, b = seed % len(DECKS), (seed * 3 + 2) % len(DECKS)
        seats = [SeatInfo(seat, seat, deck.name, deck.entries(), deck.archive_entries())
                 for seat, deck in (("A", DECKS[a]), ("B", DECKS[b]))]
        engine = Engine.for_match(MatchOpened(match_id="turns", ruleset=ruleset, seats=seats), DB)

        def on_emit(event, e=engine) -> None:
            nonlocal autos
            if isinstance(event, Passed) and event.auto:  # evolve counted the pass, nothing more
                autos += 1
                assert not e._turns.has_turn_action(event.seat)
                assert every_turn_action(e, event.seat) == [Passed(event.seat)]

        def on_step(e: Engine) -> None:
            nonlocal prompts
            if e.prompt is not None and e.prompt.kind == "turn":
                prompts += 1
                assert e._turns.has_turn_action(e.prompt.seat)
                assert len(every_turn_action(e, e.prompt.seat)) > 1

        engine.on_emit = on_emit
        engine.start()
        play_out(engine, random.Random(seed), on_step=on_step)
    assert prompts > 50 and autos > 10


def test_facts_of_a_definition_follow_stats_entered_at_the_table():
    # R34: a catalogue card's definition changes when its stats are entered -- as a seat's
    # decision, after which the engine drops no area-level fact -- so what the view keeps per
    # definition (links, timings, "whenever"s, stat-defining abilities) is worked out again.
    from replay.wotf.bots import RandomBot, answer_chance
    from replay.wotf.events import CardStatsEntered
    from replay.wotf.evolve import evolve
    from tests.replay.helpers import opened
    from tests.replay.test_entered_cards import STATS, _db, _deck

    engine = Engine.for_match(opened(deck=_deck()), _db())
    name = "Aerius of Thalwind"
    engine.start()
    rng = random.Random(1)
    bot = RandomBot(rng)
    while not engine.state.cards:  # the setup shuffles name the cards (402)
        prompt = engine.prompt
        engine.decide(answer_chance(prompt, rng) if prompt.kind == "chance" else bot.decide(engine))
    cid = next(c.id for c in engine.state.cards.values() if c.name == name)
    assert name not in engine.state.defined
    view = engine.view
    assert view._links_of(name) == frozenset()  # not entered yet: no keywords known
    assert not view._may_lower(name) and not view.may_have_timing(cid, "static")
    stats = {**STATS[name], "keywords": ["flying", "link:Petraia"]}
    evolve(engine.state, CardStatsEntered("A", cid, name, "hand", stats))
    fresh = View(engine.state, view.db)
    assert view._links_of(name) == fresh._links_of(name) == frozenset({"Petraia"})
    assert view._may_lower(name) == fresh._may_lower(name)
    assert view._stat_defining(name) == fresh._stat_defining(name)


def _null_counter_lands() -> None:
    """Ask a card's facts, put a null counter on it, and ask again (Nullify: a card with a
    null counter is nullified; Link: a nullified card links nothing): the view kept across
    the counter change must answer as a fresh view does."""
    engine = _engine_with_world()
    view = engine.view
    land = next(c for c in view.world() if DB[c.name].type == "land")
    before = (view.has_null_mark(land.id), view.is_nullified(land.id), view.links(land.controller))
    assert before[:2] == (False, False)
    engine.out = []
    engine.add_counters(land.id, "null", 1)
    fresh = View(engine.state, view.db)
    assert view.has_null_mark(land.id) == fresh.has_null_mark(land.id) is True, "stale null mark"
    assert view.is_nullified(land.id) == fresh.is_nullified(land.id) is True, "stale nullified"
    assert view.links(land.controller) == fresh.links(land.controller), "stale links"


def test_facts_kept_across_an_event_follow_a_counter_change():
    # a card's facts stand across events that change no card (View._forget); a counter is
    # not one of them
    _null_counter_lands()


def test_card_facts_kept_across_a_counter_change_are_caught(monkeypatch):
    from replay.wotf import queries
    from replay.wotf.events import CounterChanged
    monkeypatch.setattr(queries, "_KEEPS_CARDS", queries._KEEPS_CARDS | {CounterChanged})
    with pytest.raises(AssertionError, match="stale"):
        _null_counter_lands()


def test_settling_kept_quiet_across_a_counter_change_is_caught(monkeypatch):
    # Settling stays quiet across events that change no card while no power in The World
    # can change otherwise (View.has_stable_power); a −1 counter is not such an event: a
    # view that counted it as one would skip the settle that kills the Wonder (101.6).
    from replay.wotf import queries
    from replay.wotf.events import CounterChanged
    monkeypatch.setattr(queries, "_KEEPS_CARDS", queries._KEEPS_CARDS | {CounterChanged})


    def stable(self):
        self._stable_power = True
        return True
    monkeypatch.setattr(View, "has_stable_power", stable)
    with pytest.raises(AssertionError, match="skipped but was needed"):
        _settle_after_minus_counters()


#: Wonders whose static abilities read who took the last turn (404.5.2): no card of the pool
#: has one, so these stand in -- one as the ability's condition, one as an effect's.
LAST_TURN_CARDS = (
    {"name": "Turn Keeper", "type": "wonder", "cost": 1, "power": 2, "orbital": "Petraia",
     "text": "While you took the last turn, this gets +2.",
     "abilities": [{"when": "static", "condition": {"took_last_turn": True},
                    "effects": [{"do": "power", "amount": 2}]}]},
    {"name": "Turn Watcher", "type": "wonder", "cost": 1, "power": 2, "orbital": "Thalwind",
     "text": "This gets +1 while you did not take the last turn.",
     "abilities": [{"when": "static", "effects": [
         {"do": "power", "amount": 1, "condition": {"took_last_turn": False}}]}]},
)


def _play_counting_kept(seed: int, ruleset: str, cards: list, counted, extra: tuple = ()
                        ) -> tuple[int, int]:
    """Random play (the sample decks, plus ``extra`` deck entries, with ``cards`` added to the
    pool) with every shortcut checked after every event and a static table kept into each
    next one; returns how many events ``counted(event)`` picks kept the table, and how many
    of them found one of ``cards`` in The World."""
    from ledger.events import DeckEntry
    from replay.wotf.cards import parse_card
    db = DB.with_cards([parse_card(card, "test cards") for card in cards])
    names = {card["name"] for card in cards}
    seats = [SeatInfo(seat, seat, deck.name, [*(DeckEntry(n, c) for n, c in extra), *deck.entries()],
                      deck.archive_entries())
             for seat, deck in (("A", DECKS[seed % len(DECKS)]), ("B", DECKS[(seed + 3) % len(DECKS)]))]
    engine = Engine.for_match(MatchOpened(match_id="kept", ruleset=ruleset, seats=seats), db)
    check_settling(engine)
    kept = with_card = 0

    def on_emit(event):
        nonlocal kept, with_card
        view = engine.view
        if counted(event):
            kept += view._statics is not None
            with_card += any(c.name in names for c in view.world())
        check_shortcuts(engine, event)
        view.statics()  # keep a table (and links) into the next event, as settling does
        view.links("A"), view.links("B")

    engine.on_emit = on_emit
    engine.start()
    play_out(engine, random.Random(seed))
    return kept, with_card


def _play_counting_kept_tables(seed: int, ruleset: str, extra: tuple = ()) -> tuple[int, int]:
    """:func:`_play_counting_kept` of the turn actions, with the last-turn condition cards."""
    from replay.wotf.evolve import TURN_ACTIONS
    return _play_counting_kept(seed, ruleset, LAST_TURN_CARDS,
                               lambda event: type(event) in TURN_ACTIONS, extra)


@pytest.mark.parametrize("ruleset", ["1.3.2", "1.2"])
def test_a_turn_action_keeps_the_static_table_unless_a_condition_reads_the_last_turn(ruleset):
    # A turn action writes pass counts and who took the last turn (404.5.2): the table is
    # kept across it (the check after every event compares it with a fresh view's), and
    # worked out again when a static ability in The World has a took_last_turn condition.
    kept = sum(_play_counting_kept_tables(seed, ruleset)[0] for seed in range(3))
    assert kept > 10  # the shortcut is taken, and found right every time
    extra = (("Turn Keeper", 4), ("Turn Watcher", 4))
    with_condition = sum(_play_counting_kept_tables(seed, ruleset, extra)[1] for seed in range(3))
    assert with_condition > 20  # turn actions with such a card in The World, checked


def test_a_turn_action_keeping_a_table_that_reads_the_last_turn_is_caught(monkeypatch):
    # Were the last-turn conditions overlooked, the table kept across a turn action would
    # say Turn Keeper has its +2 when the opponent took the last turn: the check sees it.
    from replay.wotf import statics
    monkeypatch.setattr(statics, "reads_last_turn", lambda found: False)
    with pytest.raises(AssertionError, match="stale"):
        for seed in range(10):
            _play_counting_kept_tables(seed, "1.3.2", (("Turn Keeper", 4), ("Turn Watcher", 4)))


def test_a_move_of_a_card_with_no_static_ability_keeps_the_static_sources(monkeypatch):
    # A card of a name with no printed static ability and no copied abilities moving into,
    # out of or within The World leaves the static sources as they were (View.touch's
    # keeps_sources): the check after every event compares them with a scan of every card in
    # The World, and the kept table with a fresh one.
    kept = 0
    touch = View.touch

    def counting(self, keeps_sources=False, moved=None):
        nonlocal kept
        kept += keeps_sources
        touch(self, keeps_sources, moved)
    monkeypatch.setattr(View, "touch", counting)
    for seed in range(3):
        for ruleset in ("1.3.2", "1.2"):
            _play_checked(seed % len(DECKS), (seed + 2) % len(DECKS), seed, ruleset)
    assert kept > 50  # the shortcut is taken, and found right every time


def test_static_sources_kept_across_a_static_card_s_move_are_caught(monkeypatch):
    # Were a card with a static ability taken for one without, its arrival or departure
    # would leave the kept sources stale: the check after every event sees it.
    monkeypatch.setattr(View, "may_be_static_source", lambda self, cid: False)
    with pytest.raises(AssertionError, match="stale"):
        for seed in range(10):
            _play_checked(seed % len(DECKS), (seed + 2) % len(DECKS), seed, "1.3.2")


def test_a_whenever_subject_selector_is_made_once_per_ability_and_zone():
    # Scripts._fires matches the event's subject against the ability's subject selector in
    # the subject's zone, anywhere: that selector is kept per ability and zone, and equals a
    # fresh copy; an entry whose selector is another object (a reused id) is not served.
    seats = [SeatInfo(seat, seat, deck.name, deck.entries(), deck.archive_entries())
             for seat, deck in (("A", DECKS[0]), ("B", DECKS[1]))]
    scripts = Engine.for_match(MatchOpened(match_id="subject", ruleset="1.3.2", seats=seats), DB)._scripts
    subject = next(a.on.subject for c in DB for a in c.abilities
                   if a.when == "whenever" and a.on is not None)
    made = {}
    for zone in ("world", "hand", "abyss"):
        made[zone] = scripts._subject_selector(subject, zone)
        assert made[zone] == subject.model_copy(update={"zone": zone, "pick": "all", "where": "any"})
        assert scripts._subject_selector(subject, zone) is made[zone]
    assert made["world"] != made["abyss"]
    other = subject.model_copy(update={"what": "land"})
    scripts._subjects[(id(other), "world")] = (subject, made["world"])  # as if id reused
    assert scripts._subject_selector(other, "world") == other.model_copy(
        update={"zone": "world", "pick": "all", "where": "any"})


def test_name_facts_shared_between_matches_are_those_each_works_out_alone(monkeypatch):
    # The names of a match's cards of each timing, and the events they react to, are kept by
    # (recorded cards, names) for every match that defines no card of its own
    # (queries._NAME_FACTS): after random play of two matches of the same decks and one of
    # others, the facts the views kept are those a view works out with nothing shared.
    from replay.wotf import queries
    seats = [SeatInfo(seat, seat, deck.name, deck.entries(), deck.archive_entries())
             for seat, deck in (("A", DECKS[0]), ("B", DECKS[1]))]
    timings = ("static", "activated", "round_start", "round_end", "arrival",
               *(f"whenever:{event}" for event in EVENTS))
    others = [SeatInfo(seat, seat, deck.name, deck.entries(), deck.archive_entries())
              for seat, deck in (("A", DECKS[2]), ("B", DECKS[3]))]
    engines = [Engine.for_match(MatchOpened(match_id=f"names{seed}", ruleset="1.3.2",
                                            seats=played), DB)
               for seed, played in ((1, seats), (2, seats), (3, others))]
    for engine in engines:
        engine.start()
        engine.view._events_reacted_to()
    assert engines[0].view._timing_names is engines[1].view._timing_names  # shared
    for seed, engine in enumerate(engines):
        play_out(engine, random.Random(seed))
    kept = [({w: e.view._names_with_timing(w) for w in timings}, e.view._events_reacted_to())
            for e in engines]
    monkeypatch.setattr(queries, "_NAME_FACTS", {})
    for engine, (names, reacted) in zip(engines, kept, strict=True):
        alone = View(engine.state, engine.view.db)
        assert alone._events_reacted_to() == reacted
        assert {w: alone._names_with_timing(w) for w in timings} == names
        assert any(names.values())


def test_the_world_kept_across_moves_is_checked_and_a_stale_one_caught(monkeypatch):
    # A move of one card keeps the cards in The World known before it, with that card added
    # or taken out (View._world_after), instead of a scan of every card; the check after
    # every event compares them with a fresh view's scan.
    kept = 0
    world_after = View._world_after

    def counting(self, cid):
        nonlocal kept
        found = world_after(self, cid)
        kept += found is not None
        return found
    monkeypatch.setattr(View, "_world_after", counting)
    _play_checked(0, 2, 0, "1.3.2")
    assert kept > 20  # the shortcut is taken, and found right every time
    # Were the cards known before the move kept as they were, an arrival would be missed.
    monkeypatch.setattr(View, "_world_after", lambda self, cid: self._world[0])
    with pytest.raises(AssertionError, match="stale cards in The World"):
        _play_checked(0, 2, 0, "1.3.2")


#: Wonders whose static abilities read the stones (Hoard, an amount per stone) or whether
#: their controller seized one this round (Awaken): stand-ins of each way, as the ability's
#: condition, an effect's condition and an effect's amount.
STONE_CARDS = (
    {"name": "Stone Hoarder", "type": "wonder", "cost": 1, "power": 2, "orbital": "Petraia",
     "text": "Hoard 2: this gets +2.",
     "abilities": [{"when": "static", "condition": {"hoard": 2},
                    "effects": [{"do": "power", "amount": 2}]}]},
    {"name": "Stone Waker", "type": "wonder", "cost": 1, "power": 2, "orbital": "Thalwind",
     "text": "This gets +1 while you seized a stone this round.",
     "abilities": [{"when": "static", "effects": [
         {"do": "power", "amount": 1, "condition": {"awakened": True}}]}]},
    {"name": "Stone Counter", "type": "wonder", "cost": 1, "power": 1, "orbital": "Petraia",
     "text": "This gets +1 for each stone you control.",
     "abilities": [{"when": "static", "effects": [
         {"do": "power", "amount": {"per": "stones"}}]}]},
)


def _play_counting_seizes(seed: int, ruleset: str, extra: tuple = ()) -> tuple[int, int]:
    """:func:`_play_counting_kept` of the seized stones, with the cards that read the stones."""
    from replay.wotf.events import StoneSeized
    return _play_counting_kept(seed, ruleset, STONE_CARDS,
                               lambda event: type(event) is StoneSeized, extra)


@pytest.mark.parametrize("ruleset", ["1.3.2", "1.2"])
def test_a_seized_stone_keeps_the_static_table_unless_a_card_of_the_match_reads_the_stones(ruleset):
    # Seizing a stone (404.3.2 step 5) writes the stones, who seized this round and last and
    # the event counts: the table is kept across it when no card of the match has an
    # ability reading the first two (the check after every event compares it with a fresh
    # view's), and worked out again when one does.
    kept = sum(_play_counting_seizes(seed, ruleset)[0] for seed in range(8))
    assert kept > 5  # the shortcut is taken (where a static table is kept), found right
    extra = tuple((card["name"], 4) for card in STONE_CARDS)
    with_reader = sum(_play_counting_seizes(seed, ruleset, extra)[1] for seed in range(4))
    assert with_reader > 3  # seizes with such a card in The World, checked


def test_a_seized_stone_keeping_a_table_that_reads_the_stones_is_caught(monkeypatch):
    # Were the stone-reading abilities overlooked, the table kept across a seize would give
    # Stone Hoarder, Stone Waker or Stone Counter the power of before it: the check sees it.
    from replay.wotf.cards import Card
    monkeypatch.setattr(Card, "reads_stones", property(lambda card: False))
    extra = tuple((card["name"], 4) for card in STONE_CARDS)
    with pytest.raises(AssertionError, match="stale"):
        for seed in range(10):
            _play_counting_seizes(seed, "1.3.2", extra)
