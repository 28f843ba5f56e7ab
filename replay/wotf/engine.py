"""The rules engine: runs a match as a procedure that suspends at prompts.

An :class:`Engine` owns a :class:`~replay.wotf.state.GameState` and always waits for exactly one
:class:`~replay.prompts.Prompt`.  :meth:`Engine.check` says whether a decision is legal (and
which rule forbids it if not) without touching the state; :meth:`Engine.decide` applies a
legal decision and runs the rules until the next prompt, returning the decision followed by
every outcome event it produced.  Randomness enters only as answers to ``chance`` prompts.

The procedure is written top to bottom as generators (``yield`` = wait for a decision):
setup (401–402), then rounds (403): beginning of round, turns, round end, until the match
ends (405).  Turn actions live in :mod:`replay.wotf.actions`, battles in :mod:`replay.wotf.battle`,
keywords, counters and triggers in :mod:`replay.wotf.effects`.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ledger.events import Conceded, Event, MatchEnded, MatchOpened
from replay.wotf.events import (
    Answered, CardMoved, CoinFlipped, DeckOrdered, FirstPlayerChosen, ManualResolved, Mulliganed,
    RealmOpened, RealmSideChosen, ResourcesChanged, RoundEnded, RoundStarted, TriggerResolved,
    TurnsBegan,
)
from replay.wotf.actions import TurnActions
from replay.wotf.battle import Battles
from replay.wotf.cards import CardDB, match_cards
from replay.wotf.effects import Effects, Trigger
from replay.errors import IllegalDecisionError
from replay.wotf.manual import apply_ops, why_not_ops
from replay.prompts import Choose, Prompt, pick_fits
from replay.wotf.queries import View
from replay.wotf.movement import Movement
from replay.wotf.scripts import Scripts
from replay.wotf.evolve import STRUCTURAL, evolve, initial_state
from replay.wotf.revisions import RULES_REVISION
from replay.wotf.state import GameState, SEATS, other

ENGINE_VERSION = "0.2.0"


Flow = Generator[Prompt, Any, Any]


class MatchOver(Exception):
    """Raised inside the procedure when the match ends mid-way (deck-out, 405)."""


class Engine(TurnActions, Battles, Effects, Scripts, Movement):
    """One match in progress: its state, the pending prompt, and the procedure."""

    def __init__(self, db: CardDB, state: GameState):
        self.db = db
        self.state = state
        self.view = View(state, db)
        self.prompt: Prompt | None = None
        self.out: list[Event] = []
        self.end_of_turn: list[str] = []  # fliers that move at end of turn (v1.2)
        self.on_emit = None  # optional hook called after each event, state as of that event
        self.resolving: list = []  # (source, ability) of the abilities now resolving, nested (503)
        self.loop_plan: dict = {}  # voluntary loops: repetitions their controller stated (503)
        self.targeting: list = []  # contexts of the effects now choosing targets (Nullify)
        self._flow: Flow | None = None

    # -- construction --------------------------------------------------------------------

    @classmethod
    def for_match(cls, opened: MatchOpened, db: CardDB) -> "Engine":
        """A new match at setup: the state at seq 0 (:func:`replay.wotf.evolve.initial_state`).

        The cards are the match's own: those its file records (schema 3), else a copy of
        the pool ``db`` -- a stand-in token made in one match never changes another's cards.
        """
        db = match_cards(opened, db)
        return cls(db, initial_state(opened))

    # -- the protocol --------------------------------------------------------------------

    def start(self) -> list[Event]:
        """Run from the current state to the first prompt; returns the outcomes emitted."""
        self.out = []
        self._flow = self._main()
        self._advance(None)
        return self.out

    def legal_options(self) -> list:
        """The pending prompt's legal options (turn prompts list the turn actions)."""
        if self.prompt is None:
            return []
        if self.prompt.kind == "turn":
            return self.turn_options(self.prompt.seat)
        return list(self.prompt.options)

    def check(self, decision: Event) -> str | None:
        """Why ``decision`` is illegal now (``None`` if it is legal).  Never changes state."""
        prompt = self.prompt
        if self.state.over or prompt is None:
            return "the match is over"
        if isinstance(decision, Conceded):
            return None if decision.seat in SEATS else f"unknown seat {decision.seat!r}"
        seat = getattr(decision, "seat", None)
        if prompt.kind == "chance":
            return _check_chance(prompt, decision)
        if seat != prompt.seat:
            return (f"it is {prompt.seat}'s {prompt.kind} prompt, not {seat}'s "
                    f"(rule 403.2: players alternate turns)")
        if prompt.kind == "turn":
            return self.why_not_turn(seat, decision)
        if prompt.kind == "manual":
            if not isinstance(decision, ManualResolved) or decision.card != prompt.card:
                return f"the pending prompt is manual for {prompt.card}; answer it with ManualResolved"
            return why_not_ops(self, decision.ops)
        if not isinstance(decision, Answered) or decision.kind != prompt.kind:
            return f"the pending prompt is {prompt.kind!r}; answer it with Answered(kind={prompt.kind!r})"
        return pick_fits(prompt, decision.pick)

    def decide(self, decision: Event) -> list[Event]:
        """Apply a legal decision; returns ``[decision, *outcomes]``.

        Raises :class:`IllegalDecisionError` (state unchanged) if the rules forbid it.
        """
        reason = self.check(decision)
        if reason is not None:
            raise IllegalDecisionError(f"{type(decision).__name__} by "
                                       f"{getattr(decision, 'seat', 'chance')}: {reason}")
        self.out = [decision]
        evolve(self.state, decision)
        self.view.changed()
        if self.on_emit is not None:
            self.on_emit(decision)
        if isinstance(decision, Conceded):
            self._end_match(other(decision.seat), "concession")
            self._flow = None
            self.prompt = None
            return self.out
        self._advance(decision)
        return self.out

    def _advance(self, decision: Any) -> None:
        try:
            self.prompt = self._flow.send(decision)
        except StopIteration:
            self.prompt = None
            self._flow = None

    def emit(self, event: Event) -> None:
        """Record an outcome: it is applied through :func:`~replay.wotf.evolve.evolve`, the only
        writer of game state (DESIGN.md section 2)."""
        evolve(self.state, event)
        if type(event) in STRUCTURAL:
            self.view.touch()
        self.view.changed()
        self.out.append(event)
        if self.on_emit is not None:
            self.on_emit(event)

    def ask(self, prompt: Prompt) -> Flow:
        """Wait for an answer; a prompt with exactly one legal option answers itself.

        From revision 5 that includes a pick-N prompt whose only legal pick is all of its
        candidates (DESIGN.md section 3: "It never prompts when exactly one legal answer
        exists"), e.g. a forced sacrifice of every Wonder a player has."""
        if prompt.choose is None and len(prompt.options) == 1:
            pick = prompt.options[0]
            self.emit(Answered(prompt.seat, prompt.kind, pick, auto=True))
            return pick
        if self.state.revision >= 5 and prompt.choose is not None:
            only = _only_pick(prompt.choose)
            if only is not None:
                self.emit(Answered(prompt.seat, prompt.kind, only, auto=True))
                return only
        answer = yield prompt
        return answer.pick

    def resolve_manually(self, seat: str, cid: str, why: str) -> Flow:
        """An unscripted card's text would apply: its controller enters what it did as
        primitive operations (a ``manual`` prompt, DESIGN.md section 3)."""
        card = self.view.definition(cid)
        answer = yield Prompt(seat, "manual", card=cid, text=f"{why}: {card.text}")
        apply_ops(self, answer.ops)
        self.emit(TriggerResolved(cid, card.name, "manual", seat,
                                  f"{len(answer.ops)} operation(s) entered by hand"))

    def emit_reveal(self, ctx, cards: list[str]) -> None:
        """Reveal: show cards to every player (they stay where they are)."""
        names = ", ".join(f"{cid} {self.state.cards[cid].name}" for cid in cards) or "nothing"
        self.emit(TriggerResolved(ctx.source, self.view.definition(ctx.source).name, "reveal",
                                  ctx.controller, f"reveals {names}"))

    # -- the match, top to bottom --------------------------------------------------------

    def _main(self) -> Flow:
        s = self.state
        try:
            if s.phase == "setup":
                yield from self._setup()
                yield from self._begin_round()
            while not s.over:
                if s.phase == "turns":
                    yield from self.take_turns()
                if s.phase == "round_end":
                    yield from self._end_round()  # and the next round begins (403.2)
        except MatchOver:
            pass

    def _setup(self) -> Flow:
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
                self.draw(seat, "opening hand")
        # 402.1: up to 3 cards to the bottom in chosen order, draw as many; first player first.
        for seat in (first, other(first)):
            hand = s.players[seat].hand
            cards = yield from self.ask(Prompt(seat, "mulligan", choose=Choose(
                list(hand), 0, min(3, len(hand)), ordered=True),
                text="put up to 3 cards on the bottom, in order (rule 402.1)"))
            if cards:
                for cid in cards:
                    self.move(cid, "deck", "mulligan")
                self.emit(Mulliganed(seat, list(cards)))
                for _ in cards:
                    self.draw(seat, "mulligan")

    def _begin_round(self) -> Flow:
        """403.1: the new realm opens, energy and actions, round-start triggers, draw."""
        s = self.state
        # 403.2: the last player to seize a stone goes first (round 1: the chosen player).
        self.emit(RoundStarted(s.round + 1, s.last_seizer or s.round1_first))
        self.emit(RealmOpened(s.round))
        if s.ruleset == "1.2":
            # v1.2 403.1: On Round Start / On Round N triggers come before energy and actions.
            yield from self.resolve(self.round_start_triggers())
            self._gain_round_resources()
        else:
            # v1.3.2 403.1 (section 4 order; see docs/rulings.md R1).
            self._gain_round_resources()
            yield from self.resolve(self.round_start_triggers())
        for seat in (s.first, other(s.first)):
            self.draw(seat, "round start")
        self.emit(TurnsBegan(s.first))

    def _gain_round_resources(self) -> None:
        """202.1/202.2: energy = round number + stones controlled; 3 actions."""
        s = self.state
        for seat in SEATS:
            p = s.players[seat]
            self.emit(ResourcesChanged(seat, "round start",
                                       energy=p.energy + s.round + self.view.stones_of(seat),
                                       actions=p.actions + 3))

    def _end_round(self) -> Flow:
        """403.5: round-end triggers, lose resources, discard to 7, then the next round."""
        s = self.state
        yield from self.resolve(self.round_end_triggers())
        yield from self.delayed_returns()
        for seat in SEATS:
            p = s.players[seat]
            if p.energy or p.actions or p.free_attacks:
                self.emit(ResourcesChanged(seat, "round end", energy=0, actions=0, free_attacks=0))
        for seat in (s.turn, other(s.turn)):
            hand = s.players[seat].hand
            excess = len(hand) - 7
            if excess > 0:
                cards = yield from self.ask(Prompt(seat, "discard", choose=Choose(
                    list(hand), excess, excess), text=f"discard {excess} (rule 403.5)"))
                for cid in cards:
                    self.move(cid, "abyss", "discard")
        self.emit(RoundEnded(s.round))
        if s.round == 7:
            self._declare_winner()
            return
        self.end_round_effects()
        yield from self.settle()
        if not s.over:
            yield from self._begin_round()

    def _declare_winner(self) -> None:
        """405: most stones wins; tie-break: lowest realm with a single controller."""
        a, b = self.view.stones_of("A"), self.view.stones_of("B")
        if a != b:
            self._end_match("A" if a > b else "B", "stones")
            return
        for realm in range(1, 8):
            controller = self.view.realm_controller(realm)
            if controller is not None:
                self._end_match(controller, "tiebreak")
                return
        self._end_match(None, "draw")

    def _end_match(self, winner: str | None, reason: str) -> None:
        self.emit(MatchEnded(winner, reason, {seat: self.view.stones_of(seat) for seat in SEATS}))

    def check_decks(self) -> None:
        """405: a player whose deck has no cards loses at once (both at once: a draw)."""
        empty = [seat for seat in SEATS if not self.state.players[seat].deck]
        if not empty or self.state.over:
            return
        self._end_match(None if len(empty) == 2 else other(empty[0]), "deck_out")
        raise MatchOver

    # -- primitive moves -----------------------------------------------------------------

    def draw(self, seat: str, reason: str = "draw") -> None:
        deck = self.state.players[seat].deck
        if deck:
            self.move(deck[0], "hand", reason)
        self.check_decks()

    def move(self, cid: str, to_zone: str, reason: str, realm: int | None = None,
             controller: str | None = None, face_down: bool = False,
             keep_effects: bool = False) -> None:
        """Move a card between areas (301.06); leaving The World removes counters and effects
        (:func:`replay.wotf.evolve.evolve` of ``CardMoved``).

        A token put anywhere but The World ceases to exist (203) after the move is seen.
        """
        c = self.state.cards[cid]
        from_zone, from_realm = c.zone, c.realm
        to_controller = (controller or c.owner) if to_zone == "world" else None
        self.emit(CardMoved(cid, c.name, c.owner, from_zone, to_zone, reason, from_realm,
                            realm if to_zone == "world" else None, to_controller,
                            face_down=face_down, keep_effects=keep_effects))
        if c.token and to_zone not in ("world", "gone"):
            self.emit(CardMoved(cid, c.name, c.owner, to_zone, "gone", "token ceases to exist"))
        if from_zone == "deck" and self.state.revision >= 5:
            # 405: "If at any time a deck has no cards, that player loses" -- whatever took
            # the card (a draw, a deny, a seek, a card played from the deck, a manual move).
            # Before revision 5 only draws and deny checked.
            self.check_decks()

    def stop(self) -> None:
        """The match ended outside the procedure (a judge's manual effect emptied a deck):
        no prompt is pending any more."""
        self._flow = None
        self.prompt = None


def _only_pick(spec: Choose) -> list[str] | None:
    """The one legal pick of a ``Choose``, if it has exactly one (else ``None``): nothing when
    at most nothing may be picked; every candidate when all must be picked and their order
    is free or can't differ."""
    if spec.max == 0:
        return []
    if spec.min < len(spec.of) or (spec.ordered and len(set(spec.of)) > 1):
        return None
    if not spec.multiset and len(set(spec.of)) != len(spec.of):
        return None  # no legal pick at all (a card can't be picked twice); let it be seen
    return list(spec.of)


def _check_chance(prompt: Prompt, decision: Event) -> str | None:
    if prompt.choose is None:
        if not isinstance(decision, CoinFlipped):
            return f"the pending prompt is a chance event ({prompt.text}); expected CoinFlipped"
        return pick_fits(prompt, decision.winner)
    expected = prompt.chance or "DeckShuffled"
    if type(decision).__name__ != expected:
        return f"the pending prompt is a chance event ({prompt.text}); expected {expected}"
    if f"shuffle {decision.seat}" != prompt.text:
        return f"expected {prompt.text}, got a shuffle of {decision.seat}"
    order = decision.cards if isinstance(decision, DeckOrdered) else decision.order
    if sorted(order) != sorted(prompt.choose.of):
        return "a shuffle must be a full permutation of the deck"
    return None


__all__ = ["ENGINE_VERSION", "RULES_REVISION", "Engine", "MatchOver", "Trigger"]
