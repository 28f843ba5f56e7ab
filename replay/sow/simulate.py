"""Playing State of Wonder matches with bots, and re-deriving recorded ones.

``open_match`` builds a complete ``MatchOpened`` for two decks; ``play`` runs a match with two
bots and an RNG answering chance prompts (outside the engine); ``inputs`` picks out of a log
what was *fed* to the engine (decisions, chance, concessions); ``rederive`` feeds those to a
fresh engine and returns everything it produces, which must equal the log.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from ledger.events import (
    SEATS,
    Conceded,
    DrawGiven,
    Event,
    GameLossGiven,
    MatchOpened,
    SeatInfo,
    kind_of,
)
from replay.sow.bots import BOTS, answer_chance
from replay.sow.cards import CardPool
from replay.sow.decks import Deck
from replay.sow.engine import Engine
from replay.sow.records import complete_opened, match_cards


def open_match(match_id: str, decks: tuple[Deck, Deck], pool: CardPool,
               players: tuple[str, str] = ("Ann", "Bob")) -> MatchOpened:
    seats = [SeatInfo(seat, player, deck.name, deck.entries())
             for seat, player, deck in zip(SEATS, players, decks, strict=True)]
    return complete_opened(MatchOpened(match_id, "004", seats, game="sow"), pool)


def play(opened: MatchOpened, pool: CardPool, seed: int, bots: tuple[str, str] = ("random", "random"),
         on_batch: Callable[[list[Event]], None] | None = None,
         engine_hook: Callable[[Engine], None] | None = None) -> list[Event]:
    """Every event after ``MatchOpened`` of a bot-vs-bot match; ``on_batch`` sees each batch
    (the events of one ``start`` or ``decide``)."""
    engine = Engine.for_match(opened, match_cards(opened, pool))
    if engine_hook is not None:
        engine_hook(engine)
    chance = random.Random(f"chance:{seed}")
    players = {"A": BOTS[bots[0]](random.Random(f"A:{seed}")),
               "B": BOTS[bots[1]](random.Random(f"B:{seed}"))}
    log: list[Event] = []

    def record(batch: list[Event]) -> None:
        log.extend(batch)
        if on_batch is not None:
            on_batch(batch)

    record(engine.start())
    while engine.prompt is not None:
        prompt = engine.prompt
        if prompt.seat == "chance":
            decision = answer_chance(prompt, chance)
        else:
            decision = players[prompt.seat].decide(engine, prompt)
        record(engine.decide(decision))
    return log


def is_input(event: Event) -> bool:
    """Whether the engine was fed ``event`` (rather than deriving it)."""
    return (isinstance(event, (Conceded, GameLossGiven, DrawGiven))
            or kind_of(type(event).__name__) in ("decision", "chance"))


def inputs(events: Sequence[Event]) -> list[Event]:
    return [e for e in events if is_input(e)]


def rederive(opened: MatchOpened, events: Sequence[Event], pool: CardPool) -> tuple[list[Event], Engine]:
    """Feed the inputs of ``events`` to a fresh engine: what it produces, and the engine."""
    engine = Engine.for_match(opened, match_cards(opened, pool))
    out = list(engine.start())
    for event in inputs(events):
        out.extend(engine.decide(event))
    return out, engine
