"""The ``at`` of a line must be a time as the writers write it (docs/format.md, "A line"):
ISO 8601 UTC with milliseconds (``format_time``, ``now_iso``), or microseconds (the golden State
of Wonder matches).  Anything else -- ``yesterday``, an empty string, a date without a time, a
month 13 -- is refused with one error naming file, line and seq, so no reader (``wonders
ingest`` casts it to a timestamp) meets it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ledger.codec import GENESIS, decode_line, encode_line, format_time, now_iso
from ledger.errors import IntegrityError, MalformedEventError
from ledger.events import JudgeNote
from replay.wotf.events import CardMoved
from tests.ledger.forgeries import _rehash

GOOD = ["2026-04-21T19:35:23.946Z", "2026-11-24T04:00:00.000000Z", "1999-12-31T23:59:59.999Z"]
BAD = ["yesterday", "", "t", 'odd "at" \\ é', "2026-04-21", "2026-04-21T19:35:23Z",
       "2026-04-21 19:35:23.946Z", "2026-04-21T19:35:23.946+00:00", "2026-13-01T00:00:00.000Z",
       "2026-02-30T00:00:00.000Z", "2026-04-21T19:35:23.9460Z", " 2026-04-21T19:35:23.946Z"]


@pytest.mark.parametrize("at", [*GOOD, "now_iso", "format_time"])
def test_a_time_as_the_writers_write_it_is_read(at):
    # the writers' clocks are read when the test runs (a test id must not hold the time:
    # the runners of a parallel run collect the tests each at their own moment)
    at = {"now_iso": now_iso, "format_time": lambda: format_time(datetime.now(UTC))}.get(
        at, lambda: at)()
    line, _ = encode_line(JudgeNote("j", "note"), 1, at, 1, GENESIS)
    assert decode_line(line, "m.jsonl:2").at == at


@pytest.mark.parametrize("at", BAD)
def test_an_at_that_is_not_a_time_is_refused(at):
    decode_line(encode_line(JudgeNote("j", "note"), 1, GOOD[0], 1, GENESIS)[0], "m.jsonl:2")
    line, _ = encode_line(JudgeNote("j", "note"), 1, at, 1, GENESIS)  # hashed: only `at` is off
    with pytest.raises(MalformedEventError, match=r'^m\.jsonl:2: seq 1: "at" is .*, not a time') as info:
        decode_line(line, "m.jsonl:2")
    assert not isinstance(info.value, IntegrityError)


def _card_moved_v1(at: str) -> bytes:
    """A CardMoved v1 line (no ``face_down``, ``keep_effects``), as in schema-2 files."""
    line, _ = encode_line(CardMoved("A1", "X", "A", "deck", "hand", "draw"), 3, at, 3, GENESIS)
    return _rehash(line.replace(b',"face_down":false,"keep_effects":false,"v":2,', b',"v":1,'))


def test_an_old_schema_line_is_held_to_it_too():
    assert decode_line(_card_moved_v1(GOOD[0]), "m.jsonl:4").event.face_down is False
    with pytest.raises(MalformedEventError, match=r'^m\.jsonl:4: seq 3: "at" is \'yesterday\''):
        decode_line(_card_moved_v1("yesterday"), "m.jsonl:4")
