"""How ``decode_line`` refuses the lines the everyday tests never meet, each in one error that
names where (``file:line``), the seq and what is wrong (docs/format.md, "Canonical bytes"):

* JSON that is not a ledger line (no envelope): "not a ledger line", not a key-order fault;
* a line of the current schema whose event does not decode (a field of the wrong type):
  "bad <type> event" if its hash holds, "hash mismatch" if the line was altered;
* an altered line of an older schema version: "hash mismatch", not a key fault;
* a line of the current schema re-serialised without its hash computed again (the event's
  keys reordered, a key added): the key fault, named against the event's canonical keys.
"""

from __future__ import annotations

import pytest

from ledger.codec import GENESIS, decode_line, encode_line
from ledger.errors import IntegrityError, MalformedEventError, NonCanonicalLineError
from ledger.events import JudgeNote
from tests.ledger.forgeries import _rehash
from tests.ledger.test_filestore_reads import V1_BODY, _hashed

AT = "2026-04-21T19:36:33.667Z"
WHERE = "m-1.jsonl:2"


def _note_line() -> bytes:
    line, _digest = encode_line(JudgeNote("judge", "a note"), 1, AT, 1, GENESIS)
    return line


def test_json_without_an_envelope_is_not_a_ledger_line():
    with pytest.raises(MalformedEventError, match=r"^m-1\.jsonl:2: not a ledger line") as raised:
        decode_line(b'{"hello":"world"}', WHERE)
    assert not isinstance(raised.value, IntegrityError)


def test_an_event_that_does_not_decode_is_named_with_its_type():
    line = _rehash(_note_line().replace(b'"text":"a note"', b'"text":5'))
    with pytest.raises(MalformedEventError,
                       match=r"^m-1\.jsonl:2: seq 1: bad JudgeNote event \("):
        decode_line(line, WHERE)


def test_an_altered_event_that_does_not_decode_is_an_altered_line():
    line = _note_line().replace(b'"text":"a note"', b'"text":5')  # the hash no longer holds
    with pytest.raises(IntegrityError) as raised:
        decode_line(line, WHERE)
    assert str(raised.value) == f"{WHERE}: seq 1: hash mismatch (the line was altered)"


def test_an_altered_line_of_an_older_schema_is_an_altered_line():
    line, _digest = _hashed(V1_BODY)
    assert decode_line(line, "old-1.jsonl:1").event.match_id == "old-1"  # upcast: the control
    altered = line.replace(b'"player":"Al"', b'"player":"Ax"')
    with pytest.raises(IntegrityError) as raised:
        decode_line(altered, "old-1.jsonl:1")
    assert not isinstance(raised.value, NonCanonicalLineError)
    assert str(raised.value) == "old-1.jsonl:1: seq 0: hash mismatch (the line was altered)"


def test_event_keys_reordered_under_the_old_hash_are_named_against_the_canonical_keys():
    line = _note_line()
    assert line.count(b'"judge":"judge","text":"a note"') == 1
    reordered = line.replace(b'"judge":"judge","text":"a note"', b'"text":"a note","judge":"judge"')
    with pytest.raises(NonCanonicalLineError) as raised:
        decode_line(reordered, WHERE)
    assert str(raised.value).startswith(
        f"{WHERE}: seq 1: not a canonical line: keys out of order "
        f"(seq,type,text,judge,v,at,batch,prev,hash; canonical: "
        f"seq,type,judge,text,v,at,batch,prev,hash)")


def test_a_key_added_under_the_old_hash_is_named():
    added = _note_line().replace(b'"text":"a note"', b'"text":"a note","extra":1')
    with pytest.raises(NonCanonicalLineError,
                       match=r"^m-1\.jsonl:2: seq 1: not a canonical line: unknown key 'extra'"):
        decode_line(added, WHERE)
