"""The table: the narrow interface every part of the rules engine works through.

The engine is a set of components (turns, battles, triggers, scripted abilities, movement,
primitive moves, the match procedure), none of which knows the others or the
:class:`~replay.wotf.engine.Engine` façade.  Each reads and changes the match only through a
:class:`Table`: the state, the match's card database, the derived facts about the state
(:class:`~replay.wotf.queries.View`), ``emit`` (record an outcome; the fold applies it) and
``ask`` (wait for a decision).  The rules' vocabulary that the components lend each other
(resolve triggers, destroy, choose targets, battle, …) is the :class:`Rules` protocol, which
the façade implements by handing each word to the component that owns it.

This module imports no component, so nothing imports the engine back: no import cycles.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any, Protocol

from ledger.events import Event
from replay.prompts import Prompt
from replay.wotf.cards import Card, CardDB
from replay.wotf.queries import View
from replay.wotf.state import GameState, Seat, Zone

if TYPE_CHECKING:
    from replay.wotf.abilities import Op, Selector
    from replay.wotf.bus import Occurrence
    from replay.wotf.selectors import Context
    from replay.wotf.trigger import Trigger

#: A rules procedure: a generator that yields the prompt it waits on and is sent the decision.
Flow = Generator[Prompt, Any, Any]


class MatchOver(Exception):
    """Raised inside the procedure when the match ends mid-way (deck-out, 405)."""


class Stack:
    """What the procedure holds while an ability is resolving, nested (503, Nullify, Flying).

    These change where no event happens (an ability finishing its effects) or are decided
    from card data the fold can't see (which attackers had flying), so they can't be folded
    from the log; they are empty at every turn prompt, where a match can be resumed from its
    state alone (:meth:`replay.wotf.game.WondersGame.resume`).
    """

    def __init__(self) -> None:
        self.resolving: list[tuple[str, str]] = []  # (source, ability) now resolving (503)
        self.loop_plan: dict[tuple[str, str], int] = {}  # voluntary loops: repetitions stated (503)
        self.targeting: list[Context] = []  # effects now choosing targets (Nullify)
        self.end_of_turn: list[str] = []  # v1.2 Flying: fliers that move at the end of the turn


class Table(Protocol):
    """The narrow interface: state, cards, derived facts, emit, ask."""

    @property
    def state(self) -> GameState: ...
    @property
    def db(self) -> CardDB: ...
    @property
    def view(self) -> View: ...
    @property
    def stack(self) -> Stack: ...
    def emit(self, event: Event) -> None: ...
    def ask(self, prompt: Prompt) -> Flow: ...


class Rules(Table, Protocol):
    """The rules' vocabulary the components lend each other (implemented by the façade)."""

    # primitive moves (replay.wotf.moves)
    def draw(self, seat: Seat, reason: str = "draw") -> None: ...
    def move(self, cid: str, to_zone: Zone, reason: str, realm: int | None = None,
             controller: Seat | None = None, face_down: bool = False,
             keep_effects: bool = False) -> None: ...
    def check_decks(self) -> None: ...
    def end_match(self, winner: Seat | None, reason: str) -> None: ...
    def add_counters(self, cid: str, kind: str, amount: int) -> int: ...
    def add_effect(self, cid: str, kind: str, value: float, until: str, source: str) -> None: ...
    def set_tapped(self, cid: str, tapped: bool) -> bool: ...
    def set_controller(self, cid: str, seat: Seat) -> bool: ...
    def stand_in(self, name: str | None, type_: str, spec: Any,
                 orbital: str | None = None) -> Card: ...
    def place_token(self, seat: Seat, card_name: str, realm: int, printed: str | None = None,
                    blank: bool = False, stand_in: Card | None = None) -> str: ...
    def emit_reveal(self, ctx: Context, cards: list[str]) -> None: ...
    def resolve_manually(self, seat: Seat, cid: str, why: str) -> Flow: ...

    # the event bus for triggers (replay.wotf.bus)
    def run_event(self, occurrence: Occurrence) -> list[Trigger]: ...

    # triggers, keywords, counters, deaths (replay.wotf.effects)
    def resolve(self, triggers: list[Trigger]) -> Flow: ...
    def resolved(self, t: Trigger, detail: str = "") -> None: ...
    def round_start_triggers(self) -> list[Trigger]: ...
    def round_end_triggers(self) -> list[Trigger]: ...
    def end_round_effects(self) -> None: ...
    def enter_world(self, cid: str, controller: Seat, realm: int, reason: str) -> Flow: ...
    def arrival_triggers(self, cid: str) -> list[Trigger]: ...
    def move_realm(self, cid: str, to_realm: int, reason: str) -> Flow: ...
    def allies_for(self, item: str) -> list[str]: ...
    def shield_prevents(self, cid: str, what: str) -> Flow: ...
    def destroy(self, cid: str, reason: str, shield_checked: bool = False) -> Flow: ...
    def die(self, cid: str, how: str, reason: str) -> Flow: ...
    def die_together(self, cards: list[str], how: str, reason: str) -> Flow: ...
    def settle(self) -> Flow: ...
    def pick_target(self, t: Trigger, candidates: list[str], text: str,
                    optional: bool = False) -> Flow: ...

    # scripted abilities (replay.wotf.scripts)
    def scripted_triggers(self, cid: str, when: str, realm: int | None = None,
                          subject: str | None = None) -> list[Trigger]: ...
    def heart_doubles(self, cid: str) -> bool: ...
    def resolve_scripted(self, t: Trigger) -> Flow: ...
    def run_effects(self, effects: tuple[Op, ...], ctx: Context, looping: bool = False) -> Flow: ...
    def choose(self, sel: Selector | None, ctx: Context, text: str,
               chooser: Seat | None = None) -> Flow: ...
    def choose_realm(self, how: str, ctx: Context, text: str) -> Flow: ...
    def delayed_returns(self) -> Flow: ...
    def return_round_control(self) -> None: ...

    # movement abilities can see or replace (replay.wotf.movement)
    def replaced(self, cid: str, event: str) -> Flow: ...
    def banish(self, cid: str, reason: str) -> Flow: ...
    def play_free(self, seat: Seat, cid: str, realm: int | None) -> Flow: ...
    def resolve_play(self, seat: Seat, cid: str, realm: int | None) -> Flow: ...
    def arrival_abilities(self, cid: str) -> list[str]: ...

    # battles (replay.wotf.battle) and turns (replay.wotf.actions)
    def battle(self, attacker: Seat, realm: int, free: bool = False,
               rage_card: str | None = None) -> Flow: ...
    def fly_at_end_of_turn(self) -> Flow: ...
    def take_turns(self) -> Flow: ...


class Component:
    """A part of the engine: it works through the table ``g`` and asks ``g`` for the words of
    the rules' vocabulary other components own."""

    def __init__(self, g: Rules):
        self.g = g

    @property
    def state(self) -> GameState:
        return self.g.state

    @property
    def db(self) -> CardDB:
        return self.g.db

    @property
    def view(self) -> View:
        return self.g.view

    @property
    def stack(self) -> Stack:
        return self.g.stack

    def emit(self, event: Event) -> None:
        self.g.emit(event)

    def ask(self, prompt: Prompt) -> Flow:
        return self.g.ask(prompt)


__all__ = ["Component", "Flow", "MatchOver", "Rules", "Stack", "Table"]
