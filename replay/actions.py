"""Turns (rules 403.2–403.4, 404): the legal turn actions, their checks and their effects.

Checking is separate from applying: :meth:`TurnActions.why_not_turn` says which rule forbids
a turn action (and is the only source of the legal options listed in a turn prompt);
the ``_do_*`` methods trust their input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger.events import (
    ActivationDeclared, AttackDeclared, CardPlayed, DrawDeclared, HarvestDeclared, Passed,
    PlayDeclared, ResourcesChanged,
)
from replay.prompts import Prompt
from replay.state import other

if TYPE_CHECKING:
    from replay.engine import Engine, Flow

TURN_ACTIONS = (Passed, DrawDeclared, PlayDeclared, AttackDeclared, ActivationDeclared,
                HarvestDeclared)


class TurnActions:
    """Mixin of :class:`~replay.engine.Engine`: the turn loop and the turn actions."""

    def take_turns(self: "Engine") -> "Flow":
        """403.2: players alternate turns until both passed in a row or a pass limit is hit."""
        s = self.state
        while True:
            seat = s.turn
            yield from self.settle()
            if not self.has_turn_action(seat):
                # 403.4 / 404.5: no actions and no other way to use the turn: pass automatically.
                decision = Passed(seat, auto=True)
                self.emit(decision)
            else:
                decision = yield Prompt(seat, "turn", text="your turn: draw, play, attack or pass")
            self.end_of_turn = []
            yield from self._do_turn(seat, decision)
            yield from self.fly_at_end_of_turn()  # v1.2 flying
            if self._round_is_over(seat):
                s.phase = "round_end"
                return
            s.turn = other(seat)

    def _round_is_over(self: "Engine", seat: str) -> bool:
        s = self.state
        if s.passes_in_row >= 2:
            return True  # 403.4: all players passed consecutively
        p = s.players[seat]
        if s.ruleset == "1.2":
            return p.passes_total >= 21  # v1.2 404.5.1: 21 passes within a round
        return p.passes_in_row >= 11  # v1.3.2 404.5.1: 11 consecutive passes

    # -- legal options -------------------------------------------------------------------

    def turn_options(self: "Engine", seat: str) -> list:
        """Every legal turn action of ``seat``; passing is always legal (404.5)."""
        return [Passed(seat), *self._candidate_actions(seat)]

    def has_turn_action(self: "Engine", seat: str) -> bool:
        """Whether ``seat`` can do anything but pass (403.4: otherwise it passes automatically)."""
        return next(self._candidate_actions(seat), None) is not None

    def _candidate_actions(self: "Engine", seat: str):
        """The legal non-pass turn actions, generated lazily (the check decides each one)."""
        if self.why_not_turn(seat, DrawDeclared(seat)) is None:
            yield DrawDeclared(seat)
        realms = self.view.active_realms()
        for cid in list(self.state.players[seat].hand):
            spell = self.view.definition(cid).type == "spell"
            for realm in ([None] if spell else realms):
                play = PlayDeclared(seat, cid, realm)
                if self.why_not_turn(seat, play) is None:
                    yield play
        for realm in realms:
            attack = AttackDeclared(seat, realm)
            if self.why_not_turn(seat, attack) is None:
                yield attack

    def why_not_turn(self: "Engine", seat: str, decision) -> str | None:
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
        return "no card here has an ability that can be activated or harvested"

    def _why_not_draw(self: "Engine", seat: str) -> str | None:
        if self.state.players[seat].actions < 1:
            return "no actions left (rule 404.1: drawing costs an action)"
        return None

    def play_cost(self: "Engine", seat: str, cid: str) -> int:
        """404.2 / Link: the cost, 1 less with a link of the card's orbital, never below 0."""
        card = self.view.definition(cid)
        cost = card.cost
        if card.orbital and card.orbital in self.view.links(seat):
            cost -= 1
        return max(0, cost)

    def is_attuned_free(self: "Engine", seat: str, cid: str) -> bool:
        """Attuned: spend no action if the requirement (if any) is met."""
        need = self.view.definition(cid).attunement
        if need is None:
            return False
        return need == "" or self.view.controls_matching(seat, need)

    def _why_not_play(self: "Engine", seat: str, play: PlayDeclared) -> str | None:
        s = self.state
        if play.card not in s.players[seat].hand:
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
        if card.core and self.state.format != "prerelease" and card.orbital not in self.view.links(seat):
            return f"core card needs a {card.orbital} link (rule 404.2, Core)"
        cost = self.play_cost(seat, play.card)
        if cost > s.players[seat].energy:
            return (f"{card.name} costs {cost} energy and {seat} has "
                    f"{_num(s.players[seat].energy)} (rule 404.2)")
        if s.players[seat].actions < 1 and not self.is_attuned_free(seat, play.card):
            return "no actions left (rule 404.2: playing a card costs an action)"
        return None

    def _why_not_attack(self: "Engine", seat: str, realm: int) -> str | None:
        if not self.view.is_active_realm(realm):
            return f"realm {realm} is not active (rule 404.3: attack in an active realm)"
        if not any(self.view.is_wonder(c.id) for c in self.view.in_realm(realm, seat)):
            return f"{seat} has no Wonder in realm {realm} to attack with (rule 404.3.1)"
        p = self.state.players[seat]
        if p.free_attacks < 1 and p.actions < 1:
            return "no actions or free attacks left (rule 404.3)"
        return None

    # -- applying ------------------------------------------------------------------------

    def _do_turn(self: "Engine", seat: str, decision) -> "Flow":
        s = self.state
        p = s.players[seat]
        if isinstance(decision, Passed):
            # 404.5: passing uses no resource; count it for the round end and the pass limit.
            s.passes_in_row += 1
            p.passes_in_row += 1
            p.passes_total += 1
            return
        s.passes_in_row = 0
        p.passes_in_row = 0
        s.last_turn_taker = seat  # 404.5.2: passing is not "taking the last turn"
        if isinstance(decision, DrawDeclared):
            p.actions -= 1  # 404.1
            self.emit(ResourcesChanged(seat, "draw", actions=p.actions))
            self.draw(seat)
        elif isinstance(decision, PlayDeclared):
            yield from self._do_play(seat, decision)
        elif isinstance(decision, AttackDeclared):
            # Free Attack: spent automatically, before actions.
            free = p.free_attacks > 0
            if free:
                p.free_attacks -= 1
                self.emit(ResourcesChanged(seat, "attack", free_attacks=p.free_attacks))
            else:
                p.actions -= 1
                self.emit(ResourcesChanged(seat, "attack", actions=p.actions))
            yield from self.battle(seat, decision.realm, free=free)
        yield from self.settle()

    def _do_play(self: "Engine", seat: str, play: PlayDeclared) -> "Flow":
        """404.2: pay the cost (and an action unless attuned), then the card resolves."""
        p = self.state.players[seat]
        card = self.view.definition(play.card)
        cost = self.play_cost(seat, play.card)
        spends_action = not self.is_attuned_free(seat, play.card)
        p.energy -= cost
        if spends_action:
            p.actions -= 1
        self.emit(ResourcesChanged(seat, "play", energy=p.energy, actions=p.actions))
        self.emit(CardPlayed(seat, play.card, card.name, play.realm, cost, spends_action))
        if card.type == "spell":
            self.move(play.card, "abyss", "spell resolved")  # 101.3.3
            return
        yield from self.enter_world(play.card, seat, play.realm, "played")


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
