"""Test helper: fill a store with simulated matches of several games (the warehouse and
dashboard tests' shared set-up)."""

from __future__ import annotations

from collections.abc import Iterable

from ledger.filestore import FileStore
from replay.games import game
from replay.simulate import simulate_matches


def simulate_games(store: FileStore, games: Iterable[tuple[str, str, int]], seed: int) -> None:
    """Simulate, for each ``(game name, match id prefix, count)``, that many matches of that
    game with its default cards and sample decks into ``store``."""
    for name, prefix, count in games:
        played = game(name)
        pool = played.default_cards()
        list(simulate_matches(store, pool, played.sample_decks(pool), count, seed=seed,
                              prefix=prefix, game_name=name))
