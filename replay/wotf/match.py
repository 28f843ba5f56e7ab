"""The match, top to bottom: setup (401–402), rounds (403) and the end of the match (405).

A readable generator that suspends at prompts (``yield``); turns are
:meth:`~replay.wotf.actions.TurnActions.take_turns`, triggers
:meth:`~replay.wotf.effects.Effects.resolve`.  It works through the
:class:`~replay.wotf.table.Rules` table, never the engine.
"""

from __future__ import annotations

from replay.prompts import Choose, Prompt
from replay.wotf.events import (
    FirstPlayerChosen,
    Mulliganed,
    RealmOpened,
    RealmSideChosen,
    ResourcesChanged,
    RoundEnded,
    RoundStarted,
    TurnsBegan,
)
from replay.wotf.state import SEATS, Seat, other
from replay.wotf.table import Component, Flow, MatchOver


class Match(Component):
    """The match procedure: a component of the engine."""

    def run(self) -> Flow:
        """From the current phase to the end of the match (a mid-way deck-out ends it, 405)."""
        s = self.state
        try:
            if s.phase == "setup":
                yield from self.setup()
                yield from self.begin_round()
            while not s.over:
                if s.phase == "turns":
                    yield from self.g.take_turns()
                if s.phase == "round_end":
                    yield from self.end_round()  # and the next round begins (403.2)
        except MatchOver:
            pass

    def setup(self) -> Flow:
        s = self.state
        # 401: the loser of the previous game chooses; otherwise a coin flip's winner does.
        chooser = s.previous_loser
        if chooser is None:
            flip = yield Prompt("chance", "chance", options=list(SEATS), text="coin flip")
            chooser = flip.winner
        first = yield from self.ask(Prompt(chooser, "first", options=list(SEATS),
                                           text="choose who plays first (rule 401)"))
        self.emit(FirstPlayerChosen(first, chooser))
        # 401: the player who plays second chooses the side of realm 1.
        side = yield from self.ask(Prompt(other(first), "side", options=["left", "right"],
                                          text="realm 1 on your left or right (rule 401)"))
        self.emit(RealmSideChosen(other(first), side))
        # 402: each player shuffles (a chance event: the full permutation) and draws 7.
        # From schema 3 the shuffle orders card names and so draws the instance ids.
        for seat in (first, other(first)):
            if seat not in s.deck_lists:
                deck, chance = list(s.players[seat].deck), "DeckShuffled"
            else:
                deck, chance = list(s.deck_lists[seat]), "DeckOrdered"
            yield Prompt("chance", "chance", choose=Choose(deck, len(deck), len(deck), ordered=True),
                         text=f"shuffle {seat}", chance=chance)
        for seat in (first, other(first)):
            for _ in range(7):
                self.g.draw(seat, "opening hand")
        # 402.1: up to 3 cards to the bottom in chosen order, draw as many; first player first.
        for seat in (first, other(first)):
            yield from self.mulligan(seat)

    def mulligan(self, seat: Seat) -> Flow:
        """402.1: put up to 3 cards on the bottom in the chosen order, then draw as many."""
        hand = self.state.players[seat].hand
        cards = yield from self.ask(Prompt(seat, "mulligan", choose=Choose(
            list(hand), 0, min(3, len(hand)), ordered=True),
            text="put up to 3 cards on the bottom, in order (rule 402.1)"))
        if not cards:
            return
        for cid in cards:
            self.g.move(cid, "deck", "mulligan")
        self.emit(Mulliganed(seat, list(cards)))
        for _ in cards:
            self.g.draw(seat, "mulligan")

    def begin_round(self) -> Flow:
        """403.1: the new realm opens, energy and actions, round-start triggers, draw."""
        s = self.state
        # 403.2: the last player to seize a stone goes first (round 1: the chosen player).
        first = s.last_seizer or s.round1_first
        assert first is not None, "401 chose the first player before round 1"
        self.emit(RoundStarted(s.round + 1, first))  # the fold makes it s.first
        self.emit(RealmOpened(s.round))
        if s.ruleset == "1.2":
            # v1.2 403.1: On Round Start / On Round N triggers come before energy and actions.
            yield from self.g.resolve(self.g.round_start_triggers())
            self.gain_round_resources()
        else:
            # v1.3.2 403.1 (section 4 order; see docs/rulings.md R1).
            self.gain_round_resources()
            yield from self.g.resolve(self.g.round_start_triggers())
        for seat in (first, other(first)):
            self.g.draw(seat, "round start")
        self.emit(TurnsBegan(first))

    def gain_round_resources(self) -> None:
        """202.1/202.2: energy = round number + stones controlled; 3 actions."""
        s = self.state
        for seat in SEATS:
            p = s.players[seat]
            self.emit(ResourcesChanged(seat, "round start",
                                       energy=p.energy + s.round + self.view.stones_of(seat),
                                       actions=p.actions + 3))

    def end_round(self) -> Flow:
        """403.5: round-end triggers, lose resources, discard to 7, then the next round."""
        s = self.state
        yield from self.g.resolve(self.g.round_end_triggers())
        yield from self.g.delayed_returns()
        for seat in SEATS:
            p = s.players[seat]
            if p.energy or p.actions or p.free_attacks:
                self.emit(ResourcesChanged(seat, "round end", energy=0, actions=0, free_attacks=0))
        assert s.turn is not None, "a round ends with the last turn's active player"
        for seat in (s.turn, other(s.turn)):
            yield from self.discard_to_seven(seat)
        self.emit(RoundEnded(s.round))
        if s.round == 7:
            self.declare_winner()
            return
        yield from self.g.end_round_effects()
        yield from self.g.settle()
        if not s.over:
            yield from self.begin_round()

    def discard_to_seven(self, seat: Seat) -> Flow:
        """403.5: a player with more than 7 cards in hand discards the excess, chosen."""
        hand = self.state.players[seat].hand
        excess = len(hand) - 7
        if excess <= 0:
            return
        cards = yield from self.ask(Prompt(seat, "discard", choose=Choose(
            list(hand), excess, excess), text=f"discard {excess} (rule 403.5)"))
        for cid in cards:
            self.g.move(cid, "abyss", "discard")

    def declare_winner(self) -> None:
        """405: most stones wins; tie-break: lowest realm with a single controller."""
        a, b = self.view.stones_of("A"), self.view.stones_of("B")
        if a != b:
            self.g.end_match("A" if a > b else "B", "stones")
            return
        for realm in range(1, 8):
            controller = self.view.realm_controller(realm)
            if controller is not None:
                self.g.end_match(controller, "tiebreak")
                return
        self.g.end_match(None, "draw")
