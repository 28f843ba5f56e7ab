"""The Combat Phase: declaring attackers, the pitched battle, the city siege, retreats.

Rules ("Combat Phase"): "The Combat phase is split into three subphases: Declaring Attackers
Subphase, Pitched Battle Subphase, City Siege Subphase."  Each step below quotes the sentence
it implements; the gaps the text leaves are ruled in docs/rulings-sow.md (R4-R8).
"""

from __future__ import annotations

from functools import partial

from ledger.events import Event, as_seat
from replay.prompts import Choose, Prompt
from replay.sow.actions import Actions
from replay.sow.events import (
    AttackersDeclared,
    BattleClosed,
    CombatJoined,
    CombatLocked,
    DamageAssigned,
    DefendersSent,
    Exhausted,
    JoinChosen,
    LockChosen,
    PlayerBesieged,
    Retreated,
    SiegeDefendersSent,
    SiegeEnded,
    SiegeEntered,
    SiegeStepBegan,
    StrikeChosen,
    StructureAttacked,
    UnitsReturned,
)
from replay.sow.flow import Steps
from replay.sow.revisions import PHASE_OVER_REVISION
from replay.sow.state import Battle, Seat, other

TACTICS_RULE = ("Combat Tactics: \"choosing one of their units and one of their opponent's "
                "units\"; then \"the out of turn player can choose either a unit to lock in "
                "combat or a combat to join\"")
SIEGE_RULE = ("City Siege: \"The attacking player can choose to attack a building or "
              "fortification with a unit\"")
UNIT_PICKS = {"attackers": "attack", "defenders": "defend", "siege_defenders": "defend"}
FORT_RULE = ("\"Fortifications has to be attacked before your opponent can attack anything "
             "else in your city\"")


class Combat(Actions):
    """The turn player's Combat Phase."""

    def combat_phase(self, seat: Seat) -> Steps:
        opponent = other(seat)
        yield from self.offer_retreats(seat)
        # "The turn player declares which units to attack with, by moving them into the
        # pitched battle zone and declaring another player to attack" (two players: R3).
        ready = self.view.ready_home_units(seat)
        answer = yield from self.ask(Prompt(seat, "attackers", choose=Choose(ready, 0, len(ready)),
                                            text="declare attackers (none: no attack)"))
        attackers = list(answer.pick or [])
        if attackers:
            self.emit(AttackersDeclared(seat, opponent, attackers))
            # "The defending player can choose to meet the attacking player in pitched battle
            # if they wish" -- with any of its ready units (R4).
            can_defend = self.view.ready_home_units(opponent)
            sent = yield from self.ask(Prompt(opponent, "defenders",
                                              choose=Choose(can_defend, 0, len(can_defend)),
                                              text="send units to meet them in pitched battle"))
            defenders = list(sent.pick or [])
            if defenders:
                self.emit(DefendersSent(opponent, defenders))
                over = yield from self.pitched_battle(seat, opponent)
                if over and self.state.revision >= PHASE_OVER_REVISION:
                    return  # R22: "the Combat Phase is over" -- no City Siege step this turn
            else:
                # "If the player does not wish to send any units to the Pitched Battle Zone,
                # the attacking player besieges the defending player"
                yield from self.enter_siege(seat, attackers)
                self.emit(BattleClosed("pitched"))
        if any(not self.state.cards[u].exhausted for u in self.view.besiegers(seat)):
            yield from self.siege_step(seat, opponent)

    def offer_retreats(self, turn: Seat) -> Steps:
        """"If a player is in a city siege, they can declare to retreat their units during any
        player's Declare Attackers Step. To do this, return all the units that player controls
        in that city siege back to that player's City Zone.\""""
        for seat in (turn, other(turn)):
            units = self.view.besiegers(seat)
            if not units:
                continue
            answer = yield from self.ask(Prompt(seat, "retreat", options=["stay", "retreat"],
                                                text="retreat your besieging units?"))
            if answer.pick == "retreat":
                self.emit(Retreated(seat, units))
                self.emit(SiegeEnded(seat, "retreat"))

    # -- pitched battle ----------------------------------------------------------------

    def pitched_battle(self, seat: Seat, opponent: Seat) -> Steps:
        """Tactics, damage, then where the survivors go.  Returns whether the Combat Phase is
        over: units are left on both sides or only on the defender's (R22)."""
        yield from self.tactics(seat, siege=False)
        yield from self.damage_step(seat)
        battle = self.battle()
        left = [u for u in battle.units if self.state.cards[u].owner == seat]
        foes = [u for u in battle.units if self.state.cards[u].owner == opponent]
        if left and not foes:
            # "If the attacker has units left, they may continue into a City Siege." (ruling R20:
            # only the attacker's units are left, so the attacker is asked)
            go = yield from self.ask(Prompt(seat, "siege", options=["besiege", "return"],
                                            text="continue into a City Siege?"))
            if go.pick == "besiege":
                yield from self.enter_siege(seat, left)
                left = []
        # "if there are units left on both sides or only on the defender's side, the Combat
        # Phase is over and both side's units return to their city."
        home = [*left, *foes]
        if home:
            self.emit(UnitsReturned(home))
        self.emit(BattleClosed("pitched"))
        return bool(foes)

    # -- city siege --------------------------------------------------------------------

    def enter_siege(self, seat: Seat, units: list[str]) -> Steps:
        """"When a player first enters into a City Siege with another player, the attacking
        player besieges their opponent. Trigger all abilities that state that they are
        triggered when a player is besieged." (R8: the besieged player's first.)"""
        opponent = other(seat)
        first = not self.state.players[seat].besieging
        self.emit(SiegeEntered(seat, units))
        if first:
            self.emit(PlayerBesieged(seat, opponent))
            yield from self.resolve_triggers((opponent,), "besieged")
            yield from self.resolve_triggers((seat,), "besieging")
        self.end_siege_if_empty(seat)

    def end_siege_if_empty(self, seat: Seat) -> None:
        """"or if there are no remaining units controlled by the attacking player still inside
        the opponent's City Zone.\""""
        if self.state.players[seat].besieging and not self.view.besiegers(seat):
            self.emit(SiegeEnded(seat, "no units"))

    def siege_step(self, seat: Seat, opponent: Seat) -> Steps:
        """"the City Siege phase is played out as a normal pitched battle ... WITH the
        following exception: The attacking player can choose to attack a building or
        fortification with a unit."  Only ready besiegers fight (R6)."""
        fighters = [u for u in self.view.besiegers(seat) if not self.state.cards[u].exhausted]
        self.emit(SiegeStepBegan(seat, opponent, fighters))
        can_defend = self.view.ready_home_units(opponent)
        sent = yield from self.ask(Prompt(opponent, "siege_defenders",
                                          choose=Choose(can_defend, 0, len(can_defend)),
                                          text="send units against the besiegers"))
        if sent.pick:
            self.emit(SiegeDefendersSent(opponent, list(sent.pick)))
        yield from self.tactics(seat, siege=True)
        yield from self.damage_step(seat)
        self.emit(BattleClosed("siege"))
        self.end_siege_if_empty(seat)

    # -- tactics -----------------------------------------------------------------------

    def battle(self) -> Battle:
        assert self.state.battle is not None
        return self.state.battle

    def unassigned(self, seat: Seat) -> list[str]:
        b = self.battle()
        return [u for u in b.units if self.state.cards[u].owner == seat and u not in b.assigned]

    def tactic_options(self, seat: Seat) -> list[Event]:
        b = self.battle()
        mine, theirs = self.unassigned(seat), self.unassigned(other(seat))
        options: list[Event] = []
        for unit in mine:
            options += [LockChosen(seat, unit, enemy) for enemy in theirs]
            options += [JoinChosen(seat, unit, i) for i in range(len(b.combats))]
            if b.step == "siege" and seat == b.attacker:
                options += [StrikeChosen(seat, unit, t)
                            for t in self.view.siege_targets(b.defender)]
        return options

    def tactic_count(self, seat: Seat) -> int:
        """How many decisions ``tactic_options`` lists for ``seat`` (without listing them)."""
        b = self.battle()
        mine = self.unassigned(seat)
        if not mine:
            return 0
        each = len(self.unassigned(other(seat))) + len(b.combats)
        if b.step == "siege" and seat == b.attacker:
            each += len(self.view.siege_targets(b.defender))
        return len(mine) * each

    def is_tactic(self, seat: Seat, decision: Event) -> bool:
        """Whether ``tactic_options(seat)`` lists ``decision`` (without listing them)."""
        if not isinstance(decision, (LockChosen, JoinChosen, StrikeChosen)):
            return False
        b = self.battle()
        if decision.seat != seat or decision.unit not in self.unassigned(seat):
            return False
        if isinstance(decision, LockChosen):
            return decision.enemy in self.unassigned(other(seat))
        if isinstance(decision, JoinChosen):
            return decision.combat in range(len(b.combats))
        return (b.step == "siege" and seat == b.attacker
                and decision.target in self.view.siege_targets(b.defender))

    def tactics(self, turn: Seat, siege: bool) -> Steps:
        """"The players alternate locking units into combat until there are no more
        unassigned units left" (a player with nothing left to assign is skipped, R17).  Who
        assigns next is kept in the state (``Battle.actor``)."""
        while True:
            actor = self.battle().actor or turn
            count = self.tactic_count(actor)
            if not count:
                actor = other(actor)
                count = self.tactic_count(actor)
                if not count:
                    return
            decision = yield from self.ask_listing(
                Prompt(actor, "tactics", text="lock a unit, join a combat"
                       + (" or attack a structure" if siege else "")),
                partial(self.tactic_options, actor),
                self.tactic_options(actor)[0] if count == 1 else None)
            self.apply_tactic(decision)

    def apply_tactic(self, decision: Event) -> None:
        b = self.battle()
        if isinstance(decision, LockChosen):
            self.emit(CombatLocked(len(b.combats), decision.seat, decision.unit, decision.enemy))
        elif isinstance(decision, JoinChosen):
            self.emit(CombatJoined(decision.combat, decision.seat, decision.unit))
        elif isinstance(decision, StrikeChosen):
            self.strike(decision.unit, decision.target)

    def strike(self, unit: str, target: str) -> None:
        """"damage is immediately dealt to that building ... Attacking buildings or
        fortifications exhausts the unit doing so" (R7: no damage back)."""
        self.emit(StructureAttacked(unit, target, self.state.cards[target].name))
        self.emit(Exhausted(unit, self.state.cards[unit].name, "siege attack"))
        self.deal_damage(unit, target, self.view.attack(unit))
        self.destroy_lethal([target], "siege")

    def why_not_tactic(self, decision: Event) -> str:
        b = self.battle()
        seat = as_seat(getattr(decision, "seat", ""))  # engine.check: the pending prompt's seat
        unit = getattr(decision, "unit", "")
        if unit not in self.unassigned(seat):
            return f"{unit} is not an unassigned unit of yours in this battle ({TACTICS_RULE})"
        if isinstance(decision, LockChosen):
            return (f"{decision.enemy} is not an unassigned enemy unit in this battle "
                    f"({TACTICS_RULE})")
        if isinstance(decision, JoinChosen):
            return f"there is no combat {decision.combat} to join ({TACTICS_RULE})"
        if isinstance(decision, StrikeChosen):
            if b.step != "siege" or seat != b.attacker:
                return f"only the besieging player's units attack structures ({SIEGE_RULE})"
            if self.state.owned(b.defender, "fortifications"):
                return f"{decision.target} cannot be attacked yet: {FORT_RULE}"
            return f"{decision.target} is not a building or fortification of the besieged city"
        return "answer the tactics prompt with LockChosen, JoinChosen or StrikeChosen"

    def why_not_pick(self, prompt: Prompt, pick: object) -> str | None:
        """Why a pick of units to attack or defend names a unit that cannot (the rule)."""
        if prompt.choose is None or prompt.kind not in UNIT_PICKS or not isinstance(pick, list):
            return None
        wrong = [u for u in pick if u not in prompt.choose.of]
        if not wrong:
            return None
        return (f"{wrong[0]!r} cannot be picked: only your ready units in your Unit Area can "
                f"{UNIT_PICKS[prompt.kind]} (\"Units are exhausted the turn they are played. "
                f"This means the card is turned sideways and cannot attack or defend.\")")

    # -- damage ------------------------------------------------------------------------

    def damage_step(self, turn: Seat) -> Steps:
        """"When all units have been assigned to a combat, damage is dealt. Each combatant
        deals their attack to the other combatant. If there are multiple combatants on each
        side, the controller of the unit decides how each unit distributes its damage among
        the enemy units.\""""
        # A unit destroyed while the tactics went on (its health fell, R23) deals and takes
        # no damage: only the units still in the battle fight.
        fighting = self.battle().units
        for combat in [[u for u in c if u in fighting] for c in self.battle().combats]:
            for seat in (turn, other(turn)):
                for unit in [u for u in combat if self.state.cards[u].owner == seat]:
                    enemies = [u for u in combat if self.state.cards[u].owner != seat]
                    yield from self.distribute(seat, unit, enemies)
        splits = {unit: dict(split) for unit, split in self.battle().splits.items()}
        for unit, split in splits.items():
            for enemy, amount in split.items():
                self.deal_damage(unit, enemy, amount)
        # "Units which have been dealt damage equal to or more than their health are destroyed."
        self.destroy_lethal([u for c in self.battle().combats for u in c], "combat")

    def distribute(self, seat: Seat, unit: str, enemies: list[str]) -> Steps:
        """The controller splits the unit's attack among the enemies, one enemy at a time
        (how much of what is left to this one?); the last enemy gets the rest.  Each part is
        recorded (``DamageAssigned``) as it is chosen, so the split so far is in the state."""
        for k, enemy in enumerate(enemies):
            done = self.battle().splits.get(unit, {})
            if enemy in done:
                continue
            remaining = self.view.attack(unit) - sum(done.values())
            if k == len(enemies) - 1:
                amount = remaining
            else:
                answer = yield from self.ask(Prompt(
                    seat, "damage", options=list(range(remaining + 1)), card=unit,
                    text=f"{unit} has {remaining} damage left: how much to {enemy}?"))
                amount = answer.pick
            self.emit(DamageAssigned(seat, unit, enemy, amount))
