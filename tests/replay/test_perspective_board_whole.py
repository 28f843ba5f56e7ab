"""The board every perspective is shown, key by key (the viewer and the API read these keys:
docs/viewer.md), and the stack events' ability labels and texts hidden with a face-down card
(Face Down, rule 510: nobody but the omniscient view knows which face-down card is which)."""

from replay.wotf import perspective
from replay.wotf.cards import Card, CardDB
from replay.wotf.events import (
    ActivationDeclared,
    ManualEffect,
    ManualOp,
    PlayDeclared,
    TriggerResolved,
)
from replay.wotf.perspective import board, known_board, known_cards, redact_event
from replay.wotf.state import CardState, GameState, PlayerState, new_realms

DB = CardDB([Card(name="Grunt", type="wonder", power=3, cost=2),
             Card(name="Filler", type="wonder", power=1, cost=9)])
BOARD_KEYS = {"perspective", "round", "phase", "turn", "first", "over", "winner", "reason",
              "ruleset", "realms", "players"}
PLAYER_KEYS = {"energy", "actions", "free_attacks", "faith", "stones", "hand_count", "hand",
               "deck_count", "deck", "abyss", "banishment"}


def _ended() -> GameState:
    """A match that ended: A won; a Grunt of A's in The World (realm 1), one in B's abyss."""
    s = GameState(phase="over", round=7, turn="B", first="A", round1_first="A",
                  realms=new_realms(), over=True, winner="A", reason="stones",
                  ruleset="1.3.2")
    for seat in "AB":
        s.players[seat] = PlayerState(seat=seat, energy=2, actions=3, faith=0)
    s.players["B"].actions = 1
    s.cards["A1"] = CardState("A1", "Grunt", "A", "world", controller="A", realm=1)
    s.cards["B1"] = CardState("B1", "Grunt", "B", "abyss")
    s.players["B"].abyss.append("B1")
    return s


def test_the_board_has_every_key_the_viewer_reads_with_the_states_values():
    s = _ended()
    for viewer in ("omniscient", "A", "B", "spectator"):
        seen = board(s, DB, viewer)
        assert set(seen) == BOARD_KEYS
        assert (seen["over"], seen["winner"], seen["reason"], seen["ruleset"]) == \
            (True, "A", "stones", "1.3.2")
        for seat in "AB":
            assert set(seen["players"][seat]) == PLAYER_KEYS
        assert (seen["players"]["A"]["actions"], seen["players"]["B"]["actions"]) == (3, 1)
        assert [c["id"] for c in seen["players"]["B"]["abyss"]] == ["B1"]  # the abyss is public
        assert seen["players"]["A"]["abyss"] == []
        (grunt,) = seen["realms"][0]["cards"]["A"]
        assert grunt["id"] == "A1" and grunt["power"] == 3  # a Wonder in The World: its power


def test_a_known_card_after_one_in_view_is_still_listed():
    """known_board skips a known card the board shows anyway (face up in The World) and goes
    on to the next: B's hand, which A can't see, after it in id order."""
    s = _ended()
    s.cards["B2"] = CardState("B2", "Filler", "B", "hand")
    s.players["B"].hand.append("B2")
    known = known_board(s, DB, "A", {"A1", "B2"})  # "A1" (in view) sorts before "B2"
    assert known["A"] == [] and known["B"] == [
        {"id": "B2", "name": "Filler", "zone": "hand", "type": "wonder"}]


def test_known_cards_works_with_nothing_learnt_yet_of_the_event_types():
    """The per-type table known_cards fills as it meets event types starts empty in a fresh
    process: the first events of each type are judged by their class."""
    perspective._CHANGES_KNOWN_BY_TYPE.clear()
    events = [ManualEffect("judge", [ManualOp("reveal", card="B1")])]
    assert known_cards(events, "A") == {"B1"}
    assert perspective._CHANGES_KNOWN_BY_TYPE[ManualEffect] is True


def test_510_a_resolved_trigger_of_a_face_down_card_hides_its_ability_label():
    """The stack events' ability label ("ab:<Card Name>#<id>") names the card: hidden with
    the card itself."""
    resolved = TriggerResolved(card="A7", name="Grunt", ability="ab:Grunt#A7", controller="A")
    for viewer in ("A", "B", "spectator"):
        seen = redact_event(resolved, viewer, hidden={"A7"})
        assert (seen.card, seen.name, seen.ability) == ("?", "?", "?")
    assert redact_event(resolved, "omniscient", hidden={"A7"}) == resolved


def test_510_a_text_quoting_a_face_down_card_in_brackets_is_hidden():
    resolved = TriggerResolved(card="B3", name="Grunt", ability="guardian", controller="B",
                               detail="guardian (A7)")
    assert redact_event(resolved, "B", hidden={"A7"}).detail == "?"
    assert redact_event(resolved, "B", hidden={"A8"}).detail == "guardian (A7)"


def test_510_a_face_down_card_chosen_as_a_target_is_hidden_in_the_declaration():
    """A play's or an activation's targets name cards by id, as the other card lists do: a
    face-down one is ``?`` to everyone but the omniscient view."""
    played = PlayDeclared(seat="B", card="B3", realm=2, targets=["A7", "A8"])
    activated = ActivationDeclared(seat="B", card="B4", targets=["A7"])
    for viewer in ("A", "B", "spectator"):
        assert redact_event(played, viewer, hidden={"A7"}).targets == ["?", "A8"]
        assert redact_event(activated, viewer, hidden={"A7"}).targets == ["?"]
    assert redact_event(played, "omniscient", hidden={"A7"}) == played
