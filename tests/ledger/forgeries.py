"""Line forgeries of a match file, shared by the canonical-bytes tests and tests/security.

Each forgery takes a good match file's bytes and returns the forged bytes with the line, seq
and words the rejection must name.  "Rechained" forgeries also fix the line's hash and every
later line's ``prev``/``hash``, so only the canonical-bytes check can catch them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import NamedTuple

import msgspec

from ledger.events import JudgeNote, MatchOpened, SeatInfo
from ledger.filestore import FileStore

_KEY = b',"hash":"'


class Forgery(NamedTuple):
    data: bytes
    line: int  # 1-based
    seq: int
    words: str  # what the message must say is wrong


def sample_match(root, match_id: str = "m-1") -> bytes:
    """A small real match file: MatchOpened and three batches of judge notes."""
    store = FileStore(root)
    store.create(MatchOpened(match_id=match_id, ruleset="1.3.2",
                             seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")]))
    store.append(match_id, [JudgeNote("j", "first"), JudgeNote("j", "second")], 1)
    store.append(match_id, [JudgeNote("j", "third")], 3)
    store.append(match_id, [JudgeNote("j", "fourth"), JudgeNote("j", "last")], 4)
    return store.path(match_id).read_bytes()


def _lines(data: bytes) -> list[bytes]:
    assert data.endswith(b"\n")
    return data[:-1].split(b"\n")


def _join(lines: list[bytes], end: bytes = b"\n") -> bytes:
    return b"".join(line + end for line in lines)


def _hash_of(line: bytes) -> bytes:
    return hashlib.sha256(line[:line.rfind(_KEY)] + b"}").hexdigest().encode()


def _rehash(line: bytes) -> bytes:
    cut = line.rfind(_KEY)
    return line[:cut] + _KEY + _hash_of(line) + b'"}'


def rechain(lines: list[bytes], start: int) -> list[bytes]:
    """Fix line ``start``'s hash and every later line's prev and hash."""
    lines = list(lines)
    lines[start] = _rehash(lines[start])
    for i in range(start + 1, len(lines)):
        head, _, rest = lines[i].partition(b',"prev":"')
        lines[i] = _rehash(head + b',"prev":"' + _hash_of(lines[i - 1]) + rest[64:])
    return lines


def duplicate_seats_after_hash(data: bytes) -> Forgery:
    """Line 0 gains a second ``seats`` after its hash: the seats swapped (hash unchanged)."""
    lines = _lines(data)
    seats = msgspec.json.decode(lines[0])["seats"]
    swapped = [dict(seats[0], player=seats[1]["player"]), dict(seats[1], player=seats[0]["player"])]
    lines[0] = lines[0][:-1] + b',"seats":' + msgspec.json.encode(swapped) + b"}"
    return Forgery(_join(lines), 1, 0, "duplicate key 'seats'")


def duplicate_at_after_hash(data: bytes) -> Forgery:
    """The last line gains a second ``at`` after its hash (hash and head unchanged)."""
    lines = _lines(data)
    lines[-1] = lines[-1][:-1] + b',"at":"1999-01-01T00:00:00.000Z"}'
    return Forgery(_join(lines), len(lines), len(lines) - 1, "duplicate key 'at'")


def whitespace(data: bytes) -> Forgery:
    """A space after a colon in line 3, rehashed and rechained."""
    lines = _lines(data)
    lines[2] = lines[2].replace(b'"seq":2,', b'"seq": 2,', 1)
    return Forgery(_join(rechain(lines, 2)), 3, 2, "whitespace")


def crlf(data: bytes) -> Forgery:
    """The file converted to CRLF line endings (every hash still matches)."""
    return Forgery(_join(_lines(data), b"\r\n"), 1, 0, "carriage return")


def trailing_bytes(data: bytes) -> Forgery:
    """Bytes after the object on line 2."""
    lines = _lines(data)
    lines[1] += b'{"x":1}'
    return Forgery(_join(lines), 2, 1, "trailing bytes")


def reordered_keys(data: bytes) -> Forgery:
    """Line 4's event fields in another order, rehashed and rechained."""
    lines = _lines(data)
    raw = msgspec.json.decode(lines[3])
    order = ["seq", "type", "text", "judge", "v", "at", "batch", "prev", "hash"]
    assert sorted(order) == sorted(raw)
    lines[3] = msgspec.json.encode({key: raw[key] for key in order})
    return Forgery(_join(rechain(lines, 3)), 4, 3, "keys out of order")


FORGERIES: dict[str, Callable[[bytes], Forgery]] = {
    "duplicate seats after the hash": duplicate_seats_after_hash,
    "duplicate at after the hash": duplicate_at_after_hash,
    "whitespace": whitespace,
    "crlf": crlf,
    "trailing bytes": trailing_bytes,
    "reordered keys": reordered_keys,
}
