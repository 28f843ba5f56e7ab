"""The interpreter of scripted abilities: when they trigger and how they resolve.

A component of the engine (:mod:`replay.wotf.table`).  Triggered abilities become
:class:`~replay.wotf.trigger.Trigger` objects named ``ab:<Card Name>#<i>`` and resolve through the
same ordering machinery as keywords (502); activated and harvest abilities are turn actions
(404.4, :mod:`replay.wotf.actions`); static abilities live in :mod:`replay.wotf.statics`; the effects
themselves, one procedure per ``do``, in :mod:`replay.wotf.ops`; playing and banishing in
:mod:`replay.wotf.movement`.  Here: collecting triggers, resolving an ability effect by effect
(conditions, "you may", "if you do"), choosing targets and realms, and the handlers that
put scripted abilities on the event bus (:mod:`replay.wotf.bus`).  The primitives the
effects share (effects on cards, tapping, control, tokens) are in :mod:`replay.wotf.moves`.

Endless loops (503): an ability that, while resolving, sets itself off again is a loop.  If
it has a choice ("you may"), the loop is voluntary: at the second repetition its controller
states how many more times it will repeat (an ``amount`` prompt), the loop runs that many
times and then ends by the other choice.  Otherwise it is involuntary: once nested
:data:`LOOP_LIMIT` deep the engine prevents it, the one effect that keeps the loop going
(docs/rulings.md R18).  Abilities that merely trigger many times one after another are no
loop.  What is resolving and the repetitions stated are on the stack, in the state
(``GameState.stack``: ``ResolutionStarted`` / ``ResolutionEnded``, ``LoopStated`` /
``LoopRepeated``), as are the effects choosing targets that Nullify can reach
(``TargetingStarted`` / ``TargetingEnded``); from rules revision 6 those events are recorded.
"""

from __future__ import annotations

from ledger.events import as_seat
from replay.prompts import Choose, Prompt
from replay.wotf.abilities import Ability, Op, Selector
from replay.wotf.abilities import Trigger as AbilityTrigger
from replay.wotf.bus import Handler, Occurrence
from replay.wotf.cards import Card, find_ability
from replay.wotf.events import (
    EffectsEnded,
    EventCounted,
    LoopRepeated,
    LoopStated,
    ResolutionEnded,
    ResolutionStarted,
    TargetingEnded,
    TargetingStarted,
)
from replay.wotf.ops import OPS
from replay.wotf.revisions import LOOP_NET_DEPTH, LOOP_NET_REVISION
from replay.wotf.selectors import Context, candidates, holds, matches
from replay.wotf.state import Seat, controller_of, other
from replay.wotf.table import Component, Flow, Rules
from replay.wotf.trigger import Trigger

LOOP_LIMIT = 24


class Scripts(Component):
    """Scripted abilities: a component of the engine."""

    def __init__(self, g: Rules):
        super().__init__(g)
        # a "whenever" ability's subject selector for a subject in each zone, by the
        # selector's id (the selector kept beside it, so the id is still its own)
        self._subjects: dict[tuple[int, str], tuple[Selector, Selector]] = {}

    # -- collecting triggers -------------------------------------------------------------

    def scripted_triggers(self, cid: str, when: str, realm: int | None = None,
                          subject: str | None = None) -> list[Trigger]:
        """The triggers of one card's abilities with timing ``when`` (twice under Heart of a
        Legend for printed abilities)."""
        if not self.view.may_have_timing(cid, when):
            return []  # no ability with this timing can be in force on it
        c = self.state.cards[cid]
        controller = c.controller or c.owner
        found: list[Trigger] = []
        for key, ability, printed in self.view.ability_refs(cid):
            if ability.when != when:
                continue
            if when == "round" and ability.round != self.state.round:
                continue
            t = Trigger(cid, controller, f"ab:{key}", realm if realm is not None else c.realm, subject)
            found.append(t)
            if printed and self.heart_doubles(cid):
                found.append(t)
        return found

    # -- handlers on the event bus (replay.wotf.bus.wire) ---------------------------------

    def own(self, timing: str) -> Handler:
        """The event's subject's own abilities with this timing (On Arrival, On Death, On
        Play, On Harvest, battle steps).  A spell's On Play is not a trigger of its being
        played: it is the spell's effect, resolved after (:meth:`Movement.resolve_play`)."""
        def handler(o: Occurrence) -> list[Trigger]:
            subject = o.subject
            assert subject is not None
            view = self.view
            if not view.may_have_timing(subject, timing):
                return []  # (scripted_triggers' own first question, asked without its call)
            if timing == "play" and view.definition(subject).type == "spell":
                return []
            return self.scripted_triggers(subject, timing, o.realm)
        return handler

    def in_world(self, timing: str) -> Handler:
        """Abilities with this timing of every card in The World (403.1, 403.5)."""
        return lambda o: self.world_triggers(timing)

    def whenever(self, event: str, of_wonders: bool = False) -> Handler:
        """"Whenever …" abilities this game event sets off (only if its subject is a Wonder
        when ``of_wonders``: attacking and defending are done by Wonders, 404.3.1)."""
        def handler(o: Occurrence) -> list[Trigger]:
            subject = o.subject
            assert subject is not None
            view = self.view
            if not view.reactors(event) and event not in view.counted_events():
                return []  # no card reacts to it, none counts it: whatever the subject is
            if of_wonders and not view.is_wonder(subject):
                return []
            return self.event_triggers(event, subject, o.by, o.realm)
        return handler

    def world_triggers(self, when: str) -> list[Trigger]:
        """``when`` triggers of every card in The World (round start, round N, round end)."""
        found: list[Trigger] = []
        for c in self.view.with_timing(when):  # the others have no such ability in force
            found += self.scripted_triggers(c.id, when)
        return found

    def event_triggers(self, event: str, subject: str, by: Seat | None,
                       realm: int | None = None) -> list[Trigger]:
        """"Whenever …" abilities of cards in The World that this game event sets off.

        Call before the event changes the subject's area, so "whenever a Wonder dies" sees a
        Wonder (rule 1: the trigger is checked while it is still one)."""
        self.count_event(event, subject, by)
        found: list[Trigger] = []
        # the others have no "whenever" ability on this event that can be in force
        for c in list(self.view.reactors(event)):
            for key, ability, printed in self.view.ability_refs(c.id):
                if ability.when != "whenever" or ability.on is None or ability.on.event != event:
                    continue
                if self._fires(c.id, key, ability, subject, by, realm):
                    t = Trigger(c.id, controller_of(c), f"ab:{key}", c.realm, subject)
                    found.append(t)
                    if printed and self.heart_doubles(c.id):
                        found.append(t)
        return found

    def _fires(self, cid: str, key: str, ability: Ability, subject: str,
               by: Seat | None, realm: int | None) -> bool:
        on = ability.on
        assert on is not None  # a "whenever" ability has its trigger (Ability validates it)
        seat = controller_of(self.state.cards[cid])  # in The World
        if (on.by == "yours" and by != seat) or (on.by == "enemy" and by != other(seat)):
            return False
        sub = self.state.cards[subject]
        ctx = Context(cid, seat, self.state.cards[cid].realm, subject=subject)
        if on.subject.where != "any" and (realm if realm is not None else sub.realm) != ctx.realm:
            return False
        if not matches(self.view, self._subject_selector(on.subject, sub.zone), subject, ctx):
            return False
        if on.nth is not None and self.event_count(event_key(on, by, self.view.definition(subject),
                                                             self.state.round)) != on.nth:
            return False
        spent = f"spent:{cid}:{key}"
        if on.next_time:
            if self.state.counts.get(spent):
                return False
            self.emit(EventCounted(spent, 1))
        return True

    def _subject_selector(self, subject: Selector, zone: str) -> Selector:
        """A "whenever" ability's subject as the cards it fits in the subject's ``zone``,
        wherever they are (:meth:`_fires` has checked the realm): made once per ability and
        zone, not at every event."""
        key = (id(subject), zone)
        found = self._subjects.get(key)
        if found is None or found[0] is not subject:
            found = self._subjects[key] = (subject, subject.model_copy(
                update={"zone": zone, "pick": "all", "where": "any"}))
        return found[1]

    def count_event(self, event: str, subject: str, by: Seat | None) -> None:
        """Count game events for "the first/second/third time …" (rule 511) — only events
        that some card in this match counts, so the state stays small."""
        if event not in self.view.counted_events():
            return
        d = self.view.definition(subject)
        for scope in ("game", "round"):
            for key in event_keys(event, by, d, scope, self.state.round):
                self.emit(EventCounted(key, self.state.counts.get(key, 0) + 1))

    def event_count(self, key: str) -> int:
        return self.state.counts.get(key, 0)

    def heart_doubles(self, cid: str) -> bool:
        """Heart of a Legend: printed abilities trigger twice with another legendary Wonder."""
        v = self.view
        if not v.has(cid, "heart of a legend"):
            return False
        seat = self.state.cards[cid].controller
        return any(c.id != cid and c.controller == seat and v.is_legendary_wonder(c.id)
                   for c in v.world())

    # -- resolving -----------------------------------------------------------------------

    def resolve_scripted(self, t: Trigger) -> Flow:
        """Resolve one scripted ability (a trigger, an activation or a harvest)."""
        ability = find_ability(self.db, t.ability[3:])
        c = self.state.cards[t.source]
        name = t.ability[3:]
        key = (t.source, t.ability)
        stack = self.state.stack  # 503: what is resolving now, and the loops stated
        depth = sum((r.source, r.ability) == key for r in stack.resolving) if stack else 0
        voluntary = any(op.optional for op in ability.effects)
        if self.state.revision >= LOOP_NET_REVISION and stack and sum(
                r.ability == t.ability for r in stack.resolving) > LOOP_NET_DEPTH:
            # 503 through new cards (a copy of a card whose arrival copies it): each
            # repetition has another source, so the count per card above never grows
            self.g.resolved(t, "prevented: endless loop (rule 503)")
            return
        if not voluntary and self.state.revision >= 7:
            if depth > 2 * LOOP_LIMIT + 2:  # never reached by a stated loop: a safety net only
                self.g.resolved(t, "prevented: endless loop (rule 503)")
                return
            if depth >= 2 and not (yield from self._involuntary_loop(t, key)):
                return
        elif depth >= LOOP_LIMIT or (voluntary and depth >= 2 and self._loop_left(key) == 0):
            self.g.resolved(t, "prevented: endless loop (rule 503)" if not voluntary
                           else "the loop ends: its controller makes the other choice (rule 503)")
            return
        if voluntary and depth >= 2:
            if self._loop_left(key) is None:
                times = yield from self.ask(Prompt(
                    t.controller, "amount", options=list(range(LOOP_LIMIT + 1)), card=t.source,
                    text="a loop: how many more times will it repeat? (rule 503)"))
                self.emit_stack(LoopStated(t.source, t.ability, times))
                if times == 0:
                    self.g.resolved(t, "the loop ends: its controller makes the other choice (rule 503)")
                    return
            self.emit_stack(LoopRepeated(t.source, t.ability))
        if ability.when == "arrival" and self.state.ruleset == "1.3.2" and c.zone != "world":
            self.g.resolved(t, "fizzles: its source left The World (On Arrival)")
            return
        ctx = Context(t.source, t.controller, t.realm, subject=t.subject)
        if not holds(self.view, ability.condition, ctx):
            self.g.resolved(t, "condition not met")
            return
        self.g.resolved(t, ability.label or ability.text or name)
        # On the stack while its effects happen (a match that ends meanwhile clears it).
        self.emit_stack(ResolutionStarted(t.source, t.ability))
        yield from self.run_effects(ability.effects, ctx, looping=self._loop_left(key) is not None)
        # 501 (revision 13): the triggers its operations set off waited; they resolve now,
        # while it is still on the stack (so 503 still sees a loop through them nested)
        yield from self.g.finish_effect(t.source, t.ability)
        self.emit_stack(ResolutionEnded(t.source, t.ability))

    def _involuntary_loop(self, t: Trigger, key: tuple[str, str]) -> Flow:
        """503, an involuntary loop (revision 7): "The active player chooses how many times the
        loop will continue, and then which effect will be prevented. The player can only choose
        to prevent an effect that's necessary to perpetuate the endless sequence."  The loop is
        the abilities resolving from the first of ``key``'s nested instances up; the first time
        it repeats nested a second time, the active player states the count (an ``amount``
        prompt, 0 to :data:`LOOP_LIMIT`: the bound is only the prompt's range) and the ability
        of the loop to prevent (a ``target`` prompt over the loop's abilities -- asked only when
        the loop has more than one), recorded as ``LoopStated`` on that ability.  Each later
        resolution of that ability is a ``LoopRepeated`` until none is left; then it is
        prevented.  Whether ``t`` goes on."""
        stack = self.state.stack
        assert stack is not None  # ``key`` is resolving below: depth >= 2
        keys = [(r.source, r.ability) for r in stack.resolving]
        cycle = list(dict.fromkeys([*keys[keys.index(key):], key]))
        if not any(self._loop_left(k) is not None for k in cycle):
            active = self.state.turn or t.controller
            times = yield from self.ask(Prompt(
                active, "amount", options=list(range(LOOP_LIMIT + 1)), card=t.source,
                text="an endless loop: how many more times will it continue? (rule 503)"))
            labels = [f"{source}:{ability}" for source, ability in cycle]
            chosen = labels[0]
            if len(labels) > 1:
                chosen = yield from self.ask(Prompt(
                    active, "target", options=labels, card=t.source,
                    text="an endless loop: which of its effects is prevented? (rule 503)"))
            prevented = cycle[labels.index(chosen)]
            self.emit_stack(LoopStated(prevented[0], prevented[1], times))
        left = self._loop_left(key)
        if left is None:
            return True  # another ability of the loop is the one to be prevented
        if left == 0:
            self.g.resolved(t, "prevented: endless loop (rule 503)")
            return False
        self.emit_stack(LoopRepeated(t.source, t.ability))
        return True

    def _loop_left(self, key: tuple[str, str]) -> int | None:
        """503: how many of the stated repetitions of a voluntary loop are left (``None``:
        none stated)."""
        stack = self.state.stack
        for loop in stack.loops if stack else ():
            if (loop.source, loop.ability) == key:
                return loop.left
        return None

    def run_effects(self, effects: tuple[Op, ...], ctx: Context,
                    looping: bool = False) -> Flow:
        """Do each effect in order, as much as possible (rule 507).  Inside a voluntary loop
        whose count was stated, "you may" is answered by that count (503)."""
        for op in effects:
            if op.condition is not None and not holds(self.view, op.condition, ctx):
                ctx.did = False
                continue
            if op.optional and not looping:
                answer = yield from self.ask(Prompt(ctx.controller, "may", options=["yes", "no"],
                                                    card=ctx.source, text=f"{op.do}?"))
                if answer == "no":
                    ctx.did = False
                    continue
            ctx.did = bool((yield from OPS[op.do](self.g, op, ctx)))
            yield from self.g.settle()
            if ctx.nullified:
                return  # a nullified effect does nothing more (Nullify)

    def choose(self, sel: Selector | None, ctx: Context, text: str,
               chooser: Seat | None = None) -> Flow:
        """The cards an effect applies to: all of them, or chosen on resolution (501.1)."""
        if sel is None:
            return [ctx.source]
        found = candidates(self.view, sel, ctx)
        if sel.pick in ("all", "this", "it", "equipped"):
            return found
        found = [cid for cid in found if not self.view.cant(cid, "be_targeted")]
        chooser = chooser or ctx.controller
        if sel.pick == "target" and sel.count == 1:
            target = yield from self.g.pick_target(Trigger(ctx.source, chooser, "target"), found, text)
            kept = [target] if target else []
        elif not found:
            return []
        else:
            low = 0 if sel.pick == "up_to" else min(sel.count, len(found))
            picks = yield from self.ask(Prompt(chooser, "target", choose=Choose(
                found, low, min(sel.count, len(found))), card=ctx.source, text=text))
            kept = []
            for cid in picks:
                if not (yield from self.g.shield_prevents(cid, "targeted")):
                    kept.append(cid)
        yield from self.targeted(kept, ctx)
        return [] if ctx.nullified else kept

    def targeted(self, targets: list[str], ctx: Context) -> Flow:
        """"Whenever … would target a Wonder you control": those abilities resolve before the
        targeting effect goes on, and may nullify it (the Feline Entity example, Nullify)."""
        triggers: list[Trigger] = []
        for cid in targets:
            c = self.state.cards[cid]
            if c.zone == "world" and c.controller != ctx.controller:
                triggers += self.g.run_event(Occurrence("targeted", cid, ctx.controller, c.realm))
        if not triggers:
            return
        self.emit_stack(TargetingStarted(ctx.source, ctx.controller))
        yield from self.g.resolve_now(triggers)  # before the effect goes on, also at r13 (R47)
        stack = self.state.stack
        if stack is not None and stack.targeting and stack.targeting[-1].nullified:
            ctx.nullified = True  # EffectNullified: the effect does nothing more
        self.emit_stack(TargetingEnded(ctx.source))

    def choose_realm(self, how: str, ctx: Context, text: str) -> Flow:
        """Where a card goes: here, or a target active realm (only active realms, 301.1)."""
        if how == "here" and ctx.realm is not None and self.view.is_active_realm(ctx.realm):
            return ctx.realm
        realms = self.view.active_realms()
        if not realms:
            return None
        return (yield from self.ask(Prompt(ctx.controller, "realm", options=realms,
                                           card=ctx.source, text=text)))

    # -- shared primitives ---------------------------------------------------------------

    def delayed_returns(self) -> Flow:
        """Delayed "return … at end of round" effects happen now (403.5).  From revision 8,
        when several wait, the active player (the last to pass) orders them: "As with any
        multiple simultaneous triggered effects, the active player controls the order"
        (v1.2 403.5); before, they happened in the order the cards were listed."""
        waiting = [c.id for c in self.state.cards.values()  # a card with no effect waits not
                   if c.effects and self._returns_at_round_end(c.id)]
        if self.state.revision < 8:
            waiting = list(self.state.cards)  # each checked as its turn comes, as before
        elif len(waiting) > 1 and self.state.turn is not None:
            waiting = list((yield from self.ask(Prompt(
                self.state.turn, "order", choose=Choose(waiting, len(waiting), len(waiting),
                                                        ordered=True),
                text="order the returns at the end of the round (rule 403.5)"))))
        for cid in waiting:
            if self._returns_at_round_end(cid):
                yield from self._return_at_round_end(cid)

    def _returns_at_round_end(self, cid: str) -> bool:
        c = self.state.cards[cid]
        return bool(c.effects) and c.zone == "abyss" and \
            any(e.kind == "return_at_round_end" for e in c.effects)

    def _return_at_round_end(self, cid: str) -> Flow:
        c = self.state.cards[cid]
        e = next(e for e in c.effects if e.kind == "return_at_round_end")
        seat = as_seat(e.source)  # this effect's source is the seat that returns it
        ctx = Context(c.id, seat, None)
        realm = yield from self.choose_realm("target", ctx, f"return {c.name} to which realm?")
        self.emit(EffectsEnded(c.id, "all"))
        if realm is not None:
            yield from self.g.enter_world(c.id, seat, realm, "returned")

    def return_round_control(self) -> list[str]:
        """403.5: "this round" control ends; the card returns unless its owner "can't" control
        it.  Gives the cards whose control returned."""
        returned: list[str] = []
        for c in list(self.view.world()):
            for e in c.effects:
                if e.kind == "control" and e.until == "round" and \
                        self.g.set_controller(c.id, as_seat(e.source)):  # the seat it had before
                    returned.append(c.id)
        return returned


def event_keys(event: str, by: str | None, card: Card, scope: str, round_: int) -> list[str]:
    prefix = f"n:{scope}:{round_ if scope == 'round' else 0}:{by}:{event}"
    return [prefix, f"{prefix}:{card.type}", f"{prefix}:{card.type}:{card.orbital}"]


def event_key(on: AbilityTrigger, by: str | None, card: Card, round_: int) -> str:
    keys = event_keys(on.event, by, card, on.nth_scope, round_)
    if on.subject.orbital:
        return keys[2]
    if on.subject.what in ("land", "item", "spell", "wonder"):
        return keys[1]
    return keys[0]
