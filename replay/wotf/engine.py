"""The rules engine: runs a match as a procedure that suspends at prompts.

An :class:`Engine` owns a :class:`~replay.wotf.state.GameState` and always waits for exactly one
:class:`~replay.prompts.Prompt`.  :meth:`Engine.check` says whether a decision is legal (and
which rule forbids it if not) without touching the state; :meth:`Engine.decide` applies a
legal decision and runs the rules until the next prompt, returning the decision followed by
every outcome event it produced.  Randomness enters only as answers to ``chance`` prompts.

The engine is a façade over components that never see it (:mod:`replay.wotf.table`): the match
procedure (:mod:`replay.wotf.match`: setup 401–402, rounds 403, the end 405), turns
(:mod:`replay.wotf.actions`), battles (:mod:`replay.wotf.battle`), triggers and keywords
(:mod:`replay.wotf.effects`), scripted abilities (:mod:`replay.wotf.scripts`), movement
(:mod:`replay.wotf.movement`) and primitive moves (:mod:`replay.wotf.moves`).  The engine is
their table: it holds the state and the pending prompt, records outcomes (``emit``), waits for
decisions (``ask``), and hands each word of the rules' vocabulary to the component that owns it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from ledger.events import Conceded, DrawGiven, Event, GameLossGiven, MatchOpened, as_seat
from replay.errors import IllegalDecisionError
from replay.prompts import Choose, Prompt, pick_fits
from replay.wotf.abilities import Op, Selector
from replay.wotf.actions import TurnActions
from replay.wotf.battle import Battles
from replay.wotf.bus import Bus, Occurrence, wire
from replay.wotf.cards import Card, CardDB, MatchCards, match_cards
from replay.wotf.effects import Effects
from replay.wotf.entry import entry_prompt, why_not_entry
from replay.wotf.events import (
    STACK_EVENTS,
    Answered,
    CardMoved,
    CardStatsEntered,
    CoinFlipped,
    DeckOrdered,
    DeckShuffled,
    EffectApplied,
    EffectsEnded,
    Equipped,
    ManualResolved,
    TriggerResolved,
    Unequipped,
)
from replay.wotf.evolve import STRUCTURAL, VIEW_UNCHANGED, evolve, initial_state
from replay.wotf.manual import apply_ops, shuffled_seats, shuffles, why_not_ops
from replay.wotf.match import Match
from replay.wotf.movement import Movement
from replay.wotf.moves import Moves
from replay.wotf.queries import View
from replay.wotf.revisions import RULES_REVISION, STACK_REVISION
from replay.wotf.scripts import Scripts
from replay.wotf.selectors import Context
from replay.wotf.state import SEATS, GameState, Seat, Zone, other
from replay.wotf.table import Flow, MatchOver
from replay.wotf.trigger import Trigger

ENGINE_VERSION = "0.2.0"

_STACK = frozenset(STACK_EVENTS)
#: decisions any seat (a concession) or the judge may make at any prompt
_JUDGED = frozenset({Conceded, GameLossGiven, DrawGiven})
#: events after which the view's kept facts stand (the stack changes no fact it derives)
_KEEPS_VIEW = _STACK | VIEW_UNCHANGED
#: structural events that change only a card's effects or equipment (View.effects_changed)
_EFFECTS_ONLY = frozenset({EffectApplied, EffectsEnded, Equipped, Unequipped})
# Why a prompt is one seat's to answer, by kind: the set-up's choices (401, 402.1) and the
# turns (403.2); any other prompt is the choice of the seat the effect asks.
_WHOSE = {
    "first": "rule 401: the coin flip's winner, or the loser of the previous game, chooses "
             "who plays first",
    "side": "rule 401: the player who plays second chooses whether realm 1 is on their left "
            "or right",
    "mulligan": "rule 402.1: each player mulligans their own hand, the first player first",
    "turn": "rule 403.2: players alternate turns",
}


def whose_rule(kind: str, seat: str) -> str:
    """Why a pending prompt of ``kind`` is ``seat``'s to answer, in a refusal's words."""
    return _WHOSE.get(kind, f"the choice is {seat}'s to make")


class Engine:
    """One match in progress: its state, the pending prompt, and the procedure."""

    def __init__(self, db: CardDB, state: GameState):
        self.db: CardDB = MatchCards(db, state)  # read-only: stand-ins live in the state
        self.state = state
        self.view = View(state, self.db)
        self.prompt: Prompt | None = None
        self._held: Prompt | None = None  # the procedure's prompt, while a stats entry comes first
        self.out: list[Event] = []
        self.on_emit: Callable[[Event], Any] | None = None  # called after each event
        self._flow: Flow | None = None
        self._moves = Moves(self)
        self._effects = Effects(self)
        self._scripts = Scripts(self)
        self._movement = Movement(self)
        self._battles = Battles(self)
        self._turns = TurnActions(self)
        self._match = Match(self)
        self._bus = wire(Bus(), self._effects, self._scripts)
        # Each word of the rules' vocabulary bound to the method of the component that owns
        # it (_VOCABULARY): a component's call goes straight there, not through the façade's
        # method of the same name (below), which only hands it on -- some 30,000 calls fewer
        # in the bench's 40 matches.  (An instance attribute shadows the class's method; the
        # methods stay, for the Rules protocol and for readers.  Binding only the dozen words
        # said most often measured ~2% more instructions for the bench's matches, not fewer.)
        vars(self).update({word: getattr(getattr(self, part), word)
                           for part, words in _VOCABULARY.items() for word in words})
        vars(self)["run_event"] = self._bus.run

    # -- construction --------------------------------------------------------------------

    @classmethod
    def for_match(cls, opened: MatchOpened, db: CardDB) -> Engine:
        """A new match at setup: the state at seq 0 (:func:`replay.wotf.evolve.initial_state`).

        The cards are the match's own: those its file records (schema 3), else a copy of
        the pool ``db`` -- a stand-in token made in one match never changes another's cards.
        """
        return cls(match_cards(opened, db), initial_state(opened))

    # -- the protocol --------------------------------------------------------------------

    def start(self) -> list[Event]:
        """Run from the current state to the first prompt; returns the outcomes emitted."""
        self.out = []
        self._flow = self._match.run()
        self._advance(None)
        return self.out

    def legal_options(self) -> list:
        """The pending prompt's legal options (turn prompts list the turn actions)."""
        if self.prompt is None:
            return []
        if self.prompt.kind == "turn":
            return self._turns.turn_options(as_seat(self.prompt.seat))  # a seat's turn
        return list(self.prompt.options)

    def play_cost(self, seat: str, cid: str) -> int:
        """404.2 / Link: what playing ``cid`` costs ``seat`` now."""
        return self._turns.play_cost(seat, cid)

    def check(self, decision: Event) -> str | None:
        """Why ``decision`` is illegal now (``None`` if it is legal).  Never changes state."""
        prompt = self.prompt
        if self.state.over or prompt is None:
            return "the match is over"
        kind = type(decision)
        if kind in _JUDGED:  # (by exact type: leaf classes, and a failing isinstance costs more)
            if kind is DrawGiven:  # R45: the judge's call, at any prompt
                return None
            who = cast(Conceded, decision).seat
            return None if who in SEATS else f"unknown seat {who!r}"
        seat = getattr(decision, "seat", None)
        if prompt.kind == "chance":
            return _check_chance(prompt, decision)
        if seat != prompt.seat:
            return (f"it is {prompt.seat}'s {prompt.kind} prompt, not {seat}'s "
                    f"({whose_rule(prompt.kind, prompt.seat)})")
        if prompt.kind == "stats":
            return why_not_entry(self.state, self.db, prompt, decision)
        if prompt.kind == "turn":
            return self._turns.why_not_turn(seat, decision)
        if prompt.kind == "manual":
            if not isinstance(decision, ManualResolved) or decision.card != prompt.card:
                return f"the pending prompt is manual for {prompt.card}; answer it with ManualResolved"
            return why_not_ops(self, decision.ops, viewer=seat)  # words the seat may read
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
                                       f"{_by(decision)}: {reason}")
        self.out = [decision]
        evolve(self.state, decision)
        kind = type(decision)
        if kind not in _KEEPS_VIEW:
            self.view.changed(kind)
        if self.on_emit is not None:
            self.on_emit(decision)
        if kind in _JUDGED:
            if kind is DrawGiven:  # R45: a judge's draw, agreed or at time
                self.end_match(None, cast(DrawGiven, decision).kind)
            else:  # 405: a match can end by these too
                reason = "game_loss" if kind is GameLossGiven else "concession"
                self.end_match(other(cast(Conceded, decision).seat), reason)
            self.stop()
            return self.out
        if kind is CardStatsEntered:
            self.prompt = entry_prompt(self.state, self.db) or self._held  # R34
            return self.out
        self._advance(decision)
        return self.out

    def _advance(self, decision: Any) -> None:
        assert self._flow is not None
        try:
            self._held = self._flow.send(decision)
        except StopIteration:
            self.stop()
            return
        # R34: a catalogue card its owner now sees has its printed stats entered first.
        self.prompt = entry_prompt(self.state, self.db) or self._held

    def settle_prompt(self) -> None:
        """After a judge's ruling: a catalogue card it put where its owner sees it has its
        stats entered before the procedure's prompt (R34), and one it took away no longer
        does.  Nothing changes for a match without catalogue cards."""
        if self.prompt is not None and self.prompt.kind != "chance" and self._held is not None:
            self.prompt = entry_prompt(self.state, self.db) or self._held

    def close(self) -> None:
        """Done with this engine (a seek's, which re-ran the rules only to reach a state): drop
        what it holds.  Its parts refer to it (the table) and its suspended procedure to them,
        so without this it, its state and its view are a cycle only the garbage collector
        frees -- hundreds of objects a seek, and the collections they set off are a seek's
        slowest moments.  The engine can't be used after."""
        vars(self).clear()

    @property
    def procedure_prompt(self) -> Prompt | None:
        """The prompt the rules procedure waits on (a stats entry may be asked before it)."""
        return self._held

    def stop(self) -> None:
        """The match ended outside the procedure (a concession, or a judge's manual effect
        emptied a deck): no prompt is pending any more."""
        self._flow = None
        self.prompt = self._held = None

    # -- the table -----------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        """Record an outcome: it is applied through :func:`~replay.wotf.evolve.evolve`, the only
        writer of game state (DESIGN.md section 2)."""
        kind = type(event)
        if kind in STRUCTURAL:
            self._apply_structural(event, kind)
        else:
            evolve(self.state, event)
            if kind not in _KEEPS_VIEW:
                self.view.changed(kind)
        self.out.append(event)
        if self.on_emit is not None:
            self.on_emit(event)

    def _apply_structural(self, event: Event, kind: type) -> None:
        """Apply an event that may change a card's area, control, face, copied abilities or
        effects, and tell the view what it may have changed."""
        moved = cast(CardMoved, event) if kind is CardMoved else None
        in_world = moved is not None and "world" in (moved.from_zone, moved.to_zone)
        # a card that may have no static ability moving into, out of or within The World
        # leaves the static sources as they were (View.touch): asked before the move
        keeps_sources = moved is not None and in_world and \
            not self.view.may_be_static_source(moved.card)
        evolve(self.state, event)
        if kind in _EFFECTS_ONLY:
            self.view.effects_changed()  # a card's effects or equipment: not its area
        elif moved is not None and not in_world:
            # a draw, a discard, a spell cast: The World is as it was, so the facts the view
            # keeps about it (its cards, static sources, reactors, realms) stand
            self.view.changed(kind)
        else:
            # (which forgets all that changed() forgets too); a move changes one card's area
            self.view.touch(keeps_sources, moved.card if moved is not None else None)

    def emit_stack(self, event: Event) -> None:
        """Change the stack (``GameState.stack``): one of the stack events, applied through
        :func:`~replay.wotf.evolve.evolve` like any outcome.

        From rules revision 6 it is recorded (:meth:`emit`).  A match of an earlier revision
        didn't record its stack, so for it the event is applied to the state and nothing
        more: not recorded (not in ``out``), not seen by ``on_emit`` (which the replayer
        counts recorded events with), so the match re-derives exactly its recorded events.
        One code path either way: the components read the stack from the state."""
        if self.state.revision >= STACK_REVISION:
            self.emit(event)
        else:
            evolve(self.state, event)

    def ask(self, prompt: Prompt) -> Flow:
        """Wait for an answer; a prompt with exactly one legal option answers itself.

        From revision 5 that includes a pick-N prompt whose only legal pick is all of its
        candidates (DESIGN.md section 3: "It never prompts when exactly one legal answer
        exists"), e.g. a forced sacrifice of every Wonder a player has."""
        if prompt.choose is None and len(prompt.options) == 1:
            pick = prompt.options[0]
            # A seat's prompt (a chance prompt is yielded, never asked): "A" or "B".
            self.emit(Answered(as_seat(prompt.seat), prompt.kind, pick, auto=True))
            return pick
        if self.state.revision >= 5 and prompt.choose is not None:
            only = _only_pick(prompt.choose)
            if only is not None:
                self.emit(Answered(as_seat(prompt.seat), prompt.kind, only, auto=True))
                return only
        answer = yield prompt
        return answer.pick

    def resolve_manually(self, seat: Seat, cid: str, why: str) -> Flow:
        """An unscripted card's text would apply: its controller enters what it did as
        primitive operations (a ``manual`` prompt, DESIGN.md section 3)."""
        card = self.view.definition(cid)
        answer = yield Prompt(seat, "manual", card=cid, text=f"{why}: {card.text}")
        apply_ops(self, answer.ops)
        # "Shuffle your deck" (revision 8): the order is a chance event, as after a ruling
        yield from shuffles(shuffled_seats(answer.ops), self.state)
        self.emit(TriggerResolved(cid, card.name, "manual", seat,
                                  f"{len(answer.ops)} operation(s) entered by hand"))

    # -- the rules' vocabulary, each word handed to the component that owns it -------------

    def run_event(self, occurrence: Occurrence) -> list[Trigger]:
        """The triggers a game event sets off (:mod:`replay.wotf.bus`)."""
        return self._bus.run(occurrence)

    def draw(self, seat: Seat, reason: str = "draw") -> None:
        return self._moves.draw(seat, reason)

    def move(self, cid: str, to_zone: Zone, reason: str, realm: int | None = None,
             controller: Seat | None = None, face_down: bool = False,
             keep_effects: bool = False) -> None:
        return self._moves.move(cid, to_zone, reason, realm, controller, face_down, keep_effects)

    def check_decks(self) -> None:
        return self._moves.check_decks()

    def end_match(self, winner: Seat | None, reason: str) -> None:
        return self._moves.end_match(winner, reason)

    def add_counters(self, cid: str, kind: str, amount: int) -> int:
        return self._moves.add_counters(cid, kind, amount)

    def add_effect(self, cid: str, kind: str, value: int | float, until: str, source: str) -> None:
        return self._moves.add_effect(cid, kind, value, until, source)

    def set_tapped(self, cid: str, tapped: bool, by: Seat | None = None) -> bool:
        return self._moves.set_tapped(cid, tapped, by)

    def set_controller(self, cid: str, seat: Seat) -> bool:
        return self._moves.set_controller(cid, seat)

    def stand_in(self, name: str | None, type_: str, spec: Any,
                 orbital: str | None = None) -> Card:
        return self._moves.stand_in(name, type_, spec, orbital)

    def place_token(self, seat: Seat, card_name: str, realm: int, printed: str | None = None,
                    blank: bool = False, stand_in: Card | None = None) -> str:
        return self._moves.place_token(seat, card_name, realm, printed, blank, stand_in)

    def emit_reveal(self, ctx: Context, cards: list[str]) -> None:
        return self._moves.emit_reveal(ctx, cards)


    def resolve(self, triggers: list[Trigger]) -> Flow:
        return self._effects.resolve(triggers)

    def resolve_now(self, triggers: list[Trigger]) -> Flow:
        return self._effects.resolve_now(triggers)

    def finish_effect(self, source: str, ability: str) -> Flow:
        return self._effects.finish_effect(source, ability)

    def resolved(self, t: Trigger, detail: str = "") -> None:
        return self._effects.resolved(t, detail)

    def round_start_triggers(self) -> list[Trigger]:
        return self._effects.round_start_triggers()

    def round_end_triggers(self) -> list[Trigger]:
        return self._effects.round_end_triggers()

    def end_round_effects(self) -> Flow:
        return self._effects.end_round_effects()

    def enter_world(self, cid: str, controller: Seat, realm: int, reason: str) -> Flow:
        return self._effects.enter_world(cid, controller, realm, reason)

    def arrival_triggers(self, cid: str) -> list[Trigger]:
        return self._effects.arrival_triggers(cid)

    def move_realm(self, cid: str, to_realm: int, reason: str) -> Flow:
        return self._effects.move_realm(cid, to_realm, reason)

    def allies_for(self, item: str) -> list[str]:
        return self._effects.allies_for(item)

    def reequip_left_behind(self, items: list[str]) -> list[Trigger]:
        return self._effects.reequip_left_behind(items)

    def control_triggers(self, cards: list[str]) -> list[Trigger]:
        return self._effects.control_triggers(cards)

    def shield_prevents(self, cid: str, what: str) -> Flow:
        return self._effects.shield_prevents(cid, what)

    def destroy(self, cid: str, reason: str, shield_checked: bool = False) -> Flow:
        return self._effects.destroy(cid, reason, shield_checked)

    def die(self, cid: str, how: str, reason: str) -> Flow:
        return self._effects.die(cid, how, reason)

    def die_together(self, cards: list[str], how: str, reason: str) -> Flow:
        return self._effects.die_together(cards, how, reason)

    def settle(self) -> Flow:
        return self._effects.settle()

    def pick_target(self, t: Trigger, candidates: list[str], text: str,
                    optional: bool = False) -> Flow:
        return self._effects.pick_target(t, candidates, text, optional)

    def scripted_triggers(self, cid: str, when: str, realm: int | None = None,
                          subject: str | None = None) -> list[Trigger]:
        return self._scripts.scripted_triggers(cid, when, realm, subject)



    def heart_doubles(self, cid: str) -> bool:
        return self._scripts.heart_doubles(cid)

    def resolve_scripted(self, t: Trigger) -> Flow:
        return self._scripts.resolve_scripted(t)

    def run_effects(self, effects: tuple[Op, ...], ctx: Context, looping: bool = False) -> Flow:
        return self._scripts.run_effects(effects, ctx, looping)

    def choose(self, sel: Selector | None, ctx: Context, text: str,
               chooser: Seat | None = None) -> Flow:
        return self._scripts.choose(sel, ctx, text, chooser)

    def choose_realm(self, how: str, ctx: Context, text: str) -> Flow:
        return self._scripts.choose_realm(how, ctx, text)

    def targeted(self, targets: list[str], ctx: Context) -> Flow:
        return self._scripts.targeted(targets, ctx)

    def delayed_returns(self) -> Flow:
        return self._scripts.delayed_returns()

    def return_round_control(self) -> list[str]:
        return self._scripts.return_round_control()

    def replaced(self, cid: str, event: str) -> Flow:
        return self._movement.replaced(cid, event)

    def banish(self, cid: str, reason: str) -> Flow:
        return self._movement.banish(cid, reason)

    def banish_together(self, cards: list[str], reason: str) -> Flow:
        return self._movement.banish_together(cards, reason)

    def play_free(self, seat: Seat, cid: str, realm: int | None) -> Flow:
        return self._movement.play_free(seat, cid, realm)

    def resolve_play(self, seat: Seat, cid: str, realm: int | None) -> Flow:
        return self._movement.resolve_play(seat, cid, realm)

    def arrival_abilities(self, cid: str) -> list[str]:
        return self._movement.arrival_abilities(cid)

    def battle(self, attacker: Seat, realm: int, free: bool = False,
               rage_card: str | None = None) -> Flow:
        return self._battles.battle(attacker, realm, free, rage_card)

    def fly_at_end_of_turn(self) -> Flow:
        return self._battles.fly_at_end_of_turn()

    def take_turns(self) -> Flow:
        return self._turns.take_turns()


#: The façade's words each component owns: the methods below that only hand a call on to the
#: owner's method of the same name (``Engine.__init__`` binds each word to that method).
_VOCABULARY: dict[str, tuple[str, ...]] = {
    "_moves": ("draw", "move", "check_decks", "end_match", "add_counters", "add_effect",
               "set_tapped", "set_controller", "stand_in", "place_token", "emit_reveal"),
    "_effects": ("resolve", "resolve_now", "finish_effect", "resolved", "round_start_triggers",
                 "round_end_triggers", "end_round_effects", "enter_world", "arrival_triggers",
                 "move_realm", "allies_for", "reequip_left_behind", "control_triggers",
                 "shield_prevents", "destroy", "die", "die_together", "settle", "pick_target"),
    "_scripts": ("scripted_triggers", "heart_doubles", "resolve_scripted", "run_effects", "choose",
                 "choose_realm", "targeted", "delayed_returns", "return_round_control"),
    "_movement": ("replaced", "banish", "banish_together", "play_free", "resolve_play",
                  "arrival_abilities"),
    "_battles": ("battle", "fly_at_end_of_turn"),
    "_turns": ("take_turns",),
}


def _only_pick(spec: Choose) -> list[int | str] | None:
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


def _by(decision: Event) -> str:
    """Who made ``decision``, for a refusal: its seat, the judge (a judge's draw), or chance."""
    if isinstance(decision, DrawGiven):
        return "the judge"
    return str(getattr(decision, "seat", "chance"))


def _check_chance(prompt: Prompt, decision: Event) -> str | None:
    if prompt.choose is None:
        if not isinstance(decision, CoinFlipped):
            return f"the pending prompt is a chance event ({prompt.text}); expected CoinFlipped"
        return pick_fits(prompt, decision.winner)
    expected = prompt.chance or "DeckShuffled"
    if type(decision).__name__ != expected:
        return f"the pending prompt is a chance event ({prompt.text}); expected {expected}"
    if f"shuffle {getattr(decision, 'seat', None)}" != prompt.text:
        return f"expected {prompt.text}, got a shuffle of {getattr(decision, 'seat', None)}"
    if isinstance(decision, DeckOrdered):
        order = decision.cards
    else:
        assert isinstance(decision, DeckShuffled)  # a chance prompt expects DeckOrdered or DeckShuffled
        order = decision.order
    if sorted(order) != sorted(prompt.choose.of):
        return "a shuffle must be a full permutation of the deck"
    return None


__all__ = ["ENGINE_VERSION", "RULES_REVISION", "Engine", "MatchOver", "Trigger"]
