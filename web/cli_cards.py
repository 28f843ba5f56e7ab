"""The options that say what a command plays with: ``--game`` and ``--cards DIR``.

``--game`` names the game (``wotf``: Wonders of The First, ``sow``: State of Wonder).
``--cards DIR`` is the Wonders card pool a command reads (every command that reads cards has
it).  The choice lasts for the command (it is undone when the command's context closes);
without the option the pool is ``$WONDERS_CARDS``, else the shipped one
(:mod:`replay.resources`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from replay import resources
from replay.games import game, names

F = TypeVar("F", bound=Callable[..., Any])  # a command's function


def _choose(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is None:
        return
    previous = resources.use_cards(value)
    try:
        game("wotf").default_cards()  # a missing, empty or invalid pool is one clear error, before any work
    except BaseException:
        resources.use_cards(previous)
        raise
    ctx.call_on_close(lambda: resources.use_cards(previous))


cards_option = click.option(
    "--cards", "cards_pool", type=click.Path(exists=True, file_okay=False), default=None,
    expose_value=False, is_eager=True, callback=_choose,
    help="Directory of card files to use instead of the shipped pool "
         f"[env {resources.CARDS_ENV}].")


def game_option(fn: F) -> F:
    """``--game``: which game a command plays (default: Wonders of The First)."""
    return click.option("--game", "game_name", type=click.Choice(names()), default="wotf",
                        show_default=True, help="The game: wotf (Wonders of The First) or "
                                                "sow (State of Wonder).")(fn)
