"""The replayer: folds a match log through the rules engine, verifies it, and seeks in it.

A log is a list of *segments*: a fed event (a decision, a chance event or an administrative
event) followed by the outcome events the engine derived from it.  :class:`Replay` feeds
every fed event back into a fresh engine and checks that it derives exactly the recorded
outcomes -- any difference is a :class:`Divergence` naming the seq.  On the way it keeps
snapshots at quiet points: at the first turn prompt once at least :data:`SNAPSHOT_EVERY`
events have passed since the previous one, so :meth:`Replay.state_at` restores the nearest
snapshot and re-runs about that many events at most (a few milliseconds).  Spacing them by
events, not turns, bounds a seek's cost by the work it re-does, and takes few of them: each
is a freeze of the whole state, a cost every re-derivation (``wonders verify``) pays whether
or not anyone seeks.  A snapshot is the frozen state as bytes (msgpack, ~17 KB for a Wonders
match): nothing the garbage collector walks, and no compression to pay for when it is taken
or expanded -- ~3 per Wonders match, ~45 KB (``snapshot_kb_per_match``, target ≤ 300).  Set-up
(seq 0) is where a seek starts below the first snapshot, but it is not frozen: such a seek starts
a new engine from ``MatchOpened``, as the re-derivation did.  The index of rounds, turns and
battles is worked out when first read (:attr:`Replay.index`), not while re-deriving.

The state *at seq n* is the state once event n has happened: for an outcome inside a batch,
as it was when the engine recorded it; at the end of a segment, as it is at the next prompt.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Sequence
from typing import Any, cast

import msgspec

from ledger.codec import Stored
from ledger.events import (
    Annotated,
    Conceded,
    DrawGiven,
    Event,
    GameLossGiven,
    JudgeCalled,
    JudgeNote,
    MatchOpened,
    TakenBack,
)
from ledger.line import undone_by
from ledger.registry import kind_of
from replay.errors import DivergenceError, IllegalDecisionError, ReplayError
from replay.game import Game, Rules
from replay.games import game_of
from replay.index import Index, TurnMark  # noqa: F401 - re-exported for readers
from replay.reading import Reading

#: A snapshot at the first turn prompt at least this many events after the previous one: a
#: seek re-runs about this many events at most; fewer snapshots cost re-derivation less (each
#: is a freeze of the state, ~30 µs for a Wonders match).  The trade, measured on the bench's
#: 40 Wonders matches (3000 seeks, every replay held, a loaded 2-core machine): at 60, ~6.5
#: snapshots a match (~110 KB), ~3% of a re-derivation, seek p50 0.90 / p99 1.98 ms; at 120,
#: ~3.3 (~56 KB), half that cost, seek p50 1.23 / p99 2.92 ms.  The p99.9 was 10-11 ms at
#: 60, 90 and 120 alike on that machine (the slowest seeks are the machine's, not the events
#: re-run), under the 15 ms bound (``seek_p999_ms``).
SNAPSHOT_EVERY = 120
#: ``snapshot_every`` of a replay only verified, never seeked (``wonders verify``, a recorder
#: resuming a match): set-up's snapshot alone, no freeze on the way (a seek still works, from
#: set-up).
NO_SNAPSHOTS = 2**62


#: fed events that change nothing, even after the end (:meth:`Replay._feed`): by exact type (the
#: event classes are leaves; an ``isinstance`` that fails costs several times more, through
#: the struct classes' metaclass, and this is asked of every fed event)
_NOTES = frozenset({JudgeNote, JudgeCalled, Annotated})


def _is_decided(fed: Event) -> bool:
    """Whether a fed event goes through ``Rules.decide`` (a decision or a chance event)."""
    cls = type(fed)
    found = _DECIDED.get(cls)  # asked of every fed event: worked out once per type
    if found is None:
        found = _DECIDED[cls] = (kind_of(cls.__name__) in ("decision", "chance")
                                 or issubclass(cls, (Conceded, GameLossGiven, DrawGiven)))
    return found


#: event type -> whether an event of it is decided (:func:`_is_decided`)
_DECIDED: dict[type, bool] = {}


class Divergence(DivergenceError):
    """The log and the engine disagree at ``seq``."""

    def __init__(self, match_id: str, seq: int, message: str):
        super().__init__(f"{match_id} seq {seq}: {message}")
        self.match_id, self.seq = match_id, seq


class Segment(msgspec.Struct, frozen=True, gc=False):
    """One fed event and the outcomes derived from it, by seq.  Plain values only, so not
    tracked by the garbage collector (a held replay has hundreds, a server many replays: a
    full collection need not walk them)."""

    start: int  # seq of the fed event (or of the first outcome, for engine.start's outcomes)
    end: int  # seq of its last outcome
    fed: bool = True  # False for the outcomes engine.start() derives before any decision


class Replay:
    """One match log folded through the engine (verified), with snapshots for seeking."""

    def __init__(self, events: Sequence[Stored] | Sequence[Event], db: Any = None,
                 snapshot_every: int = SNAPSHOT_EVERY, recorded: MatchOpened | None = None):
        """``recorded``: the ``MatchOpened`` the file holds, when ``events[0]`` is another --
        the engine derives under ``events[0]`` (``wonders verify --against-current``: today's
        revision and cards) and its outcomes are compared as the file records them
        (:meth:`Game.as_recorded <replay.game.Game.as_recorded>` of ``recorded``)."""
        self.events: list[Event] = [e.event if isinstance(e, Stored) else e for e in events]
        if not self.events or not isinstance(self.events[0], MatchOpened):
            raise Divergence("?", 0, "a match log starts with MatchOpened")
        self.opened: MatchOpened = self.events[0]
        self.recorded: MatchOpened = recorded if recorded is not None else self.opened
        self.match_id = self.opened.match_id
        self.game: Game = game_of(self.opened)
        self.legacy = self.opened.schema_version < 3  # recorded before fold-complete events
        # whether the file may record fewer of the engine's outcomes than it derives
        self._fewer = self.legacy or recorded is not None
        self.snapshot_every = max(1, snapshot_every)  # events between two snapshots, at least
        self.segments: list[Segment] = []
        # seq -> frozen state at a quiet point; set-up (seq 0) is a key of _snapshot_keys with
        # no frozen state: a seek from it starts a new engine from MatchOpened (_engine_from)
        self.snapshots: dict[int, bytes] = {}
        self._snapshot_keys: list[int] = [0]
        # the index is built when first read, from the segments (:attr:`index`)
        self._index = Index(self.game)
        self._indexed = 0  # segments the index has seen
        self._index_lock = threading.Lock()
        pool = db if db is not None else self.game.default_cards()
        self.engine: Rules = self.game.rules(self.opened, pool)
        self.db = self.game.cards_of(self.engine)  # the match's own cards (recorded, or a copy)
        derived = self.game.as_recorded(self.engine.start(), self.recorded)
        self._check_outcomes(derived, 1)
        self._consumed = 1 + len(derived)
        if derived:
            self.segments.append(Segment(1, len(derived), fed=False))
        self.extend((), already_listed=True)  # (the events are listed: no slice of them)

    # -- folding -------------------------------------------------------------------------

    def extend(self, new_events: Sequence[Stored] | Sequence[Event],
               already_listed: bool = False) -> None:
        """Feed more events (a live match growing); raises :class:`Divergence` on mismatch."""
        if not already_listed:
            self.events.extend(e.event if isinstance(e, Stored) else e for e in new_events)
        game, events, recorded = self.game, self.events, self.recorded
        as_recorded, check, segments = game.as_recorded, self._check_outcomes, self.segments
        every, keys = self.snapshot_every, self._snapshot_keys
        i = self._consumed
        # whether events[i] is known to be fed: _check_outcomes checks the event after a batch
        follows_outcomes = False
        while i < len(events):
            fed = events[i]
            if not follows_outcomes and not game.is_fed(fed):
                raise Divergence(self.match_id, i, f"unexpected {game.describe(fed)}: the "
                                 f"engine derived no such outcome here")
            self.engine, derived = self._feed(self.engine, fed, i)
            outcomes = as_recorded(derived[1:], recorded)
            check(outcomes, i + 1)
            follows_outcomes = True
            end = i + len(outcomes)
            segments.append(Segment(i, end))
            if end - keys[-1] >= every and self._is_quiet():
                self._snapshot(end)
            i = end + 1
            self._consumed = i

    def _feed(self, engine: Rules, fed: Event, seq: int) -> tuple[Rules, list[Event]]:
        """Apply one fed event; returns the engine to go on with and ``[fed, *outcomes]``."""
        kind = type(fed)
        if kind in _NOTES:  # change nothing, even after the end
            return engine, [fed]
        if kind is TakenBack:
            to_seq = cast(TakenBack, fed).to_seq
            if not 0 <= to_seq < seq or not self.is_batch_end(to_seq):
                raise Divergence(self.match_id, seq,
                                 f"take-back to seq {to_seq} is not the end of an earlier batch")
            return self.engine_after(to_seq), [fed]
        decided = _DECIDED.get(kind)  # (_is_decided, without its call for a known type)
        if decided is None:
            decided = _is_decided(fed)
        if not decided:  # a game's own administrative event (a judge's ruling)
            try:
                return engine, self.game.apply_admin(engine, fed, self.opened)
            except ReplayError as exc:
                raise Divergence(self.match_id, seq, f"bad manual effect: {exc}") from None
        try:
            return engine, engine.decide(fed)  # decide checks first (Rules.decide)
        except IllegalDecisionError:  # nothing changed: the check says why, as before
            reason = engine.check(fed)
            raise Divergence(self.match_id, seq,
                             f"illegal {self.game.describe(fed)}: {reason}") from None

    def _check_outcomes(self, outcomes: list[Event], first_seq: int) -> None:
        """The recorded events from ``first_seq`` must be exactly ``outcomes``, then a fed event.

        A file of schema ≤ 2 recorded only the outcome types and fields of its time
        (:mod:`replay.wotf.legacy`): the engine's other outcomes are not looked for in it.
        """
        events = self.events
        nxt = first_seq + len(outcomes)
        recorded = events[first_seq:nxt]
        if outcomes != recorded:  # equal events are the same outcome: most batches end here
            self._check_differing(outcomes, recorded, first_seq)
        if nxt < len(events) and not self.game.is_fed(events[nxt]):
            raise Divergence(self.match_id, nxt, f"recorded {self.game.describe(events[nxt])}, "
                             f"engine derives nothing more here")

    def _check_differing(self, outcomes: list[Event], recorded: list[Event],
                         first_seq: int) -> None:
        """:meth:`_check_outcomes` of outcomes not all equal to the events recorded: each pair
        must be the same outcome (:meth:`Game.same_outcome <replay.game.Game.same_outcome>`),
        and the log must not end before them."""
        describe, opened, same = self.game.describe, self.recorded, self.game.same_outcome
        for offset, (mine, theirs) in enumerate(zip(outcomes, recorded, strict=False)):
            if mine != theirs and not same(mine, theirs, opened):  # the log may end early
                raise Divergence(self.match_id, first_seq + offset,
                                 f"recorded {describe(theirs)}, engine derives {describe(mine)}")
        if len(recorded) < len(outcomes):
            raise Divergence(self.match_id, first_seq + len(recorded),
                             f"the log ends; engine derives {describe(outcomes[len(recorded)])}")

    @property
    def index(self) -> Index:
        """The match's addresses (rounds, turns, the game's places): worked out of the
        segments when first read, and of those added since at each later read -- not while
        the match is re-derived, which most re-derivations (``wonders verify``) never read
        (~2.5% of a Wonders re-derivation).  The events of ``engine.start()`` are not indexed
        (set-up: no round has begun)."""
        with self._index_lock:  # reading adds to it: two readers must not add twice
            segments = self.segments
            if self._indexed < len(segments):
                for segment in segments[self._indexed:]:
                    if segment.fed:
                        self._index_segment(segment)
                self._indexed = len(segments)
            return self._index

    def _index_segment(self, segment: Segment) -> None:
        index, events, start = self._index, self.events, segment.start
        fed = events[start]
        if type(fed) is TakenBack:
            index.take_back(start, fed.to_seq)
        # only the events the game may address (Game.address_types): most start nothing
        see, types = index.see, self.game.address_types
        for seq in range(start, segment.end + 1):
            event = events[seq]
            if type(event) in types:
                see(seq, event)

    def _is_quiet(self) -> bool:
        """A turn prompt is pending: a point the engine can resume from a state alone
        (:meth:`Game.resume <replay.game.Game.resume>`)."""
        prompt = self.engine.prompt
        return prompt is not None and prompt.kind == "turn"

    def _snapshot(self, seq: int) -> None:
        """Freeze the state at ``seq`` (not set-up's: a seek from it starts from MatchOpened)."""
        self.snapshots[seq] = self.game.freeze(self.engine.state)
        self._snapshot_keys.append(seq)

    def _recorded_count(self, out: list[Event], fed: bool = True) -> int:
        """How many of the engine's events so far the file records (all, from schema 3,
        when the engine derives under the file's own ``MatchOpened``)."""
        if not self._fewer:
            return len(out)
        return fed + len(self.game.as_recorded(out[1:] if fed else out, self.recorded))

    def is_batch_end(self, seq: int) -> bool:
        """Whether a prompt was pending after event ``seq`` (a point a take-back may return to)."""
        return seq == 0 or any(s.end == seq for s in self.segments)

    # -- seeking -------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.events)

    def state_at(self, seq: int) -> Any:
        """The state once event ``seq`` has happened (a fresh copy)."""
        if not 0 <= seq < len(self.events):
            raise IndexError(f"seq {seq} is outside 0..{len(self.events) - 1}")
        captured: list[Any] = []
        engine = self._engine_until(seq, captured)
        # The seek's own engine, from a thawed snapshot or set-up: its state is no one else's,
        # so it is the fresh copy; the engine is freed now, not left to the garbage collector.
        state = captured[0] if captured else engine.state
        engine.close()
        return state

    def engine_after(self, seq: int) -> Rules:
        """An engine positioned at the prompt after segment end ``seq``."""
        return self._engine_until(seq, [])

    def _engine_until(self, seq: int, captured: list[Any]) -> Rules:
        """An engine at ``seq`` (``captured`` gets the state there if ``seq`` is inside a
        batch).  Only the last take-back between the nearest snapshot and ``seq`` counts: the
        engine starts at its ``to_seq`` (found the same way, back to a snapshot with no
        take-back after it) and goes on from there -- each take-back is re-derived once, not
        once for every take-back after it (which doubled the work with every take-back)."""
        starts = [s.start for s in self.segments]
        legs: list[tuple[int, int]] = []  # (first segment, up to seq) to feed, the latest first
        upto = seq
        while True:
            k = self._snapshot_keys[bisect.bisect_right(self._snapshot_keys, upto) - 1]
            first, back = bisect.bisect_right(starts, k), None
            for pos in range(bisect.bisect_right(starts, upto) - 1, first - 1, -1):
                if type(self.events[starts[pos]]) is TakenBack:
                    back = pos
                    break
            if back is None:
                legs.append((first, upto))
                break
            legs.append((back + 1, upto))
            upto = cast(TakenBack, self.events[starts[back]]).to_seq
        engine = self._engine_from(k, upto, captured if upto == seq else [])
        if captured:
            return engine
        for first, upto in reversed(legs):
            engine = self._feed_until(engine, first, upto, captured)
            if captured:
                break
        return engine

    def _engine_from(self, k: int, seq: int, captured: list[Any]) -> Rules:
        """An engine from the snapshot at ``k`` (set-up, for 0), through ``engine.start()``."""
        game, clone = self.game, self.game.clone
        # Seq 0 is set-up: the engine needs the deck lists its shuffles order.
        engine = (game.rules(self.opened, self.db) if k == 0
                  else game.resume(game.thaw(self.snapshots[k]), self.db))
        if k == 0 and seq > 0:
            def on_start(_event: Event) -> None:
                if self._recorded_count(engine.out, fed=False) == seq and not captured:
                    captured.append(clone(engine.state))
            engine.on_emit = on_start
        engine.start()
        engine.on_emit = None
        return engine

    def _feed_until(self, engine: Rules, first: int, seq: int, captured: list[Any]) -> Rules:
        """Feed the segments from index ``first`` on, up to ``seq`` (none a take-back)."""
        clone = self.game.clone
        for segment in self.segments[first:]:
            if segment.start > seq:
                break
            if not segment.fed:
                continue  # already re-derived by engine.start()
            fed = self.events[segment.start]
            if segment.start == seq < segment.end and not _is_decided(fed):
                # An administrative event changes nothing by itself: its outcomes follow it.
                captured.append(clone(engine.state))
                break
            hook: Callable | None = None
            if segment.start <= seq < segment.end:
                def hook(_event: Event, engine: Rules = engine, start: int = segment.start) -> None:
                    if start + self._recorded_count(engine.out) - 1 == seq and not captured:
                        captured.append(clone(engine.state))
            engine.on_emit = hook
            engine, _ = self._feed(engine, fed, segment.start)
            engine.on_emit = None
            if captured:
                break
        return engine


class Cursor:
    """A position in a replay, moved by seq, by step, or by the addresses people use."""

    def __init__(self, replay: Reading, seq: int = 0):
        self.replay = replay
        self.seq = 0
        self.seek(seq)

    @property
    def state(self) -> Any:
        return self.replay.state_at(self.seq)

    @property
    def event(self) -> Event:
        return self.replay.events[self.seq]

    def seek(self, seq: int) -> Cursor:
        if not 0 <= seq < len(self.replay):
            raise IndexError(f"seq {seq} is outside 0..{len(self.replay) - 1}")
        self.seq = seq
        return self

    def step(self) -> Cursor:
        return self.seek(min(self.seq + 1, len(self.replay) - 1))

    def back(self) -> Cursor:
        return self.seek(max(self.seq - 1, 0))

    def _standing(self) -> Index:
        """The places of the match as it stands: the marks of events a take-back undid are
        left out."""
        return self.replay.index.standing(undone_by(self.replay.events))

    def seek_round(self, round_: int, turn: int | None = None) -> Cursor:
        """Round ``round_`` (its start), or its ``turn``-th turn ("round 4, turn 7")."""
        index = self._standing()
        if round_ not in index.rounds:
            raise IndexError(f"round {round_} was not played in this match")
        if turn is None:
            return self.seek(index.rounds[round_])
        for mark in index.turns:
            if mark.round == round_ and mark.number == turn:
                return self.seek(mark.seq)
        raise IndexError(f"round {round_} has no turn {turn}")

    def seek_turn(self, turn: int) -> Cursor:
        """The ``turn``-th turn of a game without rounds (State of Wonder: "turn 7"), of the
        turns that stand (a take-back's undone turns are not the match's)."""
        index = self._standing()
        if index.rounds:
            raise IndexError(f"this match is played in rounds: give the round of turn {turn}")
        for mark in index.turns:
            if mark.number == turn:
                return self.seek(mark.seq)
        raise IndexError(f"there is no turn {turn} (the match has {len(index.turns)})")

    def seek_battle(self, number: int = 1, realm: int | None = None) -> Cursor:
        """The ``number``-th battle (in ``realm``, if given): "the battle in realm 3"."""
        battles = [b for b in self._standing().battles if realm is None or b[2] == realm]
        if not 1 <= number <= len(battles):
            where = f" in realm {realm}" if realm else ""
            raise IndexError(f"there is no battle #{number}{where}")
        return self.seek(battles[number - 1][0])
