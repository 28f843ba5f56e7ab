"""The recorder: where the ledger and the engine meet (DESIGN.md sections 2 and 4).

A :class:`Recorder` opens a match (``MatchOpened``), answers chance prompts from its RNG
(seeded in simulation, the OS's randomness live), checks each decision through the engine,
and appends the decision with every outcome it produced -- and the chance events that
follow -- as one atomic batch.  Nothing illegal is ever written; if the append fails
(another writer got there first) the recorder reloads from the store and re-raises.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ledger.codec import Stored, now_iso
from ledger.errors import ConflictError
from ledger.events import (
    Annotated,
    Conceded,
    DrawGiven,
    DrawKind,
    Event,
    GameLossGiven,
    JudgeCalled,
    JudgeNote,
    MatchOpened,
    TakenBack,
    as_seat,
)
from ledger.store import Store
from replay.errors import IllegalDecisionError, ReplayError
from replay.game import Game, Rules
from replay.games import game_of
from replay.replayer import NO_SNAPSHOTS, Replay


def complete_opened(opened: MatchOpened, db: Any) -> MatchOpened:
    """``MatchOpened`` as a new file records it (schema 3): the engine's version and rules
    revision, and the definition of every card either seat can use, with their digest."""
    return game_of(opened).complete_opened(opened, db)


class Recorder:
    """Records one match into a store."""

    def __init__(self, store: Store, db: Any, opened: MatchOpened, engine: Rules, length: int,
                 rng: random.Random | None = None, clock: Callable[[], str] = now_iso):
        self.store, self.db, self.opened, self.match_id = store, db, opened, opened.match_id
        self.game: Game = game_of(opened)
        self.engine, self.length = engine, length
        self.rng = rng if rng is not None else random.SystemRandom()
        self.clock = clock

    @classmethod
    def open(cls, store: Store, db: Any, opened: MatchOpened,
             rng: random.Random | None = None, clock: Callable[[], str] = now_iso) -> Recorder:
        """Create the match in the store and run to the first prompt for a seat."""
        game = game_of(opened)
        opened = game.complete_opened(opened, db)
        engine = game.rules(opened, db)  # unknown cards fail before anything is written
        store.create(opened, at=clock())
        recorder = cls(store, db, opened, engine, 1, rng, clock)
        batch = engine.start() + recorder._answer_chance()
        recorder._append(batch)
        return recorder

    @classmethod
    def opening(cls, db: Any, opened: MatchOpened, rng: random.Random | None = None
                ) -> tuple[MatchOpened, list[Event]]:
        """What :meth:`open` writes, without writing it: the completed ``MatchOpened`` and the
        first batch (the set-up, to the first prompt for a seat) -- for
        :meth:`ledger.store.Store.create_many`, which creates many matches at once."""
        game = game_of(opened)
        opened = game.complete_opened(opened, db)
        engine = game.rules(opened, db)  # unknown cards fail before anything is written
        batch = engine.start()
        return opened, batch + _chance_answered(game, engine, rng or random.SystemRandom())

    @classmethod
    def resume(cls, store: Store, db: Any, match_id: str, rng: random.Random | None = None,
               clock: Callable[[], str] = now_iso) -> Recorder:
        """Pick up a match from its log (verifying it on the way)."""
        replay = Replay(list(store.read(match_id)), db, NO_SNAPSHOTS)  # only its engine goes on
        return cls(store, db, replay.opened, replay.engine, len(replay), rng, clock)

    # -- recording -----------------------------------------------------------------------

    def submit(self, decision: Event, expected_seq: int | None = None) -> list[Stored]:
        """Check and apply a seat's decision; append it with its outcomes as one batch."""
        self._expect(expected_seq)
        batch = self.engine.decide(decision)  # IllegalDecisionError leaves everything as it was
        batch += self._answer_chance()
        return self._append(batch)

    def concede(self, seat: str, reason: str = "", expected_seq: int | None = None) -> list[Stored]:
        return self.submit(Conceded(as_seat(seat), reason), expected_seq)

    def give_game_loss(self, seat: str, reason: str = "", expected_seq: int | None = None
                       ) -> list[Stored]:
        """A judge's game loss for ``seat``: the match ends with reason ``game_loss``."""
        return self.submit(GameLossGiven(as_seat(seat), reason), expected_seq)

    def give_draw(self, kind: DrawKind, reason: str = "", judge: str = "judge",
                  expected_seq: int | None = None) -> list[Stored]:
        """A judge's draw (``agreed`` by both players, or at ``time``): the match ends with no
        winner and ``kind`` as its reason (docs/rulings.md R45)."""
        return self.submit(DrawGiven(kind, reason, judge), expected_seq)

    def call_judge(self, seat: str, text: str = "", expected_seq: int | None = None
                   ) -> list[Stored]:
        """A seat asks for the judge; refused once the match has ended (its record is final)."""
        self._expect(expected_seq)
        if self.engine.state.over:
            raise IllegalDecisionError(f"{self.match_id}: the match has ended; its record is "
                                       f"final, so a judge call is not recorded")
        return self._append([JudgeCalled(as_seat(seat), text)])

    def note(self, judge: str, text: str, expected_seq: int | None = None) -> list[Stored]:
        self._expect(expected_seq)
        return self._append([JudgeNote(judge, text)])

    def annotate(self, about: int, author: str, name: str, text: str,
                  expected_seq: int | None = None) -> list[Stored]:
        """A note on the earlier moment ``about``; a seat (``A``/``B``) may annotate only once
        the match has ended (a live seat's note could carry what its hand holds to the
        public).  Appending after ``MatchEnded`` keeps the hash chain: it simply grows."""
        self._expect(expected_seq)
        if not 0 <= about < self.length:
            raise IllegalDecisionError(f"{self.match_id}: a note is about an earlier event: "
                                       f"seq {about} is outside 0..{self.length - 1}")
        if author in ("A", "B") and not self.engine.state.over:
            raise IllegalDecisionError(f"{self.match_id}: seat {author} may annotate once the "
                                       f"match has ended (it is live)")
        return self._append([Annotated(about, author, name, text)])

    def manual(self, effect: Event, expected_seq: int | None = None) -> list[Stored]:
        """A judge's ruling (the game's administrative event, e.g. primitive operations),
        applied as given; recorded with the outcome events it stands for."""
        self._expect(expected_seq)
        try:
            events = self.game.apply_admin(self.engine, effect, self.opened)
        except ReplayError as exc:
            raise IllegalDecisionError(f"manual effect rejected: {exc}") from None
        return self._append(events + self._answer_chance())  # a ruling's shuffles (their orders)

    def take_back(self, to_seq: int, by: str = "judge", reason: str = "",
                  expected_seq: int | None = None) -> list[Stored]:
        """Restore the state at ``to_seq`` (the end of an earlier batch) and record it.

        Where a chance prompt is pending there (seq 0: the set-up's coin flip and shuffles
        come next) it is drawn afresh, as after any write, and recorded in the same batch,
        so the match goes on at a seat's prompt (a replay feeds those chance events after
        the ``TakenBack`` like any others)."""
        self._expect(expected_seq)
        if self.engine.state.over:
            # The record of an ended match (its file public, both deck orders in it) is final.
            raise IllegalDecisionError(
                f"{self.match_id}: the match has ended ({self.engine.state.reason}); its record "
                f"is final and a take-back can't reopen it")
        replay = Replay(list(self.store.read(self.match_id)), self.db)
        self._check_take_back(replay, to_seq)
        before, self.engine = self.engine, replay.engine_after(to_seq)
        try:
            batch = [TakenBack(to_seq, by, reason), *self._answer_chance()]
        except BaseException:
            self.engine = before
            raise
        return self._append(batch)  # a failed append reloads the engine from the store

    # -- internals -----------------------------------------------------------------------

    def _check_take_back(self, replay: Replay, to_seq: int) -> None:
        """A take-back returns to the end of an earlier recorded batch (not the last event:
        that would undo nothing) -- and not to seq 0 of a game whose set-up derives events of
        its own (State of Wonder places each seat's State first): the record's state at seq 0
        is before them, the engine's after them."""
        if not replay.is_batch_end(to_seq) or to_seq >= len(replay):
            raise IllegalDecisionError(f"seq {to_seq} is not the end of a recorded batch; "
                                       f"take back to a point where a prompt was pending")
        if to_seq == len(replay) - 1:
            # docs/api.md: ``to_seq`` is the end of an *earlier* batch.  A reader still folds
            # such a line of a file recorded before this check (it restores the state it has).
            raise IllegalDecisionError(f"seq {to_seq} is the match's last event: a take-back "
                                       f"to it would undo nothing; take back to the end of an "
                                       f"earlier batch")
        first = replay.segments[0] if replay.segments else None
        if to_seq == 0 and first is not None and not first.fed:
            raise IllegalDecisionError(
                f"{self.match_id}: seq 0 is before the set-up's own events (seq 1..{first.end}); "
                f"take back to seq {first.end}, the end of the set-up, to start the game again")

    def _answer_chance(self) -> list[Event]:
        return _chance_answered(self.game, self.engine, self.rng)

    def _expect(self, expected_seq: int | None) -> None:
        if expected_seq is not None and expected_seq != self.length:
            raise ConflictError(f"{self.match_id}: expected seq {expected_seq} but the match has "
                                f"{self.length} events; reload and decide again")

    def _append(self, batch: list[Event]) -> list[Stored]:
        if not batch:
            return []
        try:
            stored = self.store.append(self.match_id, batch, self.length, at=self.clock())
        except Exception:
            fresh = Recorder.resume(self.store, self.db, self.match_id, self.rng, self.clock)
            self.engine, self.length = fresh.engine, fresh.length
            raise
        self.length += len(stored)
        return stored


def _chance_answered(game: Game, engine: Rules, rng: random.Random) -> list[Event]:
    """The events of answering every chance prompt the engine stands at, from ``rng``."""
    out: list[Event] = []
    while engine.prompt is not None and engine.prompt.kind == "chance":
        out += engine.decide(game.answer_chance(engine.prompt, rng))
    return out
