"""Bots that answer prompts, and the chance seat's answers.

* :func:`answer_chance` -- the chance seat: a coin flip or a full shuffle from an RNG (a
  seeded ``random.Random`` in simulation, ``random.SystemRandom`` when recording live).
* :class:`RandomBot` -- picks uniformly among the legal options.
* :class:`GreedyBot` -- plays visibly better: it spends its energy on the strongest cards,
  attacks where it wins, and keeps its hand for later rounds when nothing is worth doing.

Bots only read the engine (``legal_options``, the state through ``view``); they never
change it.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from ledger.events import Event, as_seat
from replay.prompts import Choose, Prompt
from replay.wotf.events import (
    ActivationDeclared,
    Answered,
    AttackDeclared,
    CoinFlipped,
    DeckOrdered,
    DeckShuffled,
    DrawDeclared,
    ManualResolved,
    Passed,
    PlayDeclared,
)
from replay.wotf.state import other

if TYPE_CHECKING:
    from replay.wotf.engine import Engine


def answer_chance(prompt: Prompt, rng: random.Random) -> Event:
    """The chance seat answers: a coin flip winner, or a full permutation of a deck."""
    if prompt.choose is None:
        return CoinFlipped(rng.choice(prompt.options))
    order = list(prompt.choose.of)
    rng.shuffle(order)
    if prompt.chance == "DeckOrdered":
        return DeckOrdered(as_seat(prompt.text.split()[-1]), order)
    return DeckShuffled(as_seat(prompt.text.split()[-1]), order)


def _choice(prompt: Prompt) -> Choose:
    """The ``choose`` of a prompt that asks for a pick of cards (mulligan, discard)."""
    if prompt.choose is None:
        raise ValueError(f"a {prompt.kind} prompt without a choice of cards")
    return prompt.choose


def answer_manual(prompt: Prompt) -> Event:
    """Bots can't read rules text: they record that an unscripted card did nothing."""
    return ManualResolved(as_seat(prompt.seat), prompt.card or "", [])


def scripted_options(engine: Engine) -> list[Event]:
    """Legal turn actions, without activating cards whose text is not scripted."""
    return [o for o in engine.legal_options()
            if not (isinstance(o, ActivationDeclared)
                    and engine.view.definition(o.card).has_unscripted_text)]


def random_pick(prompt: Prompt, rng: random.Random) -> Any:
    """A uniformly random legal pick for an answer prompt."""
    spec = prompt.choose
    if spec is None:
        return rng.choice(prompt.options)
    if spec.multiset:
        pick = list(spec.of)
        rng.shuffle(pick)
        return pick
    return rng.sample(spec.of, rng.randint(spec.min, spec.max))


class RandomBot:
    """A random-legal player."""

    name = "random"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def decide(self, engine: Engine) -> Event:
        prompt = engine.prompt
        assert prompt is not None, "a bot is asked only while a prompt is pending"
        if prompt.kind == "turn":
            return self.rng.choice(scripted_options(engine))
        if prompt.kind == "manual":
            return answer_manual(prompt)
        return Answered(as_seat(prompt.seat), prompt.kind, random_pick(prompt, self.rng))


class _Seen:
    """What the greedy bot reads of one decision's state, each fact read once: a turn's
    options repeat the same card in several realms and the same realm for several cards, and
    nothing changes the state while the bot weighs them (bots only read the engine)."""

    def __init__(self, engine: Engine, seat: str):
        self.engine, self.view, self.seat = engine, engine.view, seat
        self._sides: dict[tuple[int, str], tuple[float, int]] = {}
        self._costs: dict[str, int] = {}
        self._links: frozenset[str] | None = None

    def side_power(self, realm: int, seat: str) -> tuple[float, int]:
        key = (realm, seat)
        found = self._sides.get(key)
        if found is None:
            found = self._sides[key] = self.view.side_power(realm, seat)
        return found

    def play_cost(self, cid: str) -> int:
        found = self._costs.get(cid)
        if found is None:
            found = self._costs[cid] = self.engine.play_cost(self.seat, cid)
        return found

    def links(self) -> frozenset[str]:
        if self._links is None:
            self._links = self.view.links(self.seat)
        return self._links


class GreedyBot:
    """A simple strong player: best play for its energy, attacks it wins, sensible answers."""

    name = "greedy"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def decide(self, engine: Engine) -> Event:
        prompt = engine.prompt
        assert prompt is not None, "a bot is asked only while a prompt is pending"
        if prompt.kind == "turn":
            return self._turn(engine, prompt.seat)
        if prompt.kind == "manual":
            return answer_manual(prompt)
        return Answered(as_seat(prompt.seat), prompt.kind, self._answer(engine, prompt))

    # -- turns ---------------------------------------------------------------------------

    def _turn(self, engine: Engine, seat: str) -> Event:
        v = engine.view
        options = scripted_options(engine)
        seen = _Seen(engine, seat)  # this decision's state, each fact read once
        attacks = [o for o in options if isinstance(o, AttackDeclared)]
        plays = [o for o in options if isinstance(o, PlayDeclared)]
        winning = [a for a in attacks if self._attack_gain(seen, a.realm) > 0]
        if winning:
            return max(winning, key=lambda a: (self._attack_gain(seen, a.realm), -a.realm))
        if plays:
            return max(plays, key=lambda p: self._play_value(seen, p))
        if any(isinstance(o, DrawDeclared) for o in options) and len(v.s.players[seat].hand) < 4:
            return DrawDeclared(as_seat(seat))
        abilities = [o for o in options if not isinstance(o, (Passed, DrawDeclared))]
        if abilities:
            return abilities[0]  # activated and harvest abilities: use them rather than pass
        return Passed(as_seat(seat))

    def _attack_gain(self, seen: _Seen, realm: int) -> float:
        """How much an attack here is worth: a stone taken, nothing if it would not win."""
        seat = seen.seat
        mine, n_mine = seen.side_power(realm, seat)
        theirs, n_theirs = seen.side_power(realm, other(seat))
        wins = (n_mine and not n_theirs) or mine > theirs
        stones = seen.view.s.realms[realm - 1].stones
        if not wins or all(st == seat for st in stones):
            return 0
        return 2 if other(seat) in stones else 1

    def _play_value(self, seen: _Seen, play: PlayDeclared) -> float:
        """Prefer lands early, then the most power where it swings a realm."""
        v, seat = seen.view, seen.seat
        card = v.definition(play.card)
        if card.type == "land":
            links = seen.links()
            return 100 if not links or card.orbital not in links else 5
        if card.type != "wonder":
            return 0.5
        power = card.base_power
        value = power * 2.0 - seen.play_cost(play.card) * 0.5
        if play.realm is not None:
            mine, _ = seen.side_power(play.realm, seat)
            theirs, _ = seen.side_power(play.realm, other(seat))
            stones = v.s.realms[play.realm - 1].stones
            if any(st != seat for st in stones) and mine <= theirs < mine + power:
                value += 6  # this play would let us win the realm
            if play.realm == v.s.round:
                value += 1  # the newest realm is contested longest
            value -= max(0, mine - theirs) * 0.5  # don't pile onto a realm already won
        return value

    # -- answers -------------------------------------------------------------------------

    def _answer(self, engine: Engine, prompt: Prompt) -> Any:
        v = engine.view
        kind = prompt.kind
        if kind == "mulligan":
            # Bottom the most expensive cards beyond the first three if the hand is top-heavy.
            spec = _choice(prompt)
            costly = sorted(spec.of, key=lambda c: -v.definition(c).cost)
            return [c for c in costly if v.definition(c).cost >= 6][: spec.max]
        if kind == "first":
            return prompt.seat
        if kind == "may":
            return "yes"
        if kind == "realm" and prompt.choose is None:  # (506's distribute picks several)
            return "no" if "no" in prompt.options else prompt.options[-1]
        if kind == "target" and prompt.choose is None and all(o != "no" for o in prompt.options):
            return max(prompt.options, key=lambda cid: v.power(cid) if isinstance(cid, str)
                       and cid in v.s.cards and v.s.cards[cid].zone == "world" else 0)
        if kind == "discard":
            spec = _choice(prompt)
            by_cost = sorted(spec.of, key=lambda c: v.definition(c).cost)
            return by_cost[: spec.min]
        if kind == "stone":
            return other(prompt.seat) if other(prompt.seat) in prompt.options else prompt.options[0]
        return random_pick(prompt, self.rng)


BOTS = {"random": RandomBot, "greedy": GreedyBot}
