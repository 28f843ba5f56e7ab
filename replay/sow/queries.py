"""Read-only questions about a State of Wonder state: effective stats, income, targets.

Static abilities ("Income +1", "Your units get +1 attack") are applied here, while their
source is in play (rules: "Static Abilities are always on, they are constantly happening as
long as the source of the ability is in play").  Nothing here changes the state.
"""

from __future__ import annotations

from replay.sow.cards import Ability, Card, CardPool
from replay.sow.state import IN_PLAY, CardState, Seat, SowState, other

UNIT_AREAS = ("units", "battle", "siege")
STRUCTURE_AREAS = ("fortifications", "buildings", "state")


class View:
    """Questions about one state under one card pool."""

    def __init__(self, state: SowState, cards: CardPool):
        self.state = state
        self.cards = cards
        self._by_name = cards.by_name
        # (card name, static effect) -> what the card's static abilities of that effect add: a
        # fact of its definition (the pool never changes), asked of every card in play at
        # every stat a query reads
        self._static_amounts: dict[tuple[str, str], int] = {}
        # (card name, trigger) -> its triggered abilities of that trigger, in printed order
        self._triggers: dict[tuple[str, str], tuple[Ability, ...]] = {}

    def card(self, cid: str) -> Card:
        name = self.state.cards[cid].name
        card = self._by_name.get(name)
        return self.cards[name] if card is None else card  # unknown: the pool's CardDataError

    def in_play(self, seat: Seat) -> list[CardState]:
        return [c for c in self.state.cards.values() if c.owner == seat and c.area in IN_PLAY]

    def statics(self, seat: Seat, effect: str) -> int:
        if effect not in self.cards.static_effects:
            return 0  # no card of the pool has a static ability of this effect
        total = 0
        kept = self._static_amounts
        for c in self.state.cards.values():
            if c.owner == seat and c.area in IN_PLAY:  # in_play(seat), no list made
                key = (c.name, effect)
                amount = kept.get(key)
                if amount is None:
                    amount = kept[key] = sum(a.amount for a in self.cards[c.name].abilities
                                             if a.kind == "static" and a.effect == effect)
                total += amount
        return total

    # -- stats -------------------------------------------------------------------------

    def is_unit(self, cid: str) -> bool:
        return self.card(cid).type in ("unit", "hero")

    def attack(self, cid: str) -> int:
        c = self.state.cards[cid]
        return max(0, self.card(cid).attack + c.counters + self.statics(c.owner, "attack_bonus"))

    def health(self, cid: str) -> int:
        c = self.state.cards[cid]
        bonus = self.statics(c.owner, "health_bonus") if self.is_unit(cid) else 0
        return self.card(cid).health + c.counters + bonus

    def is_lethal(self, cid: str) -> bool:
        """Rules: "Units which have been dealt damage equal to or more than their health are
        destroyed"; a building's or fortification's value "reaches 0"."""
        return self.state.cards[cid].damage >= self.health(cid)

    def income(self, seat: Seat) -> int:
        """Start of Turn: "a State Card with an income of 4 and a card that has the following
        ability "Income +1" ... would gain 5 Gold"."""
        state_card = self.state_card(seat)
        base = self.card(state_card.id).income if state_card else 0
        return base + self.statics(seat, "income")

    # -- areas -------------------------------------------------------------------------

    def state_card(self, seat: Seat) -> CardState | None:
        return next((c for c in self.state.cards.values() if c.owner == seat and c.area == "state"),
                    None)

    def progress_card(self, seat: Seat) -> CardState | None:
        """The seat's Wonder or Hero in play (Wonders in the Building Area, Heroes in the Unit
        Area or fighting)."""
        return next((c for c in self.in_play(seat)
                     if self.card(c.id).type in ("wonder", "hero")), None)

    def home_units(self, seat: Seat) -> list[str]:
        return [c.id for c in self.state.owned(seat, "units") if self.is_unit(c.id)]

    def ready_home_units(self, seat: Seat) -> list[str]:
        """Exhausted units "cannot attack or defend"."""
        return [u for u in self.home_units(seat) if not self.state.cards[u].exhausted]

    def besiegers(self, seat: Seat) -> list[str]:
        """``seat``'s units in the Attacker Area of the opponent's city."""
        return [c.id for c in self.state.owned(seat, "siege")]

    def siege_targets(self, defender: Seat) -> list[str]:
        """What a besieging unit may attack: "Fortifications has to be attacked before your
        opponent can attack anything else in your city" (R7: then buildings, a Wonder, the
        State)."""
        forts = [c.id for c in self.state.owned(defender, "fortifications")]
        if forts:
            return forts
        return [c.id for c in self.state.owned(defender, "buildings", "state")]

    def targets(self, seat: Seat, target: str) -> list[str]:
        """Legal targets of an ability controlled by ``seat``."""
        s = self.state
        if target == "enemy_unit":
            return [c.id for c in s.cards.values() if c.owner == other(seat)
                    and c.area in UNIT_AREAS and self.is_unit(c.id)]
        if target == "own_unit":
            return [c.id for c in s.cards.values() if c.owner == seat
                    and c.area in UNIT_AREAS and self.is_unit(c.id)]
        if target == "own_exhausted_unit":
            return [u for u in self.targets(seat, "own_unit") if s.cards[u].exhausted]
        if target == "own_structure":
            return [c.id for c in s.owned(seat, *STRUCTURE_AREAS) if c.damage > 0]
        if target == "enemy_structure":
            # R25: an ability's damage is no attack -- fortifications first binds besiegers only
            return [c.id for c in s.owned(other(seat), "fortifications", "buildings")]
        return []

    def triggered(self, seat: Seat, when: str) -> list[tuple[str, Ability]]:
        """``seat``'s in-play abilities triggered by ``when``, in card order."""
        found: list[tuple[str, Ability]] = []
        if when not in self.cards.trigger_whens:
            return found  # no card of the pool has an ability triggered by ``when``
        kept = self._triggers
        for c in self.state.cards.values():
            if c.owner == seat and c.area in IN_PLAY:  # in_play(seat), no list made
                key = (c.name, when)
                abilities = kept.get(key)
                if abilities is None:
                    abilities = kept[key] = tuple(a for a in self.cards[c.name].abilities
                                                  if a.kind == "triggered" and a.when == when)
                found += [(c.id, a) for a in abilities]
        return found
