"""The effects of the ability language: one small procedure per ``do`` (docs/abilities.md).

Each takes ``(g, op, ctx)`` -- ``g`` the rules' table (:class:`~replay.wotf.table.Rules`),
``op`` its own kind of effect (:data:`replay.wotf.abilities.Op`) --, may prompt (targets,
"you may", a realm, a class), changes the state only through the table's primitives
(:mod:`replay.wotf.moves`), and returns whether it did anything (for
"if you do").  :data:`OPS` maps each ``do`` to its procedure; static-only effects
(``play_from_deck``, ``symbiosis_any_power``, ``counts_as_stones``) live in
:mod:`replay.wotf.statics`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from replay.prompts import Choose, Prompt
from replay.wotf.abilities import (
    Affect,
    Cant,
    Control,
    Copy,
    Counters,
    CreateToken,
    Distribute,
    Draw,
    Gain,
    Grant,
    Move,
    NameClass,
    Nullify,
    NullifyEffect,
    Power,
    Put,
    RealmOp,
    Seek,
    Selector,
    TokenSpec,
    TriggerAgain,
)
from replay.wotf.events import (
    CardMoved,
    EffectNullified,
    RealmBanished,
    ResourcesChanged,
    StoneSeized,
)
from replay.wotf.revisions import BURY_ORDER_KIND_REVISION
from replay.wotf.selectors import Context, amount, candidates
from replay.wotf.state import SEATS, Seat, controller_of, other
from replay.wotf.table import Flow, Rules
from replay.wotf.trigger import Trigger

COUNTED_CAP = 999_999  # "infinite" actions or free attacks (docs/rulings.md R26)
FACE_DOWN = "distributed face down"  # the reason of a CardMoved that hides the card (Face Down)


def _draw(g: Rules, op: Draw, ctx: Context) -> Flow:
    for _ in range(int(amount(g.view, op.amount, ctx))):
        g.draw(ctx.controller, "effect")  # 6 Draw: one at a time
    return True
    yield


def _deny(g: Rules, op: Draw, ctx: Context) -> Flow:
    """Deny N: the top N cards of your deck into The Abyss."""
    deck = g.state.players[ctx.controller].deck
    n = min(int(amount(g.view, op.amount, ctx)), len(deck))
    for cid in deck[:n]:
        g.move(cid, "abyss", "deny")
    g.check_decks()
    return n > 0
    yield


def _discard(g: Rules, op: Draw, ctx: Context) -> Flow:
    hand = g.state.players[ctx.controller].hand
    n = min(int(amount(g.view, op.amount, ctx)), len(hand))
    if n == 0:
        return False
    cards = yield from g.ask(Prompt(ctx.controller, "discard", choose=Choose(list(hand), n, n),
                                    card=ctx.source, text=f"discard {n}"))
    for cid in cards:
        g.move(cid, "abyss", "discard")
    return True


def _bury(g: Rules, op: Affect, ctx: Context) -> Flow:
    """Bury: put cards on the bottom of their owner's deck."""
    cards = yield from g.choose(op.target, ctx, "bury which card?")
    yield from bury_in_order(g, cards, ctx.source)
    return bool(cards)


def bury_in_order(g: Rules, cards: list[str], source: str) -> Flow:
    """Bury (Game Terms): "Put a card or group of cards on the bottom of its owner's deck in any
    order of the owner's choice".  From revision 7 each owner orders their group (an ``order``
    prompt, recorded) when it holds two or more cards that aren't all the same card -- the
    order of identical cards, or of tokens (which cease to exist, 203), changes nothing.  The
    order picked is the order they go to the bottom: the first ends up above the rest, the last
    at the very bottom.  Revisions 1-6 buried them in the order given (R20).  From revision 12
    the prompt's kind is ``bury_order``, its own, so its answer is known for a bury's by
    itself (R46); revisions 7-11 asked an ``order`` prompt."""
    if g.state.revision >= 7:
        kind = "bury_order" if g.state.revision >= BURY_ORDER_KIND_REVISION else "order"
        for seat in SEATS:
            group = [cid for cid in cards if g.state.cards[cid].owner == seat]
            real = [cid for cid in group if not g.state.cards[cid].token]
            if len({g.state.cards[cid].name for cid in real}) < 2:
                continue
            order = yield from g.ask(Prompt(seat, kind, choose=Choose(
                real, len(real), len(real), ordered=True), card=source,
                text="bury them in which order? (the first ends above the others; Bury)"))
            rest = [cid for cid in cards if cid not in real]
            cards = rest + [cid for cid in order]
    for cid in cards:
        g.move(cid, "deck", "bury")


def _reveal(g: Rules, op: Draw, ctx: Context) -> Flow:
    deck = g.state.players[ctx.controller].deck
    shown = deck[: int(amount(g.view, op.amount, ctx))]
    g.emit_reveal(ctx, shown)
    ctx.chosen = list(shown)
    return bool(shown)
    yield


def _seek(g: Rules, op: Seek, ctx: Context) -> Flow:
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
    yield from bury_in_order(g, [cid for cid in shown if cid != chosen], ctx.source)
    if chosen is None:
        return False
    realm = yield from g.choose_realm(op.realm, ctx, "seek: play it into which realm?")
    yield from g.play_free(ctx.controller, chosen, realm)
    return True


def _destroy(g: Rules, op: Affect, ctx: Context) -> Flow:
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


def _sacrifice(g: Rules, op: Affect, ctx: Context) -> Flow:
    """Sacrifice: your own card to The Abyss; no target, no shield (Sacrifice)."""
    chooser = ctx.controller
    if op.target is not None and op.target.side == "enemy":
        chooser = other(ctx.controller)  # "its owner/controller sacrifices"
    if ctx.subject and op.target is not None and op.target.where in ("event", "there"):
        chooser = g.state.cards[ctx.subject].controller or chooser
    sel = op.target or Selector(pick="this")
    # the chooser's own cards: anywhere, or where the event happened ("sacrifices a Wonder there")
    own = sel.model_copy(update={"where": "here" if sel.where == "there" else "any",
                                 "side": "yours"})
    pool = [cid for cid in candidates(g.view, own, Context(ctx.source, chooser, ctx.realm,
                                                          ctx.subject, ctx.chosen))
            if g.state.cards[cid].controller == chooser]
    if sel.pick in ("this", "it", "all"):
        picks = pool
    elif not pool:
        picks = []
    else:
        picks = yield from g.ask(Prompt(chooser, "target", choose=Choose(
            pool, min(sel.count, len(pool)) if sel.pick == "target" else 0, min(sel.count, len(pool))),
            card=ctx.source, text="sacrifice which?"))
    ctx.sacrificed_power = sum(g.view.power(cid) for cid in picks if g.view.is_wonder(cid))
    ctx.chosen = list(picks)
    yield from g.die_together(list(picks), "sacrifice", g.view.definition(ctx.source).name)
    return bool(picks)


def _banish(g: Rules, op: Affect, ctx: Context) -> Flow:
    cards = yield from g.choose(op.target, ctx, "banish which card?")
    if g.state.revision >= 8:
        yield from g.banish_together(list(cards), "banished")  # at the same time (R30)
        return bool(cards)
    for cid in cards:  # before revision 8: one by one, each one's triggers first
        yield from g.banish(cid, "banished")
    return bool(cards)


def _portal(g: Rules, op: Affect, ctx: Context) -> Flow:
    """Portal: banish, then return to The World at once, untapped, its counters gone and its
    equipment left behind; arrival re-triggers.  It is not a new instance: it keeps its
    "this round" and other effects (Portal)."""
    cards = yield from g.choose(op.target, ctx, "portal which card?")
    for cid in cards:
        c = g.state.cards[cid]
        realm, seat = c.realm, c.controller
        if c.zone != "world":  # it left The World before this resolved ("portal this" of a
            continue  # card that died in its end-of-battle batch, R42): nothing to portal
        behind = [i.id for i in g.view.world() if i.equipped_to == cid]
        g.move(cid, "banishment", "portal", keep_effects=True)
        if c.zone == "banishment":
            assert seat is not None and realm is not None, "a portalled card was in The World"
            yield from g.enter_world(cid, seat, realm, "portal")
        else:  # a token: it ceased to exist (203) and never returns -- its equipment stays
            # and equips to another ally there (Equip, "This includes ... portal effects"; R44)
            yield from g.resolve(g.reequip_left_behind(behind))
    return bool(cards)


def _put(g: Rules, op: Put, ctx: Context) -> Flow:
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


def _move(g: Rules, op: Move, ctx: Context) -> Flow:
    """Move: realm to realm, entering and leaving every realm in between (Move)."""
    cards = yield from g.choose(op.target, ctx, "move which card?")
    moved = False
    for cid in cards:
        here = g.state.cards[cid].realm
        if here is None:  # it left The World before this resolved (R42): nothing to move
            continue
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


def _create_token(g: Rules, op: CreateToken, ctx: Context) -> Flow:
    """Create tokens (203): a printed token from the archive that meets the minimum
    requirements, or a stand-in; the token arrives."""
    spec = op.token
    assert spec is not None, "create_token names the token it creates"
    classes = tuple(spec.classes)
    if spec.copy_classes and ctx.chosen:
        classes += tuple(k for k in g.view.classes(ctx.chosen[0]) if k not in classes)
    spec = spec.model_copy(update={"classes": classes})
    seat = ctx.controller
    together = g.state.revision >= 8
    made: list[str] = []
    one_realm: int | None = None  # "create two … in target realm": one target (revision 8)
    for _ in range(spec.count):
        printed = [cid for cid in g.state.players[seat].archive if _meets(g, cid, spec)]
        pick = "stand-in"
        if printed:
            pick = yield from g.ask(Prompt(seat, "target", options=[*printed, "stand-in"],
                                           card=ctx.source, text="which token?"))
        realm = one_realm
        if realm is None:
            how = "any" if spec.distributed else op.realm
            realm = yield from g.choose_realm(how, ctx, "create the token in which realm?")
        if realm is None:
            break
        if together and not spec.distributed:
            one_realm = realm
        made.append(_place_token(g, spec, ctx, seat, pick, realm))
        if not together:
            yield from g.resolve(g.arrival_triggers(made[-1]))
    if together:
        # 502 (revision 8): the tokens one effect creates arrive together, so the abilities
        # their arrival sets off are simultaneous -- one batch the active player orders --
        # and each arrival's triggers see every token already there; before revision 8 each
        # token arrived and its triggers resolved before the next was made.
        triggers: list[Trigger] = []
        for cid in made:
            triggers += g.arrival_triggers(cid)
        yield from g.resolve(triggers)
    ctx.chosen = made
    return bool(made)


def _place_token(g: Rules, spec: TokenSpec, ctx: Context, seat: Seat, pick: str, realm: int) -> str:
    """Put one created token into The World (a stand-in, or the printed token picked)."""
    if pick == "stand-in":
        made_up = g.stand_in(spec.name, spec.type, spec, g.view.definition(ctx.source).orbital)
        return g.place_token(seat, made_up.name, realm, stand_in=made_up)
    return g.place_token(seat, g.state.cards[pick].name, realm, printed=pick)


def _meets(g: Rules, cid: str, spec: TokenSpec) -> bool:
    d = g.view.definition(cid)
    if d.type != spec.type or (spec.type == "wonder" and d.base_power != spec.power):
        return False
    if spec.story:  # a story token names its Stoneseeker in its faction area
        return "Story Token" in d.classes and d.faction == spec.name
    if spec.name and spec.name not in d.name:
        return False
    return set(spec.classes) <= set(d.classes)


def _counters(g: Rules, op: Counters, ctx: Context) -> Flow:
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


def _power(g: Rules, op: Power, ctx: Context) -> Flow:
    """"Gets +N" (additive), "double" (multiplicative), "base power N" — rule 101.6 order."""
    cards = yield from g.choose(op.target, ctx, "which Wonder?")
    kind = {"power": "power+", "multiply": "power*", "base_power": "base"}[op.do]
    value = amount(g.view, op.amount, ctx)
    for cid in cards:
        g.add_effect(cid, kind, value, op.until, ctx.source)
    return bool(cards)


def _stun(g: Rules, op: Affect, ctx: Context) -> Flow:
    """Stun: tap it, and its base power is 0 until the end of the round."""
    cards = yield from g.choose(op.target, ctx, "stun which Wonder?")
    for cid in cards:
        g.set_tapped(cid, True, ctx.controller)
        g.add_effect(cid, "base", 0, "round", ctx.source)
    return bool(cards)


def _tap(g: Rules, op: Affect, ctx: Context) -> Flow:
    cards = yield from g.choose(op.target, ctx, f"{op.do} which card?")
    changed = [g.set_tapped(cid, op.do == "tap", ctx.controller) for cid in cards]
    return any(changed)


def _nullify(g: Rules, op: Nullify, ctx: Context) -> Flow:
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
                    g.emit(ResourcesChanged(victim, "pay", energy=p.energy - op.unless_pay))
                    continue
        g.add_effect(cid, "nullify", 0, "round" if op.temporary else "ever", ctx.source)
        done = True
    return done


def _gain(g: Rules, op: Gain, ctx: Context) -> Flow:
    """Gain or lose a resource (never below 0).  Every resource may become infinite (rule 1);
    from revision 7 actions and free attacks too (spending one leaves infinitely many), before
    it they were capped at :data:`COUNTED_CAP` (R26)."""
    p = g.state.players[ctx.controller]
    value = amount(g.view, op.amount, ctx) * (1 if op.do == "gain" else -1)
    resource = op.resource or "energy"
    total = max(0, getattr(p, resource) + value)
    if resource in ("actions", "free_attacks"):
        if g.state.revision < 7:
            total = int(min(total, COUNTED_CAP))  # revisions 1-6 capped "infinite" (R26)
        elif math.isfinite(total):
            total = int(total)  # whole actions; infinite ones stay infinite (rule 1, R26)
    g.emit(ResourcesChanged(ctx.controller, op.do, **{resource: total}))
    return True
    yield


def _control(g: Rules, op: Control, ctx: Context) -> Flow:
    """Gain control: the card moves to your side of the same realm (506)."""
    cards = yield from g.choose(op.target, ctx, "gain control of which card?")
    gained: list[str] = []
    for cid in cards:
        before = controller_of(g.state.cards[cid])  # a card in The World (506)
        if g.set_controller(cid, ctx.controller):
            gained.append(cid)
            if op.until == "round":
                g.add_effect(cid, "control", 0, "round", before)
    ctx.chosen = cards
    # Equip (revision 11, R43): the new controller's equipment beside them equips.
    yield from g.resolve(g.control_triggers(gained))
    return bool(gained)


def _copy(g: Rules, op: Copy, ctx: Context) -> Flow:
    """Copy: a token with the copied card's printed stats and abilities; it arrives."""
    cards = yield from g.choose(op.target, ctx, "copy which card?")
    made = []
    for cid in cards:
        realm = yield from g.choose_realm(op.realm, ctx, "create the copy in which realm?")
        if realm is None:
            continue
        blank = g.view.has_blank_text(cid)  # a copy of a nullified card copies the blank text
        token = g.place_token(ctx.controller, g.state.cards[cid].name, realm, blank=blank)
        made.append(token)
        yield from g.resolve(g.arrival_triggers(token))
    ctx.chosen = made
    return bool(made)


def _grant(g: Rules, op: Grant, ctx: Context) -> Flow:
    cards = yield from g.choose(op.target, ctx, "which card?")
    for cid in cards:
        for keyword in op.keywords:
            g.add_effect(cid, f"grant:{keyword}", 0, op.until, ctx.source)
    return bool(cards)


def _cant(g: Rules, op: Cant, ctx: Context) -> Flow:
    cards = yield from g.choose(op.target, ctx, "which card?")
    for cid in cards:
        g.add_effect(cid, f"cant:{op.restriction}", 0, op.until, ctx.source)
    return bool(cards)


def _name_class(g: Rules, op: NameClass, ctx: Context) -> Flow:
    """Name a class: any class a card in the game has."""
    classes = sorted({k for card in g.db for k in card.classes})
    ctx.named_class = yield from g.ask(Prompt(ctx.controller, "target", options=classes,
                                              card=ctx.source, text="name a class"))
    return True


def _distribute(g: Rules, op: Distribute, ctx: Context) -> Flow:
    """Shuffle the chosen cards (a chance event) and distribute them as evenly as possible
    over the active realms, face down if the effect says so (Distribute, Face Down)."""
    cards = yield from g.choose(op.target, ctx, "which cards?")
    realms = g.view.active_realms()
    if not cards or not realms:
        return False
    if len(cards) == 1:  # one card: you choose where it goes (Distribute)
        realm = yield from g.choose_realm("target", ctx, "distribute it into which realm?")
        realms = [realm]
    elif g.state.revision >= 7:
        # 506: "you choose where to place them without knowing what cards they are as long as
        # you keep the same number in each realm as much as possible": every realm gets
        # len // realms cards and the player picks which realms get one more (R21).
        base, extra = divmod(len(cards), len(realms))
        more = list(realms)
        if extra:
            picked = yield from g.ask(Prompt(ctx.controller, "realm", choose=Choose(
                [str(r) for r in realms], extra, extra), card=ctx.source,
                text=f"distribute: which {extra} realm(s) get one card more? (rule 506)"))
            more = [r for r in realms if str(r) in picked]
        shuffle = yield Prompt("chance", "chance", choose=Choose(list(cards), len(cards), len(cards),
                                                                 ordered=True),
                               text=f"shuffle {ctx.controller}")
        order = list(shuffle.order)
        plan = [r for r in realms for _ in range(base + (1 if extra and r in more else 0))]
        for cid, realm in zip(order, plan, strict=True):
            yield from _distribute_one(g, op, ctx, cid, realm)
        return True
    else:
        shuffle = yield Prompt("chance", "chance", choose=Choose(list(cards), len(cards), len(cards),
                                                                 ordered=True),
                               text=f"shuffle {ctx.controller}")
        cards = list(shuffle.order)
    for n, cid in enumerate(cards):
        yield from _distribute_one(g, op, ctx, cid, realms[n % len(realms)])
    return True


def _distribute_one(g: Rules, op: Distribute, ctx: Context, cid: str, realm: int) -> Flow:
    if op.faceup:
        yield from g.enter_world(cid, ctx.controller, realm, "distributed")
        return
    if g.view.enters_in_banishment(realm):
        g.move(cid, "banishment", "banished realm")  # v1.2 301.2 (revision 9)
        return
    # Face down as it arrives: no type, no effect (Face Down).
    g.move(cid, "world", FACE_DOWN, realm=realm, controller=ctx.controller, face_down=True)


def _trigger_again(g: Rules, op: TriggerAgain, ctx: Context) -> Flow:
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


def _seize_stone(g: Rules, op: RealmOp, ctx: Context) -> Flow:
    """Seize a stone outside a battle (Seize Stone): one from the center or an opponent, in
    this or a target realm; protectors only stop seizures in battles."""
    seat = ctx.controller
    realms = [r for r in g.view.active_realms()
              if any(st != seat for st in g.view.realm_stones(r))]  # revision 9: banished
    if op.realm == "here":
        realms = [r for r in realms if r == ctx.realm]
    if not realms:
        return False
    realm = realms[0] if len(realms) == 1 else (yield from g.ask(Prompt(
        seat, "realm", options=realms, card=ctx.source, text="seize a stone in which realm?")))
    stones = g.view.realm_stones(realm)
    sources = sorted({st for st in stones if st != seat}, key=["center", "A", "B"].index)
    source = yield from g.ask(Prompt(seat, "stone", options=sources, card=ctx.source,
                                     text=f"seize a stone in realm {realm}"))
    g.emit(StoneSeized(realm, seat, source))  # 403.2: the last seizer goes first; Awaken
    return True


def _banish_realm(g: Rules, op: RealmOp, ctx: Context) -> Flow:
    """Banish a realm: everything in it is banished with it, or nothing is if anything there
    can't be (Banishment).  v1.3.2: a banished realm is inactive; v1.2: it stays active, and a
    card sent there enters banishment with it (rules README)."""
    realm = yield from g.choose_realm(op.realm, ctx, "banish which realm?")
    if realm is None:
        return False
    here = [c.id for c in g.view.in_realm(realm)]
    if any(g.view.cant(cid, "be_banished") for cid in here):
        return False
    if g.state.revision >= 8:
        yield from g.banish_together(here, "realm banished")  # everything there at once (R30)
    else:
        for cid in here:  # before revision 8: one by one, each one's triggers first
            yield from g.banish(cid, "realm banished")
    g.emit(RealmBanished(realm))
    return True


def _turn_face_up(g: Rules, op: Affect, ctx: Context) -> Flow:
    """Turn face-down cards face up: they are treated as if they entered from The Abyss
    (Face Down), so they arrive and their On Arrival abilities trigger."""
    cards = yield from g.choose(op.target, ctx, "turn which face-down card face up?")
    turned = [cid for cid in cards if g.state.cards[cid].face_down]
    for cid in turned:
        c = g.state.cards[cid]
        g.emit(CardMoved(cid, c.name, c.owner, "world", "world", "turned face up", c.realm, c.realm,
                         c.controller, face_down=False))  # now everyone sees which card it is
        yield from g.resolve(g.arrival_triggers(cid))
    return bool(turned)


def _nullify_effect(g: Rules, op: NullifyEffect, ctx: Context) -> Flow:
    """Nullify the effect that is choosing targets right now, unless its controller pays
    (Feline Entity of Dreams).  A spell is a card: "can't be nullified" protects it; a
    triggered ability of a card is an effect, and nothing protects it (Nullify example)."""
    stack = g.state.stack
    if stack is None or not stack.targeting:
        return False
    victim = stack.targeting[-1]  # the effect choosing targets right now
    source = victim.source
    spell = g.view.definition(source).type == "spell"
    if spell and g.view.cant(source, "be_nullified"):
        return False
    p = g.state.players[victim.controller]
    if op.unless_pay and p.energy >= op.unless_pay:
        pay = yield from g.ask(Prompt(victim.controller, "may", options=["yes", "no"], card=source,
                                      text=f"pay {op.unless_pay} energy so the effect isn't nullified?"))
        if pay == "yes":
            g.emit(ResourcesChanged(victim.controller, "pay", energy=p.energy - op.unless_pay))
            return False
    g.emit_stack(EffectNullified(source, ctx.source))
    if spell:
        g.add_effect(source, "nullify", 0, "round", ctx.source)
    return True


OPS: dict[str, Callable[..., Flow]] = {
    "draw": _draw, "deny": _deny, "discard": _discard, "bury": _bury, "reveal": _reveal,
    "seek": _seek, "destroy": _destroy, "sacrifice": _sacrifice, "banish": _banish,
    "portal": _portal, "return": _put, "put": _put, "move": _move,
    "create_token": _create_token, "counters": _counters, "power": _power,
    "multiply": _power, "base_power": _power, "stun": _stun, "tap": _tap, "untap": _tap,
    "nullify": _nullify, "gain": _gain, "lose": _gain, "control": _control, "copy": _copy,
    "grant": _grant, "cant": _cant, "name_class": _name_class, "distribute": _distribute,
    "trigger_again": _trigger_again, "seize_stone": _seize_stone, "banish_realm": _banish_realm,
    "nullify_effect": _nullify_effect, "turn_face_up": _turn_face_up,
}
