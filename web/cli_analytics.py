"""The analytics commands of the ``wonders`` CLI: ``ingest``, ``stats`` and ``export parquet``.

They sit in the web layer because they join the two lower layers: the card facts the
warehouse needs (Wonders: orbital and DBS per card) come from each game's ``card_facts``;
everything else is ``ledger.warehouse`` / ``ledger.stats`` / ``ledger.parquet``.  Errors reach
``web.cli.main``, which prints them as one line on stderr with a non-zero exit.
"""

from __future__ import annotations

import io
import json
import math
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ledger.distributed import MAX_JOBS

if TYPE_CHECKING:  # imported where used: the CLI starts without them
    from rich.table import Table as RichTable

    from ledger.stats import Table

F = TypeVar("F", bound=Callable[..., Any])  # a command's function

STAT_NAMES = ("cards", "first-player", "matchups", "realms", "dbs", "rulesets", "standings",
              "endings", "sieges", "sql")


def game_filter(fn: F) -> F:
    """``--game``: only matches of one game (default: every game)."""
    from replay.games import names
    return click.option("--game", "game_name", type=click.Choice(names()), default=None,
                        help="Only matches of this game (wotf, sow; default: every game).")(fn)


def card_facts() -> dict:
    """Card name -> what the analytics need of it that old match files did not record, from
    every game's card pool in use (Wonders of The First: orbital and DBS)."""
    from replay.games import game, names

    out: dict = {}
    for name in names():
        played = game(name)
        out.update(played.card_facts(played.default_cards()))
    return out


def one_cluster(scheduler: str | None) -> None:
    """Refuse ``--jobs`` given with ``--scheduler`` (a usage error): the one starts a local
    cluster, the other uses an existing one, and the --jobs asked for was ignored."""
    context = click.get_current_context()
    if scheduler and context.get_parameter_source("jobs") is not click.core.ParameterSource.DEFAULT:
        raise click.UsageError("--jobs and --scheduler: give one (--jobs N starts a local "
                               "cluster of N workers, --scheduler uses an existing cluster's)")


@click.command()
@click.argument("store", metavar="STORE")
@click.option("--db", "db", required=True, type=click.Path(dir_okay=False),
              help="The DuckDB warehouse file (created if missing).")
@click.option("--jobs", "-j", type=click.IntRange(1, MAX_JOBS),
              default=min(4, os.cpu_count() or 1), show_default=True,
              help="Worker processes (a local Dask cluster) reading matches into Parquet "
                   f"(at most {MAX_JOBS}; more machines: --scheduler).")
@click.option("--scheduler", metavar="tcp://HOST:PORT", default=None,
              help="Run the workers on this existing Dask cluster instead (they open STORE "
                   "themselves: a shared directory or the same postgresql:// URL).")
def ingest(store: str, db: str, jobs: int, scheduler: str | None) -> None:
    """Read a store's matches (STORE: a directory or a postgresql:// URL) into a DuckDB
    warehouse, incrementally.

    A second run reads only new or grown matches (by each match's head: length and last
    hash), and those whose rows an older version of the program derived (their rows
    revision: they are re-derived).  A match file that changed under an
    already-ingested seq, or that is corrupt, is reported by name and not ingested (exit 1);
    the other files are ingested.  Workers turn matches into Parquet per table, loaded in
    one statement per table; a failed worker task is retried, then match by match, and a
    match that still fails is reported by name (``failed``).  Tables: see docs/analytics.md.
    """
    from rich.progress import MofNCompleteColumn, Progress, TimeElapsedColumn

    from ledger.warehouse import ingest as run_ingest

    one_cluster(scheduler)

    columns = (*Progress.get_default_columns()[:-1], MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True, disable=not sys.stderr.isatty()) as progress:
        task = progress.add_task("ingesting", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        report = run_ingest(store, db, card_facts(), jobs=jobs, on_progress=advance,
                            scheduler=scheduler)
    for problem in report.problems:
        click.echo(f"not ingested: {problem.line()}", err=True)
    click.echo(report.summary())
    if report.problems:
        many = len(report.problems)
        click.echo(f"error: {many} match file{'' if many == 1 else 's'} not ingested "
                   f"(listed above)",
                   err=True)
        sys.exit(1)


@click.command()
@click.argument("name", type=click.Choice(STAT_NAMES))
@click.argument("query", required=False)
@click.option("--db", "db", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The DuckDB warehouse file made by `wonders ingest`.")
@click.option("--tournament", help="Only matches of this tournament (its name or its id).")
@click.option("--ruleset", help="Only matches under this ruleset (Wonders: 1.3.2, 1.2).")
@game_filter
@click.option("--min-games", type=click.IntRange(0), default=0, show_default=True,
              help="Drop rows with fewer games (cards: games with the card in the deck).")
@click.option("--dbs-bucket", type=click.IntRange(1), default=10, show_default=True,
              help="Width of the DBS-difference buckets (dbs).")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
              show_default=True)
def stats(name: str, query: str | None, db: str, tournament: str | None, ruleset: str | None,
          game_name: str | None, min_games: int, dbs_bucket: int, fmt: str) -> None:
    """Print a named statistic from the warehouse.

    \b
    cards         per card: win rate in deck, played, opening hand, in hand, not seen,
                  improvement when drawn, average round first played
    first-player  win rate of the seat that took the first turn of round 1
    matchups      win rates between archetypes (a deck's main orbitals)
    realms        per realm: battles, seizures, how often the winner held it at the end
    dbs           win rate by DBS-difference bucket
    rulesets      the headline numbers side by side per ruleset
    standings     per tournament: match points, game wins, opponents' match-win %
    endings       how matches end, per game: each reason's count and share
    sieges        State of Wonder: win rate of seats that laid siege, and of those that didn't
    sql "SELECT …"  read-only ad-hoc SQL over the warehouse

    Every rate comes with its number of games and a Wilson 95% interval.
    """
    from ledger import stats as named
    from ledger.warehouse import connect
    from replay.games import game

    if name == "sql":
        if not query:
            raise click.BadParameter('sql needs a query: wonders stats sql "SELECT …" --db FILE',
                                     param_hint="QUERY")
        table = named.sql(db, query)
    else:
        if query:
            raise click.BadParameter(f"{name} takes no query argument", param_hint="QUERY")
        own = named.GAME_OF.get(name)
        if game_name is not None and own is not None and own != game_name:
            raise click.BadParameter(
                f"{name} counts {game(own).title} matches only, so --game {game_name} leaves it "
                f"none: give --game {own} or leave --game out",
                param_hint="--game")
        con = connect(db, read_only=True, wait=10.0)  # an ingest's load: seconds
        try:
            # its id or its name; one the warehouse lacks: an error
            which = {} if tournament is None else named.tournament_filter(con, tournament)
            if ruleset is not None:
                named.check_ruleset(con, ruleset, game_name)
            filters = named.Filters(ruleset, min_games=min_games, dbs_bucket=dbs_bucket,
                                    game=game_name, **which)
            table = named.compute(con, name, filters)
        finally:
            con.close()
    click.echo(render(table, fmt), nl=fmt != "csv")


def render(table: Table, fmt: str) -> str:
    """A statistic as an aligned table, CSV or JSON."""
    if fmt == "json":
        return json.dumps(table.records(), indent=2, default=str)
    if fmt == "csv":
        return _csv(table)
    return _text_table(table)


def _csv(table: Table) -> str:
    from ledger.csvcells import csv_text

    return csv_text([table.columns, *table.rows])


#: What a statistic's printed table says under it, where its numbers differ from what a reader
#: would compare them with (the CSV and JSON are the numbers alone).
CAPTIONS = {
    "standings": "from the matches in the warehouse: a bye is no match and is not counted, so "
                 "a player who had one ranks lower than in the tournament's own standings "
                 "(byes included: wonders tournament standings ID)",
}


def _text_table(table: Table) -> str:
    """Rates with intervals merge into one cell: ``52.5% (47.6–57.3)``; matchups print as a
    matrix (row: the archetype, column: its opponent)."""
    if table.name == "matchups" and table.rows:
        return _matrix(table)
    from rich.table import Table as RichTable

    columns = table.columns
    merged = {c for c in columns if f"{c}_low" in columns and f"{c}_high" in columns}
    hidden = {f"{c}_{end}" for c in merged for end in ("low", "high")}
    shown = [c for c in columns if c not in hidden]
    view = RichTable(title=table.name, caption=CAPTIONS.get(table.name), show_lines=False)
    for column in shown:
        view.add_column(column + (" (95% CI)" if column in merged else ""))
    index = {c: i for i, c in enumerate(columns)}
    for row in table.rows:
        cells = []
        for column in shown:
            value = row[index[column]]
            if column in merged:
                cells.append(_rate_cell(value, row[index[f"{column}_low"]],
                                        row[index[f"{column}_high"]]))
            else:
                cells.append(_cell(value))
        view.add_row(*cells)
    if not table.rows:
        return f"{table.name}: no rows (no finished match passes the filters?)"
    return _printed(view, 16 * len(shown))


def _matrix(table: Table) -> str:
    """Each archetype as people read it: State of Wonder's factions by their names."""
    from rich.table import Table as RichTable

    from replay.games import archetype_names, game

    shown = archetype_names(lambda name: game(name).default_cards())
    cells = {(shown.get(r[0], r[0]) or "-", shown.get(r[1], r[1]) or "-"): r for r in table.rows}
    archetypes = sorted({a for a, _ in cells} | {b for _, b in cells})
    view = RichTable(title="matchups: row archetype's win rate against the column "
                           "(games, 95% CI)", show_lines=True)
    view.add_column("archetype")
    for opponent in archetypes:
        view.add_column(opponent)
    for archetype in archetypes:
        row = [archetype]
        for opponent in archetypes:
            found = cells.get((archetype, opponent))
            row.append("-" if found is None else
                       f"{_rate_cell(*found[4:7])}\nn={found[2]}")
        view.add_row(*row)
    return _printed(view, 24 * (len(archetypes) + 1))


def _printed(view: RichTable, width: int) -> str:
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, width=max(100, width), color_system=None)
    console.print(view)
    return buffer.getvalue().rstrip()


def _rate_cell(value: float | None, low: float, high: float) -> str:
    if value is None:
        return "-"
    return f"{100 * value:.1f}% ({100 * low:.1f}–{100 * high:.1f})"


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if math.isfinite(value) else str(value)
    return str(value)


@click.group()
def export() -> None:
    """Export the warehouse for other tools."""


@export.command("parquet")
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--db", "db", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The DuckDB warehouse file made by `wonders ingest`.")
@click.option("--overwrite", is_flag=True, help="Replace datasets already in OUT.")
def export_parquet(out: str, db: str, overwrite: bool) -> None:
    """Write every warehouse table as a Parquet dataset partitioned by game, ruleset and
    tournament id (OUT/<table>/game=…/ruleset=…/tournament_id=…/data_0.parquet; the
    tournament's name is a column); see docs/analytics.md for how to read it back."""
    from ledger.parquet import export_parquet as run_export

    written = run_export(db, out, overwrite)
    for table, rows in written.items():
        click.echo(f"{table}: {rows} rows")
    click.echo(f"wrote {len(written)} tables to {out}")


COMMANDS = (ingest, stats, export)
