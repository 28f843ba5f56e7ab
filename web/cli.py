"""The ``wonders`` command line: one tool for everything a user does from a terminal.

Every error is one clear line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import click

from ledger.errors import LedgerError
from replay.errors import ReplayError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Wonders Ledger: record, replay, verify and analyse Wonders of The First matches."""


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--quiet", "-q", is_flag=True, help="Print only failures and the closing line.")
def conformance(paths: tuple[str, ...], quiet: bool) -> None:
    """Run conformance cases (TOML files, or directories searched for *.toml).

    Prints PASS/FAIL per case and a closing line "N passed, N failed"; exits 1 on any failure.
    """
    from replay.conformance import run_paths

    passed = failed = 0
    for result in run_paths(paths):
        if result.passed:
            passed += 1
        else:
            failed += 1
        if not (quiet and result.passed):
            click.echo(result.line())
    click.echo(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


@cli.group()
def cards() -> None:
    """The card database."""


@cards.command("validate")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
def cards_validate(paths: tuple[str, ...]) -> None:
    """Validate card files and deck files (default: fixtures/cards and fixtures/decks)."""
    from replay.cards import FIXTURES, load_cards
    from replay.decks import load_deck, validate_deck

    files = [Path(p) for p in paths]
    card_files = [p for p in files if "decks" not in p.parts] or None
    deck_files = [p for p in files if "decks" in p.parts]
    if not files:
        deck_files = sorted((FIXTURES / "decks").glob("*.toml"))
    db = load_cards(_expand(card_files) if card_files else None)
    click.echo(f"{len(db)} cards OK")
    problems = 0
    for path in _expand(deck_files):
        deck = load_deck(path, db)
        issues = validate_deck(deck, db)
        for issue in issues:
            click.echo(f"{path}: {issue}", err=True)
        problems += len(issues)
        if not issues:
            click.echo(f"{path}: deck {deck.name!r} OK (DBS {deck.dbs(db)})")
    if problems:
        raise ReplayError(f"{problems} deck problem(s)")


def _expand(paths):
    out = []
    for p in paths or []:
        p = Path(p)
        out += sorted(p.rglob("*.toml")) if p.is_dir() else [p]
    return out


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning every error into one line on stderr."""
    warnings.formatwarning = lambda message, *args, **kwargs: f"warning: {message}\n"
    try:
        cli.main(args=argv, prog_name="wonders", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("error: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        click.echo(f"error: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code or 2)
    except (LedgerError, ReplayError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:
        click.echo(f"error: {exc.filename or ''}: {exc.strerror or exc}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        click.echo("error: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
