"""Simulated players for State of Wonder: ``random`` and ``greedy``, and the chance answerer.

A bot reads its seat from ``prompt.seat`` (never from display text) and answers with a legal
decision: one of the listed options, a ``Picked`` of one, or a pick fitting a ``Choose``.
Randomness comes only from the ``random.Random`` the bot was made with.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ledger.events import Event, as_seat
from replay.prompts import Prompt
from replay.sow.events import (
    ActivationChosen,
    CultureOrdered,
    InitiativeTossed,
    LockChosen,
    MainPassed,
    Picked,
    PlayChosen,
    StrikeChosen,
)
from replay.sow.state import other


def _as_decision(prompt: Prompt, option: Any) -> Event:
    if isinstance(option, Event):
        return option
    return Picked(as_seat(prompt.seat), prompt.kind, option)


class RandomBot:
    """Any legal answer, uniformly; a subset of random size for a ``Choose``."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def decide(self, rules: Any, prompt: Prompt) -> Event:
        if prompt.choose is not None:
            spec = prompt.choose
            size = self.rng.randint(spec.min, spec.max)
            return Picked(as_seat(prompt.seat), prompt.kind, self.rng.sample(spec.of, size))
        return _as_decision(prompt, self.rng.choice(prompt.options))


class GreedyBot:
    """Builds first, attacks when it outnumbers the defence, strikes structures when it can."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def decide(self, rules: Any, prompt: Prompt) -> Event:
        pick = getattr(self, f"_{prompt.kind}", None)
        if pick is not None:
            return pick(rules, prompt)
        if prompt.choose is not None:  # defenders, siege defenders: everything it has
            return Picked(as_seat(prompt.seat), prompt.kind, list(prompt.choose.of))
        return _as_decision(prompt, prompt.options[0])

    def _turn(self, rules: Any, prompt: Prompt) -> Event:
        plays = [o for o in prompt.options if isinstance(o, PlayChosen)]
        if plays:
            return max(plays, key=lambda o: (rules.view.card(o.card).cost, o.card))
        uses = [o for o in prompt.options if isinstance(o, ActivationChosen)]
        if uses and self.rng.random() < 0.7:
            return self.rng.choice(uses)
        return next(o for o in prompt.options if isinstance(o, MainPassed))

    def _attackers(self, rules: Any, prompt: Prompt) -> Event:
        assert prompt.choose is not None
        mine = prompt.choose.of
        theirs = rules.view.ready_home_units(other(as_seat(prompt.seat)))
        go = len(mine) > len(theirs) or (mine and self.rng.random() < 0.3)
        return Picked(as_seat(prompt.seat), prompt.kind, list(mine) if go else [])

    def _tactics(self, rules: Any, prompt: Prompt) -> Event:
        for kind in (StrikeChosen, LockChosen):
            found = [o for o in prompt.options if isinstance(o, kind)]
            if found:
                return self.rng.choice(found)
        return self.rng.choice(prompt.options)

    def _damage(self, rules: Any, prompt: Prompt) -> Event:
        return Picked(as_seat(prompt.seat), prompt.kind, max(prompt.options))

    def _retreat(self, rules: Any, prompt: Prompt) -> Event:
        return Picked(as_seat(prompt.seat), prompt.kind, "stay")

    def _siege(self, rules: Any, prompt: Prompt) -> Event:
        return Picked(as_seat(prompt.seat), prompt.kind, "besiege")

    def _retrieve(self, rules: Any, prompt: Prompt) -> Event:
        best = max(prompt.options, key=lambda cid: (rules.view.card(cid).cost, cid))
        return Picked(as_seat(prompt.seat), prompt.kind, best)


def answer_chance(prompt: Prompt, rng: random.Random) -> Event:
    """The chance event answering a chance prompt, drawn from ``rng``."""
    if prompt.chance == "InitiativeTossed":
        return InitiativeTossed(rng.choice(prompt.options))
    assert prompt.choose is not None
    order = list(prompt.choose.of)
    rng.shuffle(order)
    return CultureOrdered(as_seat(prompt.text.removeprefix("shuffle ")), order)


BOTS: dict[str, Callable[[random.Random], RandomBot | GreedyBot]] = {
    "random": RandomBot, "greedy": GreedyBot}
