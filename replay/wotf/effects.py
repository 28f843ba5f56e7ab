"""Triggers, keywords and counters: the machinery every card ability is built on.

* **Triggers** (501/502): a game event run on the event bus (:mod:`replay.wotf.bus`)
  collects :class:`Trigger` objects from the keyword handlers here and the scripted
  abilities; :meth:`Effects.resolve` has the active player order simultaneous ones (an
  ``order`` prompt) and fires them one at a time, the ones still to come waiting on the stack
  in the state (``TriggersQueued``, ``TriggerDequeued``).  Heart of a Legend makes a card's
  printed keyword triggers trigger twice.
* **Replacements** ("instead", 504): a shield counter instead of destruction or targeting,
  a protector counter instead of a seizure, banishment instead of entering an inactive realm,
  a token ceasing to exist instead of staying outside The World.
* **Durations**: ``Effect(until="round")`` ends at round end (403.5).
* **State-based checks**: +1/−1 counters cancel at once; a Wonder with negative power dies.

Keywords with fixed meaning (rules section 7) are implemented here once; the engine never
names a card.
"""

from __future__ import annotations

from replay.prompts import Choose, Prompt
from replay.wotf.abilities import Ability
from replay.wotf.bus import Occurrence
from replay.wotf.cards import find_ability
from replay.wotf.events import (
    AbilitiesCopied,
    CardMoved,
    EffectApplied,
    EffectFinished,
    EffectsEnded,
    Equipped,
    EventCounted,
    TriggerDequeued,
    TriggerResolved,
    TriggersDeferred,
    TriggersQueued,
    Unequipped,
)
from replay.wotf.revisions import (
    EQUIP_LEAVES_REVISION,
    EQUIP_ON_CONTROL_REVISION,
    EQUIP_ON_MOVE_REVISION,
    MID_EFFECT_TRIGGERS_WAIT_REVISION,
)
from replay.wotf.selectors import Context
from replay.wotf.state import Seat, controller_of, other
from replay.wotf.statics import ANY_POWER_OPS
from replay.wotf.table import Component, Flow, Rules
from replay.wotf.trigger import ON_ARRIVAL, Trigger


class Effects(Component):
    """Triggers, keywords, deaths and shields: a component of the engine."""

    def __init__(self, g: Rules):
        super().__init__(g)
        # id(ability) -> (the ability, whether its effects name the event's subject): kept
        # beside it, so the id is still its own (:meth:`_about_subject`)
        self._subject_named: dict[int, tuple[Ability, bool]] = {}

    # -- triggers ------------------------------------------------------------------------

    def triggers_of(self, cid: str, ability: str, realm: int | None = None) -> list[Trigger]:
        """The triggers of one ability of a card (twice under Heart of a Legend)."""
        c = self.state.cards[cid]
        count = self.view.keyword_count(cid, ability)
        if not count:
            return []
        trigger = Trigger(cid, c.controller or c.owner, ability, realm)
        if self._has_heart(cid, ability):
            count += 1  # the printed instance triggers twice
        return [trigger] * count

    def _has_heart(self, cid: str, ability: str) -> bool:
        """Heart of a Legend: printed abilities trigger twice while its controller controls
        another legendary Wonder."""
        return ability in self.view.definition(cid).keywords and self.g.heart_doubles(cid)

    def resolve(self, triggers: list[Trigger]) -> Flow:
        """502: the active player orders simultaneous triggers; each resolves in turn.

        From revision 13 triggers set off in the middle of a scripted effect wait for it
        (501, R47): they join its waiting triggers on the stack (``TriggersDeferred``) and
        resolve once its last operation is done (:meth:`finish_effect`)."""
        if not triggers:
            return DONE  # most events set nothing off: no procedure to start
        if self._waits_for_effect():
            self.emit_stack(TriggersDeferred(list(triggers)))
            return DONE
        return self._resolve(triggers)

    def resolve_now(self, triggers: list[Trigger]) -> Flow:
        """Triggers that resolve before the effect that set them off goes on, also in the
        middle of an effect: the abilities reacting to its choice of targets (Nullify, the
        Feline Entity example) and to a card it plays (Triggered Effects Example 1: "pause
        the resolution of that spell"), and a played spell's own effect (R47)."""
        if not triggers:
            return DONE
        return self._resolve(triggers)

    def _waits_for_effect(self) -> bool:
        """501 (revision 13): whether a scripted effect is in the middle of its operations --
        the innermost resolving one, not yet finished -- so a trigger set off now waits."""
        stack = self.state.stack
        return (self.state.revision >= MID_EFFECT_TRIGGERS_WAIT_REVISION and stack is not None
                and bool(stack.resolving) and not stack.resolving[-1].finished)

    def finish_effect(self, source: str, ability: str) -> Flow:
        """501 (revision 13): the innermost effect did its last operation: the triggers that
        waited for it resolve now, one batch in the active player's order (502), asked while
        they are still waiting on the stack (``EffectFinished`` after the answer)."""
        stack = self.state.stack
        if self.state.revision < MID_EFFECT_TRIGGERS_WAIT_REVISION or stack is None \
                or not stack.resolving or not stack.resolving[-1].waiting:
            return
        ordered = yield from self._ordered(list(stack.resolving[-1].waiting))
        self.emit_stack(EffectFinished(source, ability))
        yield from self._run(ordered)

    def _resolve(self, triggers: list[Trigger]) -> Flow:
        triggers = yield from self._ordered(triggers)
        yield from self._run(triggers)

    def _ordered(self, triggers: list[Trigger]) -> Flow:
        """502: simultaneous triggers in the active player's order (an ``order`` prompt when
        they differ)."""
        kinds = [self._kind(t) for t in triggers]
        if len(set(kinds)) > 1:
            labels = _labels(kinds)
            active = self.state.turn
            assert active is not None, "triggers resolve in a round: there is an active player"
            order = yield from self.ask(Prompt(active, "order", choose=Choose(
                labels, len(triggers), len(triggers), ordered=True,
                multiset=True), text="order the triggered abilities (rule 502)"))
            triggers = _reorder(triggers, labels, order)
        return triggers

    def _run(self, triggers: list[Trigger]) -> Flow:
        """Ordered triggers resolve one at a time (a batch of several waits on the stack)."""
        if len(triggers) == 1:
            yield from self._resolve_one(triggers[0])  # a lone trigger: nothing waits
            return
        # 502: the ordered batch waits on the stack, innermost; each trigger is read from
        # there and taken off as it begins to resolve.  The batch leaves the stack with its
        # last trigger (the batches its triggers' resolutions queue come and go above it).
        self.emit_stack(TriggersQueued(list(triggers)))
        stack = self.state.stack
        assert stack is not None and stack.pending
        depth = len(stack.pending)
        while (stack := self.state.stack) is not None and len(stack.pending) == depth:
            trigger = stack.pending[-1][0]
            self.emit_stack(TriggerDequeued(trigger.source, trigger.ability))
            yield from self._resolve_one(trigger)

    def _kind(self, t: Trigger) -> tuple[str, str, str | None]:
        """What tells simultaneous triggers apart for 502's order: their source and ability,
        and from revision 8 the card the event is about when what they do depends on it."""
        about = t.subject if self.state.revision >= 8 and self._about_subject(t) else None
        card = self.state.cards.get(about) if about is not None else None
        if card is not None and card.face_down:
            about = None  # an order label naming it would show a face-down card's id (510)
        return t.source, t.ability, about

    def _about_subject(self, t: Trigger) -> bool:
        """Whether what a trigger does depends on the card its event is about ("it", "the
        event's realm"): one ability triggered about different cards (two defenders, two
        arrivals) is then a different trigger for each, in an order the active player chooses
        (502, revision 8).  One that does the same whichever card set it off keeps its order."""
        if t.subject is None:
            return False
        if t.ability in _ABOUT_SUBJECT:
            return True
        if not t.ability.startswith("ab:"):
            return False
        ability = find_ability(self.db, t.ability[3:])
        # a fact of the (frozen) ability: worked out once per ability, not per trigger
        kept = self._subject_named.get(id(ability))
        if kept is None or kept[0] is not ability:
            kept = self._subject_named[id(ability)] = (
                ability, _names_the_subject(ability.model_dump(include={"effects"})))
        return kept[1]

    def _resolve_one(self, trigger: Trigger) -> Flow:
        """One trigger resolves: its keyword's handler, or its scripted ability; then the
        state-based checks."""
        handler = _HANDLERS.get(trigger.ability)
        if handler is None:
            yield from self.g.resolve_scripted(trigger)
        else:
            yield from handler(self.g, trigger)
        yield from self.settle()

    def resolved(self, t: Trigger, detail: str = "") -> None:
        self.emit(TriggerResolved(t.source, self.state.cards[t.source].name, t.ability,
                                  t.controller, detail))

    def round_start_triggers(self) -> list[Trigger]:
        """403.1: On Round Start / On Round N; celestial counters give Ascend on round 7.
        (The round's first player is active meanwhile: ``RoundStarted``.)"""
        return self.g.run_event(Occurrence("round_starts"))

    def round_end_triggers(self) -> list[Trigger]:
        """403.5: On Round End triggers; Unstable sacrifices the card."""
        return self.g.run_event(Occurrence("round_ends"))

    def end_round_effects(self) -> Flow:
        """403.5: "this round" effects end (control taken this round returns first); then the
        effects resulting from their ending resolve ("Resolve any resulting effects", v1.2
        403.5: from revision 11, equipment equipping a Wonder whose control returned)."""
        returned = self.g.return_round_control()
        for c in list(self.state.cards.values()):
            if c.effects and any(e.until == "round" for e in c.effects):
                self.emit(EffectsEnded(c.id, "round"))
        return self.resolve(self.control_triggers(returned))

    # -- arriving and moving -------------------------------------------------------------

    def enter_world(self, cid: str, controller: Seat, realm: int, reason: str) -> Flow:
        """A card arrives in a realm (Arrives); its arrival triggers then resolve."""
        if not self.view.is_active_realm(realm):
            self.g.move(cid, "banishment", "inactive realm")  # 301.1: banished instead
            return
        if self.state.realms[realm - 1].banished:
            self.g.move(cid, "banishment", "banished realm")  # v1.2: it enters banishment with the realm
            return
        self.g.move(cid, "world", reason, realm=realm, controller=controller)
        yield from self.resolve(self.arrival_triggers(cid))
        yield from self.settle()

    def arrival_triggers(self, cid: str) -> list[Trigger]:
        """The triggers of a card arriving in The World (Arrives), from the event bus."""
        c = self.state.cards[cid]
        if c.zone != "world" and self.state.revision >= 9:
            return []  # it entered a banished realm in banishment (v1.2 301.2): no arrival
        return self.g.run_event(Occurrence("arrives", cid, c.controller, c.realm))

    def move_realm(self, cid: str, to_realm: int, reason: str) -> Flow:
        """Move: from one realm of The World to another (equipment moves with it)."""
        c = self.state.cards[cid]
        if to_realm == c.realm or not self.view.is_active_realm(to_realm):
            return  # Move: you can't move a card to where it already is, or out of The World
        if self.view.enters_in_banishment(to_realm):
            self._move_into_banishment(cid)
            return
        from_realm = c.realm
        self.emit(CardMoved(cid, c.name, c.owner, "world", "world", reason, from_realm,
                            to_realm, c.controller, face_down=c.face_down))
        for item in list(self.view.world()):
            if item.equipped_to == cid:
                self.emit(CardMoved(item.id, item.name, item.owner, "world", "world",
                                    "moves with equipped Wonder", from_realm, to_realm,
                                    item.controller, face_down=item.face_down))
        yield from self.resolve(self.g.run_event(Occurrence("moves_into", cid, c.controller,
                                                            to_realm)))

    def _move_into_banishment(self, cid: str) -> None:
        """v1.2 301.2 (revision 9): a card moved to a banished realm "enters that realm in
        banishment", and the equipment that moves with it goes along (docs/rulings.md R37)."""
        going = [item.id for item in self.view.world() if item.equipped_to == cid]
        for moving in [cid, *going]:
            self.g.move(moving, "banishment", "banished realm")

    # -- equipment -----------------------------------------------------------------------

    def is_equipment(self, cid: str) -> bool:
        d = self.view.definition(cid)
        return d.type == "item" and "Equipment" in d.classes

    # -- keyword handlers on the event bus (replay.wotf.bus.wire) --------------------------

    def on_arrival_keywords(self, o: Occurrence) -> list[Trigger]:
        """Rage, Call, Symbiosis: on-arrival keywords of the arriving card."""
        triggers: list[Trigger] = []
        cid = o.card
        if not self.view.may_have_keyword(cid, ON_ARRIVAL):
            return triggers  # none of them in force on it
        for ability in ON_ARRIVAL:
            triggers += self.triggers_of(cid, ability, o.realm)
        return triggers

    def guardians(self, o: Occurrence) -> list[Trigger]:
        """Guardian: an enemy Wonder moving into or arriving in this realm gives this +2 this
        round."""
        cid = o.card
        if not self.view.is_wonder(cid):
            return []
        seat = self.state.cards[cid].controller
        triggers: list[Trigger] = []
        for g in self.view.in_realm(o.place, other(seat)):
            if self.view.may_have_keyword(g.id, _GUARDIAN) and self.view.is_wonder(g.id):
                triggers += self.triggers_of(g.id, "guardian", o.realm)
        return triggers

    def ascend(self, o: Occurrence) -> list[Trigger]:
        """Celestial Counter: "Ascend" on round 7, once per card with celestial counters."""
        if self.state.round != 7:
            return []
        return [Trigger(c.id, controller_of(c), "ascend") for c in self.view.world()
                if c.counters.get("celestial", 0) > 0]

    def unstable(self, o: Occurrence) -> list[Trigger]:
        """Unstable: sacrificed at the end of the round."""
        triggers: list[Trigger] = []
        view = self.view
        for c in list(view.world()):
            if view.may_have_keyword(c.id, _UNSTABLE):
                triggers += self.triggers_of(c.id, "unstable")
        return triggers

    def deathstrike(self, o: Occurrence) -> list[Trigger]:
        """Deathstrike: a Wonder whose side won or tied the battle here."""
        return self.triggers_of(o.card, "deathstrike", realm=o.realm)

    def equip(self, o: Occurrence) -> list[Trigger]:
        """Equip: unequipped equipment beside an allied Wonder equips as a trigger."""
        cid = o.card
        c = self.state.cards[cid]
        triggers = []
        if self.is_equipment(cid) and self.allies_for(cid):
            triggers.append(Trigger(cid, controller_of(c), "equip", c.realm))  # it arrived
        elif self.view.is_wonder(cid):
            for item in self.view.in_realm(c.realm, c.controller):
                if self.is_equipment(item.id) and item.equipped_to is None:
                    triggers.append(Trigger(item.id, controller_of(item), "equip", c.realm))
                elif (self.state.revision >= 2 and self.is_equipment(item.id)
                      and item.equipped_to not in (None, cid)
                      and self._hosted_by_its_controller(item.id)):
                    # Equip (revision 2): "If a Wonder you control arrives in the same realm as
                    # an equipped Wonder you control, you may choose to move the equipment to
                    # the new Wonder as a triggered effect."
                    triggers.append(Trigger(item.id, controller_of(item), "equip_move", c.realm,
                                            subject=cid))
        return triggers

    def _hosted_by_its_controller(self, item: str) -> bool:
        """Equip's option to move equipment to an arriving Wonder is for "an equipped Wonder
        you control": from revision 11 not for equipment left on a Wonder whose control
        changed (505.1; R43); revisions 2-10 offered it whoever controlled the Wonder."""
        c = self.state.cards[item]
        if self.state.revision < EQUIP_ON_CONTROL_REVISION or c.equipped_to is None:
            return True
        return self.state.cards[c.equipped_to].controller == c.controller

    def equip_on_move(self, o: Occurrence) -> list[Trigger]:
        """Equip (revision 10): a Wonder that moves into a realm where its controller has
        unequipped equipment is an allied Wonder beside it, so the equipment equips ("When an
        unequipped equipment is in the same realm as an allied Wonder, it automatically
        equips", both rulesets; docs/rulings.md R43).  Moving is not arriving, so equipment
        already equipped here does not offer to move ("equip_move" is for arrivals only).
        Revisions 1-9 equipped only on arrival and on the host's death."""
        if self.state.revision < EQUIP_ON_MOVE_REVISION or not self.view.is_wonder(o.card):
            return []
        c = self.state.cards[o.card]
        return [Trigger(item.id, controller_of(item), "equip", o.place)
                for item in self.view.in_realm(o.place, c.controller)
                if self.is_equipment(item.id) and item.equipped_to is None]

    def equip_on_control(self, o: Occurrence) -> list[Trigger]:
        """Equip (revision 11): a Wonder whose control changes stays in its realm (505.1) and is
        now an allied Wonder of its new controller's unequipped equipment there, which equips
        ("When an unequipped equipment is in the same realm as an allied Wonder, it
        automatically equips with a triggered effect", both rulesets; docs/rulings.md R43);
        so does unequipped equipment whose own control changes beside an ally.  Equipment
        already on the Wonder stays equipped under its old controller (505.1: "any items
        equipped to it stay equipped, but do not change control").  Revisions 1-10 set off
        nothing."""
        if self.state.revision < EQUIP_ON_CONTROL_REVISION:
            return []
        c = self.state.cards[o.card]
        if c.zone != "world":
            return []
        if self.is_equipment(o.card):
            ready = c.equipped_to is None and bool(self.allies_for(o.card))
            return [Trigger(o.card, controller_of(c), "equip", c.realm)] if ready else []
        if not self.view.is_wonder(o.card):
            return []
        return [Trigger(item.id, controller_of(item), "equip", c.realm)
                for item in self.view.in_realm(c.realm, c.controller)
                if self.is_equipment(item.id) and item.equipped_to is None]

    def control_triggers(self, cards: list[str]) -> list[Trigger]:
        """The triggers of the cards whose control changed at once (one effect, or the end of
        the round's "this round" control), one batch (502); an equipment beside two of them
        triggers once."""
        triggers: list[Trigger] = []
        for cid in cards:
            c = self.state.cards[cid]
            for t in self.g.run_event(Occurrence("control_changes", cid, c.controller, c.realm)):
                if t not in triggers:
                    triggers.append(t)
        return triggers

    def reequip_left_behind(self, items: list[str]) -> list[Trigger]:
        """Equip (revision 10): equipment whose Wonder left The World other than by dying
        (banished, R44) stays in the realm and equips to another allied Wonder there, as a
        trigger (as :meth:`leave_dying` does for a death)."""
        if self.state.revision < EQUIP_LEAVES_REVISION:
            return []
        return [Trigger(item, controller_of(self.state.cards[item]), "equip",
                        self.state.cards[item].realm)
                for item in items if self.state.cards[item].zone == "world"
                and self.state.cards[item].equipped_to is None and self.allies_for(item)]

    def allies_for(self, item: str) -> list[str]:
        c = self.state.cards[item]
        return [w.id for w in self.view.in_realm(c.realm, c.controller) if self.view.is_wonder(w.id)]

    # -- counters, deaths, shields -------------------------------------------------------

    def shield_prevents(self, cid: str, what: str) -> Flow:
        """Shield: a card about to be destroyed or targeted may lose a shield counter instead."""
        c = self.state.cards[cid]
        if c.counters.get("shield", 0) <= 0:
            return False
        # (Counters are only on cards in The World: it has a controller.)
        answer = yield from self.ask(Prompt(controller_of(c), "may", options=["yes", "no"], card=cid,
                                            text=f"remove a shield counter from {c.name} "
                                                 f"instead of it being {what}?"))
        if answer == "yes":
            self.g.add_counters(cid, "shield", -1)
            return True
        return False

    def destroy(self, cid: str, reason: str, shield_checked: bool = False) -> Flow:
        """Destroy: put a card from The World into The Abyss (a shield may stop it)."""
        if self.state.cards[cid].zone != "world" or self.view.cant(cid, "be_destroyed"):
            return
        if not shield_checked and (yield from self.shield_prevents(cid, "destroyed")):
            return
        if (yield from self.g.replaced(cid, "destroyed")):
            return
        yield from self.die(cid, "destroyed", reason)

    def die(self, cid: str, how: str, reason: str) -> Flow:
        """Dies: the card leaves The World for its owner's Abyss; equipment stays behind."""
        yield from self.resolve(self.leave_dying(cid, how, reason))

    def die_together(self, cards: list[str], how: str, reason: str) -> Flow:
        """Cards that die at the same time: every trigger is collected first, then the active
        player orders them all (502; triggered effects example 2)."""
        triggers: list[Trigger] = []
        for cid in cards:
            triggers += self.leave_dying(cid, how, reason)
        yield from self.resolve(triggers)

    def leave_dying(self, cid: str, how: str, reason: str) -> list[Trigger]:
        """Move a dying card to The Abyss; returns the triggers its death sets off."""
        c = self.state.cards[cid]
        if c.zone != "world":
            return []
        realm, seat = c.realm, c.controller
        left_behind = [i.id for i in self.view.world() if i.equipped_to == cid]
        # On Death / "whenever … dies": checked while it is still in The World (rule 1);
        # v1.2 counts a sacrifice as being destroyed too (rules README).
        triggers = self.g.run_event(Occurrence("dies", cid, seat, realm, how))
        if how == "destroyed" or (how == "sacrifice" and self.state.ruleset == "1.2"):
            triggers += self.g.run_event(Occurrence("destroyed", cid, seat, realm, how))
        self.g.move(cid, "abyss", f"{how}: {reason}")
        key = f"{seat}:{how}"
        self.emit(EventCounted(key, self.state.counts.get(key, 0) + 1))
        for item in left_behind:
            self.emit(Unequipped(item))
            if self.allies_for(item):
                # the equipment stays in The World
                triggers.append(Trigger(item, controller_of(self.state.cards[item]), "equip", realm))
        return triggers

    #: (view, settled generation) at which settling last found nothing to do: until an event
    #: that may change what it finds (:attr:`~replay.wotf.queries.View.settled_generation`)
    #: it would find nothing again
    _quiet: tuple[object, int] | None = None

    def settle(self) -> Flow:
        """State-based checks: +1 and −1 counters on a card cancel (Counters); every Wonder
        with negative power dies (101.6); repeated until nothing changes."""
        view = self.view
        if self._quiet is not None and self._quiet[0] is view and \
                self._quiet[1] == view.settled_generation:
            return DONE  # nothing it finds can have changed: no procedure to start
        return self._settle()

    def _settle(self) -> Flow:
        view = self.view
        for c in view.world():
            if c.counters and c.counters.get("+1", 0) and c.counters.get("-1", 0):
                self.g.add_counters(c.id, "-1", 0)
        while True:
            dying = [c.id for c in view.may_be_negative()
                     if view.is_wonder(c.id) and view.power(c.id) < 0]
            if not dying:
                self._quiet = (view, view.settled_generation)
                view.has_stable_power()  # worked out now: the next events may keep it quiet
                return
            yield from self.die_together(dying, "died", "negative power")

    def pick_target(self, t: Trigger, candidates: list[str], text: str,
                    optional: bool = False) -> Flow:
        """Choose a target as the effect resolves (501.1); a shield may refuse it."""
        options = [*candidates, "no"] if optional else list(candidates)
        if not candidates:
            return None
        pick = yield from self.ask(Prompt(t.controller, "target", options=options,
                                          card=t.source, text=text))
        if pick == "no":
            return None
        if (yield from self.shield_prevents(pick, "targeted")):
            return None
        return pick


def _finished() -> Flow:
    return
    yield


#: A procedure that has already ended: ``yield from DONE`` does nothing and gives ``None``
#: (a finished generator stops at once, however often it is run), so a step with nothing to
#: do starts no generator of its own.
DONE = _finished()
for _ in DONE:
    pass


# -- keyword handlers ---------------------------------------------------------------------


def keyword_target(g: Rules, t: Trigger, candidates: list[str], text: str,
                   optional: bool = False) -> Flow:
    """A keyword's "target" (deathstrike, call, symbiosis): from revision 7 the same targeting
    as a scripted effect's (``Scripts.choose``): a card that "can't be targeted" is no
    candidate, and the abilities that react to the choice ("whenever an opponent's … effect
    would target a Wonder you control", the Feline Entity example of Nullify) resolve before
    the keyword goes on, and may nullify it (then it chooses nothing and does nothing more).
    Revisions 1-6 picked the target without either."""
    if g.state.revision < 7:
        return (yield from g.pick_target(t, candidates, text, optional))
    candidates = [cid for cid in candidates if not g.view.cant(cid, "be_targeted")]
    target = yield from g.pick_target(t, candidates, text, optional)
    if target is None:
        return None
    ctx = Context(t.source, t.controller, t.realm)
    yield from g.targeted([target], ctx)
    return None if ctx.nullified else target


def _guardian(g: Rules, t: Trigger) -> Flow:
    c = g.state.cards[t.source]
    if c.zone == "world" and c.realm == t.realm:
        g.emit(EffectApplied(t.source, "power+", 2, "round", "guardian"))
        g.resolved(t, "+2 this round")
    return
    yield


def _deathstrike(g: Rules, t: Trigger) -> Flow:
    """Deathstrike: destroy target enemy Wonder in the same realm (not optional)."""
    enemies = [c.id for c in g.view.in_realm(t.realm, other(t.controller)) if g.view.is_wonder(c.id)]
    target = yield from keyword_target(g, t, enemies, "deathstrike: destroy which enemy?")
    g.resolved(t, f"destroys {target}" if target else "no enemy to destroy")
    if target is not None:
        yield from g.destroy(target, "deathstrike", shield_checked=True)


def _rage(g: Rules, t: Trigger) -> Flow:
    """Rage: on arrival you may attack here at once (no action); sacrifice it afterwards."""
    c = g.state.cards[t.source]
    if c.zone != "world":
        return  # v1.3.2 On Arrival: the effect fizzles if its source left The World
    assert c.realm is not None  # in The World
    if _rage_forbidden(g, t.controller, c.realm):
        # 404.3.1: no attack can take place, so no "If you do": nothing is sacrificed (R39).
        g.resolved(t, "no attack can take place here (404.3.1)")
        return
    answer = yield from g.ask(Prompt(t.controller, "may", options=["yes", "no"], card=t.source,
                                     text=f"rage: attack in realm {c.realm} now?"))
    g.resolved(t, "attacks" if answer == "yes" else "declined")
    if answer == "yes":
        yield from g.battle(t.controller, c.realm, rage_card=t.source)


def _rage_sacrifice(g: Rules, t: Trigger) -> Flow:
    """Rage: "If you do, sacrifice this at the end of battle" -- from revision 11 an
    end-of-battle effect in the batch of 404.3.2 step 6, ordered with the others (502; R42)."""
    if g.state.cards[t.source].zone == "world":
        g.resolved(t, "sacrificed")
        yield from g.die(t.source, "sacrifice", "rage")


def _rage_forbidden(g: Rules, seat: Seat, realm: int) -> bool:
    """v1.3.2 404.3.1, from revision 9: "If an effect states that players or Wonders can't
    attack in a realm, no attack can take place there, including attacks that would otherwise
    be enabled by triggered effects" -- a rage attack too.  v1.2 has no such sentence (nor
    rage), so it keeps the attack, as revisions 1-8 did in both rulesets."""
    s = g.state
    return s.revision >= 9 and s.ruleset == "1.3.2" and g.view.no_attack_here(realm, seat)


def _call(g: Rules, t: Trigger) -> Flow:
    """Call: you may move target Wonder one realm towards this card's realm if its controller
    controls a stone here."""
    c = g.state.cards[t.source]
    if c.zone != "world":
        return
    assert c.realm is not None  # in The World
    stones = g.view.realm_stones(c.realm)  # revision 9: none in a banished realm
    candidates = [w.id for w in g.view.world()
                  if w.id != t.source and w.realm != c.realm and g.view.is_wonder(w.id)
                  and w.controller in stones]
    target = yield from keyword_target(g, t, candidates, "call: move which Wonder one realm closer?",
                                      optional=True)
    g.resolved(t, f"moves {target}" if target else "no move")
    if target is not None:
        where = g.state.cards[target].realm
        assert where is not None  # a Wonder in The World
        step = 1 if c.realm > where else -1
        yield from g.move_realm(target, where + step, "call")


def _symbiosis(g: Rules, t: Trigger) -> Flow:
    """Symbiosis: copy all abilities of another Wonder with the same power, on arrival."""
    c = g.state.cards[t.source]
    if c.zone != "world":
        return
    candidates = [w.id for w in g.view.world() if w.id != t.source and g.view.is_wonder(w.id)
                  and _same_power(g, t.source, w.id)]
    target = yield from keyword_target(g, t, candidates, "symbiosis: copy which Wonder?")
    if target is None or not _same_power(g, t.source, target):
        g.resolved(t, "nothing copied")
        return
    # Copy printed and symbiosis-copied abilities, never symbiosis itself nor abilities
    # granted by other effects (equipment, statics); the copy is locked in on resolution.
    if g.state.revision >= 5:
        # Symbiosis example 1: a copied keyword the copier already has is a second instance
        # ("each token can kill two enemies"), and a keyword the target has twice is copied
        # twice.  Before revision 5 copied keywords were de-duplicated against the copier's.
        copied = sorted(k for k in _copiable_instances(g, target) if k != "symbiosis")
    else:
        own = g.view.keywords(t.source)
        copied = sorted(k for k in _copiable_keywords(g, target)
                        if k != "symbiosis" and k not in own)
    abilities = [key for key, a, _ in g.view.ability_refs(target) if a.when != "play"]
    g.emit(AbilitiesCopied(t.source, target, copied, abilities))
    g.resolved(t, f"copies {', '.join(copied + abilities) or 'no keywords'} from {target}")
    # Symbiosis won't copy on play abilities; copied on arrival abilities trigger now.
    arrival = [Trigger(t.source, t.controller, k, c.realm) for k in copied if k in ON_ARRIVAL]
    arrival += [Trigger(t.source, t.controller, f"ab:{k}", c.realm)
                for k, a, printed in g.view.ability_refs(t.source)
                if not printed and k in abilities and a.when == "arrival"]
    yield from g.resolve(arrival)


def _same_power(g: Rules, copier: str, target: str) -> bool:
    """Symbiosis copies a Wonder of the same power, unless a card says it may copy this one
    "as if it had any power" (Symbiosis example 2)."""
    return (target in g.view.statics_for(ANY_POWER_OPS).any_power
            or g.view.power(copier) == g.view.power(target))


def _copiable_keywords(g: Rules, cid: str) -> set[str]:
    c = g.state.cards[cid]
    if g.view.is_nullified(cid):
        return set()
    return set(g.view.definition(cid).keywords) | {k for k in c.gained if ":" not in k}


def _copiable_instances(g: Rules, cid: str) -> list[str]:
    """The keywords symbiosis copies from ``cid`` (revision 5), one entry per instance:
    printed and symbiosis-copied, never those granted by other effects."""
    c = g.state.cards[cid]
    if g.view.is_nullified(cid):
        return []
    return [*g.view.definition(cid).keywords, *(k for k in c.gained if ":" not in k)]


def can_fly(g: Rules, fid: str, seat: Seat | None) -> bool:
    """Whether an attacking flier may fly now: still in The World under the attacker, with
    flying, and an adjacent active realm to go to (Flying; R5)."""
    c = g.state.cards[fid]
    if c.zone != "world" or c.controller != seat or not g.view.has(fid, "flying"):
        return False
    here = c.realm
    return here is not None and any(g.view.is_active_realm(r) for r in (here - 1, here + 1))


def fly(g: Rules, fid: str, seat: Seat) -> Flow:
    """Flying: the attacker may move this flier to an adjacent active realm; gives the realm
    it flew to, or None."""
    if not can_fly(g, fid, seat):
        return None
    c = g.state.cards[fid]
    assert c.realm is not None  # in The World (can_fly)
    near = [r for r in (c.realm - 1, c.realm + 1) if g.view.is_active_realm(r)]
    pick = yield from g.ask(Prompt(seat, "realm", options=[*near, "no"], card=fid,
                                   text=f"fly {c.name} to an adjacent realm?"))
    return None if pick == "no" else pick


def _flying(g: Rules, t: Trigger) -> Flow:
    """Flying as an end-of-battle effect (v1.3.2 battle step 6, revision 10): one trigger per
    attacking flier, in one batch with the other end-of-battle abilities (R42)."""
    if not can_fly(g, t.source, t.controller):
        g.resolved(t, "can't fly")
        return
    pick = yield from fly(g, t.source, t.controller)
    g.resolved(t, f"flies to realm {pick}" if pick is not None else "stays")
    if pick is not None:
        yield from g.move_realm(t.source, pick, "flying")


def _unstable(g: Rules, t: Trigger) -> Flow:
    if g.state.cards[t.source].zone == "world":
        g.resolved(t, "sacrificed")
        yield from g.die(t.source, "sacrifice", "unstable")


def _ascend(g: Rules, t: Trigger) -> Flow:
    """Celestial Counter: "Ascend: this gets +4" per counter, for round 7."""
    c = g.state.cards[t.source]
    if c.zone == "world":
        amount = 4 * c.counters.get("celestial", 0)
        g.emit(EffectApplied(t.source, "power+", amount, "round", "ascend"))
        g.resolved(t, f"+{amount} this round")
    return
    yield


def _equip(g: Rules, t: Trigger) -> Flow:
    """Equip: the controller chooses which allied Wonder here the equipment attaches to."""
    item = g.state.cards[t.source]
    if item.zone != "world" or item.equipped_to is not None:
        return
    allies = g.allies_for(t.source)
    if not allies:
        return
    pick = yield from g.ask(Prompt(t.controller, "equip", options=allies, card=t.source,
                                   text=f"equip {item.name} to which Wonder?"))
    g.emit(Equipped(t.source, pick))
    g.resolved(t, f"equipped to {pick}")


def _equip_move(g: Rules, t: Trigger) -> Flow:
    """Equip (revision 2): the controller may move the equipment to the arriving Wonder."""
    assert t.subject is not None  # the arriving Wonder (Effects.equip)
    item, wonder = g.state.cards[t.source], g.state.cards[t.subject]
    if (item.zone != "world" or wonder.zone != "world" or item.realm != wonder.realm
            or wonder.controller != item.controller or item.equipped_to in (None, wonder.id)):
        return
    host = g.state.cards[item.equipped_to]
    if g.state.revision >= EQUIP_ON_CONTROL_REVISION and host.controller != item.controller:
        return  # "an equipped Wonder you control" (R43): its control changed meanwhile
    answer = yield from g.ask(Prompt(t.controller, "may", options=["yes", "no"], card=t.source,
                                     text=f"move {item.name} to {wonder.name}?"))
    if answer == "yes":
        g.emit(Equipped(t.source, wonder.id))
    g.resolved(t, f"moved to {wonder.id}" if answer == "yes" else "stays")


_HANDLERS = {"guardian": _guardian, "deathstrike": _deathstrike, "rage": _rage,
             "rage_sacrifice": _rage_sacrifice, "call": _call,
             "symbiosis": _symbiosis, "unstable": _unstable, "ascend": _ascend, "equip": _equip,
             "equip_move": _equip_move, "flying": _flying}


_UNSTABLE = ("unstable",)
_GUARDIAN = ("guardian",)

#: Keyword triggers whose effect is about the card the event is about (Equip's arriving Wonder).
_ABOUT_SUBJECT = ("equip_move",)


def _names_the_subject(data: object) -> bool:
    """Whether an ability's effects (as data) pick "it" or act "where the event" happened."""
    if isinstance(data, dict):
        if data.get("pick") == "it" or data.get("where") in ("event", "there") or \
                data.get("realm") == "event":
            return True
        return any(_names_the_subject(v) for v in data.values())
    if isinstance(data, (list, tuple)):
        return any(_names_the_subject(v) for v in data)
    return False


def _labels(kinds: list[tuple[str, str, str | None]]) -> list[str]:
    """How an order prompt names each trigger (given as :meth:`Effects._kind`): its source
    card, or ``card:ability`` when one card has different abilities waiting (so they can be
    told apart), and from revision 8 ``card@subject`` (``card:ability@subject`` among
    several abilities) when one ability waits about different cards."""
    per_source: dict[str, set[tuple[str, str, str | None]]] = {}
    abilities: dict[str, set[str]] = {}
    for kind in kinds:
        per_source.setdefault(kind[0], set()).add(kind)
        abilities.setdefault(kind[0], set()).add(kind[1])
    labels = []
    for source, ability, subject in kinds:
        if len(per_source[source]) == 1:
            labels.append(source)
        elif len(abilities[source]) == len(per_source[source]) or subject is None:
            labels.append(f"{source}:{ability}")
        elif len(abilities[source]) == 1:
            labels.append(f"{source}@{subject}")
        else:
            labels.append(f"{source}:{ability}@{subject}")
    return labels


def _reorder(triggers: list[Trigger], labels: list[str], order: list[str]) -> list[Trigger]:
    remaining = list(zip(labels, triggers, strict=False))  # one label per trigger (_labels)
    ordered = []
    for label in order:
        for i, (have, _) in enumerate(remaining):
            if have == label:
                ordered.append(remaining.pop(i)[1])
                break
    return ordered + [t for _, t in remaining]
