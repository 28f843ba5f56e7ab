"""The codec: every event type round-trips, canonically (property-based)."""

import re
import typing

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.codec import GENESIS, decode_line, encode_line
from ledger.events import EVENT_TYPES, SCHEMA, Event
from ledger.registry import GAME_OF, RegistryError, load_games, register

load_games()  # every installed game's events: the codec reads them all

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8)  # what a field typed Any holds (recorded card definitions)


def strategy_for(tp):
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is typing.Any:
        return JSON_VALUES
    if tp is int:
        return st.integers(-10**6, 10**6)
    if tp is float:
        return st.floats(allow_nan=False, allow_infinity=False, width=32)
    if tp is str:
        return TEXT
    if tp is bool:
        return st.booleans()
    if tp is type(None):
        return st.none()
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return st.one_of(*[strategy_for(a) for a in args])
    if origin is list:
        return st.lists(strategy_for(args[0]), max_size=3)
    if origin is dict:
        return st.dictionaries(strategy_for(args[0]), strategy_for(args[1]), max_size=3)
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        hints = typing.get_type_hints(tp)
        fields = {f: strategy_for(hints[f]) for f in tp.__struct_fields__}
        return st.builds(tp, **fields)
    raise TypeError(f"no strategy for {tp!r}")


EVENTS = st.one_of(*[strategy_for(cls) for cls in EVENT_TYPES.values()])


@settings(max_examples=400, deadline=None)
@given(event=EVENTS, seq=st.integers(0, 10**6), batch_extra=st.integers(0, 5))
def test_every_event_round_trips_canonically(event, seq, batch_extra):
    line, digest = encode_line(event, seq, "2026-11-22T10:00:00.000Z", seq + batch_extra, GENESIS)
    stored = decode_line(line, "test")
    assert stored.event == event and stored.seq == seq and stored.hash == digest
    again, _ = encode_line(stored.event, seq, stored.at, stored.batch, stored.prev)
    assert again == line  # stable: re-encoding gives the same bytes
    outside_strings = re.sub(rb'"(?:[^"\\]|\\.)*"', b'""', line)  # whitespace only inside strings
    assert b"\n" not in line and not re.search(rb"\s", outside_strings)
    line.decode("utf-8")


def test_every_registered_type_is_a_frozen_event_tagged_by_its_name():
    members = list(EVENT_TYPES.values())
    assert len(members) == len({m.__name__ for m in members})
    assert {"", "wotf"} <= set(GAME_OF.values())
    for cls in members:
        assert issubclass(cls, Event), cls.__name__
        assert cls.__struct_config__.frozen, cls.__name__
        assert cls.__struct_config__.tag == cls.__name__
        assert SCHEMA[cls.__name__] >= 1


def test_a_game_cannot_reuse_a_registered_tag():
    class CardMoved(Event, frozen=True):  # the name of a Wonders event
        card: str
    try:
        register("another", [CardMoved], kinds={})
    except RegistryError as exc:
        assert "already registered by 'wotf'" in str(exc)
    else:
        raise AssertionError("a clashing tag was registered")
    assert EVENT_TYPES["CardMoved"] is not CardMoved


def test_keys_come_in_canonical_order():
    from replay.wotf.events import Passed
    line, _ = encode_line(Passed("A"), 3, "2026-01-01T00:00:00.000Z", 3, GENESIS)
    keys = list(msgspec.json.decode(line).keys())
    assert keys == ["seq", "type", "seat", "auto", "v", "at", "batch", "prev", "hash"]
