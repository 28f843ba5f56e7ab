"""The interpreter of scripted abilities: when they trigger and what their effects do.

A mixin of :class:`~replay.engine.Engine`.  Triggered abilities become
:class:`~replay.effects.Trigger` objects named ``ab:<Card Name>#<i>`` and resolve through the
same ordering machinery as keywords (502); activated and harvest abilities are turn actions
(404.4); static abilities live in :mod:`replay.statics`.  Each effect (``Op``) runs as a
small procedure that may prompt (targets 501.1, "you may", a class to name) and reports
whether it happened, for "if you do".

Endless loops (503): an ability that, while resolving, sets itself off again is a loop.  If
it has a choice ("you may"), the loop is voluntary: at the second repetition its controller
states how many more times it will repeat (an ``amount`` prompt), the loop runs that many
times and then ends by the other choice.  Otherwise it is involuntary: once nested
:data:`LOOP_LIMIT` deep the engine prevents it, the one effect that keeps the loop going
(docs/rulings.md R18).  Abilities that merely trigger many times one after another are no
loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger.events import (CardTapped, ControlChanged, EffectApplied, RealmBanished,
                           ResourcesChanged, StoneSeized, TokenCreated)
from replay.abilities import Ability, Op, Selector
from replay.cards import Card
from replay.effects import Trigger
from replay.prompts import Choose, Prompt
from replay.selectors import Context, amount, candidates, holds
from replay.state import CardState, Effect, other

if TYPE_CHECKING:
    from replay.engine import Engine, Flow

LOOP_LIMIT = 24
FACE_DOWN = "distributed face down"  # the reason of a CardMoved that hides the card (Face Down)
_BY_WHEN = ("play", "arrival", "attack", "defense", "battle", "battle_end", "death", "harvest",
            "round_start", "round", "round_end")


class Scripts:
    """Mixin of :class:`~replay.engine.Engine`: scripted abilities."""

    # -- collecting triggers -------------------------------------------------------------

    def scripted_triggers(self: "Engine", cid: str, when: str, realm: int | None = None,
                          subject: str | None = None) -> list[Trigger]:
        """The triggers of one card's abilities with timing ``when`` (twice under Heart of a
        Legend for printed abilities)."""
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

    def world_triggers(self: "Engine", when: str) -> list[Trigger]:
        """``when`` triggers of every card in The World (round start, round N, round end)."""
        found: list[Trigger] = []
        for c in list(self.view.world()):
            found += self.scripted_triggers(c.id, when)
        return found

    def event_triggers(self: "Engine", event: str, subject: str, by: str | None,
                       realm: int | None = None) -> list[Trigger]:
        """"Whenever …" abilities of cards in The World that this game event sets off.

        Call before the event changes the subject's area, so "whenever a Wonder dies" sees a
        Wonder (rule 1: the trigger is checked while it is still one)."""
        self.count_event(event, subject, by)
        found: list[Trigger] = []
        for c in list(self.view.world()):
            for key, ability, printed in self.view.ability_refs(c.id):
                if ability.when != "whenever" or ability.on.event != event:
                    continue
                if self._fires(c.id, key, ability, subject, by, realm):
                    t = Trigger(c.id, c.controller, f"ab:{key}", c.realm, subject)
                    found.append(t)
                    if printed and self.heart_doubles(c.id):
                        found.append(t)
        return found

    def _fires(self: "Engine", cid: str, key: str, ability: Ability, subject: str,
               by: str | None, realm: int | None) -> bool:
        on = ability.on
        seat = self.state.cards[cid].controller
        if on.by == "yours" and by != seat or on.by == "enemy" and by != other(seat):
            return False
        sub = self.state.cards[subject]
        ctx = Context(cid, seat, self.state.cards[cid].realm, subject=subject)
        wanted = on.subject.model_copy(update={"zone": sub.zone, "pick": "all"})
        if on.subject.where != "any" and (realm if realm is not None else sub.realm) != ctx.realm:
            return False
        from replay.selectors import matches
        if not matches(self.view, wanted.model_copy(update={"where": "any"}), subject, ctx):
            return False
        if on.nth is not None and self.event_count(event_key(on, by, self.view.definition(subject),
                                                             self.state.round)) != on.nth:
            return False
        spent = f"spent:{cid}:{key}"
        if on.next_time:
            if self.state.counts.get(spent):
                return False
            self.state.counts[spent] = 1
        return True

    def count_event(self: "Engine", event: str, subject: str, by: str | None) -> None:
        """Count game events for "the first/second/third time …" (rule 511)."""
        d = self.view.definition(subject)
        for scope in ("game", "round"):
            for key in event_keys(event, by, d, scope, self.state.round):
                self.state.counts[key] = self.state.counts.get(key, 0) + 1

    def event_count(self: "Engine", key: str) -> int:
        return self.state.counts.get(key, 0)

    def heart_doubles(self: "Engine", cid: str) -> bool:
        """Heart of a Legend: printed abilities trigger twice with another legendary Wonder."""
        v = self.view
        if not v.has(cid, "heart of a legend"):
            return False
        seat = self.state.cards[cid].controller
        return any(c.id != cid and c.controller == seat and v.is_legendary_wonder(c.id)
                   for c in v.world())

    # -- resolving -----------------------------------------------------------------------

    def resolve_scripted(self: "Engine", t: Trigger) -> "Flow":
        """Resolve one scripted ability (a trigger, an activation or a harvest)."""
        ability = ability_by_key(self, t.ability[3:])
        c = self.state.cards[t.source]
        name = t.ability[3:]
        key = (t.source, t.ability)
        depth = self.resolving.count(key)
        voluntary = any(op.optional for op in ability.effects)
        if depth >= LOOP_LIMIT or (voluntary and depth >= 2 and self.loop_plan.get(key) == 0):
            self._resolved(t, "prevented: endless loop (rule 503)" if not voluntary
                           else "the loop ends: its controller makes the other choice (rule 503)")
            return
        if voluntary and depth >= 2:
            if key not in self.loop_plan:
                self.loop_plan[key] = yield from self.ask(Prompt(
                    t.controller, "amount", options=list(range(LOOP_LIMIT + 1)), card=t.source,
                    text="a loop: how many more times will it repeat? (rule 503)"))
                if self.loop_plan[key] == 0:
                    self._resolved(t, "the loop ends: its controller makes the other choice (rule 503)")
                    return
            self.loop_plan[key] -= 1
        if ability.when == "arrival" and self.state.ruleset == "1.3.2" and c.zone != "world":
            self._resolved(t, "fizzles: its source left The World (On Arrival)")
            return
        ctx = Context(t.source, t.controller, t.realm, subject=t.subject)
        if not holds(self.view, ability.condition, ctx):
            self._resolved(t, "condition not met")
            return
        self._resolved(t, ability.label or ability.text or name)
        self.resolving.append(key)
        try:
            yield from self.run_effects(ability.effects, ctx, looping=key in self.loop_plan)
        finally:
            self.resolving.pop()
            if not self.resolving:
                self.loop_plan.clear()

    def run_effects(self: "Engine", effects: tuple[Op, ...], ctx: Context,
                    looping: bool = False) -> "Flow":
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
            ctx.did = bool((yield from _OPS[op.do](self, op, ctx)))
            yield from self.settle()

    def choose(self: "Engine", sel: Selector | None, ctx: Context, text: str,
               chooser: str | None = None) -> "Flow":
        """The cards an effect applies to: all of them, or chosen on resolution (501.1)."""
        if sel is None:
            return [ctx.source]
        found = candidates(self.view, sel, ctx)
        if sel.pick in ("all", "this", "it", "equipped"):
            return found
        found = [cid for cid in found if not self.view.cant(cid, "be_targeted")]
        chooser = chooser or ctx.controller
        if sel.pick == "target" and sel.count == 1:
            target = yield from self.pick_target(Trigger(ctx.source, chooser, "target"), found, text)
            return [target] if target else []
        if not found:
            return []
        low = 0 if sel.pick == "up_to" else min(sel.count, len(found))
        picks = yield from self.ask(Prompt(chooser, "target", choose=Choose(
            found, low, min(sel.count, len(found))), card=ctx.source, text=text))
        kept = []
        for cid in picks:
            if not (yield from self.shield_prevents(cid, "targeted")):
                kept.append(cid)
        return kept

    def choose_realm(self: "Engine", how: str, ctx: Context, text: str) -> "Flow":
        """Where a card goes: here, or a target active realm (only active realms, 301.1)."""
        if how == "here" and ctx.realm is not None and self.view.is_active_realm(ctx.realm):
            return ctx.realm
        realms = self.view.active_realms()
        if not realms:
            return None
        return (yield from self.ask(Prompt(ctx.controller, "realm", options=realms,
                                           card=ctx.source, text=text)))

    # -- shared primitives ---------------------------------------------------------------

    def add_effect(self: "Engine", cid: str, kind: str, value: float, until: str,
                   source: str) -> None:
        c = self.state.cards[cid]
        c.effects = [*c.effects, Effect(kind, value, "round" if until == "round" else "ever", source)]
        self.emit(EffectApplied(cid, kind, value, "round" if until == "round" else "ever"))

    def set_tapped(self: "Engine", cid: str, tapped: bool) -> bool:
        c = self.state.cards[cid]
        if c.tapped == tapped or self.view.cant(cid, "be_tapped" if tapped else "untap"):
            return False  # you can only untap a tapped card (Tap)
        c.tapped = tapped
        self.emit(CardTapped(cid, tapped))
        return True

    def set_controller(self: "Engine", cid: str, seat: str) -> bool:
        c = self.state.cards[cid]
        if c.controller == seat or (self.view.cant(cid, "be_controlled")
                                    and seat != c.controller):
            return False
        c.controller = seat
        self.view.touch()
        self.emit(ControlChanged(cid, seat))
        return True

    def stand_in(self: "Engine", name: str | None, type_: str, spec, orbital: str | None = None) -> str:
        """The card definition of a stand-in token (203): only what the effect defines."""
        power = spec.power if spec is not None else 1
        classes = tuple(spec.classes) if spec is not None else ()
        label = name or " ".join(classes) or "Token"
        card_name = f"{label} token ({power})" if type_ == "wonder" else f"{label} {type_} token"
        if card_name not in self.db:
            self.db.add(Card(name=card_name, type=type_, classes=classes, orbital=orbital,
                             power=power if type_ == "wonder" else None, token=True,
                             keywords=tuple(spec.keywords) if spec is not None else ()))
        return card_name

    def place_token(self: "Engine", seat: str, card_name: str, realm: int,
                    printed: str | None = None) -> str:
        """Put a token into The World (a printed one leaves the archive for good, 303.3)."""
        s = self.state
        if printed is not None:
            s.players[seat].archive.remove(printed)
            cid = printed
        else:
            cid = f"{seat}-t{s.next_token}"
            s.next_token += 1
            s.cards[cid] = CardState(cid, card_name, seat, "archive", token=True)
        self.emit(TokenCreated(seat, cid, s.cards[cid].name, realm))
        self.move(cid, "world", "token created", realm=realm, controller=seat)
        return cid

    def delayed_returns(self: "Engine") -> "Flow":
        """Delayed "return … at end of round" effects happen now (403.5)."""
        for c in list(self.state.cards.values()):
            for e in c.effects:
                if e.kind == "return_at_round_end" and c.zone == "abyss":
                    ctx = Context(c.id, e.source, None)
                    realm = yield from self.choose_realm("target", ctx, f"return {c.name} to which realm?")
                    c.effects = []
                    if realm is not None:
                        yield from self.enter_world(c.id, e.source, realm, "returned")
                    break

    def return_round_control(self: "Engine") -> None:
        """403.5: "this round" control ends; the card returns unless its owner "can't" control it."""
        for c in self.view.world():
            for e in c.effects:
                if e.kind == "control" and e.until == "round":
                    self.set_controller(c.id, e.source)


def ability_by_key(engine: "Engine", key: str) -> Ability:
    name, index = key.rsplit("#", 1)
    return engine.db[name].abilities[int(index)]


def event_keys(event: str, by: str | None, card: Card, scope: str, round_: int) -> list[str]:
    prefix = f"n:{scope}:{round_ if scope == 'round' else 0}:{by}:{event}"
    return [prefix, f"{prefix}:{card.type}", f"{prefix}:{card.type}:{card.orbital}"]


def event_key(on, by: str | None, card: Card, round_: int) -> str:
    keys = event_keys(on.event, by, card, on.nth_scope, round_)
    if on.subject.orbital:
        return keys[2]
    if on.subject.what in ("land", "item", "spell", "wonder"):
        return keys[1]
    return keys[0]


# -- the effects ----------------------------------------------------------------------------
# Each takes (engine, op, ctx), may prompt, and returns whether it did anything.


def _draw(g: "Engine", op: Op, ctx: Context) -> "Flow":
    for _ in range(int(amount(g.view, op.amount, ctx))):
        g.draw(ctx.controller, "effect")  # 6 Draw: one at a time
    return True
    yield


def _deny(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Deny N: the top N cards of your deck into The Abyss."""
    deck = g.state.players[ctx.controller].deck
    n = min(int(amount(g.view, op.amount, ctx)), len(deck))
    for cid in deck[:n]:
        g.move(cid, "abyss", "deny")
    g.check_decks()
    return n > 0
    yield


def _discard(g: "Engine", op: Op, ctx: Context) -> "Flow":
    hand = g.state.players[ctx.controller].hand
    n = min(int(amount(g.view, op.amount, ctx)), len(hand))
    if n == 0:
        return False
    cards = yield from g.ask(Prompt(ctx.controller, "discard", choose=Choose(list(hand), n, n),
                                    card=ctx.source, text=f"discard {n}"))
    for cid in cards:
        g.move(cid, "abyss", "discard")
    return True


def _bury(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Bury: put cards on the bottom of their owner's deck."""
    cards = yield from g.choose(op.target, ctx, "bury which card?")
    for cid in cards:
        g.move(cid, "deck", "bury")
    return bool(cards)


def _reveal(g: "Engine", op: Op, ctx: Context) -> "Flow":
    deck = g.state.players[ctx.controller].deck
    shown = deck[: int(amount(g.view, op.amount, ctx))]
    g.emit_reveal(ctx, shown)
    ctx.chosen = list(shown)
    return bool(shown)
    yield


def _seek(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Seek N: reveal the top N, you may play a matching one free here, bury the rest."""
    deck = g.state.players[ctx.controller].deck
    shown = list(deck[: int(amount(g.view, op.amount, ctx))])
    g.emit_reveal(ctx, shown)
    match = op.match or Selector(pick="all", what="card", zone="deck")
    fits = [cid for cid in shown if cid in candidates(g.view, match.model_copy(
        update={"zone": "deck", "pick": "all", "side": "any"}), ctx)]
    chosen = None
    if fits:
        chosen = yield from g.pick_target(Trigger(ctx.source, ctx.controller, "seek"), fits,
                                          "seek: play which card for free?", optional=True)
    for cid in shown:
        if cid != chosen:
            g.move(cid, "deck", "bury")
    if chosen is None:
        return False
    realm = yield from g.choose_realm(op.realm, ctx, "seek: play it into which realm?")
    yield from g.play_free(ctx.controller, chosen, realm)
    return True


def _destroy(g: "Engine", op: Op, ctx: Context) -> "Flow":
    cards = yield from g.choose(op.target, ctx, "destroy which card?")
    targeted = op.target is not None and op.target.pick in ("target", "up_to")
    why = g.view.definition(ctx.source).name
    dying = []
    for cid in cards:  # shields and replacements first, then everything dies at once
        if g.state.cards[cid].zone != "world" or g.view.cant(cid, "be_destroyed"):
            continue
        if not targeted and (yield from g.shield_prevents(cid, "destroyed")):
            continue
        if not (yield from g.replaced(cid, "destroyed")):
            dying.append(cid)
    yield from g.die_together(dying, "destroyed", why)
    return bool(dying)


def _sacrifice(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Sacrifice: your own card to The Abyss; no target, no shield (Sacrifice)."""
    chooser = ctx.controller
    if op.target is not None and op.target.side == "enemy":
        chooser = other(ctx.controller)  # "its owner/controller sacrifices"
    if ctx.subject and op.target is not None and op.target.where == "event":
        chooser = g.state.cards[ctx.subject].controller or chooser
    sel = op.target or Selector(pick="this")
    pool = [cid for cid in candidates(g.view, sel.model_copy(update={"where": "any"}), Context(
        ctx.source, chooser, ctx.realm, ctx.subject, ctx.chosen)) if g.state.cards[cid].controller == chooser]
    if sel.pick in ("this", "it", "all"):
        picks = pool
    elif not pool:
        picks = []
    else:
        picks = yield from g.ask(Prompt(chooser, "target", choose=Choose(
            pool, min(sel.count, len(pool)) if sel.pick == "target" else 0, min(sel.count, len(pool))),
            card=ctx.source, text="sacrifice which?"))
    for cid in picks:
        ctx.sacrificed_power = g.view.power(cid) if g.view.is_wonder(cid) else 0
        ctx.named_class = ctx.named_class or (g.view.classes(cid)[0] if g.view.classes(cid) else None)
        yield from g.die(cid, "sacrifice", g.view.definition(ctx.source).name)
    ctx.chosen = list(picks)
    return bool(picks)


def _banish(g: "Engine", op: Op, ctx: Context) -> "Flow":
    cards = yield from g.choose(op.target, ctx, "banish which card?")
    for cid in cards:
        yield from g.banish(cid, "banished")
    return bool(cards)


def _portal(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Portal: banish, then return to The World at once (untapped; arrival re-triggers)."""
    cards = yield from g.choose(op.target, ctx, "portal which card?")
    for cid in cards:
        c = g.state.cards[cid]
        realm, seat = c.realm, c.controller
        g.move(cid, "banishment", "portal")
        if c.zone == "banishment":
            yield from g.enter_world(cid, seat, realm, "portal")
    return bool(cards)


def _put(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Return / put a card from another area into a realm (it arrives); "at end of round"
    marks the card and :meth:`Scripts.delayed_returns` does it then."""
    cards = yield from g.choose(op.target, ctx, "which card?")
    if op.at_round_end:
        for cid in cards:
            g.add_effect(cid, "return_at_round_end", 0, "ever", ctx.controller)
        return bool(cards)
    for cid in cards:
        realm = yield from g.choose_realm(op.realm, ctx, f"put {g.state.cards[cid].name} into which realm?")
        if realm is not None:
            yield from g.enter_world(cid, ctx.controller if op.do == "put" else g.state.cards[cid].owner,
                                     realm, op.do)
    return bool(cards)


def _move(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Move: realm to realm, entering and leaving every realm in between (Move)."""
    cards = yield from g.choose(op.target, ctx, "move which card?")
    moved = False
    for cid in cards:
        here = g.state.cards[cid].realm
        if op.to == "adjacent":
            options = [r for r in (here - 1, here + 1) if g.view.is_active_realm(r)]
        else:
            options = [r for r in g.view.active_realms() if r != here]
        if op.realm == "here" and ctx.realm in options:
            options = [ctx.realm]
        if not options:
            continue
        dest = yield from g.ask(Prompt(ctx.controller, "realm", options=options, card=cid,
                                       text=f"move {g.state.cards[cid].name} to which realm?"))
        step = 1 if dest > here else -1
        for realm in range(here + step, dest + step, step):
            yield from g.move_realm(cid, realm, "move")
        moved = True
    return moved


def _create_token(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Create tokens (203): a printed token from the archive that meets the minimum
    requirements, or a stand-in; the token arrives."""
    spec = op.token
    classes = tuple(spec.classes)
    if spec.copy_classes and ctx.chosen:
        classes += tuple(k for k in g.view.classes(ctx.chosen[0]) if k not in classes)
    spec = spec.model_copy(update={"classes": classes})
    seat = ctx.controller
    made = []
    for _ in range(spec.count):
        printed = [cid for cid in g.state.players[seat].archive if _meets(g, cid, spec)]
        pick = "stand-in"
        if printed:
            pick = yield from g.ask(Prompt(seat, "target", options=[*printed, "stand-in"],
                                           card=ctx.source, text="which token?"))
        how = "any" if spec.distributed else op.realm
        realm = yield from g.choose_realm(how, ctx, "create the token in which realm?")
        if realm is None:
            break
        name = g.state.cards[pick].name if pick != "stand-in" else g.stand_in(
            spec.name, spec.type, spec, g.view.definition(ctx.source).orbital)
        cid = g.place_token(seat, name, realm, printed=pick if pick != "stand-in" else None)
        made.append(cid)
        yield from g.resolve(g._arrival_triggers(cid))
    ctx.chosen = made
    return bool(made)


def _meets(g: "Engine", cid: str, spec) -> bool:
    d = g.view.definition(cid)
    if d.type != spec.type or (spec.type == "wonder" and d.base_power != spec.power):
        return False
    if spec.story:  # a story token names its Stoneseeker in its faction area
        return "Story Token" in d.classes and d.faction == spec.name
    if spec.name and spec.name not in d.name:
        return False
    return set(spec.classes) <= set(d.classes)


def _counters(g: "Engine", op: Op, ctx: Context) -> "Flow":
    cards = yield from g.choose(op.target, ctx, f"put {op.counter} counters on which card?")
    n = int(amount(g.view, op.amount, ctx))
    if op.up_to_amount and cards:
        n = yield from g.ask(Prompt(ctx.controller, "amount", options=list(range(n + 1)),
                                    card=ctx.source, text=f"how many {op.counter} counters?"))
    done = False
    for cid in cards:
        theirs = g.state.cards[cid].controller != ctx.controller
        if g.view.cant(cid, "get_counters") and theirs:
            continue
        g.add_counters(cid, op.counter or "+1", n)
        done = True
    return done


def _power(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """"Gets +N" (additive), "double" (multiplicative), "base power N" — rule 101.6 order."""
    cards = yield from g.choose(op.target, ctx, "which Wonder?")
    kind = {"power": "power+", "multiply": "power*", "base_power": "base"}[op.do]
    value = amount(g.view, op.amount, ctx)
    for cid in cards:
        g.add_effect(cid, kind, value, op.until, ctx.source)
    return bool(cards)


def _stun(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Stun: tap it, and its base power is 0 until the end of the round."""
    cards = yield from g.choose(op.target, ctx, "stun which Wonder?")
    for cid in cards:
        g.set_tapped(cid, True)
        g.add_effect(cid, "base", 0, "round", ctx.source)
    return bool(cards)


def _tap(g: "Engine", op: Op, ctx: Context) -> "Flow":
    cards = yield from g.choose(op.target, ctx, f"{op.do} which card?")
    changed = [g.set_tapped(cid, op.do == "tap") for cid in cards]
    return any(changed)


def _nullify(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Nullify: temporary (this round) or continuous (indefinitely); "can't" wins."""
    cards = yield from g.choose(op.target, ctx, "nullify which card?")
    done = False
    for cid in cards:
        if g.view.cant(cid, "be_nullified") or g.view.is_nullified(cid):
            continue  # a card can't become nullified while it already is
        if op.unless_pay:
            victim = g.state.cards[cid].controller or g.state.cards[cid].owner
            p = g.state.players[victim]
            if p.energy >= op.unless_pay:
                pay = yield from g.ask(Prompt(victim, "may", options=["yes", "no"], card=cid,
                                              text=f"pay {op.unless_pay} energy to avoid nullify?"))
                if pay == "yes":
                    p.energy -= op.unless_pay
                    g.emit(ResourcesChanged(victim, "pay", energy=p.energy))
                    continue
        g.add_effect(cid, "nullify", 0, "round" if op.temporary else "ever", ctx.source)
        done = True
    return done


def _gain(g: "Engine", op: Op, ctx: Context) -> "Flow":
    p = g.state.players[ctx.controller]
    value = amount(g.view, op.amount, ctx) * (1 if op.do == "gain" else -1)
    resource = op.resource or "energy"
    setattr(p, resource, max(0, getattr(p, resource) + value) if op.do == "lose" else
            getattr(p, resource) + value)
    if resource in ("actions", "free_attacks"):
        setattr(p, resource, int(getattr(p, resource)))
    g.emit(ResourcesChanged(ctx.controller, op.do, **{resource: getattr(p, resource)}))
    return True
    yield


def _control(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Gain control: the card moves to your side of the same realm (506)."""
    cards = yield from g.choose(op.target, ctx, "gain control of which card?")
    done = False
    for cid in cards:
        before = g.state.cards[cid].controller
        if g.set_controller(cid, ctx.controller):
            done = True
            if op.until == "round":
                g.add_effect(cid, "control", 0, "round", before)
    ctx.chosen = cards
    return done


def _copy(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Copy: a token with the copied card's printed stats and abilities; it arrives."""
    cards = yield from g.choose(op.target, ctx, "copy which card?")
    made = []
    for cid in cards:
        realm = yield from g.choose_realm(op.realm, ctx, "create the copy in which realm?")
        if realm is None:
            continue
        token = g.place_token(ctx.controller, g.state.cards[cid].name, realm)
        made.append(token)
        yield from g.resolve(g._arrival_triggers(token))
    ctx.chosen = made
    return bool(made)


def _grant(g: "Engine", op: Op, ctx: Context) -> "Flow":
    cards = yield from g.choose(op.target, ctx, "which card?")
    for cid in cards:
        for keyword in op.keywords:
            g.add_effect(cid, f"grant:{keyword}", 0, op.until, ctx.source)
    return bool(cards)


def _cant(g: "Engine", op: Op, ctx: Context) -> "Flow":
    cards = yield from g.choose(op.target, ctx, "which card?")
    for cid in cards:
        g.add_effect(cid, f"cant:{op.restriction}", 0, op.until, ctx.source)
    return bool(cards)


def _name_class(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Name a class: any class a card in the game has."""
    classes = sorted({k for card in g.db for k in card.classes})
    ctx.named_class = yield from g.ask(Prompt(ctx.controller, "target", options=classes,
                                              card=ctx.source, text="name a class"))
    return True


def _distribute(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Shuffle the chosen cards (a chance event) and distribute them as evenly as possible
    over the active realms, face down if the effect says so (Distribute, Face Down)."""
    cards = yield from g.choose(op.target, ctx, "which cards?")
    realms = g.view.active_realms()
    if not cards or not realms:
        return False
    if len(cards) == 1:  # one card: you choose where it goes (Distribute)
        realm = yield from g.choose_realm("target", ctx, "distribute it into which realm?")
        realms = [realm]
    else:
        shuffle = yield Prompt("chance", "chance", choose=Choose(list(cards), len(cards), len(cards),
                                                                 ordered=True),
                               text=f"shuffle {ctx.controller}")
        cards = list(shuffle.order)
    for n, cid in enumerate(cards):
        g.state.cards[cid].face_down = not op.faceup  # face down as it arrives: no type, no effect
        g.move(cid, "world", FACE_DOWN if not op.faceup else "distributed",
               realm=realms[n % len(realms)], controller=ctx.controller)
    g.view.touch()
    return True


def _trigger_again(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Choose an on-arrival ability of another Wonder you control; trigger it N times
    (not a copy, 507)."""
    sel = op.target or Selector(what="wonder", side="yours", other=True)
    pool = [cid for cid in candidates(g.view, sel, ctx) if g.arrival_abilities(cid)]
    if not pool:
        return False
    source = yield from g.ask(Prompt(ctx.controller, "target", options=pool, card=ctx.source,
                                     text="trigger which Wonder's on-arrival ability?"))
    names = g.arrival_abilities(source)
    name = names[0]
    if len(names) > 1:
        name = yield from g.ask(Prompt(ctx.controller, "target", options=names, card=source,
                                       text="which on-arrival ability?"))
    c = g.state.cards[source]
    yield from g.resolve([Trigger(source, ctx.controller, name, c.realm)] * op.times)
    return True


def _seize_stone(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Seize a stone outside a battle (Seize Stone): one from the center or an opponent, in
    this or a target realm; protectors only stop seizures in battles."""
    seat = ctx.controller
    realms = [r for r in g.view.active_realms()
              if any(st != seat for st in g.state.realms[r - 1].stones)]
    if op.realm == "here":
        realms = [r for r in realms if r == ctx.realm]
    if not realms:
        return False
    realm = realms[0] if len(realms) == 1 else (yield from g.ask(Prompt(
        seat, "realm", options=realms, card=ctx.source, text="seize a stone in which realm?")))
    stones = g.state.realms[realm - 1].stones
    sources = sorted({st for st in stones if st != seat}, key=["center", "A", "B"].index)
    source = yield from g.ask(Prompt(seat, "stone", options=sources, card=ctx.source,
                                     text=f"seize a stone in realm {realm}"))
    stones[stones.index(source)] = seat
    g.state.last_seizer = seat
    g.state.players[seat].seized_this_round = True
    g.emit(StoneSeized(realm, seat, source))
    return True


def _banish_realm(g: "Engine", op: Op, ctx: Context) -> "Flow":
    """Banish a realm: everything in it is banished with it, or nothing is if anything there
    can't be (Banishment).  v1.3.2: a banished realm is inactive; v1.2: it stays active, and a
    card sent there enters banishment with it (rules README)."""
    realm = yield from g.choose_realm(op.realm, ctx, "banish which realm?")
    if realm is None:
        return False
    here = [c.id for c in g.view.in_realm(realm)]
    if any(g.view.cant(cid, "be_banished") for cid in here):
        return False
    for cid in here:
        yield from g.banish(cid, "realm banished")
    g.state.realms[realm - 1].banished = True
    g.view.touch()
    g.emit(RealmBanished(realm))
    return True


_OPS = {
    "draw": _draw, "deny": _deny, "discard": _discard, "bury": _bury, "reveal": _reveal,
    "seek": _seek, "destroy": _destroy, "sacrifice": _sacrifice, "banish": _banish,
    "portal": _portal, "return": _put, "put": _put, "move": _move,
    "create_token": _create_token, "counters": _counters, "power": _power,
    "multiply": _power, "base_power": _power, "stun": _stun, "tap": _tap, "untap": _tap,
    "nullify": _nullify, "gain": _gain, "lose": _gain, "control": _control, "copy": _copy,
    "grant": _grant, "cant": _cant, "name_class": _name_class, "distribute": _distribute,
    "trigger_again": _trigger_again, "seize_stone": _seize_stone, "banish_realm": _banish_realm,
}
STATIC_ONLY = frozenset({"play_from_deck", "symbiosis_any_power", "counts_as_stones"})


class Movement:
    """Mixin of :class:`~replay.engine.Engine`: movement that abilities can replace (504)."""

    def replaced(self: "Engine", cid: str, event: str) -> "Flow":
        """Run a card's movement-replacement ability for ``event`` ("if this would be …,
        … instead"); it works from any area (504).  Returns whether it replaced the event."""
        c = self.state.cards[cid]
        for key, ability, _ in self.view.ability_refs(cid):
            if ability.when == "replacement" and ability.on.event == event:
                ctx = Context(cid, c.controller or c.owner, c.realm)
                self.emit(_replacement_event(self, cid, key, ctx.controller, ability))
                yield from self.run_effects(ability.effects, ctx)
                return True
        return False

    def banish(self: "Engine", cid: str, reason: str) -> "Flow":
        """Banish: the card goes to banishment (no "dies" trigger) unless replaced."""
        if self.view.cant(cid, "be_banished") or (yield from self.replaced(cid, "banished")):
            return
        c = self.state.cards[cid]
        triggers = self.event_triggers("banished", cid, c.controller or c.owner, c.realm)
        self.move(cid, "banishment", reason)
        yield from self.resolve(triggers)

    def play_free(self: "Engine", seat: str, cid: str, realm: int | None) -> "Flow":
        """Play a card for no cost as if from hand (Seek): the core mechanic doesn't apply."""
        from ledger.events import CardPlayed
        card = self.view.definition(cid)
        self.emit(CardPlayed(seat, cid, card.name, realm if card.type != "spell" else None, 0, False))
        yield from self.resolve_play(seat, cid, realm)

    def resolve_play(self: "Engine", seat: str, cid: str, realm: int | None) -> "Flow":
        """A played card resolves: On Play and "whenever you play" first, then a spell's
        effect (then The Abyss) or the card arrives (404.2, On Play)."""
        card = self.view.definition(cid)
        spell = card.type == "spell"
        scripted = bool(card.abilities) or card.has_unscripted_text
        if spell and scripted:
            self.move(cid, "played", "spell cast")
        triggers = [] if spell else self.scripted_triggers(cid, "play", realm)
        triggers += self.event_triggers("plays", cid, seat, realm)
        yield from self.resolve(triggers)
        if spell:
            # A nullified spell resolves with no effect (Nullify).
            yield from self.resolve(self.scripted_triggers(cid, "play", None))
            if card.has_unscripted_text and not self.view.is_nullified(cid):
                yield from self.resolve_manually(seat, cid, "spell played")
            self.move(cid, "abyss", "spell resolved")  # 101.3.3
            return
        yield from self.enter_world(cid, seat, realm, "played")
        if card.has_unscripted_text and self.state.cards[cid].zone == "world":
            yield from self.resolve_manually(seat, cid, "arrived")

    def arrival_abilities(self: "Engine", cid: str) -> list[str]:
        """Names of a card's on-arrival abilities (keywords and scripted), for Skraal-like
        "trigger it again" effects."""
        from replay.effects import ON_ARRIVAL
        names = [k for k in ON_ARRIVAL if self.view.has(cid, k)]
        names += [f"ab:{key}" for key, a, _ in self.view.ability_refs(cid) if a.when == "arrival"]
        return names


def _replacement_event(g: "Engine", cid: str, key: str, seat: str, ability: Ability):
    from ledger.events import TriggerResolved
    return TriggerResolved(cid, g.state.cards[cid].name, f"ab:{key}", seat,
                           f"instead: {ability.label or ability.text or 'replacement'}")
