"""Which games this program knows, and which game a match is (``MatchOpened.game``).

Generic code asks here for a :class:`replay.game.Game` and never imports a game's internals.
A game is a sub-package of ``replay`` (or any installed module named in the ``wonders.games``
entry point group) exposing ``GAME``; see :mod:`ledger.registry` for how they are found.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ledger.events import MatchOpened
from ledger.registry import game_modules, load_games
from replay.errors import ReplayError
from replay.game import Game


class UnknownGameError(ReplayError):
    """A match names a game this program does not have."""


class UnknownRulesetError(ReplayError):
    """A match names a ruleset its game does not have (``MatchOpened.ruleset``)."""


def game(name: str) -> Game:
    """The game called ``name`` (``wotf``, ``sow`` …)."""
    module = game_modules().get(name)
    if module is None:
        raise UnknownGameError(f"unknown game {name!r}: this program plays "
                               f"{', '.join(sorted(game_modules()))}")
    load_games()
    found: Game = importlib.import_module(module).GAME
    return found


def game_of(opened: MatchOpened) -> Game:
    """The game a match is played in; a ruleset that game does not have is an error here, so
    no game's engine ever sees one."""
    played = game(opened.game)
    if opened.ruleset not in played.rulesets:
        raise UnknownRulesetError(
            f"match {opened.match_id}: ruleset {opened.ruleset!r} is not one of "
            f"{played.title}'s ({', '.join(played.rulesets)})")
    return played


def names() -> list[str]:
    """Every game this program knows, by name."""
    return sorted(game_modules())


def deck_title(played: Game, deck_name: str) -> str:
    """A recorded deck name as people read it (the optional ``deck_title`` of
    :class:`replay.game.Game`: Wonders' ``solfera-blaze`` is *Solfera Blaze*); as recorded
    for a game without it."""
    title: Callable[[str], str] | None = getattr(played, "deck_title", None)
    return deck_name if title is None else title(deck_name)


def archetype_names(pool_of: Callable[[str], Any]) -> dict[str, str]:
    """Every game's archetype names (the optional ``archetype_names`` of
    :class:`replay.game.Game`) with the pool ``pool_of(game name)`` gives: what a match-up
    shows for an archetype the warehouse records by id (State of Wonder's ``ashen`` is *Ashen
    Horde*).  A game without them adds none (and its pool is not loaded for them)."""
    found: dict[str, str] = {}
    for name in names():
        named = getattr(game(name), "archetype_names", None)
        if named is not None:
            found.update(named(pool_of(name)))
    return found
