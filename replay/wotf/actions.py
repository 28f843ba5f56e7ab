"""Turns (rules 403.2–403.4, 404): the legal turn actions, their checks and their effects.

Checking is separate from applying: :meth:`TurnActions.why_not_turn` says which rule forbids
a turn action (and is the only source of the legal options listed in a turn prompt);
the ``_do_*`` methods trust their input.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

from ledger.events import Event
from replay.prompts import Choose, Prompt
from replay.wotf.abilities import Ability, Cost
from replay.wotf.bus import Occurrence
from replay.wotf.cards import Card
from replay.wotf.events import (
    ActivationDeclared,
    AttackDeclared,
    CardPlayed,
    DrawDeclared,
    EventCounted,
    FlightsCleared,
    HarvestDeclared,
    Passed,
    PlayDeclared,
    ResourcesChanged,
    TurnEnded,
)
from replay.wotf.state import PlayerState, Seat, other
from replay.wotf.statics import DECK_OPS
from replay.wotf.table import Component, Flow
from replay.wotf.trigger import Trigger

TURN_ACTIONS = (Passed, DrawDeclared, PlayDeclared, AttackDeclared, ActivationDeclared,
                HarvestDeclared)


class TurnActions(Component):
    """The turn loop and the turn actions: a component of the engine."""

    def take_turns(self) -> Flow:
        """403.2: players alternate turns until both passed in a row or a pass limit is hit."""
        s = self.state
        while True:
            seat = s.turn
            assert seat is not None  # the turns phase always has an active player (403.2)
            yield from self.g.settle()
            if not self.has_turn_action(seat):
                # 403.4 / 404.5: no actions and no other way to use the turn: pass automatically.
                decision = Passed(seat, auto=True)
                self.emit(decision)
            else:
                decision = yield Prompt(seat, "turn", text="your turn: draw, play, attack or pass")
            if s.stack is not None and s.stack.fliers:  # v1.2 Flying: this turn's fliers only
                self.emit_stack(FlightsCleared(list(s.stack.fliers)))
            yield from self._do_turn(seat, decision)
            yield from self.g.fly_at_end_of_turn()  # v1.2 flying
            over = self._round_is_over(seat)
            self.emit(TurnEnded(seat, None if over else other(seat)))
            if over:
                return

    def _round_is_over(self, seat: Seat) -> bool:
        s = self.state
        if s.passes_in_row >= 2:
            return True  # 403.4: all players passed consecutively
        p = s.players[seat]
        if s.ruleset == "1.2":
            return p.passes_total >= 21  # v1.2 404.5.1: 21 passes within a round
        return p.passes_in_row >= 11  # v1.3.2 404.5.1: 11 consecutive passes

    # -- legal options -------------------------------------------------------------------

    def turn_options(self, seat: Seat) -> list:
        """Every legal turn action of ``seat``; passing is always legal (404.5)."""
        return [Passed(seat), *self._candidate_actions(seat)]

    def has_turn_action(self, seat: Seat) -> bool:
        """Whether ``seat`` can do anything but pass (403.4: otherwise it passes automatically).

        With an action left, drawing is legal (404.1, :meth:`_why_not_draw`): no candidate
        need be built to know it."""
        if not self.state.players[seat].actions < 1:
            return True  # drawing is legal (_why_not_draw's question, asked without its call)
        return next(self._candidate_actions(seat, any_one=True), None) is not None

    def _candidate_actions(self, seat: Seat, any_one: bool = False) -> Iterator[Event]:
        """The legal non-pass turn actions, generated lazily (the check decides each one).
        ``any_one``: only whether there is one is asked (:meth:`has_turn_action`), so a
        harvest comes as soon as a card is found harvestable, not after every card is."""
        if self.why_not_turn(seat, DrawDeclared(seat)) is None:
            yield DrawDeclared(seat)
        realms = self.view.active_realms()
        p = self.state.players[seat]
        for cid in [*p.hand, *self._deck_top_playable(seat)]:
            card = self.view.definition(cid)
            if p.actions < 1 and card.attunement is None:
                continue  # the check's last word: no action to play it with (404.2, Attuned)
            if card.type == "spell":
                play = PlayDeclared(seat, cid, None)
                if self.why_not_turn(seat, play) is None:
                    yield play
            elif self._why_not_afford(seat, cid, card) is None:
                # 404.2: a card in hand is played into any active realm, so the realm is
                # all that differs between these plays, and every one of them is active
                for realm in realms:
                    yield PlayDeclared(seat, cid, realm)
        for realm in realms:
            if p.free_attacks < 1 and p.actions < 1:
                break  # the check's last word: no action or free attack to attack with (404.3)
            attack = AttackDeclared(seat, realm)
            if self.why_not_turn(seat, attack) is None:
                yield attack
        yield from self._candidate_activations(seat, any_one)

    def _candidate_activations(self, seat: Seat, any_one: bool = False) -> Iterator[Event]:
        """Activated abilities (one per turn) and harvests (any number at once), 404.4
        (``any_one``: :meth:`_candidate_actions`)."""
        harvestable = []
        view = self.view
        p = self.state.players[seat]
        for c in list(view.world()):
            if c.controller != seat:
                continue
            if not view.may_have_timing(c.id, "activated") and \
                    not view.definition(c.id).has_unscripted_text:
                continue  # nothing to activate or harvest: no such ability, no text by hand
            refs = view.ability_refs(c.id)
            unscripted = self._has_unscripted_ability(c.id)
            count = max(len(refs), 1 if unscripted else 0)
            for index in range(count):
                if index == 0 and unscripted:
                    pass  # entered by hand (R19): the check decides
                elif index < len(refs) and (refs[index][1].when != "activated"
                                            or _cannot_pay(c.tapped, p, refs[index][1].cost)):
                    continue  # the check refuses it: no activated ability #index (404.4),
                    # or one it can't pay (Harvest, Tap, 404.4, Pay)
                act = ActivationDeclared(seat, c.id, index)
                if self.why_not_turn(seat, act) is None:
                    yield act
            # a tapped card is never harvested: its harvest ability taps it (Harvest, Tap)
            if not c.tapped and self._why_not_harvest_one(seat, c.id) is None:
                if any_one:
                    yield HarvestDeclared(seat, [c.id])
                    return
                harvestable.append(c.id)
        for cid in harvestable:
            yield HarvestDeclared(seat, [cid])
        if len(harvestable) > 1:
            yield HarvestDeclared(seat, harvestable)

    def why_not_turn(self, seat: Seat, decision: Event) -> str | None:
        # the commonest first, by exact type (the isinstance chain below decides the rest)
        if type(decision) is PlayDeclared:
            return self._why_not_play(seat, decision)
        if type(decision) is ActivationDeclared:
            return self._why_not_activate(seat, decision)
        if not isinstance(decision, TURN_ACTIONS):
            return f"the pending prompt is a turn; {type(decision).__name__} is not a turn action"
        if isinstance(decision, Passed):
            return None if not decision.auto else "an automatic pass is the engine's, not a seat's"
        if isinstance(decision, DrawDeclared):
            return self._why_not_draw(seat)
        if isinstance(decision, PlayDeclared):
            return self._why_not_play(seat, decision)
        if isinstance(decision, AttackDeclared):
            return self._why_not_attack(seat, decision.realm)
        if isinstance(decision, ActivationDeclared):
            return self._why_not_activate(seat, decision)
        return self._why_not_harvest(seat, decision)

    def _has_unscripted_ability(self, cid: str) -> bool:
        """The card's text is not scripted, so it may be activated and entered by hand (R19)
        -- unless it is face down: a face-down card has no abilities and no effect (rule 510;
        revision 4: before it, the engine offered it, and the manual prompt showed its text)."""
        if self.state.revision >= 4 and self.state.cards[cid].face_down:
            return False
        return self.view.definition(cid).has_unscripted_text

    def _activated(self, seat: Seat, cid: str, index: int) \
            -> tuple[tuple[str, Ability, bool] | None, str | None]:
        """The (key, ability) of activated ability ``index`` of a card ``seat`` controls."""
        c = self.state.cards.get(cid)
        if c is None or c.zone != "world" or c.controller != seat or c.face_down:
            # One refusal for all three: it confirms nothing about a face-down card (510).
            return None, _not_activatable(cid, seat)
        refs = self.view.ability_refs(cid)
        if not 0 <= index < len(refs) or refs[index][1].when != "activated":
            return None, f"{c.name} has no activated ability #{index} (rule 404.4)"
        return refs[index], None

    def _why_not_activate(self, seat: Seat, act: ActivationDeclared) -> str | None:
        if act.targets:
            return "targets are chosen as the ability resolves (rule 501.1), not declared"
        card = self.state.cards.get(act.card)
        if (card is not None and card.zone == "world" and card.controller == seat and act.ability == 0
                and self._has_unscripted_ability(act.card)):
            if self.view.is_nullified(act.card):
                return f"{card.name} is nullified: its rules text is blank (Nullify)"
            if self.state.players[seat].actions < 1:
                return "no actions left (an unscripted ability is entered as a tap action, R19)"
            return None
        ref, why = self._activated(seat, act.card, act.ability)
        if ref is None:
            return why
        _, ability, _ = ref
        assert card is not None  # _activated refused a card that is not there
        if ability.cost.harvest:
            return f"{card.name}'s ability #{act.ability} is a harvest ability: harvest it (Harvest)"
        return self._why_not_pay(seat, act.card, ability)

    def _why_not_pay(self, seat: Seat, cid: str, ability: Ability) -> str | None:
        """Whether ``seat`` can pay an activated ability's cost now (404.4, Tap, Faith)."""
        from replay.wotf.selectors import Context, holds
        c, p, cost = self.state.cards[cid], self.state.players[seat], ability.cost
        if not holds(self.view, ability.condition, Context(cid, seat, c.realm)):
            return f"{c.name}: the ability's condition is not met ({_condition_text(ability)})"
        if (cost.tap or cost.harvest) and (c.tapped or self.view.cant(cid, "be_tapped", seat)):
            return f"{c.name} is tapped: a tap ability needs it untapped (Tap)"
        actions = _actions_cost(cost)
        if p.actions < actions:
            return f"no actions left (rule 404.4: this ability costs {actions} action(s))"
        if p.energy < cost.energy:
            return f"costs {cost.energy} energy and {seat} has {_num(p.energy)} (Pay)"
        if cost.faith and (p.faith < cost.faith or self.state.counts.get(f"{seat}:faith@{self.state.round}")):
            return "faith can be spent once per round, and only what you have (202.3)"
        if len(p.hand) < cost.discard:
            return f"discarding {cost.discard} needs {cost.discard} cards in hand"
        return None

    def _why_not_harvest_one(self, seat: Seat, cid: str) -> str | None:
        c = self.state.cards.get(cid)
        if c is None or c.zone != "world" or c.controller != seat or c.face_down:
            return _not_activatable(cid, seat, "Harvest")
        for _, ability, _ in self.view.ability_refs(cid):
            if ability.when == "activated" and ability.cost.harvest:
                return self._why_not_pay(seat, cid, ability)
        return f"{c.name} has no harvest ability"

    def _why_not_harvest(self, seat: Seat, harvest: HarvestDeclared) -> str | None:
        if not harvest.cards or len(set(harvest.cards)) != len(harvest.cards):
            return "harvest names one or more different cards (Harvest)"
        for cid in harvest.cards:
            why = self._why_not_harvest_one(seat, cid)
            if why:
                return why
        return None

    def _why_not_draw(self, seat: Seat) -> str | None:
        if self.state.players[seat].actions < 1:
            return "no actions left (rule 404.1: drawing costs an action)"
        return None

    def play_cost(self, seat: str, cid: str) -> int:
        """404.2 / Link: the cost, 1 less with a link of the card's orbital, never below 0."""
        return self._cost(seat, self.view.definition(cid))

    def _cost(self, seat: str, card: Card) -> int:
        """:meth:`play_cost` of a card whose definition is at hand."""
        cost = card.cost
        if card.orbital and card.orbital in self.view.links(seat):
            cost -= 1
        return max(0, cost)

    def is_attuned_free(self, seat: Seat, cid: str) -> bool:
        """Attuned: spend no action if the requirement (if any) is met."""
        return self._attuned_free(seat, self.view.definition(cid))

    def _attuned_free(self, seat: Seat, card: Card) -> bool:
        """:meth:`is_attuned_free` of a card whose definition is at hand."""
        need = card.attunement
        if need is None:
            return False
        return need == "" or self.view.controls_matching(seat, need)

    def _why_not_play(self, seat: Seat, play: PlayDeclared) -> str | None:
        s = self.state
        if play.card not in s.players[seat].hand and play.card not in self._deck_top_playable(seat):
            return f"card {play.card} is not in {seat}'s hand (rule 404.2)"
        card = self.view.definition(play.card)
        if card.type == "spell":
            if play.realm is not None:
                return "a spell is not played into a realm; it goes to The Abyss (rule 404.2)"
        elif play.realm is None:
            return f"choose an active realm to play {card.name} into (rule 404.2)"
        elif not self.view.is_active_realm(play.realm):
            return (f"realm {play.realm} is not active (rule 404.2: play into the current "
                    f"realm or a previous round's realm; rule 301.1)")
        if play.targets:
            return f"{card.name} declares no targets"
        return self._why_not_afford(seat, play.card, card)

    def _why_not_afford(self, seat: Seat, cid: str, card: Card) -> str | None:
        """What keeps ``seat`` from playing a card it may play, wherever it goes: a core
        card's link (Core), its energy cost (404.2, Link) and the action it costs (Attuned)."""
        s = self.state
        if card.core and self.state.format != "prerelease" and card.orbital not in self.view.links(seat):
            return f"core card needs a {card.orbital} link (rule 404.2, Core)"
        cost = self._cost(seat, card)
        if cost > s.players[seat].energy:
            return (f"{card.name} costs {cost} energy and {seat} has "
                    f"{_num(s.players[seat].energy)} (rule 404.2)")
        if s.players[seat].actions < 1 and not self._attuned_free(seat, card):
            return "no actions left (rule 404.2: playing a card costs an action)"
        return None

    def _deck_top_playable(self, seat: Seat) -> list[str]:
        """"You may play cards from the top of your deck as if they were in your hand"."""
        deck = self.state.players[seat].deck
        return deck[:1] if deck and seat in self.view.statics_for(DECK_OPS).deck_play else []

    def _why_not_attack(self, seat: Seat, realm: int) -> str | None:
        if not self.view.is_active_realm(realm):
            return f"realm {realm} is not active (rule 404.3: attack in an active realm)"
        if not any(self.view.is_wonder(c.id) for c in self.view.in_realm(realm, seat)):
            return f"{seat} has no Wonder in realm {realm} to attack with (rule 404.3.1)"
        if self.view.no_attack_here(realm, seat):
            return (f"a Wonder of {seat}'s in realm {realm} can't attack, "
                    f"so no attack takes place there (404.3)")
        p = self.state.players[seat]
        if p.free_attacks < 1 and p.actions < 1:
            return "no actions or free attacks left (rule 404.3)"
        return None

    # -- applying ------------------------------------------------------------------------

    def _do_turn(self, seat: Seat, decision: Event) -> Flow:
        # The decision itself counted the pass, or reset the pass counts (replay.wotf.evolve).
        p = self.state.players[seat]
        kind = type(decision)  # (the turn actions are leaf classes: no isinstance chain)
        if kind is Passed:
            return  # 404.5: passing uses no resource
        if kind is DrawDeclared:
            self.emit(ResourcesChanged(seat, "draw", actions=p.actions - 1))  # 404.1
            self.g.draw(seat)
        elif kind is PlayDeclared:
            yield from self._do_play(seat, cast(PlayDeclared, decision))
        elif kind is ActivationDeclared:
            yield from self._do_activate(seat, cast(ActivationDeclared, decision))
        elif kind is HarvestDeclared:
            yield from self._do_harvest(seat, cast(HarvestDeclared, decision))
        elif isinstance(decision, AttackDeclared):
            # Free Attack: spent automatically, before actions.
            free = p.free_attacks > 0
            if free:
                self.emit(ResourcesChanged(seat, "attack", free_attacks=p.free_attacks - 1))
            else:
                self.emit(ResourcesChanged(seat, "attack", actions=p.actions - 1))
            yield from self.g.battle(seat, decision.realm, free=free)
        yield from self.g.settle()

    def _do_play(self, seat: Seat, play: PlayDeclared) -> Flow:
        """404.2: pay the cost (and an action unless attuned), then the card resolves."""
        p = self.state.players[seat]
        card = self.view.definition(play.card)
        cost = self._cost(seat, card)
        spends_action = not self._attuned_free(seat, card)
        self.emit(ResourcesChanged(seat, "play", energy=p.energy - cost,
                                   actions=p.actions - (1 if spends_action else 0)))
        self.emit(CardPlayed(seat, play.card, card.name, play.realm, cost, spends_action))
        yield from self.g.resolve_play(seat, play.card, play.realm)

    def _do_activate(self, seat: Seat, act: ActivationDeclared) -> Flow:
        """404.4: pay the cost (tap, action, energy, faith, discard, sacrifice), then resolve."""
        c, p = self.state.cards[act.card], self.state.players[seat]
        if self.view.definition(act.card).has_unscripted_text and not self.view.ability_refs(act.card):
            self.emit(ResourcesChanged(seat, "activate", actions=p.actions - 1))
            yield from self.g.resolve_manually(seat, act.card, "activated")
            return
        key, ability, _ = self.view.ability_refs(act.card)[act.ability]
        realm = c.realm  # "here" is where it was, even if the cost sacrificed it
        yield from self._pay(seat, act.card, ability)
        yield from self.g.resolve([Trigger(act.card, seat, f"ab:{key}", realm)])

    def _pay(self, seat: Seat, cid: str, ability: Ability) -> Flow:
        p, cost = self.state.players[seat], ability.cost
        if cost.tap or cost.harvest:
            self.g.set_tapped(cid, True, seat)
        actions = _actions_cost(cost)
        if actions or cost.energy or cost.faith:
            self.emit(ResourcesChanged(seat, "activate", energy=p.energy - cost.energy,
                                       actions=p.actions - actions, faith=p.faith - cost.faith))
            if cost.faith:
                self.emit(EventCounted(f"{seat}:faith@{self.state.round}", 1))
        if cost.discard:
            cards = yield from self.ask(Prompt(seat, "discard", choose=Choose(
                list(p.hand), cost.discard, cost.discard), card=cid, text="discard to pay"))
            for hand_card in cards:
                self.g.move(hand_card, "abyss", "discard")
        if cost.sacrifice:
            yield from self.g.die(cid, "sacrifice", "cost")

    def _do_harvest(self, seat: Seat, harvest: HarvestDeclared) -> Flow:
        """Harvest: tap any number of cards at once; their effects and On Harvest triggers
        all trigger together, in the active player's order (Harvest)."""
        triggers = []
        for cid in harvest.cards:
            c = self.state.cards[cid]
            for key, ability, _ in self.view.ability_refs(cid):
                if ability.when == "activated" and ability.cost.harvest:
                    yield from self._pay(seat, cid, ability)
                    triggers.append(Trigger(cid, seat, f"ab:{key}", c.realm))
                    break
            triggers += self.g.run_event(Occurrence("harvested", cid, seat, c.realm))
        yield from self.g.resolve(triggers)


def _not_activatable(cid: str, seat: Seat, rule: str = "rule 404.4") -> str:
    """Why ``cid`` can't be activated or harvested by ``seat``: not in The World, not its, or
    face down (a face-down card has no abilities, rule 510) -- said the same way for all, so
    the refusal tells a seat nothing about a face-down card it names by id."""
    return (f"{cid} is not a face-up card {seat} controls in The World ({rule}; a face-down "
            f"card has no abilities, rule 510)")


def _cannot_pay(tapped: bool, p: PlayerState, cost: Cost) -> bool:
    """Whether the check is sure to refuse activating a scripted ability of this cost now,
    whatever else holds (:meth:`TurnActions._why_not_activate`): a harvest ability is
    harvested, not activated (Harvest); a tap ability needs its card untapped (Tap); the
    actions and energy it costs must be there (404.4, Pay).  Only for skipping candidates:
    the check says why."""
    if cost.harvest or (cost.tap and tapped):
        return True
    return p.actions < _actions_cost(cost) or p.energy < cost.energy


def _actions_cost(cost: Cost) -> int:
    """The actions an activated ability costs (404.4): those it names, or one if it spends
    an action without naming a number."""
    return cost.actions + (1 if cost.spends_action and not cost.actions else 0)


def _num(value: int | float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _condition_text(ability: Ability) -> str:
    cond = ability.condition.model_dump(exclude_defaults=True)
    return ", ".join(f"{k} {v}" for k, v in cond.items()) or "none"
