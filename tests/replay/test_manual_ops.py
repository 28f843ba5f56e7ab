"""Manual operations that express printed card text: a move to the top or the bottom of a deck
(and several, in an order), a reveal to a seat or to everyone, a seat looking at a card, and
a shuffle whose order is a recorded chance event hidden like every deck order.  Each is
folded from the record, re-derived by the replayer, shown to exactly the seats it shows the
card to, and refused with one clear line before anything is recorded."""

from __future__ import annotations

import random

import msgspec
import pytest

from ledger import FileStore
from ledger.events import DeckEntry
from replay.errors import IllegalDecisionError
from replay.recorder import Recorder
from replay.replayer import Replay
from replay.wotf.cards import Card
from replay.wotf.events import (
    Answered,
    CardPutOnTop,
    DeckShuffled,
    ManualEffect,
    ManualOp,
    ManualResolved,
)
from replay.wotf.evolve import fold
from replay.wotf.manual import at_positions, why_not_ops, why_not_seat_ops
from replay.wotf.perspective import board, known_board, known_cards, redact_event
from replay.wotf.state import state_hash
from tests.replay.helpers import opened, small_db, small_deck

DB = small_db()


def _recorder(tmp_path, seed: int = 3) -> Recorder:
    recorder = Recorder.open(FileStore(tmp_path), DB, opened(), rng=random.Random(seed))
    while recorder.engine.prompt.kind != "turn":
        prompt = recorder.engine.prompt
        pick = [] if prompt.kind == "mulligan" else prompt.options[0]
        recorder.submit(Answered(prompt.seat, prompt.kind, pick))
    return recorder


def _rederived(tmp_path, recorder: Recorder) -> Replay:
    """The file re-derives, and its fold is the recorder's state."""
    events = list(FileStore(tmp_path).read("m-test"))
    replay = Replay(events, DB)
    assert state_hash(replay.engine.state) == state_hash(recorder.engine.state)
    assert state_hash(fold([s.event for s in events])) == state_hash(recorder.engine.state)
    return replay


def test_a_move_to_a_deck_goes_to_the_bottom_by_default_and_to_the_top_when_asked(tmp_path):
    rec = _recorder(tmp_path)
    hand = list(rec.engine.state.players["A"].hand)
    rec.manual(ManualEffect("judge", [ManualOp("move", card=hand[0], to_zone="deck")]))
    assert rec.engine.state.players["A"].deck[-1] == hand[0]  # old matches: the bottom
    rec.manual(ManualEffect("judge", [ManualOp("move", card=hand[1], to_zone="deck", value="bottom")]))
    assert rec.engine.state.players["A"].deck[-1] == hand[1]
    stored = rec.manual(ManualEffect("judge", [ManualOp("move", card=hand[2], to_zone="deck",
                                                        value="top")]))
    assert [type(s.event).__name__ for s in stored] == ["ManualEffect", "CardMoved", "CardPutOnTop"]
    assert rec.engine.state.players["A"].deck[0] == hand[2]
    _rederived(tmp_path, rec)


def test_put_them_back_on_top_in_an_order(tmp_path):
    """ "Look at the top three cards of your deck and put them back on top in any order": the
    last card put on top is the top card, so the chosen order is entered bottom-most first."""
    rec = _recorder(tmp_path)
    top3 = rec.engine.state.players["A"].deck[:3]
    chosen = [top3[2], top3[0], top3[1]]  # the order the player chose, top first
    ops = [ManualOp("look", card=cid, seat="A") for cid in top3]
    ops += [ManualOp("move", card=cid, to_zone="deck", value="top") for cid in reversed(chosen)]
    rec.manual(ManualEffect("judge", ops))
    assert rec.engine.state.players["A"].deck[:3] == chosen
    _rederived(tmp_path, rec)


def test_a_shuffle_is_a_recorded_chance_event_hidden_from_the_seats(tmp_path):
    rec = _recorder(tmp_path)
    before = list(rec.engine.state.players["B"].deck)
    prompt = rec.engine.prompt
    stored = rec.manual(ManualEffect("judge", [ManualOp("shuffle", seat="B")], note="Search"))
    kinds = [type(s.event).__name__ for s in stored]
    assert kinds == ["ManualEffect", "DeckShuffled"]
    shuffled = stored[-1].event
    assert isinstance(shuffled, DeckShuffled) and sorted(shuffled.order) == sorted(before)
    assert rec.engine.state.players["B"].deck == shuffled.order
    assert rec.engine.prompt == prompt  # the prompt pending before the ruling is back
    for seat in ("A", "B", "spectator"):
        assert set(redact_event(shuffled, seat).order) == {"?"}
        assert board(rec.engine.state, DB, seat)["players"]["B"]["deck"] is None
    replay = _rederived(tmp_path, rec)
    assert replay.engine.prompt == prompt
    # the match goes on after it: the pending turn takes a legal action as before
    rec.submit(rec.engine.legal_options()[0])
    _rederived(tmp_path, rec)


def test_a_shuffle_forgets_what_was_known_of_the_deck(tmp_path):
    rec = _recorder(tmp_path)
    top = rec.engine.state.players["A"].deck[0]
    rec.manual(ManualEffect("judge", [ManualOp("look", card=top, seat="A")]))
    events = [s.event for s in FileStore(tmp_path).read("m-test")]
    assert top in known_cards(events, "A")
    rec.manual(ManualEffect("judge", [ManualOp("shuffle", seat="A")]))
    events = [s.event for s in FileStore(tmp_path).read("m-test")]
    assert top not in known_cards(events, "A")


def test_a_reveal_shows_the_card_to_its_seat_or_to_everyone_from_then_on(tmp_path):
    rec = _recorder(tmp_path)
    b_hand = rec.engine.state.players["B"].hand
    secret, public = b_hand[0], b_hand[1]
    rec.manual(ManualEffect("judge", [ManualOp("reveal", card=secret, seat="A"),
                                      ManualOp("reveal", card=public)]))
    events = [s.event for s in FileStore(tmp_path).read("m-test")]
    ruling = events[-1]
    assert [op.card for op in redact_event(ruling, "A").ops] == [secret, public]
    assert [op.card for op in redact_event(ruling, "spectator").ops] == ["?", public]
    assert [op.card for op in redact_event(ruling, "B").ops] == ["?", public]  # shown to A only
    assert known_cards(events, "A") == {secret, public}
    assert known_cards(events, "spectator") == {public}
    state = rec.engine.state
    shown = known_board(state, DB, "A", known_cards(events, "A"))
    assert {c["id"] for c in shown["B"]} == {secret, public}
    assert all(c["zone"] == "hand" and c["name"] == state.cards[c["id"]].name for c in shown["B"])
    assert {c["id"] for c in known_board(state, DB, "spectator",
                                         known_cards(events, "spectator"))["B"]} == {public}
    assert known_board(state, DB, "B", known_cards(events, "B"))["B"] == []  # sees its hand anyway


def test_a_look_is_known_to_the_looking_seat_only(tmp_path):
    rec = _recorder(tmp_path)
    second = rec.engine.state.players["B"].deck[1]
    rec.manual(ManualEffect("judge", [ManualOp("look", card=second, seat="B")]))
    events = [s.event for s in FileStore(tmp_path).read("m-test")]
    assert redact_event(events[-1], "B").ops[0].card == second
    for other in ("A", "spectator"):
        assert redact_event(events[-1], other).ops[0].card == "?"
        assert known_cards(events, other) == frozenset()
    shown = known_board(rec.engine.state, DB, "B", known_cards(events, "B"))["B"]
    assert [(c["id"], c["name"], c["zone"], c["position"]) for c in shown] == \
        [(second, rec.engine.state.cards[second].name, "deck", 2)]


def test_known_cards_follow_a_take_back(tmp_path):
    rec = _recorder(tmp_path)
    before = rec.length - 1
    card = rec.engine.state.players["B"].hand[0]
    rec.manual(ManualEffect("judge", [ManualOp("reveal", card=card)]))
    rec.take_back(before)
    events = [s.event for s in FileStore(tmp_path).read("m-test")]
    assert known_cards(events, "A") == frozenset()


def test_put_on_top_hides_which_card_from_the_seats():
    event = CardPutOnTop("A7", "A")
    assert redact_event(event, "A").card == "?"
    assert redact_event(event, "omniscient").card == "A7"


@pytest.mark.parametrize(("ops", "message"), [
    ([ManualOp("move", card="A1", to_zone="abyss", value="top")],
     r"manual op 1 \(move\): .*\(A1\): a position \(top\) is for a move to a deck, not to abyss"),
    ([ManualOp("move", card="A1", to_zone="deck", value="middle")],
     r"manual op 1 \(move\): .*: a position is top or bottom, not 'middle'"),
    ([ManualOp("reveal", card="A99")], r"manual op 1 \(reveal\): no card 'A99'"),
    ([ManualOp("look", card="A1")], r"manual op 1 \(look\): .*: a look names the seat that looks"),
    ([ManualOp("shuffle")], r"manual op 1 \(shuffle\): a shuffle names the seat whose deck"),
    ([ManualOp("shuffle", seat="A"), ManualOp("move", card="A1", to_zone="hand")],
     r"manual op 2 \(move\): comes after a shuffle of A's deck; a shuffle is the last operation"),
    ([ManualOp("shuffle", seat="A"), ManualOp("shuffle", seat="A")],
     r"manual op 2 \(shuffle\): seat A's deck is already shuffled by this ruling"),
])
def test_bad_operations_get_one_clear_line_and_nothing_is_recorded(tmp_path, ops, message):
    rec = _recorder(tmp_path)
    length = rec.length
    reason = why_not_ops(rec.engine, ops, ruling=True)
    assert reason is not None and "\n" not in reason
    with pytest.raises(IllegalDecisionError, match=message):
        rec.manual(ManualEffect("judge", ops))
    assert rec.length == length == len(list(FileStore(tmp_path).read("m-test")))


def test_revealing_a_public_card_is_refused(tmp_path):
    rec = _recorder(tmp_path)
    card = rec.engine.state.players["A"].hand[0]
    rec.manual(ManualEffect("judge", [ManualOp("move", card=card, to_zone="abyss")]))
    reason = why_not_ops(rec.engine, [ManualOp("reveal", card=card)], ruling=True)
    assert reason is not None and "is in the abyss, seen by everyone" in reason


def test_a_seat_can_not_show_cards_to_the_other_seat(tmp_path):
    """(A seat's shuffle of its own deck: from revision 8, tests below.)"""
    rec = _recorder(tmp_path)
    state = rec.engine.state
    own = state.players["A"].hand[0]
    assert why_not_seat_ops(state, "A", [ManualOp("look", card=own, seat="B")]) == \
        "manual op 1 (look) lets seat B look: a seat's answer shows cards to itself only"
    assert why_not_seat_ops(state, "A", [ManualOp("reveal", card=own),
                                         ManualOp("look", card=state.players["A"].deck[0],
                                                  seat="A"),
                                         ManualOp("move", card=own, to_zone="deck",
                                                  value="top")]) is None
    assert "not seat A's own" in why_not_seat_ops(
        state, "A", [ManualOp("reveal", card=state.players["B"].hand[0])])


def test_a_seat_answer_reveals_and_puts_on_top():
    """ManualResolved carries the same operations (a seat answering its own manual prompt)."""
    answer = ManualResolved("A", "A1", [ManualOp("reveal", card="A8"),
                                        ManualOp("look", card="A9", seat="A")])
    assert [op.card for op in redact_event(answer, "B").ops] == ["A8", "?"]
    assert [op.card for op in redact_event(answer, "A").ops] == ["A8", "A9"]


def test_a_card_named_by_its_place_in_a_deck_is_recorded_by_its_id(tmp_path):
    rec = _recorder(tmp_path)
    deck = rec.engine.state.players["A"].deck
    ops = at_positions(rec.engine.state, [ManualOp("look", card="deck:A:2", seat="B"),
                                          ManualOp("look", card="deck:A:999", seat="B")])
    assert [op.card for op in ops] == [deck[1], "deck:A:999"]
    assert why_not_ops(rec.engine, ops) == (
        f"manual op 2 (look): seat A's deck has {len(deck)} cards: there is no card 999 from "
        f"the top")
    stored = rec.manual(ManualEffect("judge", [ManualOp("reveal", card="deck:A:1")]))
    assert stored[0].event.ops[0].card == deck[0]
    _rederived(tmp_path, rec)
    # a seat may look at any deck's cards itself (not reveal or move the other seat's)
    other = rec.engine.state.players["B"].deck[0]
    assert why_not_seat_ops(rec.engine.state, "A", [ManualOp("look", card=other, seat="A")]) is None
    assert "not seat A's own" in why_not_seat_ops(rec.engine.state, "A",
                                                  [ManualOp("reveal", card=other)])


def _oracle_db():
    """The small pool and a spell whose text the engine can't read (a manual prompt)."""
    return DB.with_cards([Card(name="Test Seer", type="spell", cost=0,
                               text="Search your deck for a card, put it into your hand, "
                                    "then shuffle your deck.")])


def _at_the_seers_manual_prompt(tmp_path, revision: int) -> tuple[Recorder, str]:
    db = _oracle_db()
    deck = [*small_deck()[:-1], DeckEntry("Test Seer", 1)]
    rec = Recorder.open(FileStore(tmp_path), db,
                        msgspec.structs.replace(opened(deck=deck), rules_revision=revision),
                        rng=random.Random(5))
    while rec.engine.prompt.kind != "turn":
        prompt = rec.engine.prompt
        rec.submit(Answered(prompt.seat, prompt.kind, [] if prompt.kind == "mulligan"
                            else prompt.options[0]))
    seat = rec.engine.prompt.seat
    seer = next(c.id for c in rec.engine.state.cards.values()
                if c.name == "Test Seer" and c.owner == seat)
    rec.manual(ManualEffect("judge", [ManualOp("move", card=seer, to_zone="hand")]))
    play = next(o for o in rec.engine.legal_options() if getattr(o, "card", None) == seer)
    rec.submit(play)
    assert rec.engine.prompt.kind == "manual" and rec.engine.prompt.seat == seat
    return rec, seer


def test_a_seat_shuffles_its_own_deck_in_its_manual_answer_from_revision_8(tmp_path):
    """ "… then shuffle your deck" (printed text): from revision 8 the seat answering its own
    card's manual prompt may shuffle its own deck; the order is a chance event the recorder
    answers (DeckShuffled, hidden from the seats like every deck order), and the file
    re-derives."""
    rec, seer = _at_the_seers_manual_prompt(tmp_path, 8)
    seat = rec.engine.prompt.seat
    theirs = "B" if seat == "A" else "A"
    found = rec.engine.state.players[seat].deck[-1]
    answer = ManualResolved(seat, seer, [ManualOp("move", card=found, to_zone="hand"),
                                         ManualOp("shuffle", seat=seat)])
    assert why_not_seat_ops(rec.engine.state, seat, answer.ops) is None
    assert why_not_seat_ops(rec.engine.state, seat, [ManualOp("shuffle", seat=theirs)]) == \
        f"manual op 1 (shuffle) shuffles seat {theirs}'s deck: a seat's answer shuffles its own only"
    before = [c for c in rec.engine.state.players[seat].deck if c != found]
    stored = rec.submit(answer)
    shuffled = [s.event for s in stored if isinstance(s.event, DeckShuffled)]
    assert len(shuffled) == 1 and shuffled[0].seat == seat
    assert sorted(shuffled[0].order) == sorted(before)
    assert rec.engine.state.players[seat].deck == shuffled[0].order
    assert found in rec.engine.state.players[seat].hand
    assert set(redact_event(shuffled[0], theirs).order) == {"?"}
    assert rec.engine.prompt.kind != "chance"  # the match goes on after the chance event
    replay = Replay(list(FileStore(tmp_path).read("m-test")), _oracle_db())
    assert state_hash(replay.engine.state) == state_hash(rec.engine.state)


def test_revision_7_refuses_a_seats_shuffle(tmp_path):
    rec, seer = _at_the_seers_manual_prompt(tmp_path, 7)
    seat = rec.engine.prompt.seat
    with pytest.raises(IllegalDecisionError, match="a shuffle is a chance event"):
        rec.submit(ManualResolved(seat, seer, [ManualOp("shuffle", seat=seat)]))
    assert rec.engine.prompt.kind == "manual"
