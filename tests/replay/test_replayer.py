"""The replayer: verification finds every kind of tampering; seeking equals folding;
perspectives never leak a hidden hand."""

import random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import FileStore
from ledger.codec import GENESIS, encode_line
from replay.replayer import Divergence, Replay
from replay.simulate import play_match
from replay.wotf.events import (
    BattleResolved,
    CardMoved,
    DeckOrdered,
    DeckShuffled,
    TriggerResolved,
)
from replay.wotf.perspective import board, redact_event
from replay.wotf.state import state_hash
from tests.replay.helpers import opened, small_db

DB = small_db()


@pytest.fixture(scope="module")
def match_events(tmp_path_factory):
    store = FileStore(tmp_path_factory.mktemp("store"))
    play_match(store, DB, opened(), 11, ("greedy", "random"))
    return list(store.read("m-test"))


def _rewrite(events, index, new_event):
    """The log with one event replaced and the hash chain recomputed (a careful forger)."""
    out, prev = [], GENESIS
    for i, stored in enumerate(events):
        event = new_event if i == index else stored.event
        line, prev = encode_line(event, stored.seq, stored.at, stored.batch, prev)
        out.append(line)
    return out


def test_a_recorded_match_verifies(match_events):
    replay = Replay(match_events, DB)
    assert replay.engine.state.over
    assert len(replay) == len(match_events)


def test_an_edited_outcome_is_a_divergence_at_its_seq(match_events, tmp_path):
    index = next(i for i, s in enumerate(match_events) if isinstance(s.event, BattleResolved))
    battle = match_events[index].event
    forged = msgspec.structs.replace(battle, defender_power=battle.defender_power + 1)
    path = tmp_path / "m-test.jsonl"
    path.write_bytes(b"\n".join(_rewrite(match_events, index, forged)) + b"\n")
    events = list(FileStore.read_file(path))  # the chain is intact: only the engine notices
    with pytest.raises(Divergence) as caught:
        Replay(events, DB)
    assert caught.value.seq == index
    assert f"m-test seq {index}: recorded BattleResolved" in str(caught.value)
    assert "engine derives BattleResolved" in str(caught.value)


def test_a_trigger_recorded_with_other_words_is_the_same_outcome(match_events):
    """A batch is compared by equality first; an event that differs is still the same outcome
    when only presentation differs (a trigger's ``detail``), and a divergence otherwise."""
    index = next(i for i, s in enumerate(match_events) if isinstance(s.event, TriggerResolved))
    trigger = match_events[index].event
    events = [s.event for s in match_events]
    events[index] = msgspec.structs.replace(trigger, detail=trigger.detail + " (worded otherwise)")
    Replay(events, DB)  # verifies
    events[index] = msgspec.structs.replace(trigger, ability=trigger.ability + "-other")
    with pytest.raises(Divergence, match=f"seq {index}: recorded TriggerResolved"):
        Replay(events, DB)


def test_an_illegal_decision_in_the_log_is_reported(match_events):
    index = next(i for i, s in enumerate(match_events) if type(s.event).__name__ == "PlayDeclared")
    play = match_events[index].event
    forged = msgspec.structs.replace(play, realm=7)
    events = [s.event for s in match_events]
    events[index] = forged
    with pytest.raises(Divergence, match=f"seq {index}: illegal PlayDeclared.*not active"):
        Replay(events, DB)


def test_an_illegal_turn_action_with_actions_left_is_still_refused(match_events):
    # With an action left the engine knows the seat has a turn action (drawing, 404.1)
    # without building the others; the recorded decision is still checked by the rules: a
    # play of a card that is not in the hand is refused as before (404.2).
    from replay.wotf.events import PlayDeclared
    index = next(i for i, s in enumerate(match_events) if type(s.event).__name__ == "PlayDeclared")
    play = match_events[index].event
    events = [s.event for s in match_events]
    events[index] = PlayDeclared(play.seat, "no-such-card", play.realm)
    with pytest.raises(Divergence, match=f"seq {index}: illegal PlayDeclared .*: "
                       f"card no-such-card is not in {play.seat}'s hand \\(rule 404.2\\)"):
        Replay(events, DB)


def test_a_seat_s_pass_where_it_had_no_turn_action_is_a_divergence(match_events):
    # 403.4: with no legal turn action the engine passes for the seat (an outcome it proves
    # by finding none); a log recording the seat's own pass there diverges at that seq.
    from replay.wotf.events import Passed
    index = next(i for i, s in enumerate(match_events)
                 if isinstance(s.event, Passed) and s.event.auto)
    auto = match_events[index].event
    events = [s.event for s in match_events]
    events[index] = Passed(auto.seat)
    with pytest.raises(Divergence, match=f"seq {index}: recorded Passed"):
        Replay(events, DB)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_seek_equals_folding_the_first_n_events(match_events, data):
    n = data.draw(st.integers(0, len(match_events) - 1))
    with_snapshots = Replay(match_events, DB)
    fold_only = Replay(match_events, DB, snapshot_every=10**9)  # one snapshot: seq 0
    assert fold_only._snapshot_keys == [0]
    assert state_hash(with_snapshots.state_at(n)) == state_hash(fold_only.state_at(n))


def test_state_at_moves_step_by_step(match_events):
    replay = Replay(match_events, DB)
    for seq, stored in enumerate(match_events):
        if isinstance(stored.event, CardMoved) and stored.event.to_zone == "hand":
            before = replay.state_at(seq - 1)
            after = replay.state_at(seq)
            assert stored.event.card in after.players[stored.event.owner].hand
            assert stored.event.card not in before.players[stored.event.owner].hand
            break
    else:
        pytest.fail("no draw in the match")


@pytest.mark.parametrize("perspective", ["A", "B", "spectator"])
def test_a_perspective_never_contains_the_opponents_hand(match_events, perspective):
    replay = Replay(match_events, DB)
    rng = random.Random(1)
    for seq in [*sorted(rng.sample(range(len(match_events)), 40)), len(match_events) - 1]:
        state = replay.state_at(seq)
        picture = board(state, DB, perspective)
        for seat in ("A", "B"):
            hidden = seat != perspective
            hand_ids = set(state.players[seat].hand)
            text = msgspec.json.encode(picture).decode()
            if hidden:
                assert picture["players"][seat]["hand"] is None
                assert all(f'"{cid}"' not in text for cid in hand_ids)
            assert picture["players"][seat]["deck"] is None
    shuffles = 0
    for stored in match_events:
        event = redact_event(stored.event, perspective)
        if isinstance(event, CardMoved) and event.from_zone == "deck" and event.to_zone == "hand":
            if event.owner != perspective:
                assert event.card == "?" and event.name == "?"
            else:
                assert event.card != "?"
        if isinstance(event, DeckShuffled):
            assert set(event.order) == {"?"}
        if isinstance(event, DeckOrdered):  # the setup shuffle: card names in deck order
            shuffles += 1
            assert set(event.cards) == {"?"}
    assert shuffles == 2


def test_cursor_addresses_rounds_turns_and_battles(match_events):
    from replay.replayer import Cursor
    cursor = Cursor(Replay(match_events, DB))
    assert cursor.seek_round(3).event.round == 3
    turn = cursor.seek_round(2, 3).event
    assert type(turn).__name__ in ("Passed", "PlayDeclared", "AttackDeclared", "DrawDeclared")
    battle = cursor.seek_battle(1).event
    assert type(battle).__name__ == "BattleStarted"
    here = cursor.seq
    assert cursor.step().seq == here + 1 and cursor.back().seq == here
    with pytest.raises(IndexError):
        cursor.seek_round(9)
