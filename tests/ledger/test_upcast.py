"""Schema evolution: an old MatchOpened (v1) line is upcast to the current form."""

import hashlib

import pytest

from ledger.codec import GENESIS, decode_line
from ledger.errors import IntegrityError, MalformedEventError, NewerFormatError
from ledger.events import MatchOpened


def _line(body: bytes) -> bytes:
    digest = hashlib.sha256(body + b"}").hexdigest()
    return body + b',"hash":"' + digest.encode() + b'"}'


V1 = (b'{"seq":0,"type":"MatchOpened","match_id":"old-1","rules":"1.2","players":'
      b'{"B":{"player":"Bo","deck":[{"card":"X","count":2}]},"A":{"player":"Al"}},'
      b'"v":1,"at":"2025-03-01T10:00:00.000Z","batch":0,"prev":"' + GENESIS.encode() + b'"')


def test_a_v1_match_opened_is_upcast():
    stored = decode_line(_line(V1), "old.jsonl:1")
    event = stored.event
    assert isinstance(event, MatchOpened)
    assert event.ruleset == "1.2" and event.game == "wotf"
    assert [(s.seat, s.player) for s in event.seats] == [("A", "Al"), ("B", "Bo")]
    assert event.seats[1].deck[0].count == 2


def test_a_version_newer_than_the_program_is_a_clear_error():
    line = _line(V1.replace(b'"v":1', b'"v":9'))
    with pytest.raises(NewerFormatError, match=r"old\.jsonl:1: seq 0: written by a newer program") as info:
        decode_line(line, "old.jsonl:1")
    assert not isinstance(info.value, (MalformedEventError, IntegrityError))
