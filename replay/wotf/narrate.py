"""Events in words: a short form for error messages and a sentence for people.

``describe`` is terse and exact (``BattleResolved A 7 vs B 5``) for divergence reports;
``narrate`` reads like a commentary line ("Battle in realm 2: Ada 6 vs Bo 6 — tie"): players by
name, cards by the names the reader may know (:mod:`replay.wotf.words`), never an id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import msgspec

from ledger.events import (
    Annotated,
    Conceded,
    DrawGiven,
    Event,
    GameLossGiven,
    JudgeCalled,
    JudgeNote,
    MatchEnded,
    MatchOpened,
    TakenBack,
)
from replay.counted import counted
from replay.judges import DRAWN, draw_given, judge_named
from replay.wotf import events as ev
from replay.wotf.decks import deck_title
from replay.wotf.events import (
    ActivationDeclared,
    Answered,
    AttackDeclared,
    BattleResolved,
    BattleStarted,
    CardMoved,
    CardPlayed,
    CardTapped,
    CoinFlipped,
    ControlChanged,
    CounterChanged,
    DeckShuffled,
    DrawDeclared,
    EffectApplied,
    FirstPlayerChosen,
    HarvestDeclared,
    ManualEffect,
    ManualResolved,
    Mulliganed,
    Passed,
    Pick,
    PlayDeclared,
    RealmBanished,
    RealmOpened,
    RealmSideChosen,
    ResourcesChanged,
    RoundEnded,
    RoundStarted,
    SeizePrevented,
    StoneSeized,
    TokenCreated,
    TriggerResolved,
)
from replay.wotf.words import CARD_ID, HIDDEN, Words


def _num(x: object) -> str:
    return str(int(x)) if isinstance(x, (int, float)) and float(x).is_integer() else str(x)


def _counters(amount: object) -> str:
    """``counter`` for one (or minus one), else ``counters``."""
    one = isinstance(amount, (int, float)) and abs(amount) == 1
    return "counter" if one else "counters"


def describe(event: Event) -> str:
    """``TypeName`` followed by the event's fields, compactly."""
    name = type(event).__name__
    if isinstance(event, BattleResolved):
        other = "B" if event.attacker == "A" else "A"
        return (f"{name} realm {event.realm} {event.attacker} {_num(event.attacker_power)} "
                f"vs {other} {_num(event.defender_power)}")
    if isinstance(event, DeckShuffled):
        return f"{name} {event.seat} ({len(event.order)} cards)"
    if isinstance(event, ev.DeckOrdered):
        return f"{name} {event.seat} ({len(event.cards)} cards)"
    if isinstance(event, (ev.TriggersQueued, ev.TriggersDeferred)):
        return f"{name} {' '.join(f'{t.source}:{t.ability}' for t in event.triggers)}"
    fields = msgspec.structs.asdict(event)
    parts = [f"{k}={_num(v) if isinstance(v, float) else v}" for k, v in fields.items()
             if v not in (None, [], {}, "", False)]
    return f"{name} {' '.join(parts)}".strip()


def narrate(event: Event, round_: int | None = None, names: Mapping[str, str] | None = None,
            players: Mapping[str, str] | None = None) -> str:
    """A sentence for the event list of the viewer.  ``names`` (card id -> name, as the
    reader may name them) names the cards events carry only by id; ``players`` (seat ->
    player) names the seats.  A card the reader may not name is "a hidden card"."""
    return _narrate(event, Words(names, players))


def _narrate(event: Event, w: Words) -> str:
    if isinstance(event, RoundStarted):
        return f"Round {event.round} begins — {w.seat(event.first)} takes the first turn"
    if isinstance(event, RealmOpened):
        return f"Realm {event.realm} opens"
    if isinstance(event, CoinFlipped):
        return f"{w.seat(event.winner)} wins the coin flip"
    if isinstance(event, FirstPlayerChosen):  # the consequence of the "first" answer (401)
        return f"Play order: {w.seat(event.seat)} first, {w.other(event.seat)} second"
    if isinstance(event, (DeckShuffled, ev.DeckOrdered)):
        return f"{w.seat(event.seat)} shuffles their deck"
    if isinstance(event, CardPlayed):
        where = f" to realm {event.realm}" if event.realm else ""
        return f"{w.seat(event.seat)} plays {w.named(event.name)}{where}"
    if isinstance(event, AttackDeclared):
        return f"{w.seat(event.seat)} attacks in realm {event.realm}"
    if isinstance(event, DrawDeclared):
        return f"{w.seat(event.seat)} draws a card"
    if isinstance(event, Passed):
        return f"{w.seat(event.seat)} passes" + (" (no moves left)" if event.auto else "")
    if isinstance(event, PlayDeclared):
        return f"{w.seat(event.seat)} declares a play"
    if isinstance(event, BattleResolved):
        return _battle(event, w)
    if isinstance(event, StoneSeized):
        source = "the center" if event.from_side == "center" else w.seat(event.from_side)
        return f"{w.seat(event.seat)} seizes a stone of realm {event.realm} from {source}"
    if isinstance(event, CardMoved):
        return _narrate_move(event, w)
    if isinstance(event, CounterChanged):
        verb = "gets" if event.delta > 0 else "loses"
        return f"{w.card(event.card)} {verb} {abs(event.delta)} {event.counter} {_counters(event.delta)}"
    if isinstance(event, TriggerResolved):
        return _trigger(event, w)
    return _narrate_ends(event, w)


def _battle(event: BattleResolved, w: Words) -> str:
    attacker, defender = w.seat(event.attacker), w.other(event.attacker)
    verdict = {"attacker": f"{attacker} wins", "defender": f"{defender} wins",
               "tie": "tie"}[event.result]
    return (f"Battle in realm {event.realm}: {attacker} {_num(event.attacker_power)} "
            f"vs {defender} {_num(event.defender_power)} — {verdict}")


def _trigger(event: TriggerResolved, w: Words) -> str:
    """"Drift Dancer's deathstrike: destroys Slate Strider"; a card's own ability reads
    "Cloud Veil's ability: <its text>" (the detail the engine wrote, ids put in words)."""
    if event.detail == "?":
        return f"{w.named(event.name)}'s {w.ability(event.ability)} resolves"
    detail = w.text(event.detail)
    return f"{w.named(event.name)}'s {w.ability(event.ability)}: {detail}".rstrip(": ")


def _narrate_ends(event: Event, w: Words) -> str:
    """The match's end, a concession and a take-back: a loss reads as one."""
    if isinstance(event, MatchEnded):
        return _match_ended(event, w)
    if isinstance(event, TakenBack):
        why = f": {event.reason}" if event.reason else ""
        return f"Take-back: the match returns to event {event.to_seq} ({event.by}){why}"
    if isinstance(event, Conceded):
        return conceded(event, w.seat(event.seat))
    if isinstance(event, ev.CardStatsEntered):
        return _narrate_entry(event, w)
    return _narrate_more(event, w)


def _narrate_entry(event: ev.CardStatsEntered, w: Words) -> str:
    """R34: "Ann enters Glow Smith's printed stats: cost 3, power 4, Human, flying"."""
    if event.name == "?":
        return f"{w.seat(event.seat)} enters the printed stats of a card in hand"
    stats = event.stats
    parts = [f"cost {stats.get('cost', 0)}"]
    if stats.get("power") is not None:
        parts.append(f"power {stats['power']}")
    parts += [str(c) for c in stats.get("classes", [])]
    parts += [str(k) for k in stats.get("keywords", [])]
    return f"{w.seat(event.seat)} enters {event.name}'s printed stats: {', '.join(parts)}"


GAME_LOSS = "game loss (judge)"  # how a judge's game loss is recorded (web/api/judge.py)


def conceded(event: Conceded, who: str) -> str:
    """A concession, or a judge's game loss (recorded as the seat conceding) read as one."""
    if event.reason.startswith(GAME_LOSS):
        why = event.reason[len(GAME_LOSS):].lstrip(": ")
        return f"The judge gives {who} a game loss{': ' + why if why else ''}; {who} loses the match"
    why = f" ({event.reason})" if event.reason else ""
    return f"{who} concedes and loses the match{why}"


ENDINGS = {"stones": "on stones", "tiebreak": "on the tiebreak",
           "deck_out": "— the other player's deck ran out", "concession": "by concession",
           "draw": ""}


def _match_ended(event: MatchEnded, w: Words) -> str:
    stones = f"{event.stones.get('A', 0)}–{event.stones.get('B', 0)}" if event.stones else ""
    score = f" ({w.seat('A')} {stones.replace('–', ' – ' + w.seat('B') + ' ')})" if stones else ""
    if event.winner is None and event.reason in DRAWN:  # a judge's draw (R45)
        return f"The match ends in {DRAWN[event.reason]}{score}"
    if event.winner is None:
        if event.reason == "draw":  # 405: stones even and no realm held by one player alone
            return f"The match ends in a draw: stones even, no realm held alone{score}"
        why = "both decks ran out" if event.reason == "deck_out" else event.reason.replace("_", " ")
        return f"The match ends in a draw ({why}){score}"
    how = ENDINGS.get(event.reason, f"({event.reason.replace('_', ' ')})")
    return (f"{w.seat(event.winner)} wins the match {how}".rstrip() + score
            + f"; {w.other(event.winner)} loses")


def _effect(event: EffectApplied, w: Words) -> str:
    """EffectApplied in words: "+2", "×2", "base power 0", "is nullified", "gets flying"…"""
    kind, amount = event.effect, _num(event.amount)
    span = " this round" if event.duration == "round" else ""
    card = w.card(event.card)
    if kind == "power+":
        sign = "" if str(amount).startswith("-") else "+"
        return f"{card} gets {sign}{amount}{span}"
    if kind == "power*":
        return f"{card}'s power is multiplied by {amount}{span}"
    if kind == "base":
        return f"{card} has base power {amount}{span}"
    if kind == "nullify":
        return f"{card} is nullified{span}"
    if kind.startswith("grant:"):
        return f"{card} gets {w.text(kind[6:])}{span}"
    if kind.startswith("cant:"):
        return f"{card} can't {kind[5:].replace('be_', 'be ').replace('_', ' ')}{span}"
    if kind == "control":
        return f"{card} changes control{span}"
    if kind == "return_at_round_end":
        return f"{card} will return at the end of the round"
    return f"{card} gets {w.text(kind)}" + (f" ({amount})" if event.amount else "") + span


def _narrate_more(event: Event, w: Words) -> str:
    """Sentences for the set-up, resources and battle-start events (the viewer's list)."""
    if isinstance(event, MatchOpened):
        names = " vs ".join(s.player + (f" ({deck_title(s.deck_name)})" if s.deck_name else "")
                            for s in event.seats)
        return f"Match opens: {names} — rules {event.ruleset}"
    if isinstance(event, RealmSideChosen):  # the consequence of the "side" answer (401)
        return f"Realm 1 starts on {w.seat(event.seat)}'s {event.side}"
    if isinstance(event, Mulliganed):
        return f"{w.seat(event.seat)} puts {counted(len(event.cards), 'card')} on the bottom of their deck"
    if isinstance(event, Answered):
        return _narrate_answer(event, w)
    if isinstance(event, ResourcesChanged):
        parts = [f"{name.replace('_', ' ')} {_num(value)}" for name, value in
                 (("energy", event.energy), ("actions", event.actions),
                  ("free_attacks", event.free_attacks), ("faith", event.faith))
                 if value is not None]
        return (f"{w.seat(event.seat)} now has {', '.join(parts) or 'unchanged resources'} "
                f"({w.text(event.reason)})")
    if isinstance(event, BattleStarted):
        free = " (free attack)" if event.free_attack else ""
        return (f"Battle begins in realm {event.realm}: {w.seat(event.attacker)} attacks "
                f"{w.seat(event.defender)}{free}")
    if isinstance(event, RoundEnded):
        return f"Round {event.round} ends"
    if isinstance(event, EffectApplied):
        return _effect(event, w)
    return _narrate_cards(event, w)


def _narrate_cards(event: Event, w: Words) -> str:
    """Sentences for activations, harvests, tokens, control and the judge's events."""
    if isinstance(event, ActivationDeclared):
        return f"{w.seat(event.seat)} activates {w.card(event.card)}'s ability {event.ability + 1}"
    if isinstance(event, HarvestDeclared):
        return f"{w.seat(event.seat)} harvests {w.cards(event.cards)}"
    if isinstance(event, TokenCreated):
        return f"{w.seat(event.seat)} creates {w.named(event.name)} in realm {event.realm}"
    if isinstance(event, CardTapped):
        return f"{w.card(event.card)} is {'tapped' if event.tapped else 'untapped'}"
    if isinstance(event, ControlChanged):
        return f"{w.seat(event.controller)} takes control of {w.card(event.card)}"
    if isinstance(event, SeizePrevented):
        return f"{w.card(event.card)}'s protector counter keeps the stone of realm {event.realm}"
    if isinstance(event, RealmBanished):
        return f"Realm {event.realm} is banished with everything in it"
    if isinstance(event, ManualEffect):
        said = f"{event.note} — " if event.note else ""
        return f"{judge_named(event.by)} rules: {said}{manual_ops(event.ops, w)}"
    if isinstance(event, ManualResolved):
        return (f"{w.seat(event.seat)} resolves {w.card(event.card)} by hand: "
                f"{manual_ops(event.ops, w)}")
    if isinstance(event, JudgeNote):
        return f"{judge_named(event.judge)} notes: {event.text}"
    if isinstance(event, GameLossGiven):
        who = w.seat(event.seat)
        return (f"{judge_named(event.judge)} gives {who} a game loss"
                + (f": {event.reason}" if event.reason else "") + f"; {who} loses the match")
    if isinstance(event, DrawGiven):
        return draw_given(event, w.seat)
    if isinstance(event, JudgeCalled):
        return f"{w.seat(event.seat)} calls the judge" + (f": {event.text}" if event.text else "")
    if isinstance(event, Annotated):
        return f"{event.name} notes on event {event.about}: {event.text}"
    return _narrate_state(event, w)


def manual_ops(ops: list[ev.ManualOp], w: Words) -> str:
    """What a judge's ruling or a hand-resolved card did, one clause per operation."""
    return "; ".join(_manual_op(op, w) for op in ops) or "no change"


def _manual_op(op: ev.ManualOp, w: Words) -> str:
    card = w.card(op.card)
    if op.op == "move":
        where = f" (realm {op.realm})" if op.realm else ""
        top = " (on top)" if op.value == "top" else ""
        return f"{card} goes to {_zone(op.to_zone)}{where}{top}"
    if op.op == "counter":
        return (f"{card} gets {_num(op.value)} {op.counter or ''} {_counters(op.value)}"
                ).replace("  ", " ")
    if op.op == "resource":
        return f"{w.seat(op.seat)}'s {(op.resource or 'resource').replace('_', ' ')} becomes {_num(op.value)}"
    if op.op == "tap":
        return f"{card} is {'untapped' if op.value in (False, 'untap', 0) else 'tapped'}"
    if op.op == "control":
        return f"{w.seat(op.seat)} takes control of {card}"
    if op.op == "stone":
        return f"a stone of realm {op.realm} goes to {w.seat(op.seat) if op.seat else 'the center'}"
    if op.op == "token":
        return f"{w.seat(op.seat)} creates {w.named(op.name)}" + (f" in realm {op.realm}" if op.realm else "")
    if op.op == "power":
        span = " this round" if op.duration == "round" else ""
        return f"{card} gets {_num(op.value)} power{span}"
    if op.op == "reveal":
        return f"{card} is revealed" + (f" to {w.seat(op.seat)}" if op.seat else "")
    if op.op == "look":
        return f"{w.seat(op.seat)} looks at {card}"
    return f"{w.seat(op.seat)} shuffles their deck"


def _zone(zone: str | None) -> str:
    return {"world": "The World", "abyss": "The Abyss", "hand": "its owner's hand",
            "deck": "its owner's deck", "gone": "nowhere (it ceases to exist)"}.get(zone or "",
                                                                                   zone or "?")


def _narrate_state(event: Event, w: Words) -> str:
    """Sentences for the events that carry the rest of the state (turns, equipment, copies,
    effects ending, counts, a judge's stones)."""
    if isinstance(event, ev.TurnsBegan):
        return f"Turns begin: {w.seat(event.first)} goes first"
    if isinstance(event, ev.TurnEnded):
        return (f"{w.seat(event.seat)}'s turn ends; the round's turns are over" if event.next is None
                else f"{w.seat(event.seat)}'s turn ends; {w.seat(event.next)} is next")
    if isinstance(event, ev.Equipped):
        return f"{w.card(event.card)} is equipped to {w.card(event.wonder)}"
    if isinstance(event, ev.Unequipped):
        return f"{w.card(event.card)} is left unequipped"
    if isinstance(event, ev.AbilitiesCopied):
        copied = ", ".join([*event.keywords, *map(w.text, event.abilities)]) or "nothing"
        return f"{w.card(event.card)} copies {copied} from {w.card(event.source)}"
    if isinstance(event, ev.EffectsEnded):
        which = "this-round effects end" if event.until == "round" else "effects end"
        return f"{w.card(event.card)}'s {which}"
    if isinstance(event, ev.EventCounted):
        return _counted(event, w)
    if isinstance(event, ev.StonesSet):
        sides = ", ".join("center" if s == "center" else w.seat(s) for s in event.stones)
        return f"Judge sets the stones of realm {event.realm}: {sides}"
    if isinstance(event, ev.CardPutOnTop):
        return f"{w.card(event.card)} goes on top of {w.seat(event.owner)}'s deck"
    return _narrate_stack(event, w)


def _counted(event: ev.EventCounted, w: Words) -> str:
    """A count some rule keeps (rule 511): ``<seat>:<what>``, ``spent:<card>:<ability>``…"""
    key = event.key
    if key == "?":
        return f"A count some card keeps is now {event.total}"
    if key.startswith("spent:"):
        card = key.split(":")[1]
        return f"{w.card(card)}'s once-only ability is spent"
    seat, _, what = key.partition(":")
    if seat in ("A", "B") and what:
        what, _, scope = what.partition("@")
        when = f" in round {scope}" if scope.isdigit() else ""
        return f"Counted for {w.seat(seat)}: {w.text(what).replace('_', ' ')} ×{event.total}{when}"
    return f"Counted: {w.text(key).replace('_', ' ').replace(':', ' ')} ×{event.total}"


def _narrate_stack(event: Event, w: Words) -> str:
    """Short plain sentences for the stack's bookkeeping (recorded from rules revision 6)."""
    def whose(source: str, ability: str) -> str:
        return f"{w.card(source)}'s {w.ability(ability)}"

    if isinstance(event, ev.TriggersQueued):
        waiting = ", ".join(whose(t.source, t.ability) for t in event.triggers)
        return f"Triggered abilities wait to resolve: {waiting}"
    if isinstance(event, ev.TriggerDequeued):
        return f"Next to resolve: {whose(event.source, event.ability)}"
    if isinstance(event, ev.TriggersDeferred):  # 501, revision 13
        waiting = ", ".join(whose(t.source, t.ability) for t in event.triggers)
        return f"Triggered in the middle of an effect, waiting until it is finished: {waiting}"
    if isinstance(event, ev.EffectFinished):
        return (f"{whose(event.source, event.ability)} is finished; "
                f"the abilities waiting for it resolve")
    if isinstance(event, ev.ResolutionStarted):
        return f"{whose(event.source, event.ability)} starts resolving"
    if isinstance(event, ev.ResolutionEnded):
        return f"{whose(event.source, event.ability)} has resolved"
    if isinstance(event, ev.LoopStated):
        return (f"Loop: {whose(event.source, event.ability)} repeats "
                f"{counted(event.times, 'more time')}" if event.times else
                f"Loop: {whose(event.source, event.ability)} ends")
    if isinstance(event, ev.LoopRepeated):
        return f"Loop: {whose(event.source, event.ability)} repeats"
    if isinstance(event, ev.TargetingStarted):
        return f"{w.card(event.source)}'s effect chooses targets; abilities react first"
    if isinstance(event, ev.EffectNullified):
        return f"{w.card(event.card)} nullifies {w.card(event.source)}'s effect"
    if isinstance(event, ev.TargetingEnded):
        return f"{w.card(event.source)}'s effect goes on"
    if isinstance(event, ev.FlightScheduled):
        return f"{w.cards(event.cards)} will fly at the end of the turn"
    if isinstance(event, ev.FlightsCleared):
        return f"{w.cards(event.cards)}: no longer waiting to fly"
    return _spelled(event)


def _spelled(event: Event) -> str:
    """An event no sentence above covers: its type in words (never its fields: they may be
    ids)."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", type(event).__name__).capitalize()


def _narrate_answer(event: Answered, w: Words) -> str:
    """A seat's answer to a prompt: what it decided, in words (the consequence events that
    follow say what it did)."""
    who, pick = w.seat(event.seat), event.pick
    auto = " (the only option)" if event.auto else ""
    if event.kind == "mulligan":
        picked = pick if isinstance(pick, list) else []
        return (f"{who} keeps their opening hand" if not picked else
                f"{who} chooses {counted(len(picked), 'card')} to mulligan")
    if event.kind == "first":  # rule 401: the coin flip's winner chooses who plays first
        return (f"{who} chooses to play first{auto}" if pick == event.seat else
                f"{who} chooses to let {w.seat(str(pick))} play first{auto}")
    if event.kind == "side":  # rule 401: the second player chooses realm 1's side
        return f"{who} chooses the {pick} side for realm 1{auto}"
    return f"{who} {_answer_words(event.kind, pick, w)}{auto}"


def _answer_words(kind: str, pick: Pick, w: Words) -> str:
    if pick in (None, [], ""):
        return f"chooses nothing ({kind})"
    if kind == "may":
        return "chooses yes" if pick in ("yes", True) else "chooses no"
    if kind == "order":
        order = pick if isinstance(pick, list) else [pick]
        if all(p == HIDDEN for p in order):  # an owner's bury order, kept from this reader (R46)
            return f"puts the {len(order)} cards in the order of their choice"
        return f"puts them in this order: {w.cards([str(p) for p in order])}"
    if kind == "bury_order":  # a bury's order (revision 12): its owner's to know (R46)
        order = pick if isinstance(pick, list) else [pick]
        if all(p == HIDDEN for p in order):
            return f"buries the {len(order)} cards in the order of their choice"
        return (f"buries them in this order: {w.cards([str(p) for p in order])} "
                "(the first above the others)")
    if kind == "realm":
        return f"chooses realm {pick}"
    if kind == "stone":
        return f"takes the stone from {'the center' if pick == 'center' else w.seat(str(pick))}"
    picks = pick if isinstance(pick, list) else [pick]
    said = ", ".join(w.card(p) if (isinstance(p, str) and CARD_ID.fullmatch(p)) or p == "?"
                     else w.text(str(p)) for p in picks)
    verb = {"discard": "discards", "target": "targets", "equip": "equips to"}.get(kind,
                                                                                 "chooses")
    return f"{verb} {said}" + ("" if verb != "chooses" else f" ({kind})")


def _narrate_move(event: CardMoved, w: Words) -> str:
    who, name = w.seat(event.owner), w.named(event.name)
    how = event.reason.split(":")[0]
    if event.to_zone == "abyss" and event.from_zone == "world" and how == "destroyed":
        return f"{who}'s {name} is destroyed"
    if event.to_zone == "abyss" and event.from_zone == "world" and how == "sacrifice":
        return f"{who} sacrifices {name}"
    if event.to_zone == "hand" and event.from_zone == "deck":
        return f"{who} draws {name}"
    if event.to_zone == "abyss" and event.from_zone == "world":
        return f"{who}'s {name} {w.text(how)} — to The Abyss"
    if event.to_zone == "world" and event.from_zone == "world" and event.from_realm == event.to_realm:
        return f"{name} is turned face up in realm {event.to_realm}"
    if event.to_zone == "world" and event.from_zone == "world":
        return (f"{name} moves from realm {event.from_realm} to realm {event.to_realm} "
                f"({w.text(event.reason)})")
    if event.to_zone == "world":
        down = " face down" if event.face_down else ""
        return f"{name} arrives{down} in realm {event.to_realm}"
    if event.to_zone == "gone":
        return f"Token {name} ceases to exist"
    return f"{who}'s {name}: {_zone(event.from_zone)} → {_zone(event.to_zone)} ({w.text(event.reason)})"
