"""The wire format of one stored event: a canonical JSON line with a hash chain.

A line is one JSON object, keys in this fixed order, no whitespace, UTF-8::

    {"seq":N,"type":"X",<fields of X in declaration order>,"v":V,"at":"…","batch":L,"prev":"…","hash":"…"}

* ``seq`` -- position in the stream (0, 1, 2 …);
* ``type`` and the event's fields -- the msgspec encoding of the event struct;
* ``v`` -- the schema version of this event type;
* ``at`` -- wall-clock time (ISO 8601, UTC, milliseconds);
* ``batch`` -- seq of the last event of the atomic batch this line belongs to (so a torn batch
  is recognisable after a crash);
* ``prev`` -- ``hash`` of the previous line (64 zeros for seq 0);
* ``hash`` -- SHA-256 (hex) of the line's canonical bytes *without* the ``hash`` key, i.e.
  the line up to ``,"hash":`` followed by ``}``.

See ``docs/format.md``.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

import msgspec

from ledger.errors import IntegrityError, MalformedEventError
from ledger.events import EVENT_TYPES, SCHEMA, Event
from ledger.upcast import upcast

GENESIS = "0" * 64
_HASH_KEY = b',"hash":"'
_encoder = msgspec.json.Encoder()
_event_decoder = msgspec.json.Decoder(Event)


class Envelope(msgspec.Struct, frozen=True):
    """The envelope keys of a stored line (event fields are skipped when decoding it)."""

    seq: int
    type: str
    v: int
    at: str
    batch: int
    prev: str
    hash: str


_envelope_decoder = msgspec.json.Decoder(Envelope)


class Stored(msgspec.Struct, frozen=True):
    """An event as read back from a stream: its envelope and the typed event."""

    seq: int
    at: str
    batch: int
    prev: str
    hash: str
    event: Event


def now_iso() -> str:
    """The current UTC time in the ledger's ``at`` format."""
    return format_time(datetime.now(timezone.utc))


def format_time(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def encode_event(event: Event) -> bytes:
    """The canonical JSON of an event struct alone: ``{"type":…,fields…}``."""
    return _encoder.encode(event)


def encode_line(event: Event, seq: int, at: str, batch: int, prev: str) -> tuple[bytes, str]:
    """Encode one stored line (without its trailing newline); returns ``(line, hash)``."""
    body = _encoder.encode(event)
    name = type(event).__name__
    tail = b'"v":%d,"at":%s,"batch":%d,"prev":"%s"' % (
        SCHEMA[name], _encoder.encode(at), batch, prev.encode())
    inner = body[1:-1]
    unhashed = b'{"seq":%d,%s,%s' % (seq, inner, tail)
    digest = hashlib.sha256(unhashed + b"}").hexdigest()
    return unhashed + b',"hash":"' + digest.encode() + b'"}', digest


def line_hash(line: bytes) -> str:
    """Recompute the hash of a stored line from its own bytes."""
    cut = line.rfind(_HASH_KEY)
    if cut < 0:
        raise ValueError("line has no hash key")
    return hashlib.sha256(line[:cut] + b"}").hexdigest()


def decode_line(line: bytes, where: str = "", prev: str | None = None) -> Stored:
    """Decode and check one stored line.

    Checks that the line parses, that its hash matches its bytes and (when ``prev`` is given)
    that it chains to the previous line.  Old schema versions are upcast first.
    ``where`` (``file:line``) is put in every error message.
    """
    try:
        env = _envelope_decoder.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise MalformedEventError(f"{where}: not a ledger line ({exc})") from None
    if line_hash(line) != env.hash:
        raise IntegrityError(f"{where}: seq {env.seq}: hash mismatch (the line was altered)")
    if prev is not None and env.prev != prev:
        raise IntegrityError(
            f"{where}: seq {env.seq}: hash chain broken (prev {env.prev[:12]}…, "
            f"expected {prev[:12]}… — a line was removed, inserted or reordered)")
    event = _decode_event(line, env, where)
    return Stored(env.seq, env.at, env.batch, env.prev, env.hash, event)


def _decode_event(line: bytes, env: Envelope, where: str) -> Event:
    current = SCHEMA.get(env.type)
    if current is None:
        raise MalformedEventError(f"{where}: seq {env.seq}: unknown event type {env.type!r}")
    try:
        if env.v == current:
            return _event_decoder.decode(line)
        raw = msgspec.json.decode(line)
        raw = upcast(env.type, env.v, current, raw)
        return msgspec.convert(raw, EVENT_TYPES[env.type])
    except (msgspec.DecodeError, msgspec.ValidationError, LookupError) as exc:
        raise MalformedEventError(f"{where}: seq {env.seq}: bad {env.type} event ({exc})") from None
