"""A match's stored lines read the cheap way: the hash chain checked on the raw bytes, and
each line decoded only as far as its reader asks (the analytics ingest, DESIGN.md section 6).

A stored line ends ``,"prev":"<64 hex>","hash":"<64 hex>"}`` and its hash is SHA-256 of
the line up to ``,"hash":`` followed by ``}`` (``docs/format.md``).  :func:`check_chain`
checks, on bytes alone, for every line: that it starts ``{"seq":N,`` with N its position,
that its hash is the hash of its bytes, and that its ``prev`` is the hash of the line before
(64 zeros for seq 0).  A line that fails is decoded the full way (:func:`ledger.codec.decode_line`)
to say exactly what is wrong (hash mismatch, broken chain, not a ledger line …).

What this does **not** check, unlike :meth:`ledger.store.Store.read`: that every line is
the canonical encoding of its event (key order, whitespace and duplicate keys *inside the
event's fields*), and that every event's fields fit its schema -- only the envelope of
every line and the events a reader decodes (:meth:`MatchLines.event`) are checked.  Any
change to a line's bytes still fails its hash; ``wonders verify`` (and ``read``) check the
rest.

:class:`MatchLines` holds the checked lines of one match: :meth:`MatchLines.heads` decodes
every line's envelope (and any event fields a :class:`Head` subclass names) in one pass,
:meth:`MatchLines.event` one line's typed event (old schema versions upcast), and
:meth:`MatchLines.payloads` the events' JSON: the slice of the line's own bytes where that is
exactly the canonical encoding of the event, else the encoding.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

import msgspec

from ledger.codec import GENESIS, Stored, decode_line, encode_line
from ledger.errors import IntegrityError, MalformedEventError
from ledger.events import Event
from ledger.registry import EVENT_TYPES, SCHEMA, decoder, load_games

_TAIL = len(b',"hash":"') + 64 + len(b'"}')  # the bytes after the hashed part
_PREV = len(b',"prev":"') + 64 + len(b'"')  # the ``prev`` key, just before them
_encode = msgspec.json.Encoder().encode


def check_chain(data: bytes, where: str) -> list[bytes]:
    """The lines of a match file's bytes (whole lines, each ending in a newline), every one's
    seq, hash and chain link checked on its bytes (see the module doc); ``where`` names the
    data in errors (``<where>:<line>``).  Each check runs over every line at once (one
    comprehension or join each: that is what makes it cheap); the first line that fails one
    is found and explained line by line."""
    lines = data.split(b"\n")
    if lines.pop() != b"":
        raise MalformedEventError(f"{where}:{len(lines) + 1}: the data ends inside a line")
    sha256, cut = hashlib.sha256, -_TAIL
    digests = b"".join([sha256(line[:cut] + b"}").hexdigest().encode() for line in lines])
    stored = b"".join([line[-66:-2] for line in lines])
    prevs = b"".join([line[cut - 65:cut - 1] for line in lines])
    layout = b"".join([line[cut - _PREV:cut - 65] + line[cut:-66] + line[-2:] for line in lines])
    seqs = b"".join([line[:line.find(b",", 7) + 1] for line in lines])
    if stored != digests or prevs != GENESIS.encode() + digests[:-64] or \
            layout != _LAYOUT * len(lines) or \
            seqs != b"".join([b'{"seq":%d,' % n for n in range(len(lines))]):
        _find_bad(lines, where)
    return lines


_LAYOUT = b',"prev":"' + b',"hash":"' + b'"}'


def _find_bad(lines: list[bytes], where: str) -> None:
    """Line by line: raise for the first line that fails the bytes check."""
    prev = GENESIS.encode()
    for index, line in enumerate(lines):
        digest = hashlib.sha256(line[:-_TAIL] + b"}").hexdigest().encode()
        if line[-66:-2] != digest or line[-_TAIL - 65:-_TAIL - 1] != prev or \
                not line.startswith(b'{"seq":%d,' % index) or \
                line[-_TAIL:-66] != b',"hash":"' or line[-2:] != b'"}' or \
                line[-_TAIL - _PREV:-_TAIL - 65] != b',"prev":"':
            _explain(line, f"{where}:{index + 1}", prev.decode(), index)
        prev = digest
    raise IntegrityError(f"{where}: the lines' hashes or chain do not check (no single line "
                         f"found at fault)")


def _explain(line: bytes, where: str, prev: str, index: int) -> None:
    """Raise what is wrong with a line that failed the bytes check (the full decoder names
    it); a line the decoder accepts failed on its seq or layout."""
    stored = decode_line(line, where, prev)
    if stored.seq != index:
        raise MalformedEventError(f"{where}: seq {stored.seq}: expected seq {index}")
    raise IntegrityError(f"{where}: seq {index}: the line's hash or chain link is not where "
                         f"a ledger line has it")


class Head(msgspec.Struct):
    """What :meth:`MatchLines.heads` decodes of every line: its envelope (a subclass may
    name event fields too; fields a line lacks keep their defaults, others are skipped)."""

    seq: int
    type: str
    v: int
    at: str
    batch: int


_DECODERS: dict[type, msgspec.json.Decoder] = {}
_head_decoder = msgspec.json.Decoder(Head)


class MatchLines:
    """The checked lines of one match (:func:`check_chain`), decoded on demand."""

    __slots__ = ("_events", "_hashes", "lines", "where")

    def __init__(self, lines: list[bytes], where: str = "",
                 events: Sequence[Event] | None = None, hashes: Sequence[str] | None = None):
        self.lines = lines
        self.where = where
        self._events: dict[int, Event] = dict(enumerate(events)) if events is not None else {}
        self._hashes = hashes

    @classmethod
    def from_stored(cls, stored: Sequence[Stored], where: str = "") -> MatchLines:
        """The lines of events already read (:meth:`ledger.store.Store.read`): each event
        encoded again at its current schema version, with its stored hash."""
        lines = [encode_line(s.event, s.seq, s.at, s.batch, s.prev)[0] for s in stored]
        return cls(lines, where, [s.event for s in stored], [s.hash for s in stored])

    def __len__(self) -> int:
        return len(self.lines)

    def hash(self, index: int) -> str:
        """The stored hash of a line."""
        if self._hashes is not None:
            return self._hashes[index]
        return self.lines[index][-66:-2].decode()

    def head(self, index: int) -> Head:
        """One line's :class:`Head`."""
        try:
            return _head_decoder.decode(self.lines[index])
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise MalformedEventError(f"{self.where}:{index % len(self.lines) + 1}: not a "
                                      f"ledger line ({exc})") from None

    def heads(self, cls: type[Head] = Head) -> list[Any]:
        """Every line's :class:`Head` (or ``cls``, a subclass), decoded in one pass."""
        found = _DECODERS.get(cls)
        if found is None:
            found = _DECODERS[cls] = msgspec.json.Decoder(cls)
        try:
            heads = found.decode_lines(b"\n".join(self.lines))
        except (msgspec.DecodeError, msgspec.ValidationError):
            heads = []
        if len(heads) != len(self.lines):  # name the line (decode_lines does not)
            for index, line in enumerate(self.lines):
                try:
                    found.decode(line)
                except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                    raise MalformedEventError(f"{self.where}:{index + 1}: seq {index}: not a "
                                              f"ledger line ({exc})") from None
            raise MalformedEventError(f"{self.where}: a blank line")
        return heads

    def event(self, index: int, head: Head) -> Event:
        """The typed event of a line (its schema checked; an old version upcast, as
        :meth:`ledger.store.Store.read` does)."""
        event = self._events.get(index)
        if event is None:
            event = self._events[index] = self._decode(index, head)
        return event

    def _decode(self, index: int, head: Head) -> Event:
        line, where = self.lines[index], f"{self.where}:{index + 1}"
        if head.v == SCHEMA.get(head.type):
            try:
                event = decoder().decode(line)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise MalformedEventError(f"{where}: seq {index}: bad {head.type} event "
                                          f"({exc})") from None
            if type(event).__name__ == head.type:
                return event
        return decode_line(line, where).event  # another version (upcast), or its error

    def hashes(self) -> list[str]:
        """Every line's stored hash."""
        if self._hashes is not None:
            return list(self._hashes)
        return b"\n".join([line[-66:-2] for line in self.lines]).decode().split("\n")

    def payloads(self, heads: Sequence[Head]) -> list[bytes]:
        """Every line's event as JSON (``{"type": …, fields…}``): its canonical encoding --
        what :func:`msgspec.json.encode` gives of the typed event (:meth:`event`) --, cut
        from the line's own bytes where that is the same (:func:`_payload_rule`; ``heads``:
        :meth:`heads`), else encoded."""
        if self._hashes is not None:  # events already decoded: encode them
            return [_encode(self.event(index, head)) for index, head in enumerate(heads)]
        lines, schema, rules = self.lines, SCHEMA, _RULES
        how = [(rules.get(h.type) or _payload_rule(h.type)) if h.v == schema.get(h.type)
               else _ENCODE for h in heads]
        out = _cut_all(lines)
        if out is None:  # a line not laid out as written: line by line
            out = [_event_bytes(line, 8 + len(str(index))) for index, line in enumerate(lines)]
        fix: dict[Any, list[int]] = {}
        for index, rule in enumerate(how):
            if rule is not _AS_IS:
                fix.setdefault(rule, []).append(index)
        for rule, indexes in fix.items():
            if rule is _ENCODE:
                for index in indexes:
                    out[index] = _encode(self.event(index, heads[index]))
                continue
            bodies = [out[index] for index in indexes]
            if None in bodies:
                for index in indexes:
                    out[index] = _encode(self.event(index, heads[index]))
                continue
            joined = b"\n".join(bodies)  # type: ignore[arg-type]  # one pass per rule
            for index, body in zip(indexes, rule.sub(rb"\1.0", joined).split(b"\n"),
                                   strict=True):
                out[index] = body
        return [body if body is not None else _encode(self.event(index, heads[index]))
                for index, body in enumerate(out)]


def _cut_all(lines: list[bytes]) -> list[bytes | None] | None:
    """:func:`_event_bytes` of every line at once, or ``None`` if any line is not laid out so
    (each check is one comprehension or join over all lines)."""
    stop = -_TAIL - _PREV
    starts = [8 + len(str(index)) for index in range(len(lines))]
    ends = [line.rfind(b',"v":', start, stop) for line, start in zip(lines, starts, strict=True)]
    rests = b"".join([line[end:stop] for line, end in zip(lines, ends, strict=True)])
    types = b"".join([line[start:start + 8] for line, start in zip(lines, starts, strict=True)])
    if -1 in ends or b"}" in rests or b"]" in rests or types != b'"type":"' * len(lines):
        return None
    return [b"{" + line[start:end] + b"}" for line, start, end in zip(lines, starts, ends,
                                                                     strict=True)]


def _event_bytes(line: bytes, start: int) -> bytes | None:
    """A line's event fields as a JSON object, cut from its bytes: from ``"type"`` (just
    after ``{"seq":N,``) to the envelope's ``,"v":`` -- the last one in the line, found at the
    top level when nothing between it and ``,"prev":`` closes an object or array (a line the
    envelope decoder accepted is JSON, and ``,"`` never occurs inside a JSON string);
    ``None`` when the line is not laid out so."""
    end = line.rfind(b',"v":', start, -_TAIL - _PREV)
    if end < 0 or not line.startswith(b'"type":"', start):
        return None
    rest = line[end:-_TAIL - _PREV]
    if b"}" in rest or b"]" in rest:
        return None
    return b"{" + line[start:end] + b"}"


_AS_IS, _ENCODE = object(), object()
#: Per event type: how its canonical JSON comes from a line's bytes (see :func:`_payload_rule`).
_RULES: dict[str, Any] = {}


def _payload_rule(name: str) -> Any:
    """How an event type's canonical encoding comes from a line of it: as is (no float in its
    fields); for a type whose fields are all scalars, with ``.0`` after an integer written in
    a float field (a float decodes from ``4`` and encodes as ``4.0``: lines hold ``4`` where
    the writer had an int, and :meth:`ledger.store.Store.read` accepts them) -- a pattern
    that can only meet a top-level key, since string values escape their quotes; any other
    type is decoded and encoded."""
    load_games()
    cls = EVENT_TYPES.get(name)
    rule: Any = _ENCODE
    if cls is not None and not _has_float(cls, set()):
        rule = _AS_IS
    elif cls is not None:
        fields = msgspec.inspect.type_info(cls).fields  # type: ignore[attr-defined]
        kinds = [_scalar_kind(f.type) for f in fields]
        if None not in kinds:
            floats = [f.encode_name for f, kind in zip(fields, kinds, strict=True)
                      if kind == "float"]
            keys = b"|".join(re.escape(k.encode()) for k in floats)
            rule = re.compile(rb'("(?:%s)":-?\d{1,15})(?=[,}])' % keys)
    _RULES[name] = rule
    return rule


def _scalar_kind(info: Any) -> str | None:
    """``"float"`` for a field that decodes an integer as a float, ``"other"`` for any other
    scalar field, ``None`` for a field that may hold an object or array."""
    options = info.types if isinstance(info, msgspec.inspect.UnionType) else (info,)
    scalar = (msgspec.inspect.StrType, msgspec.inspect.IntType, msgspec.inspect.BoolType,
              msgspec.inspect.NoneType, msgspec.inspect.LiteralType, msgspec.inspect.FloatType)
    if not all(isinstance(t, scalar) for t in options):
        return None
    if any(isinstance(t, msgspec.inspect.IntType) for t in options):
        return "other"  # an integer stays an integer
    return "float" if any(isinstance(t, msgspec.inspect.FloatType) for t in options) else "other"


_FLOATS: set[str] = set()


def _with_floats() -> set[str]:
    """The event types with a float anywhere in their fields: a line recorded before numbers
    were normalised may hold ``4`` where the canonical encoding is ``4.0``."""
    if not _FLOATS:
        load_games()
        _FLOATS.update(name for name, cls in EVENT_TYPES.items() if _has_float(cls, set()))
        _FLOATS.add("")  # computed (even if no type has a float)
    return _FLOATS


def _has_float(tp: Any, seen: set) -> bool:
    info = tp if isinstance(tp, msgspec.inspect.Type) else msgspec.inspect.type_info(tp)
    if isinstance(info, msgspec.inspect.FloatType):
        return True
    if isinstance(info, msgspec.inspect.StructType | msgspec.inspect.DataclassType):
        if info.cls in seen:
            return False
        seen.add(info.cls)
        return any(_has_float(f.type, seen) for f in info.fields)
    inner = [getattr(info, name) for name in ("item_type", "key_type", "value_type")
             if hasattr(info, name)]
    inner += list(getattr(info, "types", ())) + list(getattr(info, "item_types", ()))
    return any(_has_float(t, seen) for t in inner)
