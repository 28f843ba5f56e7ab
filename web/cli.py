"""The ``wonders`` command line: one tool for everything a user does from a terminal.

Every error is one clear line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ledger.distributed import MAX_JOBS
from ledger.errors import LedgerError
from ledger.integrity import FileCheck
from ledger.store import SUFFIX
from replay.counted import counted
from replay.errors import ReplayError
from web.cli_cards import cards_option, game_option

if TYPE_CHECKING:  # imported where used: the CLI starts without it
    from replay.verify import Report


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Wonders Ledger: record, replay, verify and analyse matches of Wonders of The First and
    State of Wonder."""


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--quiet", "-q", is_flag=True, help="Print only failures and the closing line.")
@game_option
@cards_option
def conformance(paths: tuple[str, ...], quiet: bool, game_name: str) -> None:
    """Run conformance cases (TOML files, or directories searched for *.toml; default: the
    game's shipped cases).

    Prints PASS/FAIL per case and a closing line "N passed, N failed"; exits 1 on any failure.
    """
    from replay.games import game

    _files_only(paths, "conformance case")
    passed = failed = 0
    for result in game(game_name).conformance(list(paths)):
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


def _deck_label(deck: Any) -> str:
    """A deck file as ``cards validate`` names it: its title and its name (the id a match
    records and a preset is), or its name alone when it has no title."""
    title = getattr(deck, "title", None)
    return f"{title} ({deck.name})" if title and title != deck.name else repr(deck.name)


@cards.command("validate")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@game_option
@cards_option
def cards_validate(paths: tuple[str, ...], game_name: str) -> None:
    """Validate card files and deck files (default: the card pool in use and the shipped decks)."""
    from replay.games import game

    _files_only(paths, "card or deck file")
    played = game(game_name)
    files = [Path(p) for p in paths]
    card_files = [p for p in files if "decks" not in p.parts] or None
    deck_files = [str(p) for p in files if "decks" in p.parts]
    pool = (played.load_cards([str(p) for p in _expand(card_files)]) if card_files
            else played.default_cards())
    if not pool.names():
        raise ReplayError(f"no {played.title} cards in {', '.join(map(str, card_files or []))}")
    click.echo(f"{len(pool.names())} cards OK")
    decks = played.sample_decks(pool, deck_files) if deck_files or not files else []
    problems = 0
    for deck in decks:
        issues = played.deck_problems(deck, pool)
        for issue in issues:
            click.echo(f"deck {_deck_label(deck)}: {issue}", err=True)
        problems += len(issues)
        if not issues:
            click.echo(f"deck {_deck_label(deck)} OK")
    if problems:
        raise ReplayError(counted(problems, 'deck problem'))


@cli.command()
@click.option("--matches", "-n", type=click.IntRange(1), default=10, show_default=True,
              help="Number of matches (ignored with --tournament).")
@click.option("--seed", "-s", type=int, default=1, show_default=True, help="Seed of everything random.")
@click.option("--out", "-o", "out", required=True, metavar="STORE",
              help="The store to write matches into: a directory or a postgresql:// URL.")
@click.option("--rules", help="The ruleset (default: the game's newest; Wonders: 1.3.2 or 1.2).")
@click.option("--decks", multiple=True, type=click.Path(exists=True),
              help="Deck files or directories (default: the shipped decks).")
@click.option("--bots", default="greedy,greedy", show_default=True,
              help="Bots, comma separated: seat A,seat B (tournament: assigned in turn).")
@click.option("--tournament", help="Simulate a Swiss tournament with this name.")
@click.option("--players", type=click.IntRange(2), default=8, show_default=True)
@click.option("--rounds", type=click.IntRange(1), default=3, show_default=True)
@click.option("--prefix", metavar="ID",
              help="The matches' ids: ID-0001, ID-0002, … (default: m); with --tournament, the "
                   "tournament's id: ID-r1-t01, … (default: from its name, 'Friday Cup' → "
                   "friday-cup). Another ID adds matches to a store that has some.")
@click.option("--bulk", is_flag=True,
              help="Write each finished match at once (one fsync of its file) instead of "
                   "one fsync per batch; the same bytes.")
@game_option
@cards_option
def simulate(matches: int, seed: int, out: str, rules: str | None, decks: tuple[str, ...], bots: str,
             tournament: str | None, players: int, rounds: int, prefix: str | None, bulk: bool,
             game_name: str) -> None:
    """Bots play matches into a store; the same arguments give byte-identical files."""
    from rich.progress import Progress

    from ledger.errors import ConflictError
    from ledger.store import MATCH_ID
    from ledger.stores import describe, open_store
    from replay.games import game
    from replay.simulate import simulate_matches, simulate_tournament

    played = game(game_name)
    if rules is not None and rules not in played.rulesets:
        raise click.BadParameter(f"{played.title} has no ruleset {rules!r} (choose from "
                                 f"{', '.join(played.rulesets)})", param_hint="--rules")
    names = [b.strip() for b in bots.split(",") if b.strip()]
    unknown = [b for b in names if b not in played.bots]
    if unknown or not names:
        raise click.BadParameter(f"unknown bot {unknown[0] if unknown else bots!r} "
                                 f"(choose from {', '.join(played.bots)})", param_hint="--bots")
    if prefix is not None and not MATCH_ID.fullmatch(f"{prefix}-r1-t01-g1"):
        raise click.BadParameter(f"{prefix!r} can't begin a match id (letters, digits, '.', "
                                 f"'_' and '-', starting with a letter or digit)",
                                 param_hint="--prefix")
    db = played.default_cards()
    deck_list = played.sample_decks(db, list(decks))
    store = open_store(out)
    if tournament:
        total = (players // 2) * rounds
        jobs = simulate_tournament(store, db, deck_list, tournament, players, rounds, seed,
                                   rules, names, game_name=game_name, bulk=bulk,
                                   tournament_id=prefix)
    else:
        total = matches
        jobs = simulate_matches(store, db, deck_list, matches, seed, rules,
                                (names[0], names[-1]), prefix=prefix or "m",
                                game_name=game_name, bulk=bulk)
    written = 0
    try:
        with Progress(transient=True, disable=not sys.stderr.isatty()) as progress:
            task = progress.add_task("simulating", total=total)
            for _opened in jobs:
                written += 1
                progress.advance(task)
    except ConflictError as taken:
        raise ConflictError(f"{taken} in {describe(out)} (wrote {written} match files before "
                            f"it): give another --prefix to add matches beside those there"
                            ) from None
    finally:
        store.close()
    click.echo(f"wrote {written} match files to {describe(out)}")


@cli.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH_OR_URL…")
@click.option("--against-current", is_flag=True,
              help="Also report which recorded cards differ from today's pool and where "
                   "today's engine would diverge.")
@click.option("--jobs", "-j", type=click.IntRange(1, MAX_JOBS), default=1, show_default=True,
              help="Verify on a local Dask cluster of this many worker processes "
                   f"(at most {MAX_JOBS}; more machines: --scheduler).")
@click.option("--scheduler", metavar="tcp://HOST:PORT", default=None,
              help="Verify on this existing Dask cluster (its workers open the files or "
                   "store themselves: a shared directory or the same postgresql:// URL).")
@cards_option
def verify(paths: tuple[str, ...], against_current: bool, jobs: int,
           scheduler: str | None) -> None:
    """Verify match files, store directories or postgresql:// stores (every match of them),
    in levels: intact (canonical bytes, hash chain, schema; a torn or cut final batch is a
    failure), then re-derived (the engine at the file's recorded ruleset and rules revision,
    with its recorded cards, re-derives every outcome).  Exit 0 if all pass, 1 if any fails,
    2 if some file is from a newer program (and none failed).  Nothing is ever modified.
    With --jobs N > 1 or --scheduler, Dask workers verify the matches (a failed task is
    retried, then match by match; a match that still fails is a FAIL naming its error);
    the lines come out in the same order."""
    from replay.verify import NEWER_PROGRAM
    from web.cli_analytics import one_cluster

    one_cluster(scheduler)
    reports = (_verify_distributed(paths, against_current, jobs, scheduler)
               if jobs > 1 or scheduler else
               (job() for job in _verify_jobs(paths, against_current)))
    counts = {"OK": 0, "FAIL": 0, NEWER_PROGRAM: 0}
    for report in reports:
        # Each match is checked against its own game's pool (``--cards``: Wonders' pool).
        counts[report.status] += 1
        click.echo(f"{report.status:<5}{report.message}")
        for line in report.lines:
            click.echo(f"     {line}")
    newer = f", {counts[NEWER_PROGRAM]} from a newer program" if counts[NEWER_PROGRAM] else ""
    click.echo(f"{counts['OK']} passed, {counts['FAIL']} failed{newer}")
    sys.exit(1 if counts["FAIL"] else 2 if counts[NEWER_PROGRAM] else 0)


def _verify_distributed(paths: tuple[str, ...], against_current: bool, jobs: int,
                        scheduler: str | None) -> Iterator[Report]:
    """The reports of ``verify --jobs/--scheduler``, in the order of the sources, with a
    progress bar on stderr (a terminal's)."""
    from rich.progress import MofNCompleteColumn, Progress, TimeElapsedColumn

    from ledger.distributed import cluster
    from replay.distributed_verify import sources, verify_many

    try:
        found = sources(paths)
    except FileNotFoundError as exc:
        raise click.BadParameter(str(exc), param_hint="PATH") from None
    if not found:
        raise click.BadParameter("no match files found", param_hint="PATH")
    columns = (*Progress.get_default_columns()[:-1], MofNCompleteColumn(), TimeElapsedColumn())
    waiting: dict = {}
    following = 0
    with cluster(jobs, scheduler) as client, \
            Progress(*columns, transient=True, disable=not sys.stderr.isatty()) as progress:
        task = progress.add_task("verifying", total=len(found))
        for index, report in verify_many(found, against_current, client):
            progress.advance(task)
            waiting[index] = report
            while following in waiting:
                yield waiting.pop(following)
                following += 1


def _verify_jobs(paths: tuple[str, ...], against_current: bool) -> list:
    """One callable per match to verify: a file as a file (a torn one: is a writer on it?),
    a directory's files, every match of a postgresql:// store by its lines."""
    from functools import partial

    from ledger.filestore import FileStore
    from ledger.stores import describe, is_url, open_store
    from replay.verify import verify_file, verify_stored

    jobs: list = []
    for raw in paths:
        if is_url(raw):
            store = open_store(raw)
            jobs += [partial(verify_stored, store, match_id, against_current,
                             f"{describe(store)}/{match_id}") for match_id in store.ids()]
            continue
        path = Path(raw)
        if path.is_dir():  # a store directory's entries: each must be <match_id>.jsonl
            jobs += [partial(verify_file, file, None, against_current=against_current,
                             match_id=file.name[:-len(SUFFIX)])
                     for file in FileStore(path).files()]
        elif path.is_file() or path.exists() or path.is_symlink():
            # a file by itself may be named anything; one that is no regular file (a FIFO,
            # a device, a dangling link) is a FAIL line saying what it is, never opened
            jobs.append(partial(verify_file, path, None, against_current=against_current))
        else:
            raise click.BadParameter(f"{raw}: no such file or directory", param_hint="PATH")
    if not jobs:
        raise click.BadParameter("no match files found", param_hint="PATH")
    return jobs


def _sources(src: str) -> list[tuple[str, FileCheck, str | None]]:
    """``(name, check, match id)`` for every match of SRC: a match file (any name: no id), a
    store directory's files or a postgresql:// store's matches (by their lines; the id each
    must be); each check as ``check_file`` gives it."""
    from ledger.filestore import FileStore
    from ledger.integrity import check_bytes, check_file
    from ledger.stores import is_url, open_store

    if is_url(src):
        store = open_store(src)
        return [(f"{m}.jsonl", check_bytes(store.export_lines(m), f"{m}.jsonl"), m)
                for m in store.ids()]
    source = Path(src)
    if not source.exists():
        raise click.BadParameter(f"{src}: no such file or directory", param_hint="SRC")
    if not source.is_dir():
        return [(source.name, check_file(source), None)]
    return [(path.name, check_file(path), path.name[:-len(SUFFIX)])
            for path in FileStore(source).files()]


@cli.command()
@click.argument("src", metavar="SRC")
@click.argument("dst", metavar="DST")
@cards_option
def upgrade(src: str, dst: str) -> None:
    """Write schema-3 copies of the match files of schema ≤ 2 in SRC (a file, a store
    directory or a postgresql:// store) into the store DST (a directory or a postgresql://
    URL): re-derived at their recorded behaviour, with their cards, every change of state and
    card ids that name nothing; each copy records its original's head hash.  The originals are
    only read.  A copy already in DST with the same bytes is reported (SAME); one with other
    bytes is left as it is (a failure, exit 1)."""
    from ledger.buffered import MatchBuffer
    from ledger.errors import ConflictError
    from ledger.events import MatchOpened
    from ledger.store import misnamed
    from ledger.stores import describe, open_store
    from replay.games import game_of

    files = _sources(src)
    if not files:
        raise click.BadParameter("no match files found", param_hint="SRC")
    store = open_store(dst)
    bad = skipped = same = 0
    for name, check, match_id in files:
        try:
            if not check.ok:
                raise ReplayError(check.message)
            first_opened = check.events[0].event
            if not isinstance(first_opened, MatchOpened):
                raise ReplayError("seq 0 is not MatchOpened")
            if match_id is not None and first_opened.match_id != match_id:
                raise ReplayError(misnamed(check.path, first_opened))
            if first_opened.schema_version >= 3:
                skipped += 1
                click.echo(f"SKIP {name}: already schema {first_opened.schema_version}")
                continue
            played = game_of(first_opened)
            upgrade_file = getattr(played, "upgrade", None)
            if upgrade_file is None:
                raise ReplayError(f"{played.title} has no older schema to upgrade from")
            # Made in memory (the upgrade is deterministic), then written in one durable
            # write: a copy cut short leaves nothing behind, and one already there is known.
            buffer = MatchBuffer()
            opened = upgrade_file(list(check.events), played.default_cards(), buffer)
            data = buffer.export_lines(opened.match_id)
            try:
                store.import_lines(data, where=f"{opened.match_id}.jsonl")
            except ConflictError:
                if store.export_lines(opened.match_id) != data:
                    raise ConflictError(f"{describe(store)} already has match "
                                        f"{opened.match_id!r} with other lines; left as it "
                                        f"is") from None
                same += 1
                click.echo(f"SAME {opened.match_id}: its schema 3 copy is already in "
                           f"{describe(store)}, byte-identical")
                continue
        except (LedgerError, ReplayError) as exc:
            bad += 1
            click.echo(f"FAIL {name}: {exc}")
            continue
        except OSError as exc:  # a full disk, say: nothing of this copy was kept
            bad += 1
            click.echo(f"FAIL {name}: {exc.filename or ''}: {exc.strerror or exc}")
            continue
        click.echo(f"OK   {opened.match_id}: schema 3 copy in {describe(store)}")
    already = f", {same} already upgraded" if same else ""
    click.echo(f"{len(files) - bad - skipped - same} upgraded, {skipped} already schema 3"
               f"{already}, {bad} failed")
    sys.exit(1 if bad else 0)


@cli.command()
@click.argument("src", metavar="SRC")
@click.argument("dst", metavar="DST")
@click.option("--match", "match_ids", multiple=True, metavar="ID",
              help="Copy only this match (repeatable; default: every match of SRC).")
def copy(src: str, dst: str, match_ids: tuple[str, ...]) -> None:
    """Copy matches from the store SRC to the store DST (each a directory or a postgresql://
    URL), byte-identical line for line: each match's lines are exported from SRC as stored,
    checked and imported into DST.  A match DST already has with the same lines is reported
    as such; one DST has otherwise is not touched (a failure).  Exit 1 on any failure."""
    from ledger.errors import ConflictError
    from ledger.stores import describe, open_store

    source = open_store(src, must_exist=True)
    target = open_store(dst)
    ids = list(match_ids) or source.ids()
    copied = same = bad = 0
    for match_id in ids:
        try:
            data = source.export_lines(source.check_id(match_id))
            try:
                head = target.import_lines(data, where=f"{match_id}.jsonl")
            except ConflictError:
                theirs = target.export_lines(match_id)
                if theirs == data:
                    same += 1
                    click.echo(f"SAME {match_id}: already in {describe(target)}, byte-identical")
                    continue
                what = ("an earlier copy: its first lines are these" if data.startswith(theirs)
                        else "other lines")
                raise ConflictError(f"{describe(target)} already has match {match_id!r} with "
                                    f"{what} ({len(theirs)} bytes, here {len(data)}); left "
                                    f"as it is") from None
        except LedgerError as exc:
            bad += 1
            click.echo(f"FAIL {match_id}: {exc}")
            continue
        except OSError as exc:
            bad += 1
            click.echo(f"FAIL {match_id}: {exc.filename or ''}: {exc.strerror or exc}")
            continue
        copied += 1
        click.echo(f"OK   {match_id}: {head.length} events, {head.size} bytes")
    source.close()
    target.close()
    click.echo(f"{copied} copied, {same} already there, {bad} failed "
               f"({describe(source)} → {describe(target)})")
    sys.exit(1 if bad else 0)


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--at", "at", type=int, default=None, help="Event seq (default: the last).")
@click.option("--as", "perspective", default="omniscient", show_default=True,
              help="omniscient, a seat (A, B) or spectator.")
@click.option("--round", "round_", type=int, help="Go to the start of this round …")
@click.option("--turn", type=int, help="… or to this turn of --round (\"round 4, turn 7\"); "
                                      "State of Wonder, which has no rounds: the N-th turn.")
@click.option("--battle", type=int, help="Go to the N-th battle of the match (Wonders: in a "
                                        "realm; State of Wonder: a pitched battle or siege).")
@click.option("--json", "as_json", is_flag=True, help="Print the board as JSON.")
@cards_option
def replay(file: str, at: int | None, perspective: str, round_: int | None, turn: int | None,
           battle: int | None, as_json: bool) -> None:
    """Show the board of a match file at an event, from a perspective.

    The board is the fold of the recorded events; where today's engine disagrees with the
    record, a board at or after that seq is still shown as recorded, with a warning."""
    import json

    from ledger.events import MatchOpened
    from ledger.filestore import FileStore
    from replay.games import game_of
    from replay.replayer import Cursor, Divergence, Replay
    from replay.timeline import Timeline, open_timeline
    from web.api.tables import final_state, reading_cards
    from web.narration import Narrator, players_of

    _check_position(at, round_, turn, battle)
    events = list(FileStore.read_file(file))
    opened = events[0].event
    if not isinstance(opened, MatchOpened):
        raise ReplayError(f"{file}: seq 0 is not MatchOpened")
    played = game_of(opened)
    if perspective not in played.perspectives:
        raise click.BadParameter(f"{played.title} has no perspective {perspective!r} (choose "
                                 f"from {', '.join(played.perspectives)})", param_hint="--as")
    db = played.default_cards()
    rep = open_timeline(events, db)  # schema ≤ 2: re-derived by the engine (Replay)
    final, cards = final_state(rep), reading_cards(rep, db)
    cursor = Cursor(rep, len(rep) - 1)
    if turn is not None and round_ is None and rep.index.rounds:
        raise click.UsageError("--turn needs --round (a turn of that round)")
    try:
        if at is not None:
            cursor.seek(at)
        elif round_ is not None:
            cursor.seek_round(round_, turn)
        elif turn is not None:
            cursor.seek_turn(turn)
        elif battle is not None:
            cursor.seek_battle(battle)
    except IndexError as exc:
        raise click.BadParameter(str(exc), param_hint="--at/--round/--turn/--battle") from None
    seq = cursor.seq
    if isinstance(rep, Timeline):  # verify: does today's engine re-derive what is shown?
        try:
            Replay(rep.events[:seq + 1], db)
        except Divergence as exc:
            if exc.seq <= seq:  # (past seq: the prefix ends inside a batch)
                click.echo(f"warning: {exc} (today's engine disagrees with the record; "
                           f"shown as recorded)", err=True)
        except ReplayError as exc:  # e.g. a card today's pool no longer has
            click.echo(f"warning: today's engine cannot re-derive this match ({exc}); "
                       f"shown as recorded", err=True)
    shown = getattr(played, "board_seq", None)  # R46: not a bury's order mid-way
    picture = played.board(rep.state_at(shown(rep.events, seq, perspective) if shown else seq),
                           cards, perspective)
    # names and hidden cards as the line the event is on had them (an undone event's too)
    narrator = Narrator(_Reading(rep, played, final, cards), perspective)
    event = narrator.redact(rep.events[seq], seq)
    if as_json:
        import msgspec
        picture["seq"] = seq
        picture["event"] = msgspec.to_builtins(event)
        click.echo(json.dumps(picture, indent=2, default=str))
        return
    what = narrator.words(event, seq)
    click.echo(played.board_text(rep.match_id, seq, what, picture, players_of(rep.events[0])))


class _Reading:
    """What :class:`web.narration.Narrator` reads of a match, for a file's reading (a
    ``Timeline``, or a ``Replay`` of a schema ≤ 2 file)."""

    def __init__(self, rep: Any, game: Any, final: Any, cards: Any):
        self.rep, self.game, self.state, self.cards = rep, game, final, cards
        self.events, self.length = rep.events, len(rep)

    def state_at(self, seq: int) -> Any:
        return self.state if seq == self.length - 1 else self.rep.state_at(seq)


def _check_position(at: int | None, round_: int | None, turn: int | None,
                    battle: int | None) -> None:
    """Where ``wonders replay`` goes is one of --at, --round (with --turn), --turn alone (a game
    without rounds) and --battle."""
    alone = turn if round_ is None else None  # --turn without --round: a turn of the match
    given = [name for name, value in (("--at", at), ("--round", round_), ("--turn", alone),
                                      ("--battle", battle)) if value is not None]
    if len(given) > 1:
        named = f"{', '.join(given[:-1])} and {given[-1]}"
        raise click.UsageError(f"{named} given together: --at, --round and --battle are "
                               f"exclusive (give one)")


@cli.command()
@click.option("--quick", is_flag=True, help="Smaller runs (for a smoke test).")
def bench(quick: bool) -> None:
    """Run every bench/*.py and print one JSON object (one key per script)."""
    import json
    import subprocess

    root = Path(__file__).resolve().parent.parent / "bench"
    scripts = sorted(root.glob("*.py"))
    if not scripts:
        raise click.ClickException(f"no benchmark scripts in {root} (wonders bench runs the "
                                   f"benchmarks of a source checkout)")
    results = {}
    for script in scripts:
        args = [sys.executable, str(script)] + (["--quick"] if quick else [])
        click.echo(f"running {script.name} …", err=True)
        done = subprocess.run(args, capture_output=True, text=True, cwd=root.parent)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise click.ClickException(f"{script.name} failed: {last}")
        results[script.stem] = json.loads(done.stdout.strip().splitlines()[-1])
    click.echo(json.dumps(results, indent=2))


def _expand(paths: list[Path] | None) -> list[Path]:
    out = []
    for p in paths or []:
        p = Path(p)
        out += sorted(p.rglob("*.toml")) if p.is_dir() else [p]
    return out


def _files_only(paths: tuple[str, ...], kind: str) -> None:
    """Refuse in one line a path given (or a ``*.toml`` in a directory given) that is no
    regular file: a FIFO nothing writes to would block the command forever, a device be read
    without end (``kind``: what the files are to be, for the message)."""
    from ledger.entries import not_regular

    for path in _expand([Path(p) for p in paths]):
        error = not_regular(path, kind=kind)
        if error is not None:
            raise click.ClickException(str(error))


from web.cli_serve import serve as _serve  # noqa: E402 - issue 7: the recording service

cli.add_command(_serve)

from web.cli_analytics import COMMANDS as _ANALYTICS  # noqa: E402 - issue 6: ingest, stats, export

for _command in _ANALYTICS:
    cli.add_command(_command)

from web.cli_demo import demo as _demo  # noqa: E402 - issue 8: simulate, ingest, serve the viewer

cli.add_command(_demo)

from web.cli_tournament import tournament as _tournament  # noqa: E402 - issue 17: the organizer's CLI

cli.add_command(_tournament)


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
