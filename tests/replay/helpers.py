"""Shared helpers for the replay tests: a small card pool and a match driver."""

from __future__ import annotations

import random

from ledger.events import DeckEntry, MatchOpened, SeatInfo
from replay.wotf.bots import RandomBot, answer_chance
from replay.wotf.cards import Card, CardDB
from replay.wotf.engine import Engine

KEYWORDS = [[], ["flying"], ["deathstrike"], ["guardian"], ["rage"], ["unstable"], ["attuned"],
            ["symbiosis"], ["call"], ["flying", "deathstrike"]]


def small_db() -> CardDB:
    cards = [Card(name=f"Test Wonder {i}", type="wonder", cost=i % 8, power=i % 8 + 1,
                  orbital="Petraia", keywords=KEYWORDS[i % len(KEYWORDS)]) for i in range(20)]
    cards.append(Card(name="Test Legend", type="wonder", cost=3, power=3, tier="legendary",
                      orbital="Petraia", keywords=["heart of a legend", "guardian"]))
    cards.append(Card(name="Test Land", type="land", orbital="Petraia"))
    cards.append(Card(name="Test Spell", type="spell", cost=1))
    return CardDB(cards)


def small_deck() -> list[DeckEntry]:
    return ([DeckEntry(f"Test Wonder {i}", 2) for i in range(20)]
            + [DeckEntry("Test Land", 7), DeckEntry("Test Spell", 2), DeckEntry("Test Legend", 1)])


def opened(ruleset: str = "1.3.2", previous_loser=None, deck=None) -> MatchOpened:
    deck = deck or small_deck()
    return MatchOpened(match_id="m-test", ruleset=ruleset, previous_loser=previous_loser,
                       seats=[SeatInfo("A", "Ann", deck=deck), SeatInfo("B", "Bob", deck=deck)])


def play_out(engine: Engine, rng: random.Random, on_step=None, limit: int = 20000) -> int:
    """Drive a match to its end with random bots; returns the number of decisions."""
    bot = RandomBot(rng)
    steps = 0
    while engine.prompt is not None and steps < limit:
        prompt = engine.prompt
        decision = answer_chance(prompt, rng) if prompt.kind == "chance" else bot.decide(engine)
        engine.decide(decision)
        steps += 1
        if on_step:
            on_step(engine)
    return steps
