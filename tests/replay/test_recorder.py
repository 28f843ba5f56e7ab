"""Recording: atomic batches checked by the engine; take-backs; illegal decisions write nothing."""

import random

import pytest

from ledger import FileStore
from ledger.events import JudgeNote, TakenBack
from replay.errors import IllegalDecisionError
from replay.recorder import Recorder
from replay.replayer import Replay
from replay.timeline import Timeline
from replay.wotf.bots import RandomBot
from replay.wotf.events import (
    Answered,
    DrawDeclared,
    ManualEffect,
    ManualOp,
    PlayDeclared,
    ResourcesChanged,
)
from replay.wotf.state import state_hash
from tests.replay.helpers import opened, small_db

DB = small_db()


def _to_first_turn(recorder: Recorder) -> None:
    while recorder.engine.prompt.kind != "turn":
        prompt = recorder.engine.prompt
        pick = [] if prompt.kind == "mulligan" else prompt.options[0]
        recorder.submit(Answered(prompt.seat, prompt.kind, pick))


def test_chance_is_answered_and_every_batch_is_verified(tmp_path):
    store = FileStore(tmp_path)
    recorder = Recorder.open(store, DB, opened(), rng=random.Random(5))
    _to_first_turn(recorder)
    events = list(store.read("m-test"))
    assert [type(e.event).__name__ for e in events[:2]] == ["MatchOpened", "CoinFlipped"]
    assert any(type(e.event).__name__ == "DeckOrdered" for e in events)
    replay = Replay(events, DB)
    assert state_hash(replay.engine.state) == state_hash(recorder.engine.state)


def test_an_illegal_decision_writes_nothing(tmp_path):
    store = FileStore(tmp_path)
    recorder = Recorder.open(store, DB, opened(), rng=random.Random(5))
    _to_first_turn(recorder)
    before = (tmp_path / "m-test.jsonl").read_bytes()
    seat = recorder.engine.prompt.seat
    with pytest.raises(IllegalDecisionError, match="not active"):
        recorder.submit(PlayDeclared(seat, recorder.engine.state.players[seat].hand[0], 5))
    assert (tmp_path / "m-test.jsonl").read_bytes() == before


def test_take_back_restores_exactly_the_state_at_its_target(tmp_path):
    store = FileStore(tmp_path)
    recorder = Recorder.open(store, DB, opened(), rng=random.Random(9))
    _to_first_turn(recorder)
    target = recorder.length - 1
    expected = state_hash(recorder.engine.state)
    bot = RandomBot(random.Random(2))
    for _ in range(12):
        recorder.submit(bot.decide(recorder.engine))
    assert state_hash(recorder.engine.state) != expected
    recorder.take_back(target, reason="misplayed")
    assert state_hash(recorder.engine.state) == expected
    # Later decisions continue from there, and the whole log still verifies.
    recorder.submit(DrawDeclared(recorder.engine.prompt.seat))
    replay = Replay(list(store.read("m-test")), DB)
    assert any(isinstance(e, TakenBack) for e in replay.events)
    assert state_hash(replay.engine.state) == state_hash(recorder.engine.state)
    assert state_hash(replay.state_at(target)) == expected


def test_take_back_into_the_middle_of_a_batch_is_refused(tmp_path):
    store = FileStore(tmp_path)
    recorder = Recorder.open(store, DB, opened(), rng=random.Random(9))
    _to_first_turn(recorder)
    recorder.submit(DrawDeclared(recorder.engine.prompt.seat))
    with pytest.raises(IllegalDecisionError, match="not the end of a recorded batch"):
        recorder.take_back(recorder.length - 2)


def test_manual_effects_and_notes_are_recorded_and_replayed(tmp_path):
    store = FileStore(tmp_path)
    recorder = Recorder.open(store, DB, opened(), rng=random.Random(3))
    _to_first_turn(recorder)
    recorder.note("Judge Jo", "checked deck registration")
    recorder.manual(ManualEffect("Judge Jo", [ManualOp("resource", seat="A", resource="energy", value=9)],
                                 note="ruling: card X gives 8 energy"))
    assert recorder.engine.state.players["A"].energy == 9
    replay = Replay(list(store.read("m-test")), DB)
    assert replay.engine.state.players["A"].energy == 9
    # The ruling is recorded with the outcome it had: the fold needs no engine (schema 3).
    assert isinstance(replay.events[-3], JudgeNote)
    assert isinstance(replay.events[-2], ManualEffect)
    assert replay.events[-1] == ResourcesChanged("A", "manual", energy=9)


def test_a_stand_in_token_belongs_to_its_match_and_its_file(tmp_path):
    """A stand-in token is defined by the event that creates it and never joins a shared pool:
    two matches in one process can't change each other's cards (issue 12, point 3)."""
    from replay.timeline import Timeline
    from replay.wotf.cards import MatchCards, match_cards
    from replay.wotf.events import TokenCreated

    pool = small_db()
    store = FileStore(tmp_path)
    one = Recorder.open(store, pool, opened(), rng=random.Random(3))
    _to_first_turn(one)
    one.manual(ManualEffect("Judge Jo", [ManualOp("token", seat="A", realm=1, name="Golem")]))
    created = [s.event for s in store.read("m-test") if isinstance(s.event, TokenCreated)]
    assert len(created) == 1 and created[0].definition["name"] == created[0].name
    assert created[0].name in one.engine.db and created[0].name not in pool
    assert created[0].name not in one.engine.db.base  # no database changes: the state has it
    events = [s.event for s in store.read("m-test")]
    folded = Timeline(events).state
    assert folded.defined == one.engine.state.defined == {created[0].name: created[0].definition}
    assert created[0].name in MatchCards(match_cards(events[0], small_db()), folded)
    assert folded.cards[created[0].card].name == created[0].name
    Replay(list(store.read("m-test")), small_db())  # and re-derives from the file alone


@pytest.mark.parametrize("revision", [4, 5])
def test_a_judges_manual_move_that_empties_a_deck_ends_the_match_from_revision_5(tmp_path, revision):
    """405: "If at any time a deck has no cards, that player loses" -- also when a judge's
    ruling moves the last card out of the deck (revision 5); revision 4 only checked draws
    and deny, and re-derives its matches so."""
    import msgspec

    from ledger.events import MatchEnded

    store = FileStore(tmp_path)
    recorder = Recorder.open(store, DB, msgspec.structs.replace(opened(), rules_revision=revision),
                             rng=random.Random(3))
    _to_first_turn(recorder)
    deck = list(recorder.engine.state.players["A"].deck)
    ops = [ManualOp("move", card=cid, to_zone="abyss") for cid in deck]
    recorder.manual(ManualEffect("Judge Jo", ops, note="ruling: A's deck goes to The Abyss"))
    state = recorder.engine.state
    assert state.players["A"].deck == []
    replay = Replay(list(store.read("m-test")), DB)
    assert state_hash(replay.engine.state) == state_hash(state)
    if revision >= 5:
        assert state.over and state.winner == "B" and state.reason == "deck_out"
        assert recorder.engine.prompt is None and replay.engine.prompt is None
        assert isinstance(replay.events[-1], MatchEnded)
        with pytest.raises(IllegalDecisionError, match="over"):
            recorder.submit(DrawDeclared(state.turn or "A"))
    else:
        assert not state.over and recorder.engine.prompt is not None


def test_a_take_back_to_the_start_draws_the_set_ups_chance_in_its_batch(tmp_path):
    store = FileStore(tmp_path)
    recorder = Recorder.open(store, DB, opened(), rng=random.Random(9))
    _to_first_turn(recorder)
    length = recorder.length
    stored = recorder.take_back(0, reason="wrong decks")
    assert isinstance(stored[0].event, TakenBack) and stored[0].seq == length
    assert type(stored[1].event).__name__ == "CoinFlipped"  # the chance, in the same batch
    assert recorder.engine.prompt.seat in ("A", "B")
    _to_first_turn(recorder)
    resumed = Recorder.resume(store, DB, "m-test")  # the whole log verifies on the way
    assert state_hash(resumed.engine.state) == state_hash(recorder.engine.state)
    assert state_hash(Timeline(list(store.read("m-test"))).state) == state_hash(recorder.engine.state)
