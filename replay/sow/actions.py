"""The Main Phase: playing cards and activating abilities (rules "How to play cards", "Main
Phase").

"To play a card a player pays the cost of the card they would like to play, and after doing
so, puts the card into the correct city area"; "Units are exhausted the turn they are played";
the Wonder area's card "can be played as if it was in the player's Culture Area".  "Activated
abilities can only be activated during the Main Phase and all activated abilities have a
cost" -- gold and/or exhausting the card, before the semicolon.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from ledger.events import Event
from replay.prompts import Prompt
from replay.sow.abilities import Effects
from replay.sow.cards import IN_PLAY_TYPES
from replay.sow.events import (
    ActivationChosen,
    CardPutIntoPlay,
    Exhausted,
    GoldSpent,
    MainPassed,
    PlayChosen,
)
from replay.sow.flow import Steps
from replay.sow.state import IN_PLAY, Seat

PLAY_RULE = "\"You must pay this cost if you wish to play the card\""
HAND_RULE = ("\"They put their deck into the Culture Area and can play any card from this area\"; "
             "the Wonder area's card \"can be played as if it was in the player's Culture Area\"")
#: where a card is played from
HAND_AREAS = ("culture", "wonder_area")
ACTIVATE_RULE = ("\"Activated abilities can only be activated during the Main Phase and all "
                 "activated abilities have a cost\"")


class Actions(Effects):
    """The turn player's Main Phase options and what they do."""

    def main_options(self, seat: Seat) -> list[Event]:
        plays: list[Event] = [PlayChosen(seat, cid) for cid in self.playable(seat)]
        return [*plays, *self.activations(seat), MainPassed(seat)]

    def playable(self, seat: Seat) -> Iterator[str]:
        """The cards ``seat`` may play now, in card order: exactly those ``why_not_play``
        finds nothing against (its reasons are worded only for a refusal)."""
        gold, cards = self.state.players[seat].gold, self.cards
        for c in self.state.cards.values():
            if c.owner == seat and c.area in HAND_AREAS and cards[c.name].cost <= gold:
                yield c.id

    def activations(self, seat: Seat) -> Iterator[Event]:
        """The abilities ``seat`` may activate now, in card and printed order."""
        for c in self.view.in_play(seat):
            for a in self.view.card(c.id).abilities:
                if a.kind == "activated" and self.why_not_activate(seat, c.id, a.id) is None:
                    yield ActivationChosen(seat, c.id, a.id)

    def only_main_option(self, seat: Seat) -> Event | None:
        """``MainPassed`` when it is the only legal Main Phase decision, else ``None``."""
        if next(self.playable(seat), None) is None and next(self.activations(seat), None) is None:
            return MainPassed(seat)
        return None

    def why_not_play(self, seat: Seat, cid: str) -> str | None:
        c = self.state.cards.get(cid)
        if c is None or c.owner != seat or c.area not in HAND_AREAS:
            return f"{cid} is not a card in your Culture or Wonder area ({HAND_RULE})"
        cost = self.view.card(cid).cost
        if cost > self.state.players[seat].gold:
            return (f"{c.name} costs {cost} gold and you have "
                    f"{self.state.players[seat].gold} ({PLAY_RULE})")
        return None

    def why_not_activate(self, seat: Seat, cid: str, ability_id: str) -> str | None:
        # Ruling R19: any card in play may have an activated ability; "Exhaust" in its cost
        # can't be paid while the card is exhausted; none in the Culture or Wonder Area.
        c = self.state.cards.get(cid)
        if c is None or c.owner != seat or c.area not in IN_PLAY:
            return f"{cid} is not one of your cards in play"
        ability = self.view.card(cid).ability(ability_id)
        if ability is None or ability.kind != "activated":
            return f"{c.name} has no activated ability {ability_id!r} ({ACTIVATE_RULE})"
        if ability.exhaust and c.exhausted:
            return (f"{c.name} is exhausted and cannot pay \"Exhaust\" (\"Units are exhausted "
                    f"the turn they are played\"; {ACTIVATE_RULE})")
        if ability.gold > self.state.players[seat].gold:
            return (f"the cost is {ability.gold} gold and you have "
                    f"{self.state.players[seat].gold} ({ACTIVATE_RULE})")
        return None

    def why_not_main(self, seat: Seat, decision: Event) -> str | None:
        if isinstance(decision, PlayChosen):
            return self.why_not_play(seat, decision.card)
        if isinstance(decision, ActivationChosen):
            return self.why_not_activate(seat, decision.card, decision.ability)
        if isinstance(decision, MainPassed):
            return None
        return (f"in the Main Phase \"players can play cards and activate abilities\" or end "
                f"it; {type(decision).__name__} is not one of those")

    def main_phase(self, seat: Seat) -> Steps:
        """"When a player no longer can activate any abilities or play any cards or does not
        wish to do so, the Main Phase ends and the Combat Phase begins.\""""
        while True:
            decision = yield from self.ask_listing(
                Prompt(seat, "turn", text="play a card, activate an ability or pass"),
                partial(self.main_options, seat), self.only_main_option(seat))
            if isinstance(decision, MainPassed):
                return
            if isinstance(decision, PlayChosen):
                yield from self.play(seat, decision.card)
            elif isinstance(decision, ActivationChosen):
                yield from self.activate(seat, decision.card, decision.ability)

    def play(self, seat: Seat, cid: str) -> Steps:
        c = self.state.cards[cid]
        card = self.view.card(cid)
        if card.cost:
            self.emit(GoldSpent(seat, card.cost, f"play {c.name}"))
        # "Units are exhausted the turn they are played" (a Hero fights as a unit, R5).
        exhausted = card.type in ("unit", "hero")
        self.emit(CardPutIntoPlay(seat, cid, c.name, c.area, IN_PLAY_TYPES[card.type],
                                  exhausted))
        # Triggered: "such as a player playing a unit" -- "when this is played".
        for ability in card.abilities:
            if ability.kind == "triggered" and ability.when == "play":
                yield from self.resolve(seat, cid, ability)

    def activate(self, seat: Seat, cid: str, ability_id: str) -> Steps:
        c = self.state.cards[cid]
        ability = self.view.card(cid).ability(ability_id)
        assert ability is not None
        # "To activate such an ability, a player would have to pay 2 Gold and exhaust the card."
        if ability.gold:
            self.emit(GoldSpent(seat, ability.gold, f"{c.name}: {ability.id}"))
        if ability.exhaust:
            self.emit(Exhausted(cid, c.name, f"cost of {ability.id}"))
        yield from self.resolve(seat, cid, ability)
