"""Perspectives: a seat never sees the other seat's culture or Wonder-area card identity, in
any event or board; a spectator sees neither; the omniscient view sees everything."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.events import Event, MatchOpened
from replay.sow.events import CultureOrdered, WonderPlacedFaceDown
from replay.sow.evolve import evolve, initial_state
from replay.sow.perspective import board, hidden_ids, redact
from replay.sow.state import HIDDEN_AREAS, Seat, SowState
from tests.replay.sow.helpers import played, pool


def hidden_names_of(state: SowState, seat: Seat) -> set[str]:
    """Names of ``seat``'s cards in hidden areas that are *not* also visible elsewhere."""
    hidden = {c.name for c in state.cards.values() if c.owner == seat and c.area in HIDDEN_AREAS}
    public = {c.name for c in state.cards.values()
              if c.owner == seat and c.area not in HIDDEN_AREAS}
    return hidden - public


def test_hidden_ids_are_the_hidden_areas() -> None:
    opened, events = played(3)
    state = initial_state(opened)
    for e in events[:8]:
        evolve(state, e)
    ids = hidden_ids(state)
    assert ids and all(state.cards[i].area in HIDDEN_AREAS for i in ids)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10_000))
def test_events_never_leak_the_other_seats_hidden_cards(seed: int) -> None:
    """An event naming a card that is hidden before and after it (the setup shuffle, the
    face-down Wonder) shows no name to the other seat or a spectator; a card *played* from a
    hidden area is revealed by being played."""
    opened, events = played(seed)
    state = initial_state(opened)
    for event in events:
        before = hidden_ids(state)
        evolve(state, event)
        still = before & hidden_ids(state) | frozenset(
            c.id for c in state.cards.values() if c.area in HIDDEN_AREAS and c.id not in before)
        for perspective in ("A", "B", "spectator"):
            seen = redact(event, perspective, before)
            for seat in ("A", "B"):
                if perspective != seat:
                    _assert_no_hidden_identity(seen, seat, still)


def _assert_no_hidden_identity(seen: Event, seat: str, hidden: frozenset[str]) -> None:
    if isinstance(seen, CultureOrdered) and seen.seat == seat:
        assert set(seen.cards) == {""}
    if isinstance(seen, WonderPlacedFaceDown) and seen.seat == seat:
        assert seen.name == ""
    card = getattr(seen, "card", None)
    if card in hidden and card.startswith(seat) and hasattr(seen, "name") \
            and type(seen).__name__ != "CardRetrieved":  # from the public discard pile
        assert seen.name == "", seen


def test_the_other_seats_deck_list_is_redacted() -> None:
    opened, _ = played(4)
    for perspective, visible in (("A", {"A"}), ("B", {"B"}), ("spectator", set())):
        seen = redact(opened, perspective)
        assert isinstance(seen, MatchOpened)
        for info in seen.seats:
            assert bool(info.deck) == (info.seat in visible)
        assert seen.cards == []
    assert redact(opened, "omniscient") == opened


@pytest.mark.parametrize("seed", [5, 6])
def test_boards_show_hidden_areas_only_to_their_owner(seed: int) -> None:
    opened, events = played(seed)
    state = initial_state(opened)
    for n, event in enumerate(events):
        evolve(state, event)
        if n % 7:
            continue
        for perspective in ("A", "B", "spectator", "omniscient"):
            view = board(state, pool(), perspective)
            msgspec.json.encode(view)  # JSON-ready
            for seat in ("A", "B"):
                city = view["cities"][seat]
                sees = perspective in (seat, "omniscient")
                assert isinstance(city["culture"], list) == sees
                assert isinstance(city["wonder_area"], list) == sees
                if not sees:
                    own = {k: v for k, v in city.items() if k != "attackers"}  # the other's units
                    text = msgspec.json.encode(own).decode()
                    for name in hidden_names_of(state, seat):
                        assert f'"{name}"' not in text, (perspective, seat, name)


def test_board_uses_names_not_ids() -> None:
    opened, events = played(8)
    state = initial_state(opened)
    for event in events:
        evolve(state, event)
    text = msgspec.json.encode(board(state, pool(), "omniscient")).decode()
    for cid in state.cards:
        assert f'"{cid}"' not in text


def test_unknown_perspective_is_refused() -> None:
    opened, _ = played(1)
    with pytest.raises(ValueError, match="unknown perspective"):
        board(initial_state(opened), pool(), "C")


def test_a_card_played_is_named_after_it_returns_to_its_culture() -> None:
    """A card played is revealed by being played (CardPutIntoPlay names it): once it is back in
    its owner's culture (retrieved), the lines about it still name it for the other seat and the
    spectator -- they read "a hidden card" ("Bob plays a hidden card. Bob spends 2 gold (play
    Shieldbearer). Bob puts Shieldbearer into play exhausted."), on /play and in the viewer.
    A card never played stays unnamed."""
    from replay.sow.events import CardPutIntoPlay, CardRetrieved
    from replay.sow.perspective import card_names
    for seed in range(1, 20):
        opened, events = played(seed, ("greedy", "greedy"))
        retrieved = {e.card: e.seat for e in events if isinstance(e, CardRetrieved)}
        state = initial_state(opened)
        for e in events:
            state = evolve(state, e)
        back = {cid for cid in retrieved if state.cards[cid].area == "culture"}
        if back:
            break
    assert back, "no greedy match of seeds 1-19 ends with a retrieved card in its culture"
    played_ids = {e.card for e in events if isinstance(e, CardPutIntoPlay)}
    for cid in back:
        other = "B" if retrieved[cid] == "A" else "A"
        for view in (other, "spectator"):
            assert card_names(state, view, events)[cid] == state.cards[cid].name
            assert cid not in card_names(state, view)  # without the events: hidden now
    never = {c.id for c in state.cards.values() if c.area == "culture"} - played_ids
    for cid in never:
        owner = state.cards[cid].owner
        assert cid not in card_names(state, "B" if owner == "A" else "A", events)
        assert cid not in card_names(state, "spectator", events)
