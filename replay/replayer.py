"""The replayer: folds a match log through the rules engine, verifies it, and seeks in it.

A log is a list of *segments*: a fed event (a decision, a chance event or an administrative
event) followed by the outcome events the engine derived from it.  :class:`Replay` feeds
every fed event back into a fresh engine and checks that it derives exactly the recorded
outcomes -- any difference is a :class:`Divergence` naming the seq.  On the way it keeps
snapshots at quiet points (every turn prompt), so :meth:`Replay.state_at` restores the nearest
snapshot and re-runs at most one turn.

The state *at seq n* is the state once event n has happened: for an outcome inside a batch,
as it was when the engine recorded it; at the end of a segment, as it is at the next prompt.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgspec

from ledger.codec import Stored
from ledger.events import Conceded, Event, JudgeNote, MatchOpened, TakenBack, kind_of
from replay.wotf.events import ManualEffect, Passed, TriggerResolved
from replay.wotf.cards import CardDB
from replay.wotf.engine import Engine
from replay.errors import DivergenceError
from replay.wotf.legacy import legacy_equal, legacy_outcomes
from replay.wotf.manual import apply_manual, why_not_manual
from replay.wotf.narrate import describe
from replay.wotf.state import GameState, clone, freeze, thaw
from replay.timeline import TURN_EVENTS, Index, TurnMark  # noqa: F401 - re-exported for readers



def is_fed(event: Event) -> bool:
    """Whether an event is fed to the engine (not derived by it)."""
    if isinstance(event, Passed) or type(event).__name__ == "Answered":
        return not event.auto
    return kind_of(type(event).__name__) in ("decision", "chance", "admin")


def _is_decided(fed: Event) -> bool:
    """Whether a fed event goes through ``Engine.decide`` (a decision or a chance event)."""
    return kind_of(type(fed).__name__) in ("decision", "chance") or isinstance(fed, Conceded)


def _equal(mine: Event, theirs: Event) -> bool:
    """Equal as outcomes: a trigger's ``detail`` is presentation, never compared."""
    if isinstance(mine, TriggerResolved) and isinstance(theirs, TriggerResolved):
        return msgspec.structs.replace(mine, detail="") == msgspec.structs.replace(theirs, detail="")
    return mine == theirs


class Divergence(DivergenceError):
    """The log and the engine disagree at ``seq``."""

    def __init__(self, match_id: str, seq: int, message: str):
        super().__init__(f"{match_id} seq {seq}: {message}")
        self.match_id, self.seq = match_id, seq


@dataclass(frozen=True)
class Segment:
    start: int  # seq of the fed event (or of the first outcome, for engine.start's outcomes)
    end: int  # seq of its last outcome
    fed: bool = True  # False for the outcomes engine.start() derives before any decision


class Replay:
    """One match log folded through the engine (verified), with snapshots for seeking."""

    def __init__(self, events: Sequence[Stored] | Sequence[Event], db: CardDB,
                 snapshot_every: int = 1):
        self.events: list[Event] = [e.event if isinstance(e, Stored) else e for e in events]
        if not self.events or not isinstance(self.events[0], MatchOpened):
            raise Divergence("?", 0, "a match log starts with MatchOpened")
        self.opened: MatchOpened = self.events[0]
        self.match_id = self.opened.match_id
        self.legacy = self.opened.schema_version < 3  # recorded before fold-complete events
        self.db = db
        self.snapshot_every = max(1, snapshot_every)
        self.segments: list[Segment] = []
        self.snapshots: dict[int, bytes] = {}  # seq -> frozen state at a quiet point
        self._snapshot_keys: list[int] = []
        self.index = Index()
        self.engine = Engine.for_match(self.opened, db)
        self.db = self.engine.db  # the match's own cards (recorded, or a copy of the pool)
        self._quiet_seen = 0
        self._snapshot(0)
        derived = self.engine.start()
        if self.legacy:
            derived = legacy_outcomes(derived)
        self._check_outcomes(derived, 1)
        self._consumed = 1 + len(derived)
        if derived:
            self.segments.append(Segment(1, len(derived), fed=False))
        self.extend(self.events[self._consumed:], already_listed=True)

    # -- folding -------------------------------------------------------------------------

    def extend(self, new_events: Sequence[Event], already_listed: bool = False) -> None:
        """Feed more events (a live match growing); raises :class:`Divergence` on mismatch."""
        if not already_listed:
            self.events.extend(e.event if isinstance(e, Stored) else e for e in new_events)
        i = self._consumed
        while i < len(self.events):
            fed = self.events[i]
            if not is_fed(fed):
                raise Divergence(self.match_id, i, f"unexpected {describe(fed)}: the engine "
                                 f"derived no such outcome here")
            self.engine, derived = self._feed(self.engine, fed, i)
            if self.legacy:
                derived = [derived[0], *legacy_outcomes(derived[1:])]
            self._check_outcomes(derived[1:], i + 1)
            end = i + len(derived) - 1
            self.segments.append(Segment(i, end))
            self._index(i, end)
            if self.engine.prompt is not None and self.engine.prompt.kind == "turn":
                self._quiet_seen += 1
                if self._quiet_seen % self.snapshot_every == 0:
                    self._snapshot(end)
            i = end + 1
            self._consumed = i

    def _feed(self, engine: Engine, fed: Event, seq: int) -> tuple[Engine, list[Event]]:
        """Apply one fed event; returns the engine to go on with and ``[fed, *outcomes]``."""
        if isinstance(fed, JudgeNote):
            return engine, [fed]
        if isinstance(fed, TakenBack):
            if not 0 <= fed.to_seq < seq or not self.is_batch_end(fed.to_seq):
                raise Divergence(self.match_id, seq,
                                 f"take-back to seq {fed.to_seq} is not the end of an earlier batch")
            return self.engine_after(fed.to_seq), [fed]
        if isinstance(fed, ManualEffect):
            reason = why_not_manual(engine, fed)
            if reason:
                raise Divergence(self.match_id, seq, f"bad manual effect: {reason}")
            derived = apply_manual(engine, fed)
            return engine, [fed] if self.legacy else derived
        reason = engine.check(fed)
        if reason is not None:
            raise Divergence(self.match_id, seq, f"illegal {describe(fed)}: {reason}")
        return engine, engine.decide(fed)

    def _check_outcomes(self, outcomes: list[Event], first_seq: int) -> None:
        """The recorded events from ``first_seq`` must be exactly ``outcomes``, then a fed event.

        A file of schema ≤ 2 recorded only the outcome types and fields of its time
        (:mod:`replay.wotf.legacy`): the engine's other outcomes are not looked for in it.
        """
        same = legacy_equal if self.legacy else _equal
        recorded = self.events[first_seq:first_seq + len(outcomes)]
        for offset, (mine, theirs) in enumerate(zip(outcomes, recorded)):
            if not same(mine, theirs):
                raise Divergence(self.match_id, first_seq + offset,
                                 f"recorded {describe(theirs)}, engine derives {describe(mine)}")
        if len(recorded) < len(outcomes):
            raise Divergence(self.match_id, first_seq + len(recorded),
                             f"the log ends; engine derives {describe(outcomes[len(recorded)])}")
        nxt = first_seq + len(outcomes)
        if nxt < len(self.events) and not is_fed(self.events[nxt]):
            raise Divergence(self.match_id, nxt, f"recorded {describe(self.events[nxt])}, "
                             f"engine derives nothing more here")

    def _index(self, start: int, end: int) -> None:
        for seq in range(start, end + 1):
            self.index.see(seq, self.events[seq])

    def _snapshot(self, seq: int) -> None:
        self.snapshots[seq] = freeze(self.engine.state)
        self._snapshot_keys.append(seq)

    def _recorded_count(self, out: list[Event], fed: bool = True) -> int:
        """How many of the engine's events so far the file records (all, from schema 3)."""
        if not self.legacy:
            return len(out)
        return fed + len(legacy_outcomes(out[1:] if fed else out))

    def is_batch_end(self, seq: int) -> bool:
        """Whether a prompt was pending after event ``seq`` (a point a take-back may return to)."""
        return seq == 0 or any(s.end == seq for s in self.segments)

    # -- seeking -------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.events)

    def state_at(self, seq: int) -> GameState:
        """The state once event ``seq`` has happened (a fresh copy)."""
        if not 0 <= seq < len(self.events):
            raise IndexError(f"seq {seq} is outside 0..{len(self.events) - 1}")
        captured: list[GameState] = []
        engine = self._engine_until(seq, captured)
        return captured[0] if captured else clone(engine.state)

    def engine_after(self, seq: int) -> Engine:
        """An engine positioned at the prompt after segment end ``seq``."""
        return self._engine_until(seq, [])

    def _engine_until(self, seq: int, captured: list[GameState]) -> Engine:
        k = self._snapshot_keys[bisect.bisect_right(self._snapshot_keys, seq) - 1]
        # Seq 0 is set-up: the engine needs the deck lists its shuffles order.
        engine = (Engine.for_match(self.opened, self.db) if k == 0
                  else Engine(self.db, thaw(self.snapshots[k])))
        if k == 0 and 0 < seq:
            def on_start(_event):
                if self._recorded_count(engine.out, fed=False) == seq and not captured:
                    captured.append(clone(engine.state))
            engine.on_emit = on_start
        engine.start()
        engine.on_emit = None
        if k == seq or captured:
            return engine
        pos = bisect.bisect_right([s.start for s in self.segments], k)
        for segment in self.segments[pos:]:
            if segment.start > seq:
                break
            if not segment.fed:
                continue  # already re-derived by engine.start() above
            fed = self.events[segment.start]
            if segment.start == seq < segment.end and not _is_decided(fed):
                # An administrative event changes nothing by itself: its outcomes follow it.
                captured.append(clone(engine.state))
                break
            hook: Callable | None = None
            if segment.start <= seq < segment.end:
                def hook(_event, engine=engine, start=segment.start):
                    if start + self._recorded_count(engine.out) - 1 == seq and not captured:
                        captured.append(clone(engine.state))
            engine.on_emit = hook
            engine, _ = self._feed(engine, self.events[segment.start], segment.start)
            engine.on_emit = None
            if captured:
                break
        return engine



class Cursor:
    """A position in a replay, moved by seq, by step, or by the addresses people use."""

    def __init__(self, replay: Replay, seq: int = 0):
        self.replay = replay
        self.seq = 0
        self.seek(seq)

    @property
    def state(self) -> GameState:
        return self.replay.state_at(self.seq)

    @property
    def event(self) -> Event:
        return self.replay.events[self.seq]

    def seek(self, seq: int) -> "Cursor":
        if not 0 <= seq < len(self.replay):
            raise IndexError(f"seq {seq} is outside 0..{len(self.replay) - 1}")
        self.seq = seq
        return self

    def step(self) -> "Cursor":
        return self.seek(min(self.seq + 1, len(self.replay) - 1))

    def back(self) -> "Cursor":
        return self.seek(max(self.seq - 1, 0))

    def seek_round(self, round_: int, turn: int | None = None) -> "Cursor":
        """Round ``round_`` (its start), or its ``turn``-th turn ("round 4, turn 7")."""
        index = self.replay.index
        if round_ not in index.rounds:
            raise IndexError(f"round {round_} was not played in this match")
        if turn is None:
            return self.seek(index.rounds[round_])
        for mark in index.turns:
            if mark.round == round_ and mark.number == turn:
                return self.seek(mark.seq)
        raise IndexError(f"round {round_} has no turn {turn}")

    def seek_battle(self, number: int = 1, realm: int | None = None) -> "Cursor":
        """The ``number``-th battle (in ``realm``, if given): "the battle in realm 3"."""
        battles = [b for b in self.replay.index.battles if realm is None or b[2] == realm]
        if not 1 <= number <= len(battles):
            where = f" in realm {realm}" if realm else ""
            raise IndexError(f"there is no battle #{number}{where}")
        return self.seek(battles[number - 1][0])
