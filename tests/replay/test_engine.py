"""The engine's protocol and sequence of play (rules 401–405) from setup to the end."""

import random

import pytest

from ledger.events import Conceded, MatchEnded
from replay.errors import IllegalDecisionError
from replay.wotf.engine import Engine
from replay.wotf.events import (
    Answered,
    CoinFlipped,
    DeckOrdered,
    DeckShuffled,
    DrawDeclared,
    Mulliganed,
    Passed,
    PlayDeclared,
    RoundStarted,
)
from replay.wotf.state import state_hash
from tests.replay.helpers import opened, play_out, small_db


def _setup(engine, flip="A", first="A"):
    engine.start()
    assert engine.prompt.kind == "chance" and engine.prompt.text == "coin flip"  # 401
    engine.decide(CoinFlipped(flip))
    assert engine.prompt.seat == flip and engine.prompt.kind == "first"
    engine.decide(Answered(flip, "first", first))
    second = "B" if first == "A" else "A"
    assert engine.prompt.seat == second and engine.prompt.kind == "side"  # 401: second chooses side
    engine.decide(Answered(second, "side", "left"))
    for seat in (first, second):  # 402: shuffles, a full permutation each
        assert engine.prompt.kind == "chance" and engine.prompt.text == f"shuffle {seat}"
        engine.decide(DeckOrdered(seat, list(engine.prompt.choose.of)))


def test_402_the_setup_shuffle_draws_the_card_ids():
    """Ids name nothing (DESIGN.md section 2): before the shuffle a deck has no instances; the
    card at shuffled position k is <seat><k>, so the deck list can't be joined with ids."""
    engine = Engine.for_match(opened(), small_db())
    assert engine.state.players["A"].deck == [] and not any(c.startswith("A") and c[1:].isdigit()
                                                            for c in engine.state.cards)
    engine.start()
    engine.decide(CoinFlipped("A"))
    engine.decide(Answered("A", "first", "A"))
    engine.decide(Answered("B", "side", "left"))
    names = list(engine.prompt.choose.of)
    order = names[::-1]
    with pytest.raises(IllegalDecisionError, match="expected DeckOrdered"):
        engine.decide(DeckShuffled("A", order))
    engine.decide(DeckOrdered("A", order))
    s = engine.state
    assert [s.cards[f"A{k}"].name for k in range(1, len(order) + 1)] == order
    engine.decide(DeckOrdered("B", list(engine.prompt.choose.of)))
    assert s.players["A"].hand == [f"A{k}" for k in range(1, 8)]  # the top seven


def test_401_coin_flip_winner_chooses_and_402_mulligan_first_player_first():
    engine = Engine.for_match(opened(), small_db())
    _setup(engine, flip="B", first="B")
    s = engine.state
    assert len(s.players["A"].hand) == 7 and len(s.players["B"].hand) == 7
    assert engine.prompt.seat == "B" and engine.prompt.kind == "mulligan"  # first player first
    hand = list(s.players["B"].hand)
    out = engine.decide(Answered("B", "mulligan", [hand[3], hand[0]]))
    assert Mulliganed("B", [hand[3], hand[0]]) in out
    assert s.players["B"].deck[-2:] == [hand[3], hand[0]]  # bottom, in the chosen order
    assert len(s.players["B"].hand) == 7  # drew as many
    assert engine.prompt.seat == "A" and engine.prompt.kind == "mulligan"


def test_401_loser_of_previous_game_chooses_without_a_coin_flip():
    engine = Engine.for_match(opened(previous_loser="B"), small_db())
    engine.start()
    assert engine.prompt.kind == "first" and engine.prompt.seat == "B"


def test_mulligan_of_more_than_three_is_illegal_and_changes_nothing():
    engine = Engine.for_match(opened(), small_db())
    _setup(engine)
    before = state_hash(engine.state)
    hand = list(engine.state.players["A"].hand)
    with pytest.raises(IllegalDecisionError, match="pick 0–3 cards"):
        engine.decide(Answered("A", "mulligan", hand[:4]))
    assert state_hash(engine.state) == before


def _to_round_one(engine):
    _setup(engine)
    engine.decide(Answered("A", "mulligan", []))
    out = engine.decide(Answered("B", "mulligan", []))
    return out


def test_403_1_round_one_energy_actions_and_draw():
    engine = Engine.for_match(opened(), small_db())
    out = _to_round_one(engine)
    assert RoundStarted(1, "A") in out
    a = engine.state.players["A"]
    assert (a.energy, a.actions, len(a.hand)) == (1, 3, 8)  # 202.1: round 1 + 0 stones
    assert engine.prompt.kind == "turn" and engine.prompt.seat == "A"


def test_illegal_play_names_the_rule_and_leaves_the_state_untouched():
    engine = Engine.for_match(opened(), small_db())
    _to_round_one(engine)
    before = state_hash(engine.state)
    card = engine.state.players["A"].hand[0]
    with pytest.raises(IllegalDecisionError, match="realm 4 is not active"):
        engine.decide(PlayDeclared("A", card, 4))
    with pytest.raises(IllegalDecisionError, match="not in A's hand"):
        engine.decide(PlayDeclared("A", "B1", 1))
    with pytest.raises(IllegalDecisionError, match=r"not B's|it is A's"):
        engine.decide(DrawDeclared("B"))
    assert state_hash(engine.state) == before
    assert engine.prompt.kind == "turn" and engine.prompt.seat == "A"


def test_404_1_draw_costs_an_action_and_turns_alternate():
    engine = Engine.for_match(opened(), small_db())
    _to_round_one(engine)
    out = engine.decide(DrawDeclared("A"))
    assert engine.state.players["A"].actions == 2 and len(engine.state.players["A"].hand) == 9
    assert engine.prompt.seat == "B"
    assert out[0] == DrawDeclared("A")


def test_403_4_both_passing_ends_the_round_and_energy_is_lost():
    engine = Engine.for_match(opened(), small_db())
    _to_round_one(engine)
    engine.decide(Passed("A"))
    engine.decide(Passed("B"))
    # 403.5: 8 cards each: discard down to 7, the active player (the last to pass) first.
    assert engine.prompt.kind == "discard" and engine.prompt.seat == "B"
    engine.decide(Answered("B", "discard", [engine.state.players["B"].hand[0]]))
    assert engine.prompt.kind == "discard" and engine.prompt.seat == "A"
    out = engine.decide(Answered("A", "discard", [engine.state.players["A"].hand[-1]]))
    assert engine.state.round == 2 and RoundStarted(2, "A") in out
    assert engine.state.players["A"].energy == 2  # 1 unspent energy was lost, then 2 gained
    assert len(engine.state.players["A"].abyss) == 1


def test_concession_ends_the_match_at_any_prompt():
    engine = Engine.for_match(opened(), small_db())
    _to_round_one(engine)
    out = engine.decide(Conceded("A"))
    assert out[-1] == MatchEnded("B", "concession", {"A": 0, "B": 0})
    assert engine.prompt is None and engine.state.over


@pytest.mark.parametrize("ruleset", ["1.3.2", "1.2"])
def test_random_matches_end_after_round_seven_or_earlier(ruleset):
    for seed in range(5):
        engine = Engine.for_match(opened(ruleset), small_db())
        engine.start()
        play_out(engine, random.Random(seed))
        s = engine.state
        assert s.over and s.reason in ("stones", "tiebreak", "draw", "deck_out")
        assert s.round <= 7


def test_never_prompts_with_exactly_one_option():
    seen = []
    engine = Engine.for_match(opened(), small_db())
    engine.start()

    def record(e):
        if e.prompt is not None and e.prompt.kind != "chance" and e.prompt.choose is None:
            seen.append(len(e.legal_options()))

    play_out(engine, random.Random(3), on_step=record)
    assert seen and min(seen) >= 2


def _refusal(engine, decision) -> str:
    before = state_hash(engine.state)
    with pytest.raises(IllegalDecisionError) as refused:
        engine.decide(decision)
    assert state_hash(engine.state) == before
    return str(refused.value)


def test_a_set_up_prompt_answered_by_the_wrong_seat_cites_the_set_up_rule_not_403_2():
    """401 says who chooses the first player and who chooses realm 1's side, 402.1 that each
    player mulligans their own hand; 403.2 (players alternate turns) is about the turns."""
    engine = Engine.for_match(opened(), small_db())
    engine.start()
    engine.decide(CoinFlipped("A"))
    why = _refusal(engine, Answered("B", "first", "B"))
    assert "it is A's first prompt, not B's" in why and "rule 401" in why and "403.2" not in why
    engine.decide(Answered("A", "first", "A"))
    why = _refusal(engine, Answered("A", "side", "left"))
    assert "rule 401" in why and "plays second" in why and "403.2" not in why
    engine.decide(Answered("B", "side", "left"))
    for seat in ("A", "B"):
        engine.decide(DeckOrdered(seat, list(engine.prompt.choose.of)))
    why = _refusal(engine, Answered("B", "mulligan", []))
    assert "rule 402.1" in why and "403.2" not in why


def test_a_turn_taken_by_the_wrong_seat_cites_403_2():
    engine = Engine.for_match(opened(), small_db())
    _to_round_one(engine)
    why = _refusal(engine, DrawDeclared("B"))
    assert "it is A's turn prompt, not B's" in why and "rule 403.2: players alternate turns" in why
