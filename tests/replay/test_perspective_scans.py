"""The scans of a match's events that every board and narrated answer runs (``known_cards``,
``card_names``) answer exactly what the plain reading of each event answers.

Both run over every event of a match on each read, so they look an event's class up once
instead of testing it with ``isinstance`` and ``known_cards`` starts at the first event that
shows a card.  The plain readings are written out here (the rules they follow: a manual
``reveal``/``look`` shows a card until it goes into a deck or its deck is shuffled, and a
take-back restores what was known at its seq; a card ever put face down stays unnamed but for
the omniscient view) and compared on generated event sequences: reveals and looks to either
seat or to all, moves into decks and face down, shuffles, tokens, take-backs to any seq (also
past the end), and events that touch none of it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.events import JudgeNote, TakenBack
from replay.wotf.events import (
    CardMoved,
    DeckShuffled,
    ManualEffect,
    ManualOp,
    ManualResolved,
    TokenCreated,
)
from replay.wotf.perspective import PERSPECTIVES, _put_face_down, card_names, known_cards, shown_to
from replay.wotf.state import CardState, GameState

CARDS = ["A1", "A2", "A3", "B1", "B2"]
SEATS = st.sampled_from(["A", "B"])
CARD = st.sampled_from(CARDS)


def plain_known(events, perspective):
    """What a viewer knows, read event by event (the rule as it reads)."""
    known: set[str] = set()
    history: list[frozenset[str]] = []
    for event in events:
        if isinstance(event, TakenBack) and event.to_seq < len(history):
            known = set(history[event.to_seq])
        elif isinstance(event, (ManualEffect, ManualResolved)):
            known |= {op.card for op in event.ops
                      if op.card and op.op in ("reveal", "look") and shown_to(op, perspective)}
        elif isinstance(event, CardMoved) and event.to_zone == "deck":
            known.discard(event.card)
        elif isinstance(event, DeckShuffled):
            known = {cid for cid in known if cid not in event.order}
        history.append(frozenset(known))
    return frozenset(known)


def plain_names(state, perspective, events):
    hidden = set()
    if perspective != "omniscient":
        hidden = {e.card for e in events if isinstance(e, CardMoved) and _put_face_down(e)}
    gone = {e.card: e.name for e in events if isinstance(e, TokenCreated)}
    return {**gone, **{cid: c.name for cid, c in state.cards.items() if cid not in hidden}}


ops = st.builds(ManualOp, op=st.sampled_from(["reveal", "look", "move", "tap"]), card=CARD,
                seat=st.one_of(st.none(), SEATS))
events = st.lists(st.one_of(
    st.builds(ManualEffect, by=st.just("judge"), ops=st.lists(ops, max_size=3)),
    st.builds(ManualResolved, seat=SEATS, card=CARD, ops=st.lists(ops, max_size=3)),
    st.builds(CardMoved, card=CARD, name=st.just("x"), owner=SEATS,
              from_zone=st.sampled_from(["hand", "world", "deck"]),
              to_zone=st.sampled_from(["deck", "hand", "world", "abyss"]), reason=st.just("r"),
              face_down=st.booleans()),
    st.builds(DeckShuffled, seat=SEATS, order=st.lists(CARD, unique=True)),
    st.builds(TokenCreated, seat=SEATS, card=st.sampled_from(["T1", "T2", "A1"]),
              name=st.sampled_from(["Wisp", "Ember"]), realm=st.just(1)),
    st.builds(TakenBack, to_seq=st.integers(0, 40)),
    st.builds(JudgeNote, judge=st.just("j"), text=st.just("t")),
), max_size=40)


@settings(max_examples=300, deadline=None)
@given(events)
def test_known_cards_is_the_plain_reading_of_every_event(seq):
    for perspective in PERSPECTIVES:
        assert known_cards(seq, perspective) == plain_known(seq, perspective)


@settings(max_examples=200, deadline=None)
@given(events)
def test_card_names_is_the_plain_reading_of_every_event(seq):
    state = GameState(cards={cid: CardState(cid, f"card {cid}", cid[0], "hand") for cid in CARDS})
    for perspective in PERSPECTIVES:
        assert card_names(state, perspective, seq) == plain_names(state, perspective, seq)


def test_a_card_shown_late_in_a_long_match_is_known_and_a_take_back_before_it_forgets_it():
    filler = [JudgeNote("j", f"n{i}") for i in range(300)]
    shown = ManualEffect("judge", [ManualOp("look", card="B1", seat="A")])
    assert known_cards([*filler, shown], "A") == {"B1"}
    assert known_cards([*filler, shown], "B") == frozenset()
    assert known_cards([*filler, shown, TakenBack(to_seq=299)], "A") == frozenset()
    assert known_cards([*filler, shown, JudgeNote("j", "x"), TakenBack(to_seq=300)], "A") == {"B1"}
