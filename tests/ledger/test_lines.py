"""``ledger/lines.py`` below the ingest: payloads cut from a line's bytes, and the bytes check's
verdict on a line whose seq is wrong.

``MatchLines.payloads`` gives every event's canonical encoding (what ``msgspec.json.encode``
gives of the decoded event), cut from the line's own bytes where that is the same -- decoding
and encoding again only the events that need it (a float field holding an integer, or fields
that are not all scalars).  How each event type is handled is worked out once per process and
kept: each test here starts from an empty cache, so what it checks is worked out again.
"""

from __future__ import annotations

import hashlib

import msgspec
import pytest

from ledger import lines
from ledger.codec import GENESIS, decode_line, encode_line
from ledger.errors import MalformedEventError
from ledger.filestore import FileStore
from ledger.lines import MatchLines, check_chain
from ledger.registry import SCHEMA
from tests.ledger.test_warehouse import simulate

#: The event types whose payload can't be cut from the line (a field not a scalar, with a float
#: in it): decoded and encoded again.
ENCODED = {"ManualEffect", "ManualResolved"}


@pytest.fixture(scope="module")
def match_bytes(tmp_path_factory) -> bytes:
    root = tmp_path_factory.mktemp("lines-payloads")
    simulate(root, 1, 7, "p")
    store = FileStore(root)
    (match_id,) = store.ids()
    data = store.export_lines(match_id)
    assert b'"type":"ResourcesChanged"' in data and b'"energy":1,' in data  # ints in floats
    return data


@pytest.fixture
def counted_encodes(monkeypatch) -> list[bytes]:
    """A fresh per-type cache, and every event ``payloads`` encodes again (not cut)."""
    monkeypatch.setattr(lines, "_RULES", {})
    encoded: list[bytes] = []
    real = lines._encode

    def encode(event):
        out = real(event)
        encoded.append(out)
        return out

    monkeypatch.setattr(lines, "_encode", encode)
    return encoded


def canonical(raw: list[bytes]) -> list[bytes]:
    return [msgspec.json.encode(decode_line(line).event) for line in raw]


def rehashed(raw: list[bytes]) -> list[bytes]:
    """Lines re-chained (each ``prev`` and hash computed again) after their bytes changed."""
    out, prev = [], GENESIS
    for line in raw:
        unhashed = line[:line.rindex(b',"prev":"')] + b',"prev":"' + prev.encode() + b'"'
        prev = hashlib.sha256(unhashed + b"}").hexdigest()
        out.append(unhashed + b',"hash":"' + prev.encode() + b'"}')
    return out


def test_payloads_are_cut_from_the_lines_and_integers_in_float_fields_get_their_point_0(
        match_bytes, counted_encodes):
    raw = check_chain(match_bytes, "m.jsonl")
    match = MatchLines(raw, "m.jsonl")
    heads = match.heads()
    assert all(h.v == SCHEMA[h.type] for h in heads)
    payloads = match.payloads(heads)
    assert payloads == canonical(raw)
    assert b'"energy":1.0' in b"".join(payloads)
    # only the events that can't be cut were encoded again
    assert len(counted_encodes) == sum(h.type in ENCODED for h in heads)


def test_a_line_not_laid_out_as_written_is_encoded_and_the_others_still_cut(counted_encodes):
    """One line with its envelope's ``at`` first (valid, hashed, chained, but not how the store
    writes a line): the others are cut from their bytes line by line."""
    from ledger.events import JudgeNote, MatchOpened, SeatInfo
    events = [MatchOpened(match_id="m-1", ruleset="1.3.2",
                          seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")]),
              JudgeNote("judge", "first"), JudgeNote("judge", "second")]
    raw, prev = [], GENESIS
    for seq, event in enumerate(events):
        line, prev = encode_line(event, seq, "2026-11-26T10:00:00.000000Z", seq, prev)
        raw.append(line)
    moved = raw[1].replace(b',"at":"2026-11-26T10:00:00.000000Z"', b"")
    raw[1] = moved.replace(b'{"seq":1,', b'{"seq":1,"at":"2026-11-26T10:00:00.000000Z",')
    raw = rehashed(raw)
    checked = check_chain(b"\n".join(raw) + b"\n", "m.jsonl")
    match = MatchLines(checked, "m.jsonl")
    payloads = match.payloads(match.heads())
    assert payloads[1:] == [b'{"type":"JudgeNote","judge":"judge","text":"first"}',
                            b'{"type":"JudgeNote","judge":"judge","text":"second"}']
    assert payloads[0] == msgspec.json.encode(events[0])
    assert counted_encodes == [payloads[1]]  # the moved line only


def test_a_chained_line_with_the_wrong_seq_is_named_with_the_seq_expected():
    """A file whose lines hash and chain but count from 1: the first line is at fault."""
    from ledger.events import JudgeNote
    raw, prev = [], GENESIS
    for seq in (1, 2):
        line, prev = encode_line(JudgeNote("judge", f"n{seq}"), seq, "2026-11-26T10:00:00Z",
                                 seq, prev)
        raw.append(line)
    with pytest.raises(MalformedEventError) as caught:
        check_chain(b"\n".join(raw) + b"\n", "m.jsonl")
    assert str(caught.value) == "m.jsonl:1: seq 1: expected seq 0"
