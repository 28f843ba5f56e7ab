"""The plumbing every part of the procedure shares: emitting outcomes and asking prompts.

:class:`Flow` is the base of the engine's mixins (:mod:`replay.sow.abilities`,
:mod:`replay.sow.combat`, :mod:`replay.sow.actions`, :mod:`replay.sow.engine`).  ``emit``
applies an outcome through :func:`replay.sow.evolve.evolve` (the only writer of state); ``ask``
suspends the procedure at a prompt -- or answers it itself when exactly one answer is legal
(DESIGN.md section 3), recording nothing.  ``ask_listing`` does the same for a prompt that lists
decisions (the Main Phase, combat tactics), listing them only when someone reads
:attr:`Flow.prompt`: a replay checks each recorded decision by itself (``Engine.check``) and
never needs the list, which was a sixth of its time.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import msgspec

from ledger.events import Event, MatchEnded, as_seat
from replay.prompts import Prompt
from replay.sow.cards import CardPool
from replay.sow.events import Picked, ProgressAdded, StateLost
from replay.sow.evolve import evolve
from replay.sow.queries import View
from replay.sow.state import Seat, SowState, other

Steps = Generator[Prompt, Any, Any]


class MatchOver(Exception):
    """Raised inside the procedure when the match ends mid-way (a Wonder completes, a State
    falls)."""


class Flow:
    """State, cards, the events of the current call, and the two primitives."""

    def __init__(self, cards: CardPool, state: SowState):
        self.cards = cards
        self.state = state
        self.view = View(state, cards)
        self._prompt: Prompt | None = None
        # the pending prompt's options, when they are listed only once read (ask_listing)
        self._unlisted: Callable[[], list[Any]] | None = None
        self.out: list[Event] = []
        self.on_emit: Callable[[Event], None] | None = None

    @property
    def prompt(self) -> Prompt | None:
        """The pending prompt, with its options (listed now, if ``ask_listing`` left them to
        be: the state has not changed since it asked)."""
        if self._unlisted is not None:
            assert self._prompt is not None
            self._prompt = msgspec.structs.replace(self._prompt, options=self._unlisted())
            self._unlisted = None
        return self._prompt

    @prompt.setter
    def prompt(self, prompt: Prompt | None) -> None:
        self._prompt, self._unlisted = prompt, None

    def emit(self, event: Event) -> None:
        evolve(self.state, event)
        self.out.append(event)
        if self.on_emit is not None:
            self.on_emit(event)

    def ask(self, prompt: Prompt) -> Steps:
        """Wait for the answer to ``prompt``: the decision event itself for prompts that list
        decisions, else a ``Picked``.  One legal answer: taken without asking.  (``ask`` is
        for a seat's prompts; ``Prompt.seat`` is a ``str`` because it may be "chance".)"""
        if prompt.choose is None and len(prompt.options) == 1:
            only = prompt.options[0]
            return only if isinstance(only, Event) else Picked(as_seat(prompt.seat), prompt.kind, only)
        if prompt.choose is not None and (prompt.choose.max == 0 or not prompt.choose.of):
            return Picked(as_seat(prompt.seat), prompt.kind, [])
        answer = yield prompt
        return answer

    def ask_listing(self, prompt: Prompt, options: Callable[[], list[Event]],
                    only: Event | None) -> Steps:
        """``ask`` for a prompt that lists decisions (``prompt`` without its options):
        ``options()`` lists them, called only when someone reads :attr:`prompt`; ``only`` is
        the one legal decision when there is exactly one (taken without asking), else
        ``None``."""
        if only is not None:
            return only
        self._unlisted = options  # the engine takes the prompt as it is yielded (_advance)
        answer = yield prompt
        return answer

    def end_match(self, winner: Seat | None, reason: str) -> None:
        self.emit(MatchEnded(winner, reason))
        raise MatchOver

    # -- outcomes that can end the match -----------------------------------------------

    def add_progress(self, cid: str, amount: int) -> None:
        """Rules: "If a wonder ever reaches its target, the player controlling it wins the
        game" -- checked whenever a counter is put on it."""
        c = self.state.cards[cid]
        target = self.view.card(cid).progress_rate
        self.emit(ProgressAdded(cid, c.name, amount, c.progress + amount))
        if self.state.cards[cid].progress >= target:
            self.end_match(c.owner, "progress")

    def lose_state(self, seat: Seat, cid: str) -> None:
        """"when all other players have lost their State card (i.e. it has been destroyed by
        damage)" -- with two players, the other player wins at once."""
        self.emit(StateLost(seat, cid, self.state.cards[cid].name))
        self.end_match(other(seat), "state_destroyed")
