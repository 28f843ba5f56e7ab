"""``wonders upgrade``: a schema-3 copy of a match file of schema ≤ 2 (issue 12, point 7).

An old file recorded the decisions, the chance events and the outcomes of its time, but not
every change of state, nor its cards, nor card ids that name nothing.  The copy re-derives it
through the engine at the behaviour it was recorded with (rules revision 1, the pool given)
and records everything a file of schema 3 records:

* ``MatchOpened`` at schema 3 with the definitions of the cards it uses, their digest, its
  rules revision and ``upgraded_from`` -- the head hash of the original file;
* deck ids drawn by the setup shuffle: the original ``DeckShuffled`` of each deck becomes a
  ``DeckOrdered`` of the same cards in the same order, and every later card id is renamed to
  match (the original ids followed the deck list);
* every outcome the engine derives, batch by batch, each batch at its original time;
* every seq an event names, renumbered: a take-back (``TakenBack.to_seq``) returns to the
  copy's end of the same segment, a note (``Annotated.about``) is about the copy's event the
  original recorded (a fed event: itself; an outcome: the derived event it equals, else the end
  of its segment).  These two are the only fields of any event of either game that hold a seq.

The original is only read.  The copy verifies at schema 3 by itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import msgspec

from ledger.codec import Stored
from ledger.events import Annotated, Event, JudgeNote, MatchOpened, TakenBack
from ledger.store import Store
from replay.errors import ReplayError
from replay.replayer import Replay
from replay.wotf.cards import CardDB, definitions_digest, used_definitions
from replay.wotf.engine import Engine
from replay.wotf.events import DeckOrdered, DeckShuffled, ManualEffect
from replay.wotf.instances import card_instances
from replay.wotf.legacy import legacy_equal
from replay.wotf.manual import apply_manual
from replay.wotf.revisions import effective

_DECK_ID = re.compile(r"^([AB]\d+)(:.*)?$")  # an id, or an order label "A6:ability"


class UpgradeError(ReplayError):
    """A file that can't be upgraded (already schema 3, or it does not re-derive)."""


def upgrade(stored: Sequence[Stored], pool: CardDB, store: Store) -> MatchOpened:
    """Write the schema-3 copy of ``stored`` (a verified-intact file) into ``store``."""
    first = stored[0].event
    if not isinstance(first, MatchOpened) or first.schema_version >= 3:
        raise UpgradeError(f"{getattr(first, 'match_id', '?')}: already schema "
                           f"{getattr(first, 'schema_version', '?')}; nothing to upgrade")
    original = Replay(stored, pool)  # the old file must verify as it is
    cards = used_definitions(first, original.db)
    opened = msgspec.structs.replace(
        first, schema_version=3, rules_revision=effective(first.rules_revision), cards=cards,
        cards_digest=definitions_digest(cards), upgraded_from=stored[-1].hash)
    store.create(opened, at=stored[0].at)
    ids = _Renamer(first)
    engine = Engine.for_match(opened, pool)
    started = engine.start()
    length = 1 + _append(store, opened.match_id, started, 1, stored[0].at)
    seqs: dict[int, int] = {0: 0}  # an original seq -> the copy's
    for segment in original.segments[:1]:
        if not segment.fed:  # the outcomes engine.start() derived
            _map_segment(seqs, stored, segment, ids, started, 1, with_fed=False)
    for batch in _batches(original, stored):
        written: list[Event] = []
        for segment in batch:
            fed = _renumbered(ids.renamed(stored[segment.start].event), seqs, segment.start)
            before = len(written)
            if isinstance(fed, TakenBack):
                engine = _engine_after(store, opened.match_id, pool, written, length, fed.to_seq)
                written.append(fed)
            else:
                written += _derive(engine, fed)
            _map_segment(seqs, stored, segment, ids, written[before:], length + before)
        length += _append(store, opened.match_id, written, length, stored[batch[0].start].at)
    return opened


def _renumbered(event: Event, seqs: dict[int, int], seq: int) -> Event:
    """``event`` with the seq it names (a take-back's ``to_seq``, a note's ``about``) as the
    copy numbers it."""
    name = ("to_seq" if isinstance(event, TakenBack) else
            "about" if isinstance(event, Annotated) else None)
    if name is None:
        return event
    old = getattr(event, name)
    if old not in seqs:
        raise UpgradeError(f"seq {seq}: {type(event).__name__}.{name} {old} names no earlier "
                           f"event")
    return msgspec.structs.replace(event, **{name: seqs[old]})


def _map_segment(seqs: dict[int, int], stored: Sequence[Stored], segment: Any, ids: _Renamer,
                 copied: list[Event], first: int, with_fed: bool = True) -> None:
    """Record where the copy (``copied``, from seq ``first``) has each seq of an original
    segment: its fed event is the copy's first, its last event the copy's last (a take-back
    returns to a segment's end), and an outcome between them the copied event it equals, in
    order (else the copy's last)."""
    last = first + len(copied) - 1
    start = segment.start
    if with_fed:
        seqs[start], start = first, start + 1
    k = 1 if with_fed else 0
    for seq in range(start, segment.end):
        event = ids.ids_renamed(stored[seq].event)
        found = next((i for i in range(k, len(copied)) if legacy_equal(copied[i], event)), None)
        seqs[seq] = last if found is None else first + found
        k = k if found is None else found + 1
    seqs[segment.end] = last


def _append(store: Store, match_id: str, events: list[Event], length: int, at: str) -> int:
    if events:
        store.append(match_id, events, length, at=at)
    return len(events)


def _batches(original: Replay, stored: Sequence[Stored]) -> list[list[Any]]:
    """The original file's fed segments, grouped by the batch each was appended in."""
    out: list[list[Any]] = []
    current = None
    for segment in original.segments:
        if not segment.fed:
            continue
        if stored[segment.start].batch != current:
            out.append([])
            current = stored[segment.start].batch
        out[-1].append(segment)
    return out


def _engine_after(store: Store, match_id: str, pool: CardDB, pending: list[Event], length: int,
                  seq: int) -> Engine:
    """The engine at the prompt after the copy's seq ``seq`` (the copy so far, plus the events
    of the batch being built)."""
    events = [s.event for s in store.read(match_id)] + pending
    assert len(events) == length + len(pending)
    engine = Replay(events, pool).engine_after(seq)
    assert isinstance(engine, Engine), "a Wonders of The First match re-derives with its engine"
    return engine


def _derive(engine: Engine, fed: Event) -> list[Event]:
    if isinstance(fed, (JudgeNote, Annotated)):
        return [fed]
    if isinstance(fed, ManualEffect):
        return apply_manual(engine, fed)
    reason = engine.check(fed)
    if reason is not None:
        raise UpgradeError(f"the engine refuses {type(fed).__name__}: {reason}")
    return engine.decide(fed)


class _Renamer:
    """Old deck ids (deck-list order) → new ones (drawn by the setup shuffle)."""

    def __init__(self, opened: MatchOpened):
        instances = card_instances(opened)
        self.names = {cid: name for info in opened.seats for cid, name in instances[info.seat]}
        self.renames: dict[str, str] = {}
        self.ordered: set[str] = set()

    def renamed(self, event: Event) -> Event:
        if isinstance(event, DeckShuffled) and event.seat not in self.ordered:
            # The setup shuffle of a deck: it becomes DeckOrdered and draws the new ids.
            self.ordered.add(event.seat)
            for k, old in enumerate(event.order, start=1):
                self.renames[old] = f"{event.seat}{k}"
            return DeckOrdered(event.seat, [self.names[old] for old in event.order])
        return self.ids_renamed(event)

    def ids_renamed(self, event: Event) -> Event:
        """``event`` with the new ids (no deck is ordered by it)."""
        if not self.renames:
            return event
        raw = msgspec.to_builtins(event)
        fixed = _rename(raw, self.renames)
        return event if fixed == raw else msgspec.convert(fixed, type(event))


def _rename(value: Any, renames: dict[str, str]) -> Any:
    if isinstance(value, str):
        match = _DECK_ID.match(value)
        if match is None or match.group(1) not in renames:
            return value
        return renames[match.group(1)] + (match.group(2) or "")
    if isinstance(value, list):
        return [_rename(v, renames) for v in value]
    if isinstance(value, dict):
        return {k: (v if k == "type" else _rename(v, renames)) for k, v in value.items()}
    return value
