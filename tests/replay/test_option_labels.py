"""A listed prompt's options as the table reads them (replay/wotf/labels.py): seats by their
players' names, cards by name and where they are, further detail only where two options would
still read alike -- never a seat letter or a card id."""

from __future__ import annotations

import random
import re

from replay.wotf.api import prompt_view
from replay.wotf.bots import answer_chance
from replay.wotf.engine import Engine
from replay.wotf.events import Answered
from replay.wotf.labels import card_words, option_labels
from replay.wotf.state import CardState, GameState
from tests.replay.helpers import opened, small_db

PLAYERS = {"A": "Ann", "B": "Bob"}
ID = re.compile(r"\b[AB]\d+\b")


def test_who_plays_first_is_offered_by_the_players_names():
    engine = Engine.for_match(opened(), small_db())
    engine.start()
    while engine.prompt is not None and engine.prompt.kind == "chance":
        engine.decide(answer_chance(engine.prompt, random.Random(1)))
    assert engine.prompt is not None and engine.prompt.kind == "first"
    chooser = engine.prompt.seat
    view = prompt_view(engine, chooser, lambda cid: cid, PLAYERS)
    assert view is not None
    labels = {o["decision"]["pick"]: o["label"] for o in view["options"]}
    assert labels[chooser] == f"{PLAYERS[chooser]} (you)"
    other = "B" if chooser == "A" else "A"
    assert labels[other] == PLAYERS[other]
    judge = prompt_view(engine, "omniscient", lambda cid: cid, PLAYERS)
    assert judge is not None and sorted(o["label"] for o in judge["options"]) == ["Ann", "Bob"]


def _card(cid: str, name: str, seat: str, realm: int | None, **more) -> CardState:
    zone = "world" if realm is not None else "hand"
    return CardState(id=cid, name=name, owner=seat, zone=zone, controller=seat if realm else None,
                     realm=realm, **more)


def test_cards_are_offered_by_name_and_place_and_told_apart_without_ids():
    state = GameState(cards={c.id: c for c in [
        _card("B8", "Highlands of Petraia", "B", 1),
        _card("A6", "Sunspire Citadel", "A", 2, tapped=True),
        _card("A7", "Sunspire Citadel", "A", 2),
        _card("A8", "Ember Imp", "A", 3),
        _card("A9", "Ember Imp", "A", 3),
        _card("A3", "Ember Imp", "A", None)]})
    labels = option_labels(["B8", "A6", "A7", "A8", "A9", "A3"], state, "B", PLAYERS)
    assert labels == ["Highlands of Petraia (Bob's, realm 1)",
                      "Sunspire Citadel (Ann's, realm 2, tapped)",
                      "Sunspire Citadel (Ann's, realm 2, untapped)",
                      "Ember Imp (Ann's, realm 3, untapped), the first",
                      "Ember Imp (Ann's, realm 3, untapped), the second",
                      "Ember Imp (Ann's hand)"]
    assert not any(ID.search(label) for label in labels)


def test_a_turns_cards_are_told_apart_by_what_differs_only():
    """card_words: a name alone where it is the only one; where two share it, where each is;
    where still alike, the board's marks; a copy number as the last resort."""
    state = GameState(cards={c.id: c for c in [
        _card("A1", "Tempest Bell", "A", 1),
        _card("A2", "Tempest Bell", "A", 2),
        _card("A3", "Null Emitter", "A", 3, counters={"+1": 1}),
        _card("A4", "Null Emitter", "A", 3),
        _card("A5", "Overclock", "A", None),
        _card("A6", "Overclock", "A", None),
        _card("A7", "Ember Imp", "A", None),
        _card("A8", "Ember Imp", "A", 1),
        _card("A9", "Sky Roc", "A", None)]})
    words = card_words([f"A{n}" for n in range(1, 10)], state)
    assert words == {"A1": "Tempest Bell in realm 1", "A2": "Tempest Bell in realm 2",
                     "A3": "Null Emitter (untapped, +1 ×1)", "A4": "Null Emitter (untapped)",
                     "A5": "Overclock (copy 1)", "A6": "Overclock (copy 2)",
                     "A7": "Ember Imp from your hand", "A8": "Ember Imp in realm 1",
                     "A9": "Sky Roc"}


def test_a_pick_prompt_tells_two_copies_apart():
    """A mulligan (402.1) of a real match whose opening hand holds three Test Lands: each
    copy reads differently, and a card alone in the hand by its name only."""
    engine = Engine.for_match(opened(), small_db())
    engine.start()
    rng = random.Random(0)
    while engine.prompt is not None and engine.prompt.kind != "mulligan":
        if engine.prompt.kind == "chance":
            engine.decide(answer_chance(engine.prompt, rng))
        else:
            engine.decide(Answered(engine.prompt.seat, engine.prompt.kind, engine.prompt.options[0]))
    assert engine.prompt is not None
    seat = engine.prompt.seat
    view = prompt_view(engine, seat, lambda cid: cid, PLAYERS)
    assert view is not None
    labels = [view["labels"][cid] for cid in view["choose"]["of"]]
    names = [engine.state.cards[cid].name for cid in view["choose"]["of"]]
    assert names.count("Test Land") == 3
    assert len(set(labels)) == len(labels), labels
    assert not any(ID.search(label) for label in labels)
    assert all(label == name for label, name in zip(labels, names, strict=True)
               if names.count(name) == 1)
