"""What re-deriving a State of Wonder match does not do (issue 19, speed): work counted, never
timed.  A replay checks each recorded decision by itself and never lists a prompt's options
(``Flow.ask_listing``), while whoever reads the prompt gets the same options as before, and the
check answers exactly as the listed options do; a question about a static or triggered
ability no card of the pool has reads no card; matches of the same recorded cards share one
pool."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from ledger.events import Event
from replay.errors import CardDataError, IllegalDecisionError
from replay.replayer import NO_SNAPSHOTS, Replay
from replay.sow import GAME
from replay.sow.cards import Card, CardPool
from replay.sow.engine import Engine
from replay.sow.events import (
    ActivationChosen,
    JoinChosen,
    LockChosen,
    MainPassed,
    Picked,
    PlayChosen,
    StrikeChosen,
)
from replay.sow.queries import View
from replay.sow.simulate import inputs, open_match, rederive
from tests.replay.sow.helpers import deck_pair, played, pool
from tests.replay.sow.positions import position

MATCHES = [(3, ("greedy", "greedy")), (8, ("greedy", "random")), (14, ("random", "random"))]


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many times the Main Phase's and the combat tactics' options are listed, when there
    is more than one (the one legal decision is taken without asking)."""
    counted = {"main_options": 0, "tactic_options": 0}
    for name in counted:
        listing = getattr(Engine, name)

        def counting(self: Engine, seat: Any, name: str = name, listing: Any = listing) -> Any:
            options = listing(self, seat)
            counted[name] += len(options) > 1
            return options
        monkeypatch.setattr(Engine, name, counting)
    return counted


@pytest.mark.parametrize(("seed", "bots"), MATCHES)
def test_re_deriving_a_match_lists_no_options(seed: int, bots: tuple[str, str],
                                             listings: dict[str, int]) -> None:
    opened, events = played(seed, bots)
    assert any(isinstance(e, LockChosen) for e in events)  # tactics were answered
    listings.update(main_options=0, tactic_options=0)  # playing it listed them for the bots
    again, _ = rederive(opened, events, pool())
    Replay([opened, *events], pool(), snapshot_every=NO_SNAPSHOTS)  # what verify runs
    assert listings == {"main_options": 0, "tactic_options": 0}
    assert msgspec.json.encode(again) == msgspec.json.encode(events)


def test_a_pending_prompt_lists_its_options_once_when_read(listings: dict[str, int]) -> None:
    opened, events = played(3, ("greedy", "greedy"))
    listings.update(main_options=0)  # playing it listed them for the bots
    fed = inputs(events)
    engine = Engine.for_match(opened, pool())
    engine.start()
    for event in fed:
        if engine._prompt is not None and engine._prompt.kind == "turn":
            break
        engine.decide(event)
    assert listings["main_options"] == 0
    prompt = engine.prompt
    assert prompt is not None and prompt.kind == "turn" and len(prompt.options) > 1
    assert engine.prompt is prompt and listings["main_options"] == 1  # listed once
    assert prompt.options == engine.main_options(prompt.seat)  # type: ignore[arg-type]


def strangers(engine: Engine, kind: str) -> Iterator[Event]:
    """Decisions of every shape a Main Phase (``kind`` "turn") or tactics prompt takes, for
    every card that could be meant, of both seats (mostly illegal), and a few others."""
    cards = engine.state.cards
    fighting = [cid for cid, c in cards.items() if c.area in ("battle", "siege")]
    for seat in ("A", "B"):
        yield MainPassed(seat)
        yield Picked(seat, kind, None)
        for cid in [*cards, "Z9"] if kind == "turn" else [*fighting[:2], "Z9"]:
            yield PlayChosen(seat, cid)
            name = cards[cid].name if cid in cards else ""
            abilities = [a.id for a in engine.cards[name].abilities] if name in engine.cards else []
            for ability in [*abilities, "nope"]:
                yield ActivationChosen(seat, cid, ability)
        for unit in [*fighting, "Z9"] if kind == "tactics" else fighting[:1]:
            for other in [*cards, "Z9"]:
                yield LockChosen(seat, unit, other)
                yield StrikeChosen(seat, unit, other)
            for combat in (-1, 0, 1, 2):
                yield JoinChosen(seat, unit, combat)


@pytest.mark.parametrize(("seed", "bots"), MATCHES)
def test_the_check_answers_as_the_listed_options_do(seed: int, bots: tuple[str, str]) -> None:
    """At every Main Phase and tactics prompt, a decision passes the check (made before the
    options are listed) exactly when the listed options hold it; a refused one is refused with
    the check's words and changes nothing."""
    opened, events = played(seed, bots)
    engine = Engine.for_match(opened, pool())
    engine.start()
    asked = 0
    for event in inputs(events):
        pending = engine._prompt
        if pending is not None and pending.kind in ("turn", "tactics"):
            asked += 1
            reasons = [(d, engine.check(d)) for d in strangers(engine, pending.kind)]
            before, prompt = msgspec.json.encode(engine.state), engine.prompt
            assert prompt is not None and prompt.seat == pending.seat
            for decision, reason in reasons:
                assert (reason is None) == (decision in prompt.options), (decision, reason)
            for decision, reason in [(d, r) for d, r in reasons if r is not None][::50]:
                with pytest.raises(IllegalDecisionError) as refused:
                    engine.decide(decision)
                seat = decision.seat  # type: ignore[attr-defined]
                assert str(refused.value) == f"{type(decision).__name__} by {seat}: {reason}"
            assert msgspec.json.encode(engine.state) == before and engine.prompt == prompt
        engine.decide(event)
    assert asked > 10


class CountingPool(CardPool):
    """A pool that counts how many cards are looked up in it."""

    looked = 0

    def __getitem__(self, name: str) -> Card:
        self.looked += 1
        return super().__getitem__(name)


def test_abilities_no_card_of_the_pool_has_are_not_looked_for() -> None:
    """A position with units and buildings in play; the pool has no "health_bonus" static and
    no "end_of_turn" trigger: asking for them reads no card (rules: "Static Abilities are
    always on ... as long as the source of the ability is in play")."""
    state, cards = position({"turn": "A", "cards": [
        {"id": "a1", "card": "Militia", "area": "units"},
        {"id": "a2", "card": "Farm", "area": "buildings"},
        {"id": "b1", "card": "Raider", "area": "units"}]}, "statics")
    lacking = CountingPool(c for c in (cards[n] for n in cards.names())
                           if not any(a.effect == "health_bonus" or a.when == "end_of_turn"
                                      for a in c.abilities))
    view = View(state, lacking)
    assert view.statics("A", "health_bonus") == 0 and view.triggered("A", "end_of_turn") == []
    assert lacking.looked == 0
    # a static the pool has is still summed over the cards in play (here: none gives any)
    assert view.statics("A", "attack_bonus") == 0 and lacking.looked > 0


def test_matches_of_the_same_cards_share_one_pool() -> None:
    first = open_match("m-1", deck_pair(3), pool())
    second = open_match("m-2", deck_pair(3), pool())
    assert first.cards_digest == second.cards_digest
    assert GAME.match_cards(first, pool()) is GAME.match_cards(second, pool())
    other = open_match("m-3", deck_pair(4), pool())
    assert GAME.match_cards(other, pool()) is not GAME.match_cards(first, pool())


def test_a_card_the_pool_does_not_have_is_still_refused_by_name() -> None:
    """``View.card`` reads the pool's definitions by name; a name the pool lacks is the pool's
    one-line error, not a ``KeyError``."""
    state, cards = position({"turn": "A", "cards": [
        {"id": "a1", "card": "Militia", "area": "units"}]}, "unknown")
    state.cards["a1"].name = "Nope"
    with pytest.raises(CardDataError, match="unknown card 'Nope'"):
        View(state, cards).card("a1")
