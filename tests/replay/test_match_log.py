"""What the match procedure records and asks (rules 401-403, 405; ``replay/wotf/match.py``).

Setup, the start and end of a round and the end of the match, event by event and prompt by
prompt: who is asked, in which words and with which options, and the reason each card move
and resource change records (the narration and a replay show them).
"""

from __future__ import annotations

import pytest

from ledger.events import MatchEnded
from replay.wotf.engine import Engine
from replay.wotf.events import (
    Answered,
    CardMoved,
    CoinFlipped,
    DeckOrdered,
    FirstPlayerChosen,
    Mulliganed,
    RealmOpened,
    RealmSideChosen,
    ResourcesChanged,
    RoundEnded,
    RoundStarted,
    TurnEnded,
    TurnsBegan,
)
from tests.replay.helpers import opened, small_db
from tests.replay.logged import case, run, shown


def _drawn(card: str, name: str, seat: str, reason: str) -> CardMoved:
    return CardMoved(card, name, seat, "deck", "hand", reason)


class _Setup:
    """A new match driven by hand, keeping each decision's events and the prompts shown."""

    def __init__(self) -> None:
        self.engine = Engine.for_match(opened(), small_db())
        self.log: list = []
        self.engine.on_emit = self.log.append
        self.engine.start()

    def decide(self, decision) -> list:
        self.log.clear()
        self.engine.decide(decision)
        return list(self.log)

    @property
    def prompt(self) -> dict:
        view = shown(self.engine)
        assert view is not None
        return view


def _picks(prompt: dict) -> list:
    return [o["decision"]["pick"] for o in prompt["options"]]


def test_401_the_coin_flip_winner_chooses_the_first_player_and_the_second_chooses_the_side():
    m = _Setup()
    flip = m.prompt
    assert (flip["seat"], flip["kind"], flip["text"]) == ("chance", "chance", "coin flip")
    assert _picks(flip) == ["A", "B"]
    assert m.decide(CoinFlipped("B")) == [CoinFlipped("B")]
    first = m.prompt
    assert (first["seat"], first["kind"], first["text"]) == \
        ("B", "first", "choose who plays first (rule 401)")
    assert _picks(first) == ["A", "B"]
    assert m.decide(Answered("B", "first", "A")) == [Answered("B", "first", "A"),
                                                      FirstPlayerChosen("A", "B")]
    side = m.prompt
    assert (side["seat"], side["kind"], side["text"]) == \
        ("B", "side", "realm 1 on your left or right (rule 401)")
    assert _picks(side) == ["left", "right"]
    assert m.decide(Answered("B", "side", "right")) == [Answered("B", "side", "right"),
                                                         RealmSideChosen("B", "right")]


def _to_shuffles(m: _Setup) -> None:
    m.decide(CoinFlipped("B"))
    m.decide(Answered("B", "first", "A"))
    m.decide(Answered("B", "side", "right"))


def test_402_each_deck_is_ordered_by_a_chance_event_then_each_player_draws_seven():
    """402: each player shuffles (a chance event: the full order of the deck's card names,
    first player first), then the top seven are each player's opening hand."""
    m = _Setup()
    _to_shuffles(m)
    names = sorted(e.card for e in opened().seats[0].deck for _ in range(e.count))
    for seat in ("A", "B"):
        shuffle = m.prompt
        assert (shuffle["seat"], shuffle["kind"], shuffle["text"]) == ("chance", "chance",
                                                                       f"shuffle {seat}")
        assert sorted(shuffle["choose"]["of"]) == names
        assert {k: shuffle["choose"][k] for k in ("min", "max", "ordered")} == \
            {"min": len(names), "max": len(names), "ordered": True}
        order = list(reversed(shuffle["choose"]["of"]))
        events = m.decide(DeckOrdered(seat, order))
    # The second shuffle done, both draw seven, the first player (A) first.
    assert events[0] == DeckOrdered("B", order)
    a, b = m.engine.state.players["A"], m.engine.state.players["B"]
    drawn = [_drawn(f"A{k}", m.engine.state.cards[f"A{k}"].name, "A", "opening hand")
             for k in range(1, 8)]
    drawn += [_drawn(f"B{k}", m.engine.state.cards[f"B{k}"].name, "B", "opening hand")
              for k in range(1, 8)]
    assert events[1:] == drawn
    assert len(a.hand) == len(b.hand) == 7 and len(a.deck) == len(names) - 7


def test_402_1_a_mulligan_puts_cards_on_the_bottom_in_order_and_draws_as_many():
    m = _Setup()
    _to_shuffles(m)
    for seat in ("A", "B"):
        m.decide(DeckOrdered(seat, list(m.prompt["choose"]["of"])))
    ask = m.prompt
    assert (ask["seat"], ask["kind"], ask["text"]) == \
        ("A", "mulligan", "put up to 3 cards on the bottom, in order (rule 402.1)")
    assert ask["choose"] == {"of": [f"A{k}" for k in range(1, 8)], "min": 0, "max": 3,
                             "ordered": True, "multiset": False}
    cards = m.engine.state.cards
    events = m.decide(Answered("A", "mulligan", ["A3", "A1"]))
    assert events == [
        Answered("A", "mulligan", ["A3", "A1"]),
        CardMoved("A3", cards["A3"].name, "A", "hand", "deck", "mulligan"),
        CardMoved("A1", cards["A1"].name, "A", "hand", "deck", "mulligan"),
        Mulliganed("A", ["A3", "A1"]),
        _drawn("A8", cards["A8"].name, "A", "mulligan"),
        _drawn("A9", cards["A9"].name, "A", "mulligan"),
    ]
    assert m.engine.state.players["A"].deck[-2:] == ["A3", "A1"]
    assert m.prompt["seat"] == "B" and m.prompt["kind"] == "mulligan"
    # 403.1: round 1 begins once B keeps its hand: energy 1 (round 1, no stones), 3 actions,
    # then each draws a card, the first player first.
    events = m.decide(Answered("B", "mulligan", []))
    assert events == [
        Answered("B", "mulligan", []),
        RoundStarted(1, "A"),
        RealmOpened(1),
        ResourcesChanged("A", "round start", energy=1, actions=3),
        ResourcesChanged("B", "round start", energy=1, actions=3),
        _drawn("A10", cards["A10"].name, "A", "round start"),
        _drawn("B8", cards["B8"].name, "B", "round start"),
        TurnsBegan("A"),
    ]


def test_403_5_the_round_ends_resources_are_lost_and_the_excess_is_discarded():
    played = run(case("c403.5-discard-down-to-seven"))
    assert played.steps[1].events[1:] == [
        TurnEnded("B", None),
        ResourcesChanged("A", "round end", energy=0, actions=0, free_attacks=0),
        ResourcesChanged("B", "round end", energy=0, actions=0, free_attacks=0),
    ]
    ask = played.steps[2].prompt
    assert ask is not None
    assert (ask["seat"], ask["kind"], ask["text"]) == ("A", "discard", "discard 2 (rule 403.5)")
    assert ask["choose"] == {"of": [f"h{k}" for k in range(1, 10)], "min": 2, "max": 2,
                             "ordered": False, "multiset": False}
    assert played.steps[2].events[:5] == [
        Answered("A", "discard", ["h1", "h2"]),
        CardMoved("h1", "Filler", "A", "hand", "abyss", "discard"),
        CardMoved("h2", "Filler", "A", "hand", "abyss", "discard"),
        RoundEnded(2),
        RoundStarted(3, "A"),
    ]


@pytest.mark.parametrize(("name", "ended"), [
    ("c405-most-stones-wins", MatchEnded("A", "stones", {"A": 2, "B": 1})),
    ("c405-tiebreak-lowest-realm-with-a-controller", MatchEnded("B", "tiebreak", {"A": 2, "B": 2})),
    ("c405-no-controller-is-a-draw", MatchEnded(None, "draw", {"A": 0, "B": 0})),
])
def test_405_the_match_ends_after_round_7_saying_how_it_was_decided(name, ended):
    """405: most stones wins; a tie goes to the controller of the lowest realm with a single
    controller; otherwise the draw stands -- and the record says which."""
    played = run(case(name))
    assert played.steps[-1].events[-2:] == [RoundEnded(7), ended]
    assert played.engine.prompt is None
