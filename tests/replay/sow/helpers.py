"""Shared helpers of the State of Wonder tests: the shipped pool and decks, a played match."""

from __future__ import annotations

from functools import cache

from ledger.events import Event, MatchOpened
from replay.sow.cards import CardPool, load_pool
from replay.sow.decks import Deck, shipped_decks
from replay.sow.simulate import open_match, play


@cache
def pool() -> CardPool:
    return load_pool()


@cache
def decks() -> dict[str, Deck]:
    return shipped_decks()


def deck_pair(seed: int) -> tuple[Deck, Deck]:
    names = sorted(decks())
    return decks()[names[seed % len(names)]], decks()[names[(seed // len(names)) % len(names)]]


def played(seed: int, bots: tuple[str, str] = ("random", "random")) -> tuple[MatchOpened, list[Event]]:
    opened = open_match(f"sow-{seed}", deck_pair(seed), pool())
    return opened, play(opened, pool(), seed, bots)
