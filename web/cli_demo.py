"""The ``wonders demo`` command: a simulated tournament, ingested and served, in one command.

1. bots play a small Swiss tournament into ``./wonders-data`` (``wonders simulate --tournament``);
2. the match files are ingested into ``./wonders-data/warehouse.duckdb`` (``wonders ingest``);
3. the replay viewer and the stats dashboard are served at http://127.0.0.1:5000 by the same
   waitress server as ``wonders serve``.

A second run reuses the tournament already in the directory.  ``--no-serve`` stops after step 2
and ``--port 0`` picks a free port, so a test can run the whole command as a subprocess.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from web.cli_cards import cards_option, game_option

TOURNAMENTS = {"wotf": "Demo Cup", "sow": "Demo Siege"}  # one per game: both can share a store


@click.command("demo")
@click.option("--dir", "directory", type=click.Path(file_okay=False), default="wonders-data",
              show_default=True, help="Store directory for the match files and the warehouse.")
@click.option("--players", type=click.IntRange(2, 256), default=16, show_default=True)
@click.option("--rounds", type=click.IntRange(1, 12), default=4, show_default=True,
              help="Swiss rounds.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of everything random.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=5000, show_default=True,
              help="Port to listen on (0: any free port; the URL printed says which).")
@click.option("--no-serve", is_flag=True, help="Simulate and ingest only; do not start the server.")
@game_option
@cards_option
def demo(directory: str, players: int, rounds: int, seed: int, host: str, port: int,
         no_serve: bool, game_name: str) -> None:
    """Simulate a small tournament, ingest it and serve the replay viewer and the dashboard.

    Open the printed URL: /matches lists the matches (step through any of them), /stats shows
    the dashboard.  Stop the server with Ctrl-C.
    """
    store = Path(directory)
    warehouse = store / "warehouse.duckdb"
    _simulate(store, players, rounds, seed, game_name)
    _ingest(store, warehouse)
    if no_serve:
        click.echo(f"ready: run `wonders demo --dir {store}` (or `wonders serve --store {store}`) "
                   f"to browse it")
        return
    _serve(store, warehouse, host, port)


def _simulate(store: Path, players: int, rounds: int, seed: int, game_name: str) -> None:
    from rich.progress import MofNCompleteColumn, Progress, TimeElapsedColumn

    from ledger.stores import open_store
    from replay.games import game
    from replay.simulate import simulate_tournament

    played, tournament = game(game_name), TOURNAMENTS[game_name]
    slug = tournament.lower().replace(" ", "-")
    matches = open_store(store)
    existing = [m for m in matches.ids() if m.startswith(f"{slug}-")]
    if existing:
        click.echo(f"reusing the {len(existing)} {tournament} matches already in {store}")
        return
    db = played.default_cards()
    total = (players // 2) * rounds
    click.echo(f"simulating {tournament} ({played.title}): {players} players, {rounds} Swiss "
               f"rounds ({total} matches) into {store}")
    jobs = simulate_tournament(matches, db, played.sample_decks(db), tournament,
                               players, rounds, seed, None, ["greedy"], game_name=game_name)
    columns = (*Progress.get_default_columns()[:-1], MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True, disable=not sys.stderr.isatty()) as progress:
        task = progress.add_task("simulating", total=total)
        for _opened in jobs:
            progress.advance(task)
    click.echo(f"wrote {total} match files")


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


def _serve(store: Path, warehouse: Path, host: str, port: int) -> None:
    from web.config import Settings
    from web.dashboard import WAREHOUSE_ENV
    from web.errors import ConfigError
    from web.serve import CannotListenError, serve

    os.environ[WAREHOUSE_ENV] = str(warehouse)  # the dashboard of this process reads it
    try:
        settings = Settings.from_env(store=str(store))
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None

    def announce(line: str) -> None:
        if line.startswith("serving "):
            url = line.split(" on ", 1)[1].split()[0]
            click.echo(f"Wonders demo at {url}  —  replays: {url}/matches  ·  stats: {url}/stats"
                       f"  (Ctrl-C stops)")
        click.echo(line)
    try:
        serve(settings, host, port, 8, announce=announce)
    except CannotListenError as exc:
        raise click.ClickException(str(exc)) from None
