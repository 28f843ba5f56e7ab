"""A numeric event records ±∞ as "inf" / "-inf" (ledger.events.Num), checking only the fields
that can hold a float -- worked out once per event class, not every field of every event."""

import math
from typing import Literal

import msgspec
import pytest

from ledger.events import NumericEvent, _fields_holding_floats
from ledger.registry import load_games

load_games()  # every installed game's events, numeric ones among them


def _numeric_classes() -> list[type]:
    found, todo = [], [NumericEvent]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            found.append(sub)
            todo.append(sub)
    return found


@pytest.mark.parametrize("cls", _numeric_classes(), ids=lambda c: c.__name__)
def test_a_field_left_unchecked_can_never_hold_a_float(cls):
    # a float can't be decoded into any field the check skips, so no recorded event holds one
    checked = _fields_holding_floats(cls)
    assert checked, f"{cls.__name__} is numeric but has no field that can hold a float"
    for field in msgspec.structs.fields(cls):
        if field.name in checked:
            continue
        with pytest.raises(msgspec.ValidationError):
            msgspec.json.decode(b"1.5", type=field.type)


@pytest.mark.parametrize("cls", _numeric_classes(), ids=lambda c: c.__name__)
def test_an_infinite_number_is_recorded_as_text(cls):
    # Wonders rule 1: stats and resources may be infinite; JSON has no infinity
    for name in _fields_holding_floats(cls):
        field = next(f for f in msgspec.structs.fields(cls) if f.name == name)
        try:
            msgspec.json.decode(b'"inf"', type=field.type)
        except msgspec.ValidationError:
            continue  # a number that is never infinite (an int, a realm)
        values = {f.name: _sample(f) for f in msgspec.structs.fields(cls)}
        values[name] = math.inf
        event = cls(**values)
        assert getattr(event, name) == "inf"
        values[name] = -math.inf
        assert getattr(cls(**values), name) == "-inf"


def _sample(field) -> object:
    if field.default is not msgspec.NODEFAULT:
        return field.default
    if getattr(field.type, "__origin__", None) is Literal:
        return field.type.__args__[0]
    for raw in (b'"A"', b"1", b"1.5", b"true", b"[]", b"{}"):
        try:
            return msgspec.json.decode(raw, type=field.type)
        except msgspec.ValidationError:
            continue
    raise AssertionError(f"no sample value for {field.name}: {field.type}")
