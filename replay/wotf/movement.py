"""Movement that abilities can see or replace: playing, arriving, banishing (504, On Play).

A component of the engine (:mod:`replay.wotf.table`).  A played card resolves here (On Play triggers,
then a spell's effect or the card's arrival); a banishment or destruction first asks the
card's movement-replacement abilities ("if this would be …, … instead"), which work from any
area.  A card whose text is not scripted raises a ``manual`` prompt when it would apply.
"""

from __future__ import annotations

from replay.wotf.abilities import Ability
from replay.wotf.bus import Occurrence
from replay.wotf.events import CardPlayed, TriggerResolved
from replay.wotf.selectors import Context
from replay.wotf.state import Seat
from replay.wotf.table import Component, Flow, Rules
from replay.wotf.trigger import ON_ARRIVAL, Trigger


class Movement(Component):
    """Movement that abilities can replace (504): a component of the engine."""

    def replaced(self, cid: str, event: str) -> Flow:
        """Run a card's movement-replacement ability for ``event`` ("if this would be …,
        … instead"); it works from any area (504).  Returns whether it replaced the event."""
        c = self.state.cards[cid]
        for key, ability, _ in self.view.ability_refs(cid):
            if (ability.when == "replacement" and ability.on is not None  # (checked at load)
                    and ability.on.event == event):
                ctx = Context(cid, c.controller or c.owner, c.realm)
                self.emit(_replacement_event(self.g, cid, key, ctx.controller, ability))
                yield from self.g.run_effects(ability.effects, ctx)
                return True
        return False

    def banish(self, cid: str, reason: str) -> Flow:
        """Banish: the card goes to banishment (no "dies" trigger) unless replaced."""
        yield from self.banish_together([cid], reason)

    def banish_together(self, cards: list[str], reason: str) -> Flow:
        """Banish cards at the same time (a banished realm's cards, "banish all …"; revision
        8): each replacement first, then every "whenever … banished" trigger is collected while
        all of them are still where they were, they all go, and the active player orders the
        triggers as one batch (502) -- so no card's trigger depends on the order the engine
        happened to list them in."""
        going = []
        for cid in cards:
            if self.view.cant(cid, "be_banished") or (yield from self.replaced(cid, "banished")):
                continue
            going.append(cid)
        triggers: list[Trigger] = []
        for cid in going:
            c = self.state.cards[cid]
            triggers += self.g.run_event(Occurrence("banished", cid, c.controller or c.owner, c.realm))
        behind = [i.id for i in self.view.world() if i.equipped_to in going and i.id not in going]
        for cid in going:
            self.g.move(cid, "banishment", reason)
        yield from self.g.resolve(triggers + self.g.reequip_left_behind(behind))

    def play_free(self, seat: Seat, cid: str, realm: int | None) -> Flow:
        """Play a card for no cost as if from hand (Seek): the core mechanic doesn't apply."""
        card = self.view.definition(cid)
        self.emit(CardPlayed(seat, cid, card.name, realm if card.type != "spell" else None, 0, False))
        yield from self.resolve_play(seat, cid, realm)

    def resolve_play(self, seat: Seat, cid: str, realm: int | None) -> Flow:
        """A played card resolves: On Play and "whenever you play" first, then a spell's
        effect (then The Abyss) or the card arrives (404.2, On Play)."""
        card = self.view.definition(cid)
        spell = card.type == "spell"
        scripted = bool(card.abilities) or card.has_unscripted_text
        if spell and scripted:
            self.g.move(cid, "played", "spell cast")
        # Triggered Effects Example 1: the play waits for its triggers, also when an effect
        # plays it (revision 13, R47: they keep their place in the middle of that effect)
        yield from self.g.resolve_now(self.g.run_event(Occurrence("plays", cid, seat, realm)))
        if spell:
            # A nullified spell resolves with no effect (Nullify).  Its effect is no trigger:
            # it resolves as the spell does, also in the middle of another effect.
            yield from self.g.resolve_now(self.g.scripted_triggers(cid, "play", None))
            if card.has_unscripted_text and not self.view.is_nullified(cid):
                yield from self.g.resolve_manually(seat, cid, "spell played")
            self.g.move(cid, "abyss", "spell resolved")  # 101.3.3
            return
        assert realm is not None, "a card other than a spell is played to a realm (404.2)"
        yield from self.g.enter_world(cid, seat, realm, "played")
        if card.has_unscripted_text and self.state.cards[cid].zone == "world":
            yield from self.g.resolve_manually(seat, cid, "arrived")

    def arrival_abilities(self, cid: str) -> list[str]:
        """Names of a card's on-arrival abilities (keywords and scripted), for Skraal-like
        "trigger it again" effects."""
        names = [k for k in ON_ARRIVAL if self.view.has(cid, k)]
        names += [f"ab:{key}" for key, a, _ in self.view.ability_refs(cid) if a.when == "arrival"]
        return names


def _replacement_event(g: Rules, cid: str, key: str, seat: Seat,
                       ability: Ability) -> TriggerResolved:
    return TriggerResolved(cid, g.state.cards[cid].name, f"ab:{key}", seat,
                           f"instead: {ability.label or ability.text or 'replacement'}")
