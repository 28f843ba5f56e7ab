"""Battles (rule 404.3): the six steps of 404.3.2, seizing stones, deathstrike and flying
(and, from revision 11, Rage's sacrifice among the end-of-battle effects).

Read :meth:`Battles.battle` top to bottom; the two rulesets differ in where deathstrike
resolves and when flying moves (see ``../shared/rules/README.md``).
"""

from __future__ import annotations

from typing import Literal

from replay.prompts import Choose, Prompt
from replay.wotf.bus import Occurrence
from replay.wotf.effects import DONE, can_fly, fly
from replay.wotf.events import (
    BattleResolved,
    BattleStarted,
    FlightScheduled,
    FlightsCleared,
    SeizePrevented,
    StoneSeized,
)
from replay.wotf.revisions import END_OF_BATTLE_BATCH_REVISION, RAGE_SACRIFICE_BATCH_REVISION
from replay.wotf.state import Seat, other
from replay.wotf.table import Component, Flow
from replay.wotf.trigger import Trigger

#: Who won a battle (404.3.2 step 4), as ``BattleResolved`` records it.
Victor = Literal["attacker", "defender", "tie"]


class Battles(Component):
    """One battle, start to finish: a component of the engine."""

    def battle(self, attacker: Seat, realm: int, free: bool = False,
               rage_card: str | None = None) -> Flow:
        s, v = self.state, self.view
        defender = other(attacker)
        self.emit(BattleStarted(realm, attacker, defender, free_attack=free))
        # Step 1, On Attack: all the attacker's Wonders here attack together (404.3.1).
        # Flying is an on-attack ability whose effect waits for the end of battle.
        fliers = [c.id for c in v.in_realm(realm, attacker)
                  if v.is_wonder(c.id) and v.has(c.id, "flying")]
        yield from self.g.resolve(self._step_triggers(realm, attacker, "attacks"))
        # Steps 2 and 3, On Defense and On Battle (card abilities; no keyword uses them).
        yield from self.g.resolve(self._step_triggers(realm, defender, "defends"))
        yield from self.g.resolve(self._step_triggers(realm, None, "battles"))
        # Step 4, check for victory: sum each side's power.
        attack_power, attackers = v.side_power(realm, attacker)
        defense_power, defenders = v.side_power(realm, defender)
        result = _victor(s.ruleset, attack_power, attackers, defense_power, defenders)
        self.emit(BattleResolved(realm, attacker, attack_power, defense_power, result))
        strikers = self._deathstrikers(realm, attacker, result)
        if s.ruleset == "1.3.2":
            # v1.3.2 Deathstrike: resolves right after the check, before protectors and flying.
            yield from self.g.resolve(strikers)
        # Step 5, move a stone: the winner seizes one (the defender too, if it won).
        if result != "tie":
            winner = attacker if result == "attacker" else defender
            yield from self._seize(realm, winner, attacker)
        # Step 6, end of battle.
        if s.revision >= END_OF_BATTLE_BATCH_REVISION:
            yield from self._end_of_battle(realm, attacker, strikers, fliers, rage_card)
        else:
            if s.ruleset == "1.2":
                # v1.2 Deathstrike: its effect resolves in the end-of-battle step.
                yield from self.g.resolve(strikers)
                if fliers:  # v1.2 Flying: they move at the end of the turn
                    self.emit_stack(FlightScheduled(fliers))
            else:
                yield from self._fly(fliers, attacker)  # v1.3.2 Flying: battle step 6
            yield from self.g.resolve(self._step_triggers(realm, None, "battle_ends"))
        if rage_card is not None and s.revision < RAGE_SACRIFICE_BATCH_REVISION and \
                s.cards[rage_card].zone == "world":
            yield from self.g.die(rage_card, "sacrifice", "rage")  # Rage: sacrificed after its battle
        yield from self.g.settle()

    def _end_of_battle(self, realm: int, attacker: Seat, strikers: list[Trigger],
                       fliers: list[str], rage_card: str | None) -> Flow:
        """404.3.2 step 6 (revision 10): "resolve any end-of-battle effects. These include
        abilities such as Flying ..., Deathstrike [v1.2], or other cards that trigger 'at end
        of battle'" -- they happen at the same time, so they are one batch of triggers in the
        active player's order (502), each collected before any of them resolves: a flier's
        own "end of battle" ability triggers even if it flies first (docs/rulings.md R42).
        From revision 11 Rage's "sacrifice this at the end of battle" is one of them (a
        ``rage_sacrifice`` trigger); revision 10 sacrificed the rage Wonder after the batch.
        Revisions 1-9 moved the fliers first, then collected the end-of-battle abilities of
        the cards still here (v1.2: deathstrike first)."""
        batch: list[Trigger] = []
        if self.state.ruleset == "1.2":
            batch += strikers  # v1.2 Deathstrike resolves in the end-of-battle step
            if fliers:  # v1.2 Flying: they move at the end of the turn
                self.emit_stack(FlightScheduled(fliers))
        else:
            batch += [Trigger(fid, attacker, "flying", realm) for fid in fliers
                      if can_fly(self.g, fid, attacker)]
        batch += self._step_triggers(realm, None, "battle_ends")
        if rage_card is not None and self.state.revision >= RAGE_SACRIFICE_BATCH_REVISION \
                and self.state.cards[rage_card].zone == "world":
            batch.append(Trigger(rage_card, attacker, "rage_sacrifice", realm))
        yield from self.g.resolve(batch)

    def _step_triggers(self, realm: int, seat: Seat | None, event: str) -> list[Trigger]:
        """A battle step's triggers: the event run for each of ``seat``'s cards here
        (everyone's if None): their abilities of that step, and "whenever … attacks /
        defends" (404.3.2 steps 1–3, 6)."""
        triggers: list[Trigger] = []
        for c in list(self.view.in_realm(realm)):
            if seat is not None and c.controller != seat:
                continue
            triggers += self.g.run_event(Occurrence(event, c.id, c.controller, realm))
        return triggers

    def _deathstrikers(self, realm: int, attacker: Seat, result: Victor) -> list[Trigger]:
        """Deathstrike triggers of each Wonder here whose side won or tied."""
        sides: list[Seat] = {"attacker": [attacker], "defender": [other(attacker)],
                 "tie": [attacker, other(attacker)]}[result]
        triggers: list[Trigger] = []
        for c in self.view.in_realm(realm):
            if c.controller in sides and self.view.is_wonder(c.id):
                triggers += self.g.run_event(Occurrence("wins_battle", c.id, c.controller, realm))
        return triggers

    def _seize(self, realm: int, winner: Seat, attacker: Seat) -> Flow:
        """404.3.2 step 5 / Seize Stone: one stone from the center or the opponent."""
        v = self.view
        stones = v.realm_stones(realm)  # revision 9: none in a banished realm
        sources = sorted({st for st in stones if st != winner}, key=["center", "A", "B"].index)
        if not sources:
            return  # you can't seize a stone you already control
        if winner == attacker:
            # Protector: a protector counter in this battle stops the seizure instead.
            protectors = [c.id for c in v.in_realm(realm, other(attacker))
                          if c.counters.get("protector", 0) > 0 and self._in_battle(c.id)]
            if protectors:
                pick = yield from self.ask(Prompt(other(attacker), "target", options=protectors,
                                                  text="remove a protector counter from"))
                self.g.add_counters(pick, "protector", -1)
                self.emit(SeizePrevented(realm, pick))
                return
        source = yield from self.ask(Prompt(winner, "stone", options=sources,
                                            text=f"seize a stone in realm {realm}"))
        self.emit(StoneSeized(realm, winner, source))  # the seizer goes first next (403.2)

    def _in_battle(self, cid: str) -> bool:
        """Whether a card in the realm is in the battle: from revision 9 only Wonders ("Only
        cards with a power stat can battle"), so a protector counter on a land or an item
        stops nothing; before, any card's did."""
        return self.state.revision < 9 or self.view.is_wonder(cid)

    def _fly(self, fliers: list[str], seat: Seat | None) -> Flow:
        """Flying: each attacking flier may move to an adjacent active realm (those ``seat``
        controls; none if ``seat`` is None).  From revision 8, when more than one may fly,
        their controller (the attacker, the active player) orders their moves first: each is
        a triggered effect of its own flier, resolved in the active player's order (502)."""
        fliers = yield from self._flight_order(fliers, seat)
        if seat is None:
            return
        for fid in fliers:
            pick = yield from fly(self.g, fid, seat)
            if pick is not None:
                yield from self.g.move_realm(fid, pick, "flying")

    def _flight_order(self, fliers: list[str], seat: Seat | None) -> Flow:
        """The order the fliers' moves resolve in (revision 8: the active player's choice when
        two or more can fly; before, the order they were listed in)."""
        able = [fid for fid in fliers if can_fly(self.g, fid, seat)]
        if self.state.revision < 8 or len(able) < 2 or seat is None:
            return fliers
        order = yield from self.ask(Prompt(seat, "order", choose=Choose(
            able, len(able), len(able), ordered=True),
            text="order your fliers' moves (rule 502)"))
        return list(order)

    def fly_at_end_of_turn(self) -> Flow:
        """v1.2 Flying: the fliers scheduled this turn leave the stack and may fly now.
        Asked at the end of every turn: with none scheduled, no procedure is started."""
        stack = self.state.stack
        if stack is None or not stack.fliers:
            return DONE
        return self._fly_scheduled(list(stack.fliers))

    def _fly_scheduled(self, fliers: list[str]) -> Flow:
        self.emit_stack(FlightsCleared(fliers))
        seat = self.state.cards[fliers[0]].controller
        yield from self._fly(fliers, seat)


def _victor(ruleset: str, attack: int | float, attackers: int, defense: int | float,
            defenders: int) -> Victor:
    """404.3.2 step 4, with v1.3.2's "any Wonders beat no Wonders" (v1.2: any attack vs. no
    enemies wins)."""
    if ruleset == "1.3.2":
        if attackers and not defenders:
            return "attacker"
        if defenders and not attackers:
            return "defender"
    elif not defenders:
        return "attacker"
    if attack > defense:
        return "attacker"
    if defense > attack:
        return "defender"
    return "tie"

