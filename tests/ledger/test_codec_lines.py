"""The codec's verdicts on lines that are not canonical, word for word.

A file written by an older schema version is checked without being decoded into today's event
types (its raw JSON object must re-encode to the same bytes, with the envelope keys in place);
a file of a newer schema version only has to be canonical JSON (a newer program may order its
envelope otherwise) and is then refused as newer.  For a line of today's schema whose bytes
differ from the canonical encoding in a way no known fault explains, the error names the byte
where they differ and shows both sides around it.  These tests pin each verdict and each
message exactly (the mutation run found them unpinned: docs/testing.md).
"""

from __future__ import annotations

import hashlib

import msgspec
import pytest

from ledger.codec import GENESIS, decode_line, encode_line
from ledger.errors import NewerFormatError, NonCanonicalLineError
from ledger.events import MatchOpened, SeatInfo

WHERE = "old.jsonl:3"
SUFFIX = " (a ledger line must be exactly the canonical encoding of its event)"


def _hashed(body: bytes) -> bytes:
    """``body`` (a line without its hash key) with its hash appended, as a writer would."""
    digest = hashlib.sha256(body + b"}").hexdigest()
    return body + b',"hash":"' + digest.encode() + b'"}'


#: A MatchOpened of schema v1 (``rules`` and ``players`` before they were renamed).
V1 = (b'{"seq":0,"type":"MatchOpened","match_id":"old-1","rules":"1.2","players":'
      b'{"B":{"player":"Bo","deck":[{"card":"X","count":2}]},"A":{"player":"Al"}},'
      b'"v":1,"at":"2025-03-01T10:00:00.000Z","batch":0,"prev":"' + GENESIS.encode() + b'"')
OUT_OF_ORDER = "keys out of order ({}; the envelope keys are seq,type first and v,at,batch,prev,hash last)"

OLD_FAULTS = {
    "a duplicate key": (V1.replace(b'"rules":"1.2"', b'"rules":"1.2","rules":"1.3.2"'),
                        "duplicate key 'rules'"),
    "whitespace": (V1.replace(b'"rules":"1.2"', b'"rules": "1.2"'), "whitespace outside strings"),
    "the envelope's head reordered": (
        V1.replace(b'{"seq":0,"type":"MatchOpened",', b'{"type":"MatchOpened","seq":0,'),
        OUT_OF_ORDER.format("type,seq,match_id,rules,players,v,at,batch,prev,hash")),
    "the envelope's tail reordered": (
        V1.replace(b'"v":1,"at":"2025-03-01T10:00:00.000Z"', b'"at":"2025-03-01T10:00:00.000Z","v":1'),
        OUT_OF_ORDER.format("seq,type,match_id,rules,players,at,v,batch,prev,hash")),
}


@pytest.mark.parametrize("fault", OLD_FAULTS)
def test_an_old_schema_line_that_is_not_canonical_is_named_with_its_fault(fault):
    body, problem = OLD_FAULTS[fault]
    with pytest.raises(NonCanonicalLineError) as info:
        decode_line(_hashed(body), WHERE)
    assert str(info.value) == f"{WHERE}: seq 0: not a canonical line: {problem}{SUFFIX}"


def test_an_old_schema_line_with_a_key_after_the_hash_is_not_canonical():
    line = _hashed(V1)[:-1] + b',"x":1}'
    with pytest.raises(NonCanonicalLineError) as info:
        decode_line(line, WHERE)
    assert str(info.value) == (f"{WHERE}: seq 0: not a canonical line: " + OUT_OF_ORDER.format(
        "seq,type,match_id,rules,players,v,at,batch,prev,hash,x") + SUFFIX)


def test_an_old_schema_line_that_is_canonical_is_read():
    assert decode_line(_hashed(V1), WHERE).event.match_id == "old-1"


def test_a_newer_schema_line_may_order_its_envelope_otherwise_and_is_refused_as_newer():
    newer = V1.replace(b'"v":1', b'"v":9').replace(
        b'{"seq":0,"type":"MatchOpened",', b'{"type":"MatchOpened","seq":0,')
    with pytest.raises(NewerFormatError) as info:
        decode_line(_hashed(newer), WHERE)
    assert str(info.value) == (f"{WHERE}: seq 0: written by a newer program (MatchOpened schema "
                               f"v9; this program reads up to v3); upgrade wonders to read this file")


def test_a_newer_schema_line_must_still_be_canonical_json():
    newer = V1.replace(b'"v":1', b'"v":9').replace(b'"rules":"1.2"', b'"rules":"1.2","rules":"x"')
    with pytest.raises(NonCanonicalLineError, match=r"^old\.jsonl:3: seq 0: not a canonical line: "
                                                    r"duplicate key 'rules'"):
        decode_line(_hashed(newer), WHERE)


def _current_line() -> bytes:
    event = MatchOpened(match_id="m-1", ruleset="1.3.2",
                        seats=[SeatInfo("A", "Zoé"), SeatInfo("B", "Bo")])
    return encode_line(event, 0, "2026-01-01T00:00:00.000Z", 0, GENESIS)[0]


def _rewritten(line: bytes, old: bytes, new: bytes) -> bytes:
    body = line[:line.rindex(b',"hash":')]
    assert body.count(old) == 1
    return _hashed(body.replace(old, new))


def test_a_current_line_with_an_escape_the_encoder_does_not_write_names_the_byte():
    canonical = _current_line()
    line = _rewritten(canonical, "Zoé".encode(), b"Zo\\u00e9")
    at = canonical.index("é".encode())
    with pytest.raises(NonCanonicalLineError) as info:
        decode_line(line, "m.jsonl:1")
    assert str(info.value) == (
        f"m.jsonl:1: seq 0: not a canonical line: differs from the canonical encoding at byte {at} "
        f"({line[at - 16:at + 16]!r} where it is {canonical[at - 16:at + 16]!r}){SUFFIX}")


def test_a_difference_near_the_start_shows_the_line_from_its_first_byte():
    canonical = _current_line()
    line = _rewritten(canonical, b'{"seq":0', b'{"\\u0073eq":0')  # the same key, escaped
    with pytest.raises(NonCanonicalLineError) as info:
        decode_line(line, "m.jsonl:1")
    assert str(info.value) == (
        f"m.jsonl:1: seq 0: not a canonical line: differs from the canonical encoding at byte 2 "
        f"({line[0:18]!r} where it is {canonical[0:18]!r}){SUFFIX}")


def _current_body() -> bytes:
    line = encode_line(MatchOpened(match_id="m-1", ruleset="1.3.2",
                                   seats=[SeatInfo("A", "Al"), SeatInfo("B", "Bo")]),
                       0, "2026-01-01T00:00:00.000Z", 0, GENESIS)[0]
    return line[:line.rindex(b',"hash":')]


def _problem(line: bytes) -> str:
    with pytest.raises(NonCanonicalLineError) as info:
        decode_line(line, "m.jsonl:1")
    text = str(info.value)
    assert text.startswith("m.jsonl:1: seq 0: not a canonical line: ") and text.endswith(SUFFIX)
    return text[len("m.jsonl:1: seq 0: not a canonical line: "):-len(SUFFIX)]


def test_a_crlf_line_ending_is_named():
    assert _problem(_hashed(_current_body()) + b"\r") == "a carriage return at the end (CRLF line ending)"


def test_whitespace_before_the_object_is_named():
    assert _problem(b" " + _hashed(_current_body())) == "whitespace outside strings"


def test_every_duplicated_key_is_named_in_order():
    body = _current_body().replace(b'"match_id":"m-1"', b'"match_id":"m-1","match_id":"m-1"')
    body = body.replace(b'"ruleset":"1.3.2"', b'"ruleset":"1.3.2","ruleset":"1.3.2"')
    assert _problem(_hashed(body)) == "duplicate key 'match_id', 'ruleset'"


def test_an_unknown_key_and_a_missing_key_are_named():
    body = _current_body()
    assert _problem(_hashed(body.replace(b'"match_id":"m-1"', b'"match_id":"m-1","zz":1'))) \
        == "unknown key 'zz'"
    assert _problem(_hashed(body.replace(b',"format":"constructed"', b''))) == "missing key 'format'"


def test_keys_out_of_order_show_the_line_and_the_canonical_order():
    body = _current_body()
    swapped = body.replace(b'"match_id":"m-1","ruleset":"1.3.2"', b'"ruleset":"1.3.2","match_id":"m-1"')
    problem = _problem(_hashed(swapped))
    canonical = list(msgspec.json.decode(_hashed(body)))
    line_keys = ["seq", "type", "ruleset", "match_id", *canonical[4:]]
    assert problem == f"keys out of order ({','.join(line_keys)}; canonical: {','.join(canonical)})"


#: The same v1 line with one more key (``tournament``): the envelope's tail is not at a fixed
#: distance from the start.
V1_LONGER = V1.replace(b'"rules":"1.2"', b'"rules":"1.2","tournament":"Cup"')


def test_a_longer_old_schema_line_is_read_and_its_tail_checked_from_the_end():
    assert decode_line(_hashed(V1_LONGER), WHERE).event.tournament == "Cup"
    reordered = V1_LONGER.replace(b'"v":1,"at":"2025-03-01T10:00:00.000Z"',
                                  b'"at":"2025-03-01T10:00:00.000Z","v":1')
    with pytest.raises(NonCanonicalLineError, match="keys out of order"):
        decode_line(_hashed(reordered), WHERE)


def test_an_old_schema_line_with_an_escape_the_encoder_does_not_write_is_not_canonical_json():
    escaped = V1_LONGER.replace(b'"Cup"', b'"\\u0043up"')
    assert escaped != V1_LONGER
    with pytest.raises(NonCanonicalLineError) as info:
        decode_line(_hashed(escaped), WHERE)
    assert str(info.value) == f"{WHERE}: seq 0: not a canonical line: not canonical JSON{SUFFIX}"


def test_a_newer_schema_line_with_its_own_envelope_order_and_an_escape_is_not_canonical_json():
    """A newer program may order the envelope otherwise: that is not named as the fault."""
    newer = V1_LONGER.replace(b'"v":1', b'"v":9').replace(
        b'{"seq":0,"type":"MatchOpened",', b'{"type":"MatchOpened","seq":0,').replace(
        b'"Cup"', b'"\\u0043up"')
    with pytest.raises(NonCanonicalLineError) as info:
        decode_line(_hashed(newer), WHERE)
    assert str(info.value) == f"{WHERE}: seq 0: not a canonical line: not canonical JSON{SUFFIX}"
