"""``GAME``: State of Wonder's side of the game protocol (:class:`replay.game.Game`).

Everything generic code may ask of this game goes through the object built here; it only
delegates to the modules that do the work.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ledger.codec import Stored
from ledger.events import DeckEntry, Event, MatchOpened
from replay.prompts import Prompt
from replay.sow import bots, decks, events, evolve, facts, narrate, perspective, records
from replay.sow.cards import CardPool, load_pool
from replay.sow.engine import Engine
from replay.sow.revisions import ENGINE_VERSION, RULES_REVISION, RULESETS
from replay.sow.state import SowState


class StateOfWonder:
    name = "sow"
    title = "State of Wonder"
    rulesets: tuple[str, ...] = RULESETS
    rules_revision = RULES_REVISION
    engine_version = ENGINE_VERSION
    bots: Mapping[str, Callable[[random.Random], Any]] = bots.BOTS
    perspectives: tuple[str, ...] = perspective.PERSPECTIVES

    # -- cards -------------------------------------------------------------------------
    def default_cards(self) -> CardPool:
        return load_pool()

    def match_cards(self, opened: MatchOpened, pool: CardPool) -> CardPool:
        return records.match_cards(opened, pool)

    def complete_opened(self, opened: MatchOpened, pool: CardPool) -> MatchOpened:
        return records.complete_opened(opened, pool)

    def deck_problems(self, deck: decks.Deck | list[DeckEntry], pool: CardPool) -> list[str]:
        return decks.deck_problems(deck, pool)

    # -- the log -----------------------------------------------------------------------
    def initial_state(self, opened: MatchOpened) -> SowState:
        return evolve.initial_state(opened)

    def evolve(self, state: SowState, event: Event) -> SowState:
        return evolve.evolve(state, event)

    def rules(self, opened: MatchOpened, cards: CardPool) -> Engine:
        return Engine.for_match(opened, records.match_cards(opened, cards))

    def answer_chance(self, prompt: Prompt, rng: random.Random) -> Event:
        return bots.answer_chance(prompt, rng)

    def is_turn_event(self, event: Event) -> bool:
        return isinstance(event, events.TurnBegan)

    # -- who sees what -----------------------------------------------------------------
    def hidden_ids(self, state: SowState) -> frozenset[str]:
        return perspective.hidden_ids(state)

    def redact(self, event: Event, perspective_name: str, hidden: Iterable[str] = ()) -> Event:
        return perspective.redact(event, perspective_name, hidden)

    def board(self, state: SowState, cards: CardPool, perspective_name: str) -> dict[str, Any]:
        return perspective.board(state, cards, perspective_name)

    def narrate(self, event: Event, state: SowState, cards: Any) -> str:
        return narrate.narrate(event, state, cards)

    # -- the API -----------------------------------------------------------------------
    def decision(self, seat: str, body: Mapping[str, Any]) -> Event:
        if seat not in ("A", "B"):
            raise ValueError(f"unknown seat {seat!r}: State of Wonder seats are A and B")
        return events.decision_from(seat, dict(body))

    # -- analytics ---------------------------------------------------------------------
    def facts(self, stored: Sequence[Stored]) -> Mapping[str, list[Any]]:
        return facts.facts(stored)


GAME = StateOfWonder()
