"""What each perspective sees of single events and of a board (DESIGN.md section 4), field by
field: the hidden card's id and the name beside it, the lists, texts and counts that name it,
queued triggers, the deck orders and mulligans, and the board's public facts.  Face Down
(rule 510): nobody but the omniscient view knows which face-down card is which; 402.1: a
mulligan's cards are the mulliganing seat's own hand."""

from ledger.events import TakenBack
from replay.wotf.cards import Card, CardDB
from replay.wotf.events import (
    Answered,
    CardMoved,
    DeckOrdered,
    EventCounted,
    FlightScheduled,
    ManualEffect,
    ManualOp,
    Mulliganed,
    TriggerResolved,
    TriggersQueued,
)
from replay.wotf.ops import FACE_DOWN as LEGACY_FACE_DOWN
from replay.wotf.perspective import board, card_names, known_board, known_cards, redact_event
from replay.wotf.state import CardState, GameState, PlayerState, new_realms
from replay.wotf.trigger import Trigger

DB = CardDB([Card(name="Grunt", type="wonder", power=3, cost=2),
             Card(name="Filler", type="wonder", power=1, cost=9)])
SEATS = ("A", "B", "spectator")


def test_510_a_face_down_card_is_hidden_in_every_list_that_names_it():
    event = FlightScheduled(cards=["A7", "A8"])
    for viewer in SEATS:
        assert redact_event(event, viewer, hidden={"A7"}).cards == ["?", "A8"]
    assert redact_event(event, "omniscient", hidden={"A7"}) == event


def test_510_the_name_beside_a_face_down_cards_id_is_hidden_too():
    """Before it went face down, the card moved in public with its name: that event hides
    both at the viewer's horizon."""
    played = CardMoved(card="A7", name="Grunt", owner="A", from_zone="hand", to_zone="world",
                       reason="play", to_realm=2, controller="A")
    for viewer in SEATS:
        seen = redact_event(played, viewer, hidden={"A7"})
        assert (seen.card, seen.name, seen.to_realm) == ("?", "?", 2)
    assert redact_event(played, "A", hidden={"B1"}) == played  # another card: as recorded


def test_510_texts_that_quote_a_face_down_card_are_hidden():
    resolved = TriggerResolved(card="B3", name="Grunt", ability="guardian", controller="B",
                               detail="+2 to A7 (guardian)")
    seen = redact_event(resolved, "B", hidden={"A7"})
    assert (seen.card, seen.name, seen.detail) == ("B3", "Grunt", "?")
    counted = EventCounted(key="A7:once", total=1)
    assert redact_event(counted, "spectator", hidden={"A7"}).key == "?"
    assert redact_event(counted, "spectator", hidden={"A8"}).key == "A7:once"


def test_510_a_queued_trigger_of_a_face_down_card_hides_its_source_and_ability_label():
    queued = TriggersQueued(triggers=[
        Trigger(source="A7", controller="A", ability="ab:Grunt#on-attack", realm=1),
        Trigger(source="B3", controller="B", ability="ab:Filler#x", realm=1, subject="A7"),
    ])
    first, second = redact_event(queued, "B", hidden={"A7"}).triggers
    assert (first.source, first.ability, first.controller) == ("?", "?", "A")
    assert (second.source, second.ability, second.subject) == ("B3", "ab:Filler#x", "?")


def test_a_draw_is_hidden_from_everyone_but_the_drawer():
    drawn = CardMoved(card="B4", name="Grunt", owner="B", from_zone="deck", to_zone="hand",
                      reason="draw")
    assert redact_event(drawn, "B") == drawn
    for viewer in ("A", "spectator"):
        seen = redact_event(drawn, viewer)
        assert (seen.card, seen.name) == ("?", "?")


def test_402_the_decks_order_is_hidden_from_the_seats_and_keeps_its_length():
    ordered = DeckOrdered(seat="A", cards=["Grunt", "Filler", "Grunt"])
    for viewer in SEATS:
        assert redact_event(ordered, viewer).cards == ["?", "?", "?"]
    assert redact_event(ordered, "omniscient") == ordered


def test_402_1_a_mulligan_is_seen_by_the_seat_that_took_it():
    mulliganed = Mulliganed(seat="A", cards=["A1", "A2"])
    assert redact_event(mulliganed, "A") == mulliganed
    for viewer in ("B", "spectator"):
        assert redact_event(mulliganed, viewer).cards == ["?", "?"]
    answered = Answered(seat="A", kind="mulligan", pick=["A1", "A2"])
    assert redact_event(answered, "A") == answered
    assert redact_event(answered, "B").pick == ["?", "?"]


def _state() -> GameState:
    s = GameState(phase="turns", round=3, turn="B", first="A", round1_first="A",
                  realms=new_realms())
    for seat in "AB":
        s.players[seat] = PlayerState(seat=seat, energy=4, actions=2, faith=1)
        for n in range(3):
            cid = f"{seat}{n}"
            s.cards[cid] = CardState(cid, "Filler", seat, "deck")
            s.players[seat].deck.append(cid)
    s.players["A"].faith = 3
    # A owns the Grunt; B has taken control of it (Control): it fights on B's side
    s.cards["A9"] = CardState("A9", "Grunt", "A", "world", controller="B", realm=2)
    s.cards["B9"] = CardState("B9", "Grunt", "B", "world", controller="B", realm=1,
                              face_down=True)
    return s


def test_the_board_lists_a_card_on_its_controllers_side_with_the_public_facts():
    for viewer in ("omniscient", *SEATS):
        seen = board(_state(), DB, viewer)
        assert (seen["turn"], seen["first"], seen["over"]) == ("B", "A", False)
        assert [r["active"] for r in seen["realms"]] == [True] * 3 + [False] * 4
        assert seen["players"]["A"]["faith"] == 3 and seen["players"]["B"]["faith"] == 1
        realm2 = seen["realms"][1]["cards"]
        assert [c["id"] for c in realm2["B"]] == ["A9"] and realm2["A"] == []


def test_510_a_known_face_down_card_is_shown_with_its_realm():
    """A card a seat was shown (a reveal to it), then put face down: that seat knows which it
    is and where it lies."""
    s = _state()
    known = known_board(s, DB, "A", {"B9"})
    assert known["B"] == [{"id": "B9", "name": "Grunt", "zone": "world", "realm": 1,
                           "type": "wonder"}]
    assert known_board(s, DB, "omniscient", {"B9"}) == {"A": [], "B": []}


def test_a_take_back_restores_what_was_known_at_its_seq():
    events = [Answered(seat="A", kind="mulligan", pick=[]),
              ManualEffect("judge", [ManualOp("reveal", card="B1")]),
              ManualEffect("judge", [ManualOp("reveal", card="B2")]),
              TakenBack(to_seq=1)]
    assert known_cards(events, "A") == {"B1"}
    assert known_cards(events[:3], "A") == {"B1", "B2"}


def test_510_a_card_put_face_down_is_hidden_from_every_seat_from_that_move_on():
    """The move that puts a card face down hides it from everyone but the omniscient view,
    its owner included (and, in files before schema 3, the move whose reason says so); a
    face-down card moved within The World is not put face down again: that move shows as
    recorded (its id is already a stranger's)."""
    put = CardMoved(card="A7", name="Grunt", owner="A", from_zone="hand", to_zone="world",
                    reason="play", to_realm=1, controller="A", face_down=True)
    legacy = CardMoved(card="A7", name="Grunt", owner="A", from_zone="hand", to_zone="world",
                       reason=LEGACY_FACE_DOWN, to_realm=1, controller="A")
    shifted = CardMoved(card="A7", name="?", owner="A", from_zone="world", to_zone="world",
                        reason="move", from_realm=1, to_realm=2, controller="A", face_down=True)
    for viewer in SEATS:
        for event in (put, legacy):
            seen = redact_event(event, viewer)
            assert (seen.card, seen.name, seen.to_realm) == ("?", "?", 1)
        assert redact_event(shifted, viewer) == shifted
    assert redact_event(put, "omniscient") == put
    s = _state()
    s.cards["A7"] = CardState("A7", "Grunt", "A", "world", controller="A", realm=1, face_down=True)
    assert "A7" not in card_names(s, "B", [put]) and card_names(s, "omniscient", [put])["A7"] == "Grunt"
    assert card_names(s, "B", [shifted])["A7"] == "Grunt"  # never put face down in these events


def test_a_seat_sees_its_own_hand_on_the_board_and_only_the_count_of_the_other():
    s = _state()
    s.cards["A5"] = CardState("A5", "Grunt", "A", "hand")
    s.players["A"].hand.append("A5")
    seen = board(s, DB, "A")["players"]
    assert [c["id"] for c in seen["A"]["hand"]] == ["A5"] and seen["A"]["hand_count"] == 1
    assert seen["B"]["hand"] is None and seen["B"]["hand_count"] == 0
    assert board(s, DB, "spectator")["players"]["A"]["hand"] is None
    assert board(s, DB) == board(s, DB, "omniscient")  # the default is everything
    assert board(s, DB)["players"]["A"]["deck"] is not None
