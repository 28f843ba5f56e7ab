"""R46: the order of a group of buried cards is known to its owner only (Bury, Game Terms:
"Put a card or group of cards on the bottom of its owner's deck in any order of the owner's
choice"; the deck is a hidden zone).

Each test records the same position twice, the owner choosing two different orders, and reads
the events as every perspective sees them: the other seat and a spectator read the same events,
words and board for both orders; the owner and the omniscient view (the judge, anyone after the
match) read the order chosen.  Setups: the conformance case
``ab-seek-buries-in-the-owners-order`` (a seek's unplayed cards, from the deck) and Fossil
Recall burying two cards from The Abyss (a public zone: the moves name their cards).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import msgspec

from ledger.events import Event
from replay.wotf import conformance as C
from replay.wotf import narrate, perspective
from replay.wotf.cards import default_cards, parse_card
from replay.wotf.engine import Engine
from replay.wotf.events import Answered, CardMoved, DrawDeclared, PlayDeclared
from replay.wotf.evolve import evolve
from replay.wotf.state import clone

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "conformance" / "abilities" / \
    "ab-seek-buries-in-the-owners-order.toml"
OTHERS = ("B", "spectator")
FOSSIL = {"cards": {"Filler": {"type": "wonder", "power": 1, "cost": 9},
                    "Ballast": {"type": "wonder", "power": 1, "cost": 8}},
          "state": {"round": 3, "turn": "A",
                    "A": {"energy": 3, "actions": 3,
                          "hand": [{"id": "fossil", "card": "Fossil Recall"}],
                          "abyss": [{"id": "x1", "card": "Filler"}, {"id": "x2", "card": "Ballast"},
                                    {"id": "x3", "card": "Filler"}],
                          "deck": ["Filler", "Filler", "Filler"]},
                    "B": {"actions": 0, "deck": ["Filler", "Filler", "Filler", "Filler"]}}}


def _engine(data: dict[str, Any], revision: int) -> tuple[Engine, list[Event]]:
    db = C._case_cards(data.get("cards", {}), default_cards())
    state = C.build_state(data["state"], data.get("rules", "1.3.2"), db)
    state.revision = revision
    engine = Engine(db, state)
    engine.position = clone(state)  # type: ignore[attr-defined]  # where the log starts
    return engine, list(engine.start())


def _boards(engine: Engine, log: list[Event], who: str) -> list[Any]:
    """The board ``who`` is shown at every seq of ``log`` (the fold of the events up to the
    seq the game shows it, :func:`perspective.board_seq`)."""
    states, state = [], clone(engine.position)  # type: ignore[attr-defined]
    for event in log:
        evolve(state, event)
        states.append(clone(state))
    return [perspective.board(states[perspective.board_seq(log, seq, who)], engine.db, who)
            for seq in range(len(log))]


def _seek(order: list[str]) -> tuple[Engine, list[Event]]:
    """The conformance case, A burying s1, s2, s3 in ``order``, then drawing."""
    data = tomllib.loads(CASE.read_text(encoding="utf-8"))
    engine, log = _engine(data, data["revision"])
    for decision in (PlayDeclared("A", "seer", 2, []), Answered("A", "order", order),
                     DrawDeclared("A")):
        log += engine.decide(decision)
    return engine, log


def _fossil(order: list[str]) -> tuple[Engine, list[Event]]:
    """Fossil Recall buries x1 and x2 (a Filler, a Ballast) from A's Abyss in ``order``."""
    engine, log = _engine(FOSSIL, 10)
    for decision in (PlayDeclared("A", "fossil", None, []), Answered("A", "target", ["x1", "x2"]),
                     Answered("A", "order", order)):
        log += engine.decide(decision)
    return engine, log


def _view(engine: Engine, log: list[Event], who: str) -> tuple[list[Any], list[str], Any]:
    """Every event as ``who`` reads it, their words and the board it is shown at each."""
    hidden = perspective.face_down_ids(engine.state)
    seen = [perspective.redact_event(e, who, hidden, log, seq) for seq, e in enumerate(log)]
    names = perspective.card_names(engine.state, who, log)
    words = [narrate.narrate(e, None, names) for e in seen]
    return [msgspec.to_builtins(e) for e in seen], words, _boards(engine, log, who)


def _order_answer(log: list[Event]) -> int:
    return next(n for n, e in enumerate(log) if isinstance(e, Answered) and e.kind == "order")


def test_a_seeks_bury_order_is_the_owners_only():
    first, second = _seek(["s2", "s3", "s1"]), _seek(["s3", "s1", "s2"])
    assert first[0].state.players["A"].hand == ["s2"] and second[0].state.players["A"].hand == ["s3"]
    for who in OTHERS:
        assert _view(*first, who) == _view(*second, who), f"{who} can tell the orders apart"
        events, words, _ = _view(*first, who)
        at = _order_answer(first[1])
        assert events[at]["pick"] == ["?", "?", "?"]
        assert words[at].endswith("puts the 3 cards in the order of their choice")
    for who in ("A", "omniscient"):
        events, words, _ = _view(*first, who)
        at = _order_answer(first[1])
        assert events[at]["pick"] == ["s2", "s3", "s1"], who
        assert "this order: Ballast, Filler, Filler" in words[at]
        assert _view(*first, who) != _view(*second, who)


def test_a_bury_from_the_abyss_shows_its_moves_in_name_order_to_the_others():
    first, second = _fossil(["x1", "x2"]), _fossil(["x2", "x1"])
    assert first[0].state.players["A"].deck[-2:] == ["x1", "x2"]
    assert second[0].state.players["A"].deck[-2:] == ["x2", "x1"]
    for who in OTHERS:
        assert _view(*first, who) == _view(*second, who), f"{who} can tell the orders apart"
        events, words, _ = _view(*first, who)
        buried = [e["card"] for e in events if e["type"] == "CardMoved" and e["reason"] == "bury"]
        assert buried == ["x2", "x1"]  # Ballast, then Filler: by name, whatever A chose
        assert [w for w in words if "bury" in w] == \
            [w for w in _view(*second, who)[1] if "bury" in w]
    for who in ("A", "omniscient"):
        for order, (engine, log) in ((["x1", "x2"], first), (["x2", "x1"], second)):
            events, _, _ = _view(engine, log, who)
            buried = [e["card"] for e in events if e["type"] == "CardMoved" and e["reason"] == "bury"]
            assert buried == order, who


def test_public_orders_and_single_buries_read_as_recorded():
    """Only a bury's answer is hidden: a single card buried (no order prompt) names its card
    to everyone, in every view."""
    engine, log = _engine(FOSSIL, 10)
    for decision in (PlayDeclared("A", "fossil", None, []), Answered("A", "target", ["x2"])):
        log += engine.decide(decision)
    for who in OTHERS:
        events, _, _ = _view(engine, log, who)
        assert [e["card"] for e in events if e["type"] == "CardMoved" and e["reason"] == "bury"] \
            == ["x2"]
    assert not any(isinstance(e, Answered) and e.kind == "order" for e in log)
    assert any(isinstance(e, CardMoved) and e.reason == "bury" for e in log)


# -- a group of both seats' cards: the first owner's answer is written before the second answers

MASS = {"name": "Mass Recall", "type": "spell", "cost": 1, "abilities": [
    {"when": "play", "text": "Bury up to four target cards in The Abyss.",
     "effects": [{"do": "bury", "target": {"pick": "up_to", "count": 4, "what": "card",
                                          "zone": "abyss"}}]}]}
BOTH = {"cards": {"Filler": {"type": "wonder", "power": 1, "cost": 9},
                  "Ballast": {"type": "wonder", "power": 1, "cost": 8}},
        "state": {"round": 3, "turn": "A",
                  "A": {"energy": 3, "actions": 3, "hand": [{"id": "mass", "card": "Mass Recall"}],
                        "abyss": [{"id": "x1", "card": "Filler"}, {"id": "x2", "card": "Ballast"}],
                        "deck": ["Filler", "Filler", "Filler"]},
                  "B": {"actions": 0, "abyss": [{"id": "y1", "card": "Filler"},
                                                {"id": "y2", "card": "Ballast"}],
                        "deck": ["Filler", "Filler", "Filler", "Filler"]}}}


def _both_seats(revision: int = 11) -> tuple[Engine, list[Event], int]:
    """A plays a (test) card burying two of each seat's cards from The Abyss and orders its
    own; B is asked next.  The engine, the log, and the seq of A's answer."""
    db = C._case_cards(BOTH["cards"], default_cards()).with_cards([parse_card(MASS, "mass")])
    state = C.build_state(BOTH["state"], "1.3.2", db)
    state.revision = revision
    engine = Engine(db, state)
    log = list(engine.start())
    log += engine.decide(PlayDeclared("A", "mass", None, []))
    log += engine.decide(Answered("A", "target", ["x1", "x2", "y1", "y2"]))
    log += engine.decide(Answered("A", "order", ["x2", "x1"]))
    assert engine.prompt is not None and (engine.prompt.seat, engine.prompt.kind) == ("B", "order")
    return engine, log, len(log) - 1


def test_the_first_owners_order_is_hidden_while_the_other_owner_chooses():
    """A's answer is the end of the log until B answers: nothing after it told it from an order
    of triggers, and it was shown as recorded (found by review)."""
    _, log, seq = _both_seats()
    assert isinstance(log[seq], Answered) and log[seq].pick == ["x2", "x1"]
    for who in OTHERS:
        assert perspective.redact_event(log[seq], who, (), log, seq).pick == ["?", "?"], who
    assert perspective.redact_event(log[seq], "A", (), log, seq).pick == ["x2", "x1"]


def test_the_first_owners_order_stays_hidden_once_the_other_owner_answers():
    engine, log, seq = _both_seats()
    log += engine.decide(Answered("B", "order", ["y1", "y2"]))
    for who in OTHERS:
        assert perspective.redact_event(log[seq], who, (), log, seq).pick == ["?", "?"], who
