"""A store of real matches of two tournaments of the same name, for the tests of the warehouse
and its Parquet export (tests/ledger/test_parquet_tournament_id.py, test_distributed.py).

The bots play each match under a tournament's match id (``<id>-r<round>-t<table>``, as
web/tournaments.py names a round's matches: :func:`ledger.rows.tournament_id_of`)."""

from __future__ import annotations

import random

from ledger.filestore import FileStore
from replay.games import game
from replay.simulate import _opened, entrants, play_match

NAME = "Friday Cup"

#: match id -> (game, the tournament id the warehouse derives for it).
MATCHES = {
    "fri-1-r1-t01": ("wotf", "fri-1"),
    "fri-1-r1-t02": ("wotf", "fri-1"),
    "fri-2-r1-t01": ("wotf", "fri-2"),
    "sow-fri-r1-t01": ("sow", "sow-fri"),  # a State of Wonder "Friday Cup": its own tables too
    "adhoc": ("wotf", None),  # created with the name under an id of its own
    "casual": ("wotf", None),  # outside any tournament
}


def play(store: FileStore, match_id: str, game_name: str, seed: int, **meta: object) -> None:
    """One bot-vs-bot match ``match_id`` of ``game_name``, its ``MatchOpened`` with ``meta``."""
    played = game(game_name)
    pool = played.default_cards()
    a, b = entrants(played.sample_decks(pool), ("greedy",), 2, random.Random(seed))
    play_match(store, pool, _opened(match_id, a, b, None, game_name, **meta), seed, (a.bot, b.bot))


def same_named_store(store: FileStore) -> None:
    """Every match of :data:`MATCHES` into ``store``: fri-1 (two tables) and fri-2 (one), both
    :data:`NAME`, a State of Wonder tournament of that name, one match with the name but no
    tournament id, and one outside any tournament."""
    for seed, (match_id, (game_name, tid)) in enumerate(MATCHES.items(), start=1):
        table = int(match_id.rsplit("-t", 1)[1]) if tid else 1
        meta = {"tournament": NAME, "round": 1, "table": table} if match_id != "casual" else {}
        play(store, match_id, game_name, seed, **meta)
