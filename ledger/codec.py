"""The wire format of one stored event: a canonical JSON line with a hash chain.

A line is one JSON object, keys in this fixed order, no whitespace, UTF-8::

    {"seq":N,"type":"X",<fields of X in declaration order>,"v":V,"at":"…","batch":L,"prev":"…","hash":"…"}

* ``seq`` -- position in the stream (0, 1, 2 …);
* ``type`` and the event's fields -- the msgspec encoding of the event struct;
* ``v`` -- the schema version of this event type;
* ``at`` -- wall-clock time (ISO 8601, UTC, milliseconds; :func:`check_at`);
* ``batch`` -- seq of the last event of the atomic batch this line belongs to (so a torn batch
  is recognisable after a crash);
* ``prev`` -- ``hash`` of the previous line (64 zeros for seq 0);
* ``hash`` -- SHA-256 (hex) of the line's canonical bytes *without* the ``hash`` key, i.e.
  the line up to ``,"hash":`` followed by ``}``.

A line is read only if it is byte-identical to the canonical encoding of what it decodes to
(:func:`decode_line`, :func:`check_canonical`): a duplicate key (which a JSON decoder would let
win, e.g. after the hashed part), whitespace outside strings, a CRLF ending, bytes after the
object or keys out of order are a :class:`~ledger.errors.NonCanonicalLineError`.  A line of an
event type or schema version this program does not know is a
:class:`~ledger.errors.NewerFormatError`, not corruption.

See ``docs/format.md``.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from datetime import UTC, datetime

import msgspec

from ledger.errors import (
    IntegrityError,
    MalformedEventError,
    NewerFormatError,
    NonCanonicalLineError,
    Where,
)
from ledger.events import Event  # registers the core events
from ledger.registry import EVENT_TYPES, SCHEMA, decoder, load_games
from ledger.upcast import fields_of, upcast

GENESIS = "0" * 64
_HASH_KEY = b',"hash":"'
_encoder = msgspec.json.Encoder()


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


class Stored(msgspec.Struct, frozen=True, gc=False):
    """An event as read back from a stream: its envelope and the typed event.  Not tracked
    by the garbage collector (a held match has hundreds, a server many matches; it refers to
    no object that refers back to it, so it is never part of a cycle)."""

    seq: int
    at: str
    batch: int
    prev: str
    hash: str
    event: Event


def now_iso() -> str:
    """The current UTC time in the ledger's ``at`` format (what :func:`format_time` gives for
    ``datetime.now(UTC)``: milliseconds truncated, as ``isoformat`` does).  Every append takes
    one: the text of the current millisecond is made once (20 writers append several times
    in one), the date and time of the current second once per second."""
    global _milli  # one (millisecond, text) tuple, swapped whole: safe between threads
    now = time.time_ns() // 1_000_000
    known = _milli
    if known[0] == now:
        return known[1]
    text = _milli_text(now)
    _milli = (now, text)
    return text


def _milli_text(now: int) -> str:
    """The ``at`` text of a millisecond since the epoch."""
    global _second  # one (second, text) tuple, swapped whole: safe between threads
    second, milli = divmod(now, 1000)
    known = _second
    if known[0] != second:
        known = _second = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
    return f"{known[1]}.{milli:03d}Z"


_second: tuple[int, str] = (-1, "")
_milli: tuple[int, str] = (-1, "")


def format_time(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


_good_at = "1970-01-01T00:00:00.000Z"  # the last ``at`` found good (a batch's lines share it)


def check_at(env: Envelope, where: Where | str) -> None:
    """``env.at`` is a time as the writers write it (``2026-04-21T19:35:23.946Z``: ISO 8601,
    UTC, milliseconds; or microseconds), else :class:`MalformedEventError`.  Cheap per line:
    the lines of a batch share their ``at``, and the last good one is remembered."""
    global _good_at
    at = env.at
    if at == _good_at:
        return
    if not _is_time(at):
        raise MalformedEventError.at(
            where, env.seq, f"\"at\" is {at[:40]!r}, not a time (ISO 8601 UTC with "
                            f"milliseconds, like 2026-04-21T19:35:23.946Z)")
    _good_at = at


def _is_time(at: str) -> bool:
    """``YYYY-MM-DDTHH:MM:SS.fffZ`` (or ``.ffffffZ``), a real date and time: the separators in
    place, then ``fromisoformat`` (which wants digits around them and checks the ranges)."""
    if (len(at) != 24 and len(at) != 27) or at[4:20:3] != "--T::." or at[-1] != "Z":
        return False
    try:
        datetime.fromisoformat(at)
    except ValueError:
        return False
    return True


def encode_line(event: Event, seq: int, at: str, batch: int, prev: str) -> tuple[bytes, str]:
    """Encode one stored line (without its trailing newline); returns ``(line, hash)``."""
    unhashed = _unhashed(event, seq, at, batch, prev)
    digest = hashlib.sha256(unhashed + b"}").hexdigest()
    return unhashed + b',"hash":"' + digest.encode() + b'"}', digest


def encode_appended(event: Event, seq: int, at: str, prev: str) -> tuple[bytes, str, bytes]:
    """:func:`encode_line` of a batch of one event (``batch`` is ``seq``), the usual append:
    the line *with* its newline (the bytes written), its hash, and the event's own encoding
    (the line's event fields, for :func:`appended_event`) -- one function, fewer copies."""
    unhashed, body = _unhashed_and_body(event, seq, at, seq, prev)
    digest = hashlib.sha256(unhashed + b"}").hexdigest()
    return b'%s,"hash":"%s"}\n' % (unhashed, digest.encode()), digest, body


def appended_event(body: bytes, cls: type) -> Event:
    """The event a read gives of a line whose event fields are ``body`` (its own encoding,
    :func:`encode_appended`), of class ``cls``: ``body`` decoded as that registered class --
    what :func:`decode_line` decodes from the line's same fields, without parsing the
    envelope (a read's union decoder picks the class by the same tag).  A class that is not
    the one registered under its name is decoded as a read would: through the union."""
    found = _appended_decoders.get(cls)
    if found is None:
        if EVENT_TYPES.get(cls.__name__) is not cls:
            return decoder().decode(body)
        found = _appended_decoders[cls] = msgspec.json.Decoder(cls)
    return found.decode(body)


#: One decoder per registered event class (:func:`appended_event`).
_appended_decoders: dict[type, msgspec.json.Decoder] = {}


def _unhashed(event: Event, seq: int, at: str, batch: int, prev: str) -> bytes:
    """The canonical line up to (not including) ``,"hash":``."""
    return _unhashed_and_body(event, seq, at, batch, prev)[0]


def _unhashed_and_body(event: Event, seq: int, at: str, batch: int,
                       prev: str) -> tuple[bytes, bytes]:
    """:func:`_unhashed`, and the event's own encoding it holds (its fields)."""
    body = _encoder.encode(event)
    return b'{"seq":%d,%s,"v":%d,"at":%s,"batch":%d,"prev":"%s"' % (
        seq, body[1:-1], SCHEMA[type(event).__name__], _encoder.encode(at), batch,
        prev.encode()), body


def decode_line(line: bytes, where: Where | str = "", prev: str | None = None) -> Stored:
    """Decode and check one stored line.

    Checks that the line parses, that it is byte-identical to the canonical encoding of what
    it decodes to (:func:`check_canonical`; else :class:`NonCanonicalLineError`), that its
    hash matches its bytes and (when ``prev`` is given) that it chains to the previous line.
    Old schema versions are upcast; an event type or version this program does not know is a
    :class:`NewerFormatError`.  ``where`` (a :class:`~ledger.errors.Where`: ``file:line``) is
    put in every error message, and in the error's fields (``file``, ``line``, with ``seq`` and
    ``cause``).
    """
    env = _decode_envelope(line, where)
    current = SCHEMA.get(env.type)
    if current is None:
        load_games()  # a game's events register when its module is first imported
        current = SCHEMA.get(env.type)
    event, raw, newer = None, None, False
    if current is not None and env.v == current:
        event = _decode_current(line, env, where)
        check_canonical(line, env, event, where)
    else:
        _check_hash(line, env, where)
        newer = current is None or env.v > current
        raw = _check_raw(line, env, where, envelope_order=not newer)
        if not newer:
            check_at(env, where)
    if prev is not None and env.prev != prev:
        raise IntegrityError.at(
            where, env.seq, f"hash chain broken (prev {env.prev[:12]}…, expected "
                            f"{prev[:12]}… — a line was removed, inserted or reordered)")
    if event is None:
        if current is None or newer:
            what = (f"event type {env.type!r}, unknown to this program" if current is None else
                    f"{env.type} schema v{env.v}; this program reads up to v{current}")
            raise NewerFormatError.at(where, env.seq, f"written by a newer program ({what}); "
                                                      f"upgrade wonders to read this file")
        assert raw is not None  # _check_raw ran: the event was not decoded directly
        event = _upcast(line, env, raw, current, where)
    return Stored(env.seq, env.at, env.batch, env.prev, env.hash, event)


def _upcast(line: bytes, env: Envelope, raw: dict, current: int, where: Where | str) -> Event:
    """The event of a line of an older schema version ``env.v`` (its JSON ``raw``, checked by
    :func:`_check_raw`), upcast to ``current``: the line must be canonical for its own version
    -- its keys exactly that version's fields, in order (when they are known:
    :func:`ledger.upcast.fields_of`), and every field the upcast keeps as it is the canonical
    encoding of the event's at any depth (:func:`_same`)."""
    cls: type[Event] = EVENT_TYPES[env.type]
    try:
        fields = fields_of(env.type, env.v, current, cls.__struct_encode_fields__)
        event: Event = msgspec.convert(upcast(env.type, env.v, current, raw), cls)
    except (msgspec.ValidationError, LookupError) as exc:
        raise MalformedEventError.at(
            where, env.seq, f"bad {env.type} v{env.v} event ({exc})") from None
    if fields is not None:
        keys = [*_ENVELOPE_HEAD, *fields, *_ENVELOPE_TAIL]
        if list(raw) != keys:
            raise _non_canonical(where, env.seq, _diagnose(line, keys) or "keys out of order")
    want = _raw_decoder.decode(_encoder.encode(event))
    bad = next((key for key in list(raw)[2:-5] if key in want and not _same(raw[key], want[key])),
               None)
    if bad is not None:
        raise _non_canonical(where, env.seq, f"{bad!r} is not the canonical encoding of its "
                                             f"value (a key inside it unknown, missing or moved)")
    return event


def check_canonical(line: bytes, env: Envelope, event: Event, where: Where | str = "") -> None:
    """Check a line of the current schema version, already decoded as ``env`` and ``event``:
    its hash, and that it is exactly the canonical encoding of that event and envelope.

    The fast path is the hash (as for any line) and one comparison with :func:`encode_line`'s
    bytes.
    One tolerance, for lines recorded before number fields were normalised: an integer where
    the canonical encoding has the same number as a float (``4`` for ``4.0``); the line must
    still be canonical JSON (no duplicate keys, no whitespace, msgspec's own escapes) with the
    keys in the canonical order, at every depth.  Raises :class:`NonCanonicalLineError` (what
    is wrong, named), :class:`IntegrityError` (hash), :class:`MalformedEventError` (``at`` is
    not a time: :func:`check_at`) -- or returns.
    """
    cut = _check_hash(line, env, where, event)
    if env.at != _good_at:
        check_at(env, where)
    head = _unhashed(event, env.seq, env.at, env.batch, env.prev)
    if len(head) == cut and line.startswith(head):
        return
    # The usual difference: integers recorded in number fields (4 where canonical is 4.0).
    # (Should this also touch a string of ``head``, the line cannot match: its own string
    # decodes to what ``head`` encodes; the exact check below then decides.)
    if b".0" in head and line[:cut] == (
            head.replace(b".0,", b",").replace(b".0}", b"}").replace(b".0]", b"]")):
        return
    expected = head + line[cut:]  # with the line's own hash, checked above
    want = _raw_decoder.decode(expected)
    try:
        raw = _raw_decoder.decode(line)
    except _NOT_JSON:
        raw = None
    if raw is not None and _encoder.encode(raw) == line and _same(raw, want):
        return
    problem = _diagnose(line, list(want)) or _first_difference(line, expected)
    raise _non_canonical(where, env.seq, problem)


# -- checking helpers -----------------------------------------------------------------------

_raw_decoder = msgspec.json.Decoder()  # any JSON; objects keep their key order
#: What decoding a line that is not (valid) JSON raises: msgspec raises ``UnicodeDecodeError``
#: for invalid UTF-8 inside a string (``ValidationError`` is a ``DecodeError``), and
#: ``RecursionError`` for arrays or objects nested deeper than it decodes (a line of a few
#: hundred kilobytes of ``[``: no event nests like that).
_NOT_JSON = (msgspec.DecodeError, UnicodeDecodeError, RecursionError)


_ENVELOPE_HEAD = ["seq", "type"]
_ENVELOPE_TAIL = ["v", "at", "batch", "prev", "hash"]
# Strings are blanked in two linear passes: escapes out, then each string.  (One pattern with
# an alternation, ``"(?:[^"\\]|\\.)*"``, keeps backtracking state per character: GBs for a
# damaged line of 30 MB.)
_ESCAPE = re.compile(r"\\.")
_STRING = re.compile(r'"[^"]*"')
_SEQ = re.compile(rb'^\{"seq":(\d+),')


def _non_canonical(where: Where | str, seq: int | None, problem: str) -> NonCanonicalLineError:
    cause = (f"not a canonical line: {problem} (a ledger line must be exactly the canonical "
             f"encoding of its event)")
    return NonCanonicalLineError(f"{where}: seq {'?' if seq is None else seq}: {cause}",
                                 where=where, seq=seq, cause=cause)


def _decode_envelope(line: bytes, where: Where | str) -> Envelope:
    try:
        return _envelope_decoder.decode(line)
    except _NOT_JSON as exc:
        problem = _diagnose(line, envelope_order=False)
        if problem is not None:
            found = _SEQ.match(line)
            raise _non_canonical(where, int(found.group(1)) if found else None, problem) from None
        raise MalformedEventError.at(where, None, f"not a ledger line ({exc}){_what_else(line)}") \
            from None


def _what_else(line: bytes) -> str:
    """What a line that is no match's may be instead, said after the error: a tournament's log
    (``ledger.tournament``: its own events, no hash chain; a file store keeps it beside the
    matches, in ``.tournaments/``) is the usual mistake."""
    if b'"TournamentCreated"' not in line:
        return ""  # (and a line nested too deep to decode is never decoded again here)
    try:
        first = msgspec.json.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return ""
    if not isinstance(first, dict) or first.get("type") != "TournamentCreated":
        return ""
    tid = first.get("tournament_id")
    return (f": this is the log of tournament {tid}, not a match file (wonders tournament "
            f"standings {tid} --store <the store> reads it)")


def _decode_current(line: bytes, env: Envelope, where: Where | str) -> Event:
    try:
        return decoder().decode(line)
    except _NOT_JSON as exc:
        _check_hash(line, env, where)  # an altered line is reported as such
        if isinstance(exc, UnicodeDecodeError):  # re-hashed after the bytes were changed
            raise _non_canonical(where, env.seq, _utf8_problem(line) or str(exc)) from None
        raise MalformedEventError.at(where, env.seq, f"bad {env.type} event ({exc})") from None


def _check_hash(line: bytes, env: Envelope, where: Where | str, event: Event | None = None) -> int:
    """The ``hash`` key is the last key, nothing follows it, and it hashes the line; returns
    where ``,"hash":`` starts (``event``: the decoded event, to name a reordering)."""
    tail = b'%s%s"}' % (_HASH_KEY, env.hash.encode())
    if not line.endswith(tail):
        problem = _diagnose(line) or 'the "hash" key is not the last key'
        raise _non_canonical(where, env.seq, problem)
    cut = len(line) - len(tail)
    if hashlib.sha256(line[:cut] + b"}").hexdigest() != env.hash:
        keys = None
        if event is not None:
            keys = list(_raw_decoder.decode(encode_line(event, env.seq, env.at, env.batch, env.prev)[0]))
        diagnosis = _diagnose(line, keys)
        if diagnosis is not None:
            raise _non_canonical(where, env.seq, diagnosis)
        raise IntegrityError.at(where, env.seq, "hash mismatch (the line was altered)")
    return cut


def _check_raw(line: bytes, env: Envelope, where: Where | str, envelope_order: bool) -> dict:
    """For a line of another schema version: re-encoding its raw JSON object reproduces it
    (no duplicate keys, whitespace or stray bytes) and, with ``envelope_order``, the envelope
    keys come first (``seq``, ``type``) and last (``v`` … ``hash``).  Returns the object.
    (Its envelope was decoded from the same bytes; a string elsewhere may not be UTF-8.)"""
    try:
        raw = _raw_decoder.decode(line)
    except _NOT_JSON as exc:
        raise _non_canonical(where, env.seq, _diagnose(line) or str(exc)) from None
    keys = list(raw)
    good = _encoder.encode(raw) == line and keys[-1:] == ["hash"]
    if good and envelope_order:
        good = keys[:2] == _ENVELOPE_HEAD and keys[-5:] == _ENVELOPE_TAIL
    if not good:
        problem = _diagnose(line, envelope_order=envelope_order) or "not canonical JSON"
        raise _non_canonical(where, env.seq, problem)
    return raw


def _same(got: object, want: object) -> bool:
    """``got`` (a line's JSON) is ``want`` (its canonical JSON): same keys in the same order at
    every depth, same values; an int may stand for an equal float."""
    if type(got) is not type(want):
        return type(got) is int and type(want) is float and got == want
    if type(got) is dict and isinstance(want, dict):
        return list(got) == list(want) and all(_same(got[k], want[k]) for k in got)
    if type(got) is list and isinstance(want, list):
        return len(got) == len(want) and all(map(_same, got, want))
    return got == want


def _diagnose(line: bytes, want_keys: list[str] | None = None,
              envelope_order: bool = True) -> str | None:
    """What makes ``line`` non-canonical, in words, if it is one of the known faults
    (slow; only called once a line has failed a check)."""
    if line.endswith(b"\r"):
        return "a carriage return at the end (CRLF line ending)"
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return _utf8_problem(line)
    duplicates: list[str] = []
    top: list[str] = []

    def pairs_hook(pairs: list) -> dict:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen and key not in duplicates:
                duplicates.append(key)
            seen.add(key)
        top[:] = [key for key, _ in pairs]  # the outermost object is the last one closed
        return dict(pairs)

    body = text.lstrip()
    try:
        _, end = json.JSONDecoder(object_pairs_hook=pairs_hook).raw_decode(body)
    except (ValueError, RecursionError):
        return None
    rest = body[end:]
    if rest.strip():
        return f"{len(rest.encode())} trailing bytes after the JSON object"
    if duplicates:
        return "duplicate key " + ", ".join(repr(key) for key in duplicates)
    if re.search(r"\s", _outside_strings(text)):  # leading, trailing or between tokens
        return "whitespace outside strings"
    if want_keys is not None and top != want_keys:
        unknown = [key for key in top if key not in want_keys]
        missing = [key for key in want_keys if key not in top]
        if unknown:
            return f"unknown key {unknown[0]!r}"
        if missing:
            return f"missing key {missing[0]!r}"
        return f"keys out of order ({','.join(top)}; canonical: {','.join(want_keys)})"
    if want_keys is None and envelope_order and (
            top[:2] != _ENVELOPE_HEAD or top[-5:] != _ENVELOPE_TAIL):
        return (f"keys out of order ({','.join(top)}; the envelope keys are seq,type first and "
                f"v,at,batch,prev,hash last)")
    return None


def _outside_strings(text: str) -> str:
    """``text`` (JSON) with every string emptied, in linear time and memory."""
    return _STRING.sub('""', _ESCAPE.sub("", text))


def _utf8_problem(line: bytes) -> str | None:
    """Where ``line`` is not UTF-8, in words (``None`` if it is)."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"invalid UTF-8 at byte {exc.start} ({line[exc.start:exc.start + 1]!r})"
    return None


def _first_difference(line: bytes, expected: bytes) -> str:
    at = next((i for i, (a, b) in enumerate(zip(line, expected, strict=False)) if a != b),
              min(len(line), len(expected)))
    return (f"differs from the canonical encoding at byte {at} "
            f"({line[max(0, at - 16):at + 16]!r} where it is {expected[max(0, at - 16):at + 16]!r})")
