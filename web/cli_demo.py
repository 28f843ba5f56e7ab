"""The ``wonders demo`` command: a Swiss tournament run and played, ingested and served, in one
command.

1. a tournament is run through the tournament tool (:mod:`web.demo_tournament`: created,
   players registered with shipped decks, each round started by the organizer) and every
   table's match played to its end by bots, into ``./wonders-data``;
2. the match files are ingested into ``./wonders-data/warehouse.duckdb`` (``wonders ingest``);
3. the replay viewer, the stats dashboard, the players' tournament pages and the organizer
   console are served at http://127.0.0.1:5000 by the same waitress server as ``wonders
   serve`` (the organizer token printed at start, unless ``WONDERS_ORGANIZER_TOKEN`` sets it);
   each player's own link (their page ``/tournaments/<id>/me``) is printed by name
   (:func:`web.demo_tournament.player_links`); every tournament table having ended, a
   practice match between two of its players is set
   (:func:`web.demo_tournament.practice_table`: no part of the tournament) and the links to
   play it are printed -- each seat's and the judge's ``/play`` link and its viewer -- new
   ones at each start, as the players' links.

A second run reuses the tournament already in the directory (and plays out any table a stopped
run left unfinished).  ``--no-serve`` stops after step 2 and ``--port 0`` picks a free port, so
a test can run the whole command as a subprocess.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from web.cli_cards import cards_option, game_option

if TYPE_CHECKING:  # imported where used: the CLI starts without it
    from web.demo_tournament import Practice


@click.command("demo")
@click.option("--dir", "directory", type=click.Path(file_okay=False), default="wonders-data",
              show_default=True, help="Store directory for the match files and the warehouse.")
@click.option("--players", type=click.IntRange(2, 256), default=16, show_default=True)
@click.option("--rounds", type=click.IntRange(1, 12), default=4, show_default=True,
              help="Swiss rounds.")
@click.option("--seed", type=int, default=1, show_default=True,
              help="Seed of the games: the decks dealt, the set-ups, the bots, the chance.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=5000, show_default=True,
              help="Port to listen on (0: any free port; the URL printed says which).")
@click.option("--no-serve", is_flag=True, help="Play and ingest only; do not start the server.")
@game_option
@cards_option
def demo(directory: str, players: int, rounds: int, seed: int, host: str, port: int,
         no_serve: bool, game_name: str) -> None:
    """Run a small Swiss tournament played by bots, ingest it and serve it.

    Open the printed URL: /tournaments/<id> is the tournament's page for players (pairings,
    results, standings), /organize the organizer console (sign in with the organizer token
    the server prints), /matches lists the matches (step through any of them), /stats shows
    the dashboard; each player's own link (their page) is printed by name; the /play links
    printed last are a practice match's seats and judge, to play yourself (each seat in its
    own browser).  Stop the server with Ctrl-C.
    """
    store = Path(directory)
    warehouse = store / "warehouse.duckdb"
    if not no_serve:
        _can_listen(host, port)
    tid = _simulate(store, players, rounds, seed, game_name)
    _ingest(store, warehouse)
    if no_serve:
        click.echo(f"ready: run `wonders demo --dir {store}` (or `wonders serve --store {store}`) "
                   f"and open /tournaments/{tid} (the players' page) and /organize (the console: "
                   f"sign in with the organizer token the server prints at start)")
        return
    _serve(store, warehouse, host, port, tid, _practice(store, tid, seed))


def _can_listen(host: str, port: int) -> None:
    """Whether ``host:port`` can be listened on, before the tournament is played: a port in use
    (a first demo still running) said so only after every match was played and ingested."""
    from web.serve import CannotListenError, listening_on, listening_socket

    try:
        with listening_on(host, port):
            listening_socket(host, port).close()
    except CannotListenError as exc:
        raise click.ClickException(f"{exc}; nothing was played") from None


def _practice(store: Path, tid: str, seed: int) -> Newcomer:
    """The demo's players with new player links, and its practice table with new tokens."""
    from ledger.stores import open_store
    from web import demo_tournament as demo

    org = demo.organizer(open_store(store), seed)
    return Newcomer(org.load(tid).name, tid, demo.player_links(org, tid),
                    demo.practice_table(org, tid))


def _simulate(store: Path, players: int, rounds: int, seed: int, game_name: str) -> str:
    """The game's demo tournament in ``store`` (made, or the one there reused); its id."""
    from ledger.stores import open_store
    from replay.games import game
    from web import demo_tournament as demo

    name, tid = demo.TOURNAMENTS[game_name]
    matches = open_store(store)
    org = demo.organizer(matches, seed)
    if org.book.exists(tid):
        t = org.load(tid)
        finished: list[str] = []
        _progress("finishing", None, demo.finish(org, tid, seed), finished)
        rounds_done = f"{len(t.rounds)} round{'s' if len(t.rounds) != 1 else ''}"
        click.echo(f"reusing the {len(t.match_ids())} {name} matches already in {store} "
                   f"({len(t.players)} players, {rounds_done})" +
                   (f"; played out {len(finished)} a stopped run left unfinished"
                    if finished else ""))
        return tid
    earlier = [m for m in matches.ids() if m.startswith(f"{tid}-")]
    if earlier:  # an earlier demo's (or `wonders simulate --tournament`'s): no tournament log
        raise click.ClickException(
            f"{store} has {len(earlier)} {name} match files but no {name} tournament (written by "
            f"an earlier demo or `wonders simulate --tournament`): give the demo another --dir")
    total = (players // 2) * rounds
    click.echo(f"running {name} ({game(game_name).title}): {players} players, {rounds} Swiss "
               f"rounds ({total} matches) into {store}")
    demo.create(org, game_name, players, seed)
    _progress("playing", total, demo.play_rounds(org, tid, rounds, seed))
    click.echo(f"played {total} match{'es' if total != 1 else ''}: tournament {tid}, "
               f"{demo.ROUND_MINUTES}-minute rounds, standings from its results")
    return tid


def _progress(what: str, total: int | None, steps: Iterator[str],
              done: list[str] | None = None) -> None:
    """Run ``steps`` under a progress bar (on a terminal); each step's match id into ``done``."""
    from rich.progress import MofNCompleteColumn, Progress, TimeElapsedColumn

    columns = (*Progress.get_default_columns()[:-1], MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True, disable=not sys.stderr.isatty()) as progress:
        task = progress.add_task(what, total=total)
        for match_id in steps:
            progress.advance(task)
            if done is not None:
                done.append(match_id)


def _ingest(store: Path, warehouse: Path) -> None:
    from rich.progress import MofNCompleteColumn, Progress, TimeElapsedColumn

    from ledger.warehouse import ingest
    from web.cli_analytics import card_facts

    columns = (*Progress.get_default_columns()[:-1], MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True, disable=not sys.stderr.isatty()) as progress:
        task = progress.add_task("ingesting", total=None)
        report = ingest(store, warehouse, card_facts(), jobs=1,
                        on_progress=lambda done, total: progress.update(task, completed=done,
                                                                        total=total))
    for problem in report.problems:
        click.echo(f"not ingested: {problem.line()}", err=True)
    click.echo(f"ingested into {warehouse}: {report.summary()}")


def _serve(store: Path, warehouse: Path, host: str, port: int, tid: str,
           newcomer: Newcomer) -> None:
    from web.config import Settings
    from web.dashboard import WAREHOUSE_ENV
    from web.errors import ConfigError
    from web.serve import CannotListenError, serve

    os.environ[WAREHOUSE_ENV] = str(warehouse)  # the dashboard of this process reads it
    try:
        settings = Settings.from_env(store=str(store))
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    where: list[str] = []

    def announce(line: str) -> None:
        if line.startswith("serving "):
            url = line.split(" on ", 1)[1].split()[0]
            where.append(url)
            click.echo(f"Wonders demo at {url}  —  tournament: {url}/tournaments/{tid}  ·  "
                       f"replays: {url}/matches  ·  stats: {url}/stats  (Ctrl-C stops)")
        click.echo(line)
        if line.startswith("organizer token: ") and where:
            which = ("the one WONDERS_ORGANIZER_TOKEN sets" if "(not shown)" in line
                     else "the token above; set WONDERS_ORGANIZER_TOKEN to choose it")
            click.echo(f"organizer console: {where[0]}/organize  —  sign in with {which}")
            click.echo(players_block(newcomer, where[0]))
            click.echo(practice_block(newcomer.practice, where[0]))
    try:
        serve(settings, host, port, 8, announce=announce)
    except CannotListenError as exc:
        raise click.ClickException(str(exc)) from None


@dataclass(frozen=True)
class Newcomer:
    """What the demo gives a newcomer at each start: the tournament (its name and id), its
    players' new player-link tokens by name, and the practice table."""

    tournament: str
    tournament_id: str
    players: dict[str, str]
    practice: Practice


def players_block(newcomer: Newcomer, base: str) -> str:
    """The lines naming each player's own link (their page, ``/tournaments/<id>/me``) at
    ``base``; one line saying why when no player can have one."""
    from web.api.tournaments import player_link

    head = "each player's own page"
    if not newcomer.players:
        return (f"{head}: none ({newcomer.tournament}'s players never had a player link and "
                f"round 1 is paired: a demo made before they had them; give the demo another "
                f"--dir)")
    width = max(len(name) for name in newcomer.players) + 1
    return "\n".join([f"{head}, by name (their rounds, standing and decklist):",
                      *(f"  {name + ':':<{width}} "
                        f"{player_link(newcomer.tournament_id, token, base)}"
                        for name, token in newcomer.players.items()),
                      "  (a player link signs its browser in as that player; each start of "
                      "the demo gives new links)"])


def practice_block(practice: Practice, base: str) -> str:
    """The lines that tell a newcomer how to play the practice table at ``base``: each seat's
    and the judge's ``/play`` link, and its viewer (the API's link helpers)."""
    from web.api.tournaments import links, viewer_link

    urls = links(practice.match_id, practice.tokens, base)
    a, b = practice.players
    rows = [(f"seat A, {a}", urls["A"]), (f"seat B, {b}", urls["B"]), ("judge", urls["judge"]),
            ("watch it", viewer_link(practice.match_id, base))]
    width = max(len(label) for label, _ in rows) + 1
    return "\n".join([f"a table to play yourself: a practice match, {a} vs {b} (no part of the "
                      f"tournament)",
                      *(f"  {label + ':':<{width}} {url}" for label, url in rows),
                      "  (each link in its own browser or private window: a link signs its "
                      "browser in as that seat; each start of the demo gives new links)"])
