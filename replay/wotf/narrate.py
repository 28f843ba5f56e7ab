"""Events in words: a short form for error messages and a sentence for people.

``describe`` is terse and exact (``BattleResolved A 7 vs B 5``) for divergence reports;
``narrate`` reads like a commentary line ("Battle in realm 2: A 6 vs B 6 — tie").
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from ledger.events import (
    Annotated,
    Conceded,
    Event,
    GameLossGiven,
    JudgeCalled,
    JudgeNote,
    MatchEnded,
    MatchOpened,
    TakenBack,
)
from replay.wotf import events as ev
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


def _num(x) -> str:
    return str(int(x)) if isinstance(x, (int, float)) and float(x).is_integer() else str(x)


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
    if isinstance(event, ev.TriggersQueued):
        return f"{name} {' '.join(f'{t.source}:{t.ability}' for t in event.triggers)}"
    fields = msgspec.structs.asdict(event)
    parts = [f"{k}={_num(v) if isinstance(v, float) else v}" for k, v in fields.items()
             if v not in (None, [], {}, "", False)]
    return f"{name} {' '.join(parts)}".strip()


def narrate(event: Event, round_: int | None = None,
            names: Mapping[str, str] | None = None) -> str:
    """A sentence for the event list of the viewer.  ``names`` (card id -> name) lets events
    that carry only a card id (counters, taps, effects, control) name the card."""
    namer = _Namer(names or {})
    if isinstance(event, RoundStarted):
        return f"Round {event.round} begins — {event.first} takes the first turn"
    if isinstance(event, RealmOpened):
        return f"Realm {event.realm} opens"
    if isinstance(event, CoinFlipped):
        return f"{event.winner} wins the coin flip"
    if isinstance(event, FirstPlayerChosen):
        return f"{event.chosen_by} chooses {event.seat} to play first"
    if isinstance(event, (DeckShuffled, ev.DeckOrdered)):
        return f"{event.seat} shuffles their deck"
    if isinstance(event, CardPlayed):
        where = f" to realm {event.realm}" if event.realm else ""
        return f"{event.seat} plays {event.name}{where}"
    if isinstance(event, AttackDeclared):
        return f"{event.seat} attacks in realm {event.realm}"
    if isinstance(event, DrawDeclared):
        return f"{event.seat} draws a card"
    if isinstance(event, Passed):
        return f"{event.seat} passes" + (" (no moves left)" if event.auto else "")
    if isinstance(event, PlayDeclared):
        return f"{event.seat} declares a play"
    if isinstance(event, BattleResolved):
        other = "B" if event.attacker == "A" else "A"
        verdict = {"attacker": f"{event.attacker} wins", "defender": f"{other} wins",
                   "tie": "tie"}[event.result]
        return (f"Battle in realm {event.realm}: {event.attacker} {_num(event.attacker_power)} "
                f"vs {other} {_num(event.defender_power)} — {verdict}")
    if isinstance(event, StoneSeized):
        return f"{event.seat} seizes the stone of realm {event.realm} (from {event.from_side})"
    if isinstance(event, CardMoved):
        return _narrate_move(event)
    if isinstance(event, CounterChanged):
        verb = "gets" if event.delta > 0 else "loses"
        return f"{namer(event.card)} {verb} {abs(event.delta)} {event.counter} counter(s)"
    if isinstance(event, TriggerResolved):
        return f"{event.name}'s {event.ability}: {event.detail}".rstrip(": ")
    if isinstance(event, MatchEnded):
        if event.winner is None:
            return f"The match ends in a draw ({event.reason})"
        stones = f"stones A {event.stones.get('A', 0)} – B {event.stones.get('B', 0)}"
        return f"{event.winner} wins the match ({event.reason}, {stones})"
    if isinstance(event, TakenBack):
        return f"Judge takes back to event {event.to_seq}" + (f": {event.reason}" if event.reason else "")
    if isinstance(event, Conceded):
        return f"{event.seat} concedes"
    if isinstance(event, ev.CardStatsEntered):
        return _narrate_entry(event)
    return _narrate_more(event, namer)


def _narrate_entry(event: ev.CardStatsEntered) -> str:
    """R34: "A enters Glow Smith's printed stats: cost 3, power 4, Human, flying"."""
    if event.name == "?":
        return f"{event.seat} enters the printed stats of a card in hand"
    stats = event.stats
    parts = [f"cost {stats.get('cost', 0)}"]
    if stats.get("power") is not None:
        parts.append(f"power {stats['power']}")
    parts += [str(c) for c in stats.get("classes", [])]
    parts += [str(k) for k in stats.get("keywords", [])]
    return f"{event.seat} enters {event.name}'s printed stats: {', '.join(parts)}"


class _Namer:
    """A card's name where known (else its id)."""

    def __init__(self, names: Mapping[str, str]):
        self.names = names

    def __call__(self, cid: str) -> str:
        return self.names.get(cid, cid)


def _effect(event: EffectApplied, namer: _Namer) -> str:
    """EffectApplied in words: "+2", "×2", "base power 0", "is nullified", "gets flying"…"""
    kind, amount = event.effect, _num(event.amount)
    span = " this round" if event.duration == "round" else ""
    card = namer(event.card)
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
        return f"{card} gets {kind[6:]}{span}"
    if kind.startswith("cant:"):
        return f"{card} can't {kind[5:].replace('be_', 'be ').replace('_', ' ')}{span}"
    if kind == "control":
        return f"{card} changes control{span}"
    if kind == "return_at_round_end":
        return f"{card} will return at the end of the round"
    return f"{card} gets {kind}" + (f" ({amount})" if event.amount else "") + span


def _narrate_more(event: Event, namer: _Namer) -> str:
    """Sentences for the set-up, resources and battle-start events (the viewer's list)."""
    if isinstance(event, MatchOpened):
        names = " vs ".join(f"{s.seat} {s.player}" + (f" ({s.deck_name})" if s.deck_name else "")
                            for s in event.seats)
        return f"Match opens: {names} — rules {event.ruleset}"
    if isinstance(event, RealmSideChosen):
        return f"{event.seat} puts realm 1 on their {event.side}"
    if isinstance(event, Mulliganed):
        return f"{event.seat} mulligans {len(event.cards)} card(s) to the bottom of the deck"
    if isinstance(event, Answered):
        return _narrate_answer(event, namer)
    if isinstance(event, ResourcesChanged):
        parts = [f"{name.replace('_', ' ')} {_num(value)}" for name, value in
                 (("energy", event.energy), ("actions", event.actions),
                  ("free_attacks", event.free_attacks), ("faith", event.faith))
                 if value is not None]
        return f"{event.seat} now has {', '.join(parts) or 'unchanged resources'} ({event.reason})"
    if isinstance(event, BattleStarted):
        free = " (free attack)" if event.free_attack else ""
        return f"Battle begins in realm {event.realm}: {event.attacker} attacks {event.defender}{free}"
    if isinstance(event, RoundEnded):
        return f"Round {event.round} ends"
    if isinstance(event, EffectApplied):
        return _effect(event, namer)
    return _narrate_cards(event, namer)


def _narrate_cards(event: Event, namer: _Namer) -> str:
    """Sentences for activations, harvests, tokens, control and the judge's events."""
    if isinstance(event, ActivationDeclared):
        return f"{event.seat} activates {namer(event.card)}'s ability {event.ability + 1}"
    if isinstance(event, HarvestDeclared):
        return f"{event.seat} harvests {', '.join(map(namer, event.cards)) or 'nothing'}"
    if isinstance(event, TokenCreated):
        return f"{event.seat} creates {event.name} in realm {event.realm}"
    if isinstance(event, CardTapped):
        return f"{namer(event.card)} is {'tapped' if event.tapped else 'untapped'}"
    if isinstance(event, ControlChanged):
        return f"{event.controller} takes control of {namer(event.card)}"
    if isinstance(event, SeizePrevented):
        return f"{namer(event.card)}'s protector counter keeps the stone of realm {event.realm}"
    if isinstance(event, RealmBanished):
        return f"Realm {event.realm} is banished with everything in it"
    if isinstance(event, ManualEffect):
        return f"Judge {event.by} rules: {event.note or f'{len(event.ops)} manual change(s)'}"
    if isinstance(event, ManualResolved):
        return f"{event.seat} resolves {namer(event.card)} by hand ({len(event.ops)} change(s))"
    if isinstance(event, JudgeNote):
        return f"Judge {event.judge} notes: {event.text}"
    if isinstance(event, GameLossGiven):
        return (f"Judge {event.judge} gives {event.seat} a game loss"
                + (f": {event.reason}" if event.reason else ""))
    if isinstance(event, JudgeCalled):
        return f"{event.seat} calls the judge" + (f": {event.text}" if event.text else "")
    if isinstance(event, Annotated):
        return f"{event.name} notes on event {event.about}: {event.text}"
    return _narrate_state(event, namer)


def _narrate_state(event: Event, namer: _Namer) -> str:
    """Sentences for the events that carry the rest of the state (turns, equipment, copies,
    effects ending, counts, a judge's stones)."""
    if isinstance(event, ev.TurnsBegan):
        return f"Turns begin: {event.first} goes first"
    if isinstance(event, ev.TurnEnded):
        return (f"{event.seat}'s turn ends; the round's turns are over" if event.next is None
                else f"{event.seat}'s turn ends; {event.next} is next")
    if isinstance(event, ev.Equipped):
        return f"{namer(event.card)} is equipped to {namer(event.wonder)}"
    if isinstance(event, ev.Unequipped):
        return f"{namer(event.card)} is left unequipped"
    if isinstance(event, ev.AbilitiesCopied):
        copied = ", ".join([*event.keywords, *event.abilities]) or "nothing"
        return f"{namer(event.card)} copies {copied} from {namer(event.source)}"
    if isinstance(event, ev.EffectsEnded):
        which = "this-round effects end" if event.until == "round" else "effects end"
        return f"{namer(event.card)}'s {which}"
    if isinstance(event, ev.EventCounted):
        return f"Counted: {event.key} is now {event.total}"
    if isinstance(event, ev.StonesSet):
        return f"Judge sets the stones of realm {event.realm}: {', '.join(event.stones)}"
    return _narrate_stack(event, namer)


def _narrate_stack(event: Event, namer: _Namer) -> str:
    """Short plain sentences for the stack's bookkeeping (recorded from rules revision 6)."""
    def whose(source: str, ability: str) -> str:
        return f"{namer(source)}'s {_ability(ability)}"

    if isinstance(event, ev.TriggersQueued):
        waiting = ", ".join(whose(t.source, t.ability) for t in event.triggers)
        return f"Triggered abilities wait to resolve: {waiting}"
    if isinstance(event, ev.TriggerDequeued):
        return f"Next to resolve: {whose(event.source, event.ability)}"
    if isinstance(event, ev.ResolutionStarted):
        return f"{whose(event.source, event.ability)} starts resolving"
    if isinstance(event, ev.ResolutionEnded):
        return f"{whose(event.source, event.ability)} has resolved"
    if isinstance(event, ev.LoopStated):
        return (f"Loop: {whose(event.source, event.ability)} repeats "
                f"{event.times} more time(s)" if event.times else
                f"Loop: {whose(event.source, event.ability)} ends")
    if isinstance(event, ev.LoopRepeated):
        return f"Loop: {whose(event.source, event.ability)} repeats"
    if isinstance(event, ev.TargetingStarted):
        return f"{namer(event.source)}'s effect chooses targets; abilities react first"
    if isinstance(event, ev.EffectNullified):
        return f"{namer(event.card)} nullifies {namer(event.source)}'s effect"
    if isinstance(event, ev.TargetingEnded):
        return f"{namer(event.source)}'s effect goes on"
    if isinstance(event, ev.FlightScheduled):
        return f"{', '.join(map(namer, event.cards))} will fly at the end of the turn"
    if isinstance(event, ev.FlightsCleared):
        return f"{', '.join(map(namer, event.cards))}: no longer waiting to fly"
    return describe(event)


def _ability(label: str) -> str:
    """An ability as people read it: ``ab:Card#id`` is "ability id", a keyword its name."""
    if label.startswith("ab:") and "#" in label:
        return f"ability #{label.rsplit('#', 1)[1]}"
    return label


def _narrate_answer(event: Answered, namer: _Namer) -> str:
    if event.kind == "mulligan":
        picked = event.pick if isinstance(event.pick, list) else []
        return (f"{event.seat} keeps their opening hand" if not picked else
                f"{event.seat} mulligans {len(picked)} card(s)")
    if event.kind == "first":
        return f"{event.seat} picks {event.pick} to play first"
    if event.kind == "side":
        return f"{event.seat} picks the {event.pick} side for realm 1"
    pick = event.pick if event.pick not in (None, [], "") else "nothing"
    if event.kind in ("target", "equip", "discard"):  # card ids read as names where known
        picks = pick if isinstance(pick, list) else [pick]
        pick = ", ".join(namer(p) if isinstance(p, str) else str(p) for p in picks)
    return f"{event.seat} answers {event.kind}: {pick}" + (" (only option)" if event.auto else "")


def _narrate_move(event: CardMoved) -> str:
    who = event.owner
    how = event.reason.split(":")[0]
    if event.to_zone == "abyss" and event.from_zone == "world" and how == "destroyed":
        return f"{who}'s {event.name} is destroyed"
    if event.to_zone == "abyss" and event.from_zone == "world" and how == "sacrifice":
        return f"{who} sacrifices {event.name}"
    if event.to_zone == "hand" and event.from_zone == "deck":
        return f"{who} draws {event.name}"
    if event.to_zone == "abyss" and event.from_zone == "world":
        return f"{who}'s {event.name} {event.reason.split(':')[0]} — to The Abyss"
    if event.to_zone == "world" and event.from_zone == "world" and event.from_realm == event.to_realm:
        return f"{event.name} is turned face up in realm {event.to_realm}"
    if event.to_zone == "world" and event.from_zone == "world":
        return f"{event.name} moves from realm {event.from_realm} to realm {event.to_realm} ({event.reason})"
    if event.to_zone == "world":
        return f"{event.name} arrives in realm {event.to_realm}"
    if event.to_zone == "gone":
        return f"Token {event.name} ceases to exist"
    return f"{who}'s {event.name}: {event.from_zone} → {event.to_zone} ({event.reason})"
