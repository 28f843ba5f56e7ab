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
  a take-back returns to the renumbered end of the same batch.

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
    length = 1 + _append(store, opened.match_id, engine.start(), 1, stored[0].at)
    ends: dict[int, int] = {0: 0}  # an original segment's last seq -> the copy's
    for batch in _batches(original, stored):
        written: list[Event] = []
        for segment in batch:
            fed = ids.renamed(stored[segment.start].event)
            if isinstance(fed, TakenBack):
                fed = msgspec.structs.replace(fed, to_seq=ends[fed.to_seq])
                engine = _engine_after(store, opened.match_id, pool, written, length, fed.to_seq)
                written.append(fed)
            else:
                written += _derive(engine, fed)
            ends[segment.end] = length + len(written) - 1
        length += _append(store, opened.match_id, written, length, stored[batch[0].start].at)
    return opened


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
                  seq: int):
    """The engine at the prompt after the copy's seq ``seq`` (the copy so far, plus the events
    of the batch being built)."""
    events = [s.event for s in store.read(match_id)] + pending
    assert len(events) == length + len(pending)
    return Replay(events, pool).engine_after(seq)


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
