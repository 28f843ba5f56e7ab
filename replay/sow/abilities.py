"""The ability language at work: triggered and activated effects, damage and destruction.

An ability (:class:`replay.sow.cards.Ability`) names an ``effect`` and its ``amount`` and
``target``.  Rules ("Main Phase"): "Static Abilities are always on" (applied by
:mod:`replay.sow.queries`); "Triggered abilities happen when a certain event happens, such as
a player playing a unit or a player being besieged"; "Activated abilities can only be
activated during the Main Phase and all activated abilities have a cost" (paid by
:mod:`replay.sow.actions`).  A target is chosen by the ability's controller when there is a
choice; with no legal target the effect does nothing (docs/rulings-sow.md R12).
"""

from __future__ import annotations

from replay.prompts import Prompt
from replay.sow.cards import Ability
from replay.sow.events import (
    AbilityResolved,
    CardDestroyed,
    CardRetrieved,
    CardsReadied,
    CountersAdded,
    DamageDealt,
    DamageRepaired,
    GoldGained,
)
from replay.sow.flow import Flow, Steps
from replay.sow.queries import UNIT_AREAS
from replay.sow.revisions import HEALTH_CHECK_REVISION
from replay.sow.state import Seat, other


class Effects(Flow):
    """Resolving abilities, dealing damage, destroying cards, retrieving."""

    def resolve_triggers(self, seats: tuple[Seat, ...], when: str) -> Steps:
        """Resolve every ``when`` trigger of ``seats``' cards in play, seat by seat, each in
        the order the state lists the cards (R11)."""
        for seat in seats:
            for cid, ability in self.view.triggered(seat, when):
                if self.state.cards[cid].area in ("discard", "culture"):
                    continue  # its source left play while earlier triggers resolved
                yield from self.resolve(seat, cid, ability)

    def resolve(self, seat: Seat, cid: str, ability: Ability) -> Steps:
        name = self.state.cards[cid].name
        self.emit(AbilityResolved(cid, name, ability.id, seat, ability.text or ability.effect))
        effect, amount = ability.effect, ability.amount
        if effect == "gain_gold":
            self.emit(GoldGained(seat, amount, f"{name}: {ability.id}"))
        elif effect == "progress":
            wonder = self.view.progress_card(seat)
            if wonder is not None:
                self.add_progress(wonder.id, amount)
        elif effect == "retrieve":
            yield from self.retrieve(seat)
        elif effect == "damage_besiegers":
            hit = [u for u in self.view.besiegers(other(seat))]
            for u in hit:
                self.deal_damage(cid, u, amount)
            self.destroy_lethal(hit, "damage")
        else:
            target = yield from self.choose_target(seat, cid, ability)
            if target is not None:
                self.apply_targeted(cid, ability, target)

    def choose_target(self, seat: Seat, cid: str, ability: Ability) -> Steps:
        options = self.view.targets(seat, ability.target)
        if not options:
            return None  # R12: no legal target, the effect does nothing
        answer = yield from self.ask(Prompt(seat, "target", options=options, card=cid,
                                            text=f"choose a target: {ability.text}"))
        return answer.pick

    def apply_targeted(self, source: str, ability: Ability, target: str) -> None:
        name = self.state.cards[target].name
        if ability.effect == "damage":
            self.deal_damage(source, target, ability.amount)
            self.destroy_lethal([target], "damage")
        elif ability.effect == "repair":
            self.emit(DamageRepaired(target, name, min(ability.amount,
                                                       self.state.cards[target].damage)))
        elif ability.effect == "counter":
            self.emit(CountersAdded(target, name, ability.amount))
        elif ability.effect == "ready":
            self.emit(CardsReadied([target]))

    # -- damage, destruction, retrieval ------------------------------------------------

    def deal_damage(self, source: str, target: str, amount: int) -> None:
        """Units lose health until the end of the turn; "buildings and fortifications gets
        markers on them ... this damage does not disappear at the end of every turn"."""
        if amount <= 0:
            return
        c = self.state.cards[target]
        self.emit(DamageDealt(source, target, c.name, amount, c.damage + amount))

    def destroy_lethal(self, cids: list[str], reason: str) -> None:
        """Destroy every card of ``cids`` whose damage reached its health; a State so
        destroyed loses the match for its player."""
        lethal = [cid for cid in dict.fromkeys(cids)
                  if self.state.cards[cid].area != "discard" and self.view.is_lethal(cid)]
        states = [cid for cid in lethal if self.state.cards[cid].area == "state"]
        for cid in lethal:
            if cid not in states:
                c = self.state.cards[cid]
                self.emit(CardDestroyed(cid, c.name, c.owner, reason))
        if states:
            if len(states) == 2:  # both States at once (R9): nobody is left standing alone
                self.end_match(None, "state_destroyed")
            self.lose_state(self.state.cards[states[0]].owner, states[0])
        if lethal and self.state.revision >= HEALTH_CHECK_REVISION:
            # R23: "When this number reaches 0, the card will be put into the graveyard" -- a
            # unit whose health fell because a card giving it health left play.
            fallen = [c.id for c in self.state.cards.values()
                      if c.area in UNIT_AREAS and self.view.is_unit(c.id) and self.view.is_lethal(c.id)]
            if fallen:
                self.destroy_lethal(fallen, "health")

    def retrieve(self, seat: Seat) -> Steps:
        """"Whenever a player is told to retrieve a card they put a card from their discard
        pile into their hand" -- the player chooses which (nothing when the pile is empty,
        R13)."""
        pile = [c.id for c in self.state.owned(seat, "discard")]
        if not pile:
            return
        answer = yield from self.ask(Prompt(seat, "retrieve", options=pile,
                                            text="return a card from your discard pile to your hand"))
        card = self.state.cards[answer.pick]
        self.emit(CardRetrieved(seat, card.id, card.name))
