"""Property tests: random legal decision sequences from random decks and positions.

They never crash, never leave an illegal state (negative resources, a card in two zones, a
token outside The World) and always end the match within 7 rounds.
"""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.events import DeckEntry, MatchOpened, SeatInfo
from replay.wotf.engine import Engine
from replay.wotf.state import CardState, GameState, PlayerState, new_realms
from tests.replay.helpers import play_out, small_db

DB = small_db()
NAMES = [c.name for c in DB]
COUNTERS = ["+1", "-1", "shield", "protector", "celestial", "null", "growth"]


def assert_legal_state(engine: Engine) -> None:
    s, v = engine.state, engine.view
    assert 0 <= s.round <= 7
    where: dict[str, str] = {}
    for seat, p in s.players.items():
        assert p.energy >= 0 and p.actions >= 0 and p.free_attacks >= 0 and p.faith >= 0, seat
        for zone in ("hand", "deck", "abyss", "banishment", "archive"):
            for cid in getattr(p, zone):
                assert cid not in where, f"{cid} is in {where.get(cid)} and {seat}.{zone}"
                where[cid] = zone
                assert s.cards[cid].zone == zone and s.cards[cid].owner == seat
    for cid, c in s.cards.items():
        if c.zone in ("world", "gone"):
            assert cid not in where, f"{cid} in The World and in {where[cid]}"
        if c.token:
            assert c.zone in ("world", "gone", "archive"), f"token {cid} in {c.zone}"
        if c.zone == "world":
            assert c.controller in ("A", "B") and 1 <= c.realm <= s.round
            assert not (c.counters.get("+1") and c.counters.get("-1")), "+1/-1 must cancel"
            if v.is_wonder(cid) and engine.prompt is not None and engine.prompt.kind == "turn":
                assert v.power(cid) >= 0, f"{cid} has negative power at a quiet point"


decks = st.lists(st.sampled_from(NAMES), min_size=50, max_size=50).map(
    lambda names: [DeckEntry(n, 1) for n in names])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deck_a=decks, deck_b=decks, seed=st.integers(0, 2**32 - 1),
       ruleset=st.sampled_from(["1.3.2", "1.2"]))
def test_random_matches_from_random_decks(deck_a, deck_b, seed, ruleset):
    opened = MatchOpened(match_id="prop", ruleset=ruleset,
                         seats=[SeatInfo("A", "a", deck=deck_a), SeatInfo("B", "b", deck=deck_b)])
    engine = Engine.for_match(opened, DB)
    engine.start()
    play_out(engine, random.Random(seed), on_step=assert_legal_state)
    assert engine.state.over and engine.prompt is None
    assert engine.state.round <= 7


world_card = st.fixed_dictionaries({
    "name": st.sampled_from(NAMES),
    "controller": st.sampled_from(["A", "B"]),
    "realm": st.integers(1, 7),
    "counters": st.dictionaries(st.sampled_from(COUNTERS), st.integers(1, 3), max_size=3),
    "token": st.booleans(),
})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(round_=st.integers(1, 7), world=st.lists(world_card, max_size=12),
       seed=st.integers(0, 2**32 - 1), ruleset=st.sampled_from(["1.3.2", "1.2"]),
       stones=st.lists(st.sampled_from(["center", "A", "B"]), min_size=7, max_size=7))
def test_random_positions_play_out_legally(round_, world, seed, ruleset, stones):
    rng = random.Random(seed)
    state = GameState(ruleset=ruleset, phase="turns", round=round_, turn="A", first="A",
                      round1_first="A", realms=new_realms())
    for realm, owner in zip(state.realms, stones, strict=False):
        realm.stones = [owner if realm.number <= round_ else "center"]
    for seat in ("A", "B"):
        player = PlayerState(seat=seat, energy=round_, actions=3)
        state.players[seat] = player
        for n in range(20):
            cid = f"{seat}{n}"
            state.cards[cid] = CardState(cid, rng.choice(NAMES), seat, "deck" if n >= 5 else "hand")
            (player.deck if n >= 5 else player.hand).append(cid)
    for n, card in enumerate(world):
        counters = {k: v for k, v in card["counters"].items()}
        if "+1" in counters and "-1" in counters:
            del counters["-1"]
        cid = f"w{n}"
        state.cards[cid] = CardState(cid, card["name"], card["controller"], "world",
                                     controller=card["controller"],
                                     realm=min(card["realm"], round_), counters=counters,
                                     token=card["token"])
    engine = Engine(DB, state)
    engine.start()
    play_out(engine, rng, on_step=assert_legal_state)
    assert engine.state.over and engine.state.round <= 7
