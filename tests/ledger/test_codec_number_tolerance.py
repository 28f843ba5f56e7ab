"""The one tolerance of canonical lines (docs/format.md, "Canonical bytes"): an integer where
the canonical encoding has the same number as a float (``4`` for ``4.0``), checked value by
value at every depth when the quick comparison cannot decide -- here a line whose list of
operations holds such a number, and whose note contains ``1.0,`` (so the quick comparison,
which drops ``.0`` before ``,`` ``}`` ``]``, also changes the note and cannot match).  The
line must still have its keys in canonical order at every depth."""

from __future__ import annotations

import pytest

from ledger.codec import GENESIS, decode_line, encode_line
from ledger.errors import NonCanonicalLineError
from replay.wotf.events import ManualEffect, ManualOp
from tests.ledger.forgeries import _rehash

AT = "2026-04-21T19:36:33.667Z"


def _effect(*ops: ManualOp) -> ManualEffect:
    return ManualEffect(by="judge", ops=list(ops), note="errata 1.0, as printed")


def _recorded(effect: ManualEffect) -> bytes:
    """The line as a program before number normalisation wrote it: whole numbers as integers."""
    line, _digest = encode_line(effect, 3, AT, 3, GENESIS)
    assert b'"value":4.0' in line
    return _rehash(line.replace(b'"value":4.0', b'"value":4'))


def test_an_integer_for_a_float_inside_a_list_of_operations_is_accepted():
    effect = _effect(ManualOp("resource", seat="A", resource="energy", value=4.0),
                     ManualOp("tap", card="A3"))
    stored = decode_line(_recorded(effect), "m-1.jsonl:4")
    assert stored.event == effect
    assert stored.event.ops[0].value == 4.0


def test_keys_out_of_order_inside_an_operation_are_still_refused():
    effect = _effect(ManualOp("resource", seat="A", resource="energy", value=4.0),
                     ManualOp("tap", card="A3"))
    line = _recorded(effect)
    assert line.count(b'"op":"tap","card":"A3"') == 1
    reordered = _rehash(line.replace(b'"op":"tap","card":"A3"', b'"card":"A3","op":"tap"'))
    with pytest.raises(NonCanonicalLineError, match=r"m-1\.jsonl:4: seq 3: not a canonical line"):
        decode_line(reordered, "m-1.jsonl:4")
