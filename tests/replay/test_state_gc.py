"""A match state's cards are not tracked by the garbage collector (``CardState`` is a
``gc=False`` struct): safe only while no reference cycle can pass through one, so its fields
may hold only plain values, and lists and dicts of them and of scalar-only structs."""

import gc
import typing

import msgspec

from replay.wotf.evolve import fold
from replay.wotf.state import CardState, Effect
from tests.replay.test_snapshots import simulated

PLAIN = (str, int, float, bool, type(None))


def _plain(annotation) -> bool:
    """Whether a field's type holds only plain values, containers of them, or ``Effect``."""
    if annotation in PLAIN or annotation is Effect:
        return True
    if typing.get_origin(annotation) is typing.Literal:
        return True
    args = typing.get_args(annotation)
    return bool(args) and all(_plain(arg) for arg in args)


def test_a_card_state_can_hold_no_cycle():
    # were a field to refer to a card (or anything holding one), a cycle through untracked
    # cards could never be collected
    for struct in (CardState, Effect):
        hints = typing.get_type_hints(struct)
        assert hints and all(_plain(hint) for hint in hints.values()), (struct, hints)
    assert not gc.is_tracked(Effect("power+", 1)), "an Effect must stay scalar-only"


def test_a_folded_match_s_cards_are_untracked_and_equal_their_copies(tmp_path):
    _, _, log = simulated(tmp_path, "wotf")
    state = fold([stored.event for stored in log])
    assert len(state.cards) > 50
    assert not any(gc.is_tracked(card) for card in state.cards.values())
    thawed = msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=type(state))
    assert thawed == state and not any(gc.is_tracked(card) for card in thawed.cards.values())
