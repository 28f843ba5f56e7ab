"""The State of Wonder rules engine: a match as a procedure that suspends at prompts.

An :class:`Engine` owns a :class:`~replay.sow.state.SowState` and always waits for exactly one
:class:`~replay.prompts.Prompt` ``(seat, kind, options)``.  :meth:`Engine.check` says why a
decision is illegal (naming the rule) without touching the state; :meth:`Engine.decide`
applies a legal one and runs the rules to the next prompt, returning the decision followed by
every outcome.  Randomness enters only as answers to ``chance`` prompts (the setup shuffle
``CultureOrdered`` and the initiative toss ``InitiativeTossed``).

The procedure, top to bottom: setup ("Getting started"), then turns -- start of turn, Main
Phase (:mod:`replay.sow.actions`), Combat Phase (:mod:`replay.sow.combat`), Retrieval Phase,
End Phase -- until someone wins or the turn limit (R14) is reached.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ledger.events import (
    Conceded,
    DeckEntry,
    DrawGiven,
    Event,
    GameLossGiven,
    MatchEnded,
    MatchOpened,
)
from replay.errors import IllegalDecisionError
from replay.prompts import Choose, Prompt, pick_fits
from replay.sow.cards import CardPool
from replay.sow.combat import Combat
from replay.sow.events import (
    CardsReadied,
    CultureOrdered,
    FirstPlayerDetermined,
    GoldGained,
    InitiativeTossed,
    PhaseBegan,
    Picked,
    StatePlaced,
    TurnBegan,
    TurnClosed,
    WonderPlacedFaceDown,
    WoundsHealed,
)
from replay.sow.evolve import evolve, initial_state
from replay.sow.flow import MatchOver, Steps
from replay.sow.queries import UNIT_AREAS
from replay.sow.revisions import TURN_LIMIT
from replay.sow.state import SEATS, Seat, SowState, other

TURN_RULE = ("it is {seat}'s {kind} prompt, not {other}'s (the match waits for one decision at a "
             "time; \"During your turn you can spend gold to play cards from your hand\")")

#: The sentence each kind of answer applies, named when an answer does not fit.
PICK_RULES = {
    "damage": "\"the controller of the unit decides how each unit distributes its damage among "
              "the enemy units\"",
    "retreat": "\"they can declare to retreat their units during any player's Declare Attackers "
               "Step\"",
    "siege": "\"If the attacker has units left, they may continue into a City Siege.\"",
    "target": "the ability's controller chooses one of its legal targets (docs/rulings-sow.md R12)",
    "retrieve": "\"the turn player returns a single card from their discard pile, to their hand\"",
}


class Engine(Combat):
    """One match in progress: its state, the pending prompt, and the procedure."""

    def __init__(self, cards: CardPool, state: SowState, decks: dict[str, list[DeckEntry]] | None = None):
        super().__init__(cards, state)
        self.decks = decks or {}
        self._flow: Generator[Prompt, Any, Any] | None = None

    @classmethod
    def for_match(cls, opened: MatchOpened, cards: CardPool) -> Engine:
        return cls(cards, initial_state(opened), {i.seat: list(i.deck) for i in opened.seats})

    # -- the protocol ------------------------------------------------------------------

    def start(self) -> list[Event]:
        self.out = []
        self._flow = self._run()
        self._advance(None)
        return self.out

    def close(self) -> None:
        """Done with this engine (a seek's): drop what it holds, its suspended procedure
        first -- whose frame refers back to it, a cycle only the garbage collector would
        free.  The engine can't be used after."""
        vars(self).clear()

    def check(self, decision: Event) -> str | None:
        """Why ``decision`` is illegal now (``None`` if it is legal); never changes state.  A
        decision at a prompt that lists decisions is checked by itself, not looked up in the
        list: the list is made only for whoever reads it (``Flow.ask_listing``)."""
        prompt = self._prompt
        if self.state.over or prompt is None:
            return "the match is over"
        if isinstance(decision, (Conceded, GameLossGiven)):
            return None if decision.seat in SEATS else f"unknown seat {decision.seat!r}"
        if isinstance(decision, DrawGiven):  # R26: the judge's call, at any prompt
            return None
        if prompt.seat == "chance":
            return _why_not_chance(prompt, decision)
        seat = getattr(decision, "seat", None)
        if seat != prompt.seat:
            return TURN_RULE.format(seat=prompt.seat, kind=prompt.kind, other=seat)
        if prompt.kind == "turn":
            return self.why_not_main(seat, decision)
        if prompt.kind == "tactics":
            return None if self.is_tactic(seat, decision) else self.why_not_tactic(decision)
        if not isinstance(decision, Picked) or decision.kind != prompt.kind:
            return (f"the pending prompt is {prompt.kind!r}: answer it with "
                    f"Picked(kind={prompt.kind!r})")
        reason = self.why_not_pick(prompt, decision.pick) or pick_fits(prompt, decision.pick)
        return f"{reason} ({PICK_RULES[prompt.kind]})" if reason and prompt.kind in PICK_RULES else reason

    def decide(self, decision: Event) -> list[Event]:
        reason = self.check(decision)
        if reason is not None:
            raise IllegalDecisionError(f"{type(decision).__name__} by "
                                       f"{_by(decision)}: {reason}")
        self.out = [decision]
        evolve(self.state, decision)
        if self.on_emit is not None:
            self.on_emit(decision)
        if isinstance(decision, (Conceded, GameLossGiven)):  # a concession or a judge's game loss
            reason = "game_loss" if isinstance(decision, GameLossGiven) else "concession"
            self.emit(MatchEnded(other(decision.seat), reason))
            self._flow, self.prompt = None, None
            return self.out
        if isinstance(decision, DrawGiven):  # R26: a judge's draw, agreed or at time
            self.emit(MatchEnded(None, decision.kind))
            self._flow, self.prompt = None, None
            return self.out
        self._advance(decision)
        return self.out

    def _advance(self, decision: Any) -> None:
        assert self._flow is not None
        self._unlisted = None  # the next prompt's options, if it leaves them to be listed
        try:
            self._prompt = self._flow.send(decision)
        except StopIteration:
            self.prompt, self._flow = None, None

    # -- the match, top to bottom ------------------------------------------------------

    def _run(self) -> Steps:
        s = self.state
        try:
            if s.phase == "setup":
                yield from self.setup()
                self.begin_turn(s.first_player())
            while True:
                if s.phase == "start":
                    yield from self.start_of_turn()
                if s.phase == "main":
                    yield from self.main_phase(s.turn_player())
                    self.emit(PhaseBegan("combat"))
                if s.phase == "combat":
                    yield from self.combat_phase(s.turn_player())
                    self.emit(PhaseBegan("retrieval"))
                if s.phase == "retrieval":
                    # "In the Retrieval Phase, the turn player returns a single card from
                    # their discard pile, to their hand."
                    yield from self.retrieve(s.turn_player())
                    self.emit(PhaseBegan("end"))
                if s.phase == "end":
                    yield from self.end_phase()
                    self.begin_turn(other(s.turn_player()))
        except MatchOver:
            pass

    def setup(self) -> Steps:
        """"At the beginning of the game you put your State card face up, and your Wonder or
        Hero card face down."  The 15 cards are shuffled (a recorded chance event) only so
        that instance ids name nothing (R2)."""
        for seat in SEATS:
            state, wonder, culture = self.split_deck(seat)
            self.emit(StatePlaced(seat, f"{seat}-S", state))
            self.emit(WonderPlacedFaceDown(seat, f"{seat}-W", wonder))
            yield Prompt("chance", "chance", choose=Choose(culture, len(culture), len(culture),
                                                           ordered=True, multiset=True),
                         text=f"shuffle {seat}", chance="CultureOrdered")
        # "The State with the highest Initiative value ... goes first. If two players have
        # States with the same Initiative values, roll a die or toss a coin"
        initiative = {seat: self.view.card(f"{seat}-S").initiative for seat in SEATS}
        if initiative["A"] != initiative["B"]:
            first = max(SEATS, key=lambda seat: initiative[seat])
            self.emit(FirstPlayerDetermined(first, "initiative"))
        else:
            toss = yield Prompt("chance", "chance", options=list(SEATS), text="initiative toss",
                                chance="InitiativeTossed")
            self.emit(FirstPlayerDetermined(toss.winner, "toss"))
        # "If there are any State effects that happens at this phase you resolve them."
        first = self.state.first_player()
        yield from self.resolve_triggers((first, other(first)), "setup")

    def split_deck(self, seat: Seat) -> tuple[str, str, list[str]]:
        names = [e.card for e in self.decks.get(seat, []) for _ in range(e.count)]
        state = next(n for n in names if self.cards[n].type == "state")
        wonder = next(n for n in names if self.cards[n].type in ("wonder", "hero"))
        return state, wonder, [n for n in names if n not in (state, wonder)]

    def begin_turn(self, seat: Seat) -> None:
        number = self.state.turn_number + 1
        if number > TURN_LIMIT:
            self.end_match(None, "turn_limit")  # R14: a match that could last forever
        self.emit(TurnBegan(number, seat))

    def start_of_turn(self) -> Steps:
        """"The first thing that happens in this phase, is that the turn player gains their
        income." Then the progress counter (R9), then "resolve all "At the Start of Turn"
        abilities"."""
        seat = self.state.turn_player()
        income = self.view.income(seat)
        if income:
            self.emit(GoldGained(seat, income, "income"))
        # "At the start of every turn you put a progress counter on a wonder if it is in play."
        wonder = self.view.progress_card(seat)
        if wonder is not None:
            self.add_progress(wonder.id, 1)
        yield from self.resolve_triggers((seat,), "start_of_turn")
        yield from self.resolve_triggers((seat, other(seat)), "start_of_each_turn")
        self.emit(PhaseBegan("main"))

    def end_phase(self) -> Steps:
        """"In the End phase card effects that refer to the end of turn are resolved. All
        exhausted cards are then readied"; unit health "returns to its original value at the
        end of every turn"."""
        seat = self.state.turn_player()
        yield from self.resolve_triggers((seat,), "end_of_turn")
        exhausted = [c.id for c in self.state.cards.values() if c.exhausted]
        if exhausted:
            self.emit(CardsReadied(exhausted))
        wounded = [c.id for c in self.state.cards.values()
                   if c.damage and c.area in UNIT_AREAS and self.view.is_unit(c.id)]
        if wounded:
            self.emit(WoundsHealed(wounded))
        self.emit(TurnClosed(seat))


def _by(decision: Event) -> str:
    """Who made ``decision``, for a refusal: its seat, the judge (a judge's draw), or chance."""
    if isinstance(decision, DrawGiven):
        return "the judge"
    return str(getattr(decision, "seat", "chance"))


def _why_not_chance(prompt: Prompt, decision: Event) -> str | None:
    if prompt.chance == "InitiativeTossed":
        if not isinstance(decision, InitiativeTossed):
            return "the pending prompt is the initiative toss: expected InitiativeTossed"
        return pick_fits(prompt, decision.winner)
    if not isinstance(decision, CultureOrdered):
        return f"the pending prompt is a chance event ({prompt.text}): expected CultureOrdered"
    if prompt.text != f"shuffle {decision.seat}":
        return f"expected {prompt.text}, got a shuffle of {decision.seat}"
    assert prompt.choose is not None
    if sorted(decision.cards) != sorted(prompt.choose.of):
        return "a shuffle must be a full permutation of the 15 cards"
    return None
