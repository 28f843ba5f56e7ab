"""Derived facts about a state: current power, keywords in force, links, realm control.

Pure functions of ``(state, cards)``; nothing here changes the state.  Each follows the rule
it cites.
"""

from __future__ import annotations

import math

from replay.cards import Card, CardDB
from replay.state import CardState, GameState

INF = math.inf


class View:
    """Read-only questions about one state, with its card database."""

    def __init__(self, state: GameState, db: CardDB):
        self.s = state
        self.db = db
        self._world: list[CardState] | None = None

    def touch(self) -> None:
        """Forget cached facts: call whenever a card changes area (the engine's ``move``)."""
        self._world = None

    # -- cards ---------------------------------------------------------------------------

    def card(self, cid: str) -> CardState:
        return self.s.cards[cid]

    def definition(self, cid: str) -> Card:
        return self.db[self.s.cards[cid].name]

    def world(self) -> list[CardState]:
        """Cards in The World, in the order of the state's card table."""
        if self._world is None:
            self._world = [c for c in self.s.cards.values() if c.zone == "world"]
        return self._world

    def in_realm(self, realm: int, controller: str | None = None) -> list[CardState]:
        return [c for c in self.world()
                if c.realm == realm and (controller is None or c.controller == controller)]

    def is_active_realm(self, realm: int) -> bool:
        """Active Realm: opened (1..round) and, under v1.3.2, not banished (301.2)."""
        if not 1 <= realm <= self.s.round:
            return False
        if self.s.ruleset == "1.3.2" and self.s.realms[realm - 1].banished:
            return False
        return True

    def active_realms(self) -> list[int]:
        return [r for r in range(1, self.s.round + 1) if self.is_active_realm(r)]

    # -- abilities -----------------------------------------------------------------------

    def is_nullified(self, cid: str) -> bool:
        """Null Counter: a card with a null counter is nullified (its rules text is blank)."""
        return self.s.cards[cid].counters.get("null", 0) > 0 or any(
            e.kind == "nullify" for e in self.s.cards[cid].effects)

    def keywords(self, cid: str) -> set[str]:
        """Keywords in force: printed plus copied by symbiosis, none while nullified."""
        if self.is_nullified(cid):
            return set()
        c = self.s.cards[cid]
        return set(self.db[c.name].keywords) | set(c.gained)

    def has(self, cid: str, keyword: str) -> bool:
        return keyword in self.keywords(cid)

    def is_wonder(self, cid: str) -> bool:
        """A Wonder, or a land with a growth counter (Growth: it is also a legendary Wonder)."""
        c = self.s.cards[cid]
        d = self.db[c.name]
        return d.type == "wonder" or (d.type == "land" and c.counters.get("growth", 0) > 0)

    def is_legendary_wonder(self, cid: str) -> bool:
        c = self.s.cards[cid]
        if self.db[c.name].type == "land":
            return c.counters.get("growth", 0) > 0
        return self.db[c.name].type == "wonder" and self.db[c.name].tier == "legendary"

    def links(self, seat: str) -> set[str]:
        """Link: orbitals linked by non-nullified cards the seat controls in The World."""
        found: set[str] = set()
        for c in self.world():
            if c.controller == seat and not self.is_nullified(c.id):
                found |= self.db[c.name].links
        return found

    def lands_controlled(self, seat: str) -> int:
        return sum(1 for c in self.world()
                   if c.controller == seat and self.db[c.name].type == "land")

    def controls_matching(self, seat: str, requirement: str) -> bool:
        """Attuned requirement: a land of an orbital, or a card of a type or class."""
        for c in self.world():
            if c.controller != seat:
                continue
            d = self.db[c.name]
            if requirement in ("Petraia", "Thalwind", "Solfera", "Umbrathene", "Heliosynth",
                               "Boundless"):
                if d.type == "land" and d.orbital == requirement:
                    return True
            elif requirement.lower() == d.type or requirement in d.classes:
                return True
        return False

    # -- power ---------------------------------------------------------------------------

    def base_power(self, cid: str) -> float:
        """Base power: the printed power (``*``/undefined is 0); growth lands count lands."""
        c = self.s.cards[cid]
        d = self.db[c.name]
        base: float
        if d.type == "land" and c.counters.get("growth", 0) > 0:
            base = self.lands_controlled(c.controller) if c.zone == "world" else 0
        else:
            base = d.base_power
        for e in c.effects:
            if e.kind == "base":
                base = e.amount  # stun: base power 0 this round; the latest overwrites (508)
        return base

    def power(self, cid: str) -> float:
        """Current power, in the order of operations of rule 101.6 (v1.3.2).

        Base → additive modifiers (+1/−1 counters, "gets +N") → multiplicative modifiers.
        An indeterminate value (∞ − ∞) is 0 (rule 102).
        """
        c = self.s.cards[cid]
        value = self.base_power(cid)
        value = _add(value, c.counters.get("+1", 0) - c.counters.get("-1", 0))
        for e in c.effects:
            if e.kind == "power+":
                value = _add(value, e.amount)
        for e in c.effects:
            if e.kind == "power*":
                value = _mul(value, e.amount)
        return value

    def side_power(self, realm: int, seat: str) -> tuple[float, int]:
        """(total power, number of Wonders) of a seat's Wonders in a realm (404.3.2 step 4)."""
        total: float = 0
        count = 0
        for c in self.in_realm(realm, seat):
            if self.is_wonder(c.id):
                total = _add(total, self.power(c.id))
                count += 1
        return total, count

    # -- stones --------------------------------------------------------------------------

    def stones_of(self, seat: str) -> int:
        return sum(r.stones.count(seat) for r in self.s.realms if not r.banished)

    def realm_controller(self, realm: int) -> str | None:
        """505.3: the player controlling the most stones in a realm, if there is one."""
        stones = self.s.realms[realm - 1].stones
        a, b = stones.count("A"), stones.count("B")
        if a > b:
            return "A"
        if b > a:
            return "B"
        return None


def _add(a: float, b: float) -> float:
    value = a + b
    return 0 if math.isnan(value) else value


def _mul(a: float, b: float) -> float:
    value = a * b
    return 0 if math.isnan(value) else value
