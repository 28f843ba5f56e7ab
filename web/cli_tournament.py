"""``wonders tournament create|register|open-registration|close-registration|reissue-link|
remove|drop|reinstate|pair|standings|export|import-cards``: a tournament against a store.

The same operations as the organizer console and ``/api/tournaments…``
(:class:`web.tournaments.Organizer`), run directly on a store (a directory or a
``postgresql://`` URL; default ``$WONDERS_STORE`` or ``wonders-data``).  ``pair`` pairs the
next Swiss round and creates its matches, printing each table's seat and judge tokens (shown
only then; the console or the API reissues a lost one).  Results are read from the matches.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ledger.entries import open_regular
from ledger.errors import LedgerError, NotAMatchFileError
from ledger.roundclock import MAX_ROUND_MINUTES, round_clock
from ledger.tournament import (
    MAX_DECKLIST,
    MAX_POOL_FILE,
    SAFE_ID,
    TournamentError,
    UnknownTournamentError,
    player_name,
)
from ledger.tournament import standings as standings_of
from replay.counted import counted

if TYPE_CHECKING:  # imported where used: the CLI starts without it
    from web.tournaments import Organizer

STORE = click.option("--store", default=None, metavar="DIR_OR_URL",
                     help="The store (default: $WONDERS_STORE or ./wonders-data).")



def _server_url(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    """``--url`` is the server as the players' phones reach it: ``http(s)://HOST[:PORT]``.
    Anything else (``cup.example``, a typo) would print links no phone or QR scanner opens."""
    from urllib.parse import urlsplit
    parts = urlsplit(value.strip())
    try:
        parts.port  # noqa: B018 -- a port that is no number raises here
        port_ok = True
    except ValueError:
        port_ok = False
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
            or parts.fragment or not port_ok:
        raise click.BadParameter(f"{value!r} is not a server address: give it as "
                                 f"https://HOST or http://HOST:PORT (as the players' phones "
                                 f"reach the server); nothing was written")
    return value.strip().rstrip("/")


def server_url_option(help_text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The ``--url`` of the commands that print links for players, checked (:func:`_server_url`)."""
    return click.option("--url", "base", default="http://127.0.0.1:5000", show_default=True,
                        callback=_server_url, help=help_text)

def _organizer(store: str | None, creating: bool = False) -> Organizer:
    """The organizer on ``store``.  Only ``create`` makes a store directory that isn't there:
    any other command given a missing one (a typo) says so, and writes nothing."""
    from ledger.errors import StoreUnavailableError
    from ledger.stores import open_store
    from replay.games import game
    from web.tokens import token_book
    from web.tournaments import Organizer
    target = store or os.environ.get("WONDERS_STORE") or "wonders-data"
    try:
        opened = open_store(target, must_exist=not creating)
    except StoreUnavailableError as exc:
        if creating:
            raise
        raise click.ClickException(f"{exc}; a tournament is made in one with wonders "
                                   f"tournament create NAME --store DIR") from None
    return Organizer(opened, token_book(opened), game("wotf").default_cards())  # others: shipped


def _says_which_exist(command: Callable[..., None]) -> Callable[..., None]:
    """A command given a tournament id the store doesn't have (or a tournament's name where its
    id goes) says, in its one line, which tournaments the store has."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            command(*args, **kwargs)
        except (UnknownTournamentError, TournamentError) as exc:
            given = kwargs["tournament_id"]
            if isinstance(exc, TournamentError) and SAFE_ID.fullmatch(given):
                raise  # the tournament exists and refused the operation: its own message
            try:
                known = _known(kwargs["store"], given)
            except LedgerError:  # a tournament that can't be read: the error given, alone
                raise exc from None
            raise click.ClickException(f"{exc}; {known}") from None

    return run


def _known(store: str | None, given: str) -> str:
    """The store's tournaments as ``id (name)``, the one named ``given`` first."""
    org = _organizer(store)
    tournaments = sorted(org.all(), key=lambda t: (t.name != given, t.tournament_id))
    if not tournaments:
        return ("this store has no tournament yet (wonders tournament create NAME; the standings "
                "of a simulated one: wonders stats standings)")
    if tournaments[0].name == given:
        return f"{given!r} is the name of tournament {tournaments[0].tournament_id!r}: give its id"
    shown = ", ".join(f"{t.tournament_id} ({t.name})" for t in tournaments[:10])
    return f"this store's tournaments: {shown}{' …' if len(tournaments) > 10 else ''}"


@click.group()
def tournament() -> None:
    """Run a Swiss tournament: register players with decklists, pair rounds, standings."""


@tournament.command()
@click.argument("name")
@click.option("--id", "tournament_id", default=None, help="Its id (default: from the name).")
@click.option("--game", "game_name", default="wotf", show_default=True, metavar="wotf|sow",
              help="The game every table plays: Wonders of The First or State of Wonder.")
@click.option("--ruleset", default=None,
              help="Default: the game's newest (wotf: 1.3.2, or 1.2; sow: 004).")
@click.option("--round-minutes", type=click.IntRange(0, MAX_ROUND_MINUTES), default=0,
              help="A round's time in minutes (default 0: untimed rounds).")
@STORE
def create(name: str, tournament_id: str | None, game_name: str, ruleset: str | None,
           round_minutes: int, store: str | None) -> None:
    """Create a tournament called NAME."""
    org = _organizer(store, creating=True)
    t = org.create(name, tournament_id, ruleset, game_name, round_minutes)
    timed = f", {t.round_minutes}-minute rounds" if t.round_minutes else ""
    click.echo(f"tournament {t.tournament_id}: {t.name} ({org.game_of(t).title}, rules "
               f"{t.ruleset}{timed})")


@tournament.command()
@click.argument("tournament_id")
@click.argument("minutes", type=click.IntRange(0, MAX_ROUND_MINUTES))
@STORE
@_says_which_exist
def clock(tournament_id: str, minutes: int, store: str | None) -> None:
    """Set the rounds' time to MINUTES (0: untimed), the round under way included."""
    t = _organizer(store).set_round_time(tournament_id, minutes)
    current = t.current
    now = round_clock(t, current) if current is not None else None
    where = f"; round {current.number}: {now.words}" if current is not None and now else ""
    click.echo(f"{t.name}: {f'{minutes}-minute rounds' if minutes else 'untimed rounds'}{where}")


@tournament.command()
@click.argument("tournament_id")
@click.argument("player")
@click.argument("decklist", type=click.Path(exists=True, dir_okay=False))
@click.option("--preset", default=None, help="A shipped deck recorded at the tables instead.")
@STORE
@_says_which_exist
def register(tournament_id: str, player: str, decklist: str, preset: str | None,
             store: str | None) -> None:
    """Register PLAYER with the decklist in the file DECKLIST ('count name' lines: a Wonders
    of The First deck's 50 cards and archive, or a State of Wonder deck's State, Wonder or
    Hero and 15 cards)."""
    # utf-8-sig: a byte order mark (Windows' Notepad) is no part of the first line
    text = _small_text(decklist, "decklist file", MAX_DECKLIST, "utf-8-sig",
                       "a decklist is 'count name' lines")
    t = _organizer(store).register(tournament_id, player, text, preset)
    p = t.player(player_name(player))
    about = [f"DBS {p.dbs}"] if p.dbs is not None else []  # a game without DBS: none shown
    about += [f"late entry before round {p.entered + 1}"] if p.entered else []
    shown = f" ({', '.join(about)})" if about else ""
    click.echo(f"{t.name}: registered {p.name}{shown}; {_count(len(t.players), 'player')}")


@tournament.command()
@click.argument("tournament_id")
@click.argument("player")
@STORE
@_says_which_exist
def drop(tournament_id: str, player: str, store: str | None) -> None:
    """Drop PLAYER (no longer paired; still in the standings; reinstate undoes it)."""
    t = _organizer(store).drop(tournament_id, player)
    found = t.player(player)
    click.echo(f"{t.name}: {found.name} {found.dropped_when}")


@tournament.command()
@click.argument("tournament_id")
@click.argument("players", nargs=-1)
@click.option("--self-registered-from", "first", metavar="NAME",
              help="also every player who registered themselves from NAME on, in the order "
                   "they registered (a flood of junk; the desk's players are left alone)")
@STORE
@_says_which_exist
def remove(tournament_id: str, players: tuple[str, ...], first: str | None,
           store: str | None) -> None:
    """Remove PLAYERS' registrations before round 1 is paired (junk, say; later: drop): all
    of them in one change, or none if one is refused."""
    if not players and first is None:
        raise click.UsageError("name a player, or --self-registered-from NAME")
    org = _organizer(store)
    if len(players) == 1 and first is None:
        player = players[0]
        known = org.load(tournament_id).same_player(player)  # shown as registered
        t = org.remove(tournament_id, player)
        name = known.name if known is not None else player_name(player)
        click.echo(f"{t.name}: {name} removed; {_count(len(t.players), 'player')}")
        return
    t, removed = org.remove_many(tournament_id, players, first)
    for name in removed:
        click.echo(f"{t.name}: {name} removed")
    click.echo(f"{t.name}: {_count(len(removed), 'player')} removed; "
               f"{_count(len(t.players), 'player')}")


@tournament.command("open-registration")
@click.argument("tournament_id")
@server_url_option("The server's address as the players reach it.")
@STORE
@_says_which_exist
def open_registration(tournament_id: str, base: str, store: str | None) -> None:
    """Open registration: prints the link players register themselves with (shown only now;
    opening again gives a new link and the old one stops working)."""
    from web.api.tournaments import registration_link  # imported where used, as the others

    t, key = _organizer(store).open_registration(tournament_id)
    click.echo(f"{t.name}: registration is open; players register at "
               f"{registration_link(t.tournament_id, key, base)}")


@tournament.command("reissue-link")
@click.argument("tournament_id")
@click.argument("player")
@server_url_option("The server's address as the players reach it.")
@click.option("--qr", is_flag=True, help="Draw the link's QR code in the terminal too.")
@STORE
@_says_which_exist
def reissue_link(tournament_id: str, player: str, base: str, qr: bool,
                 store: str | None) -> None:
    """Give PLAYER a new player link (a lost one): prints it, shown only now; their old link
    stops working at once.  A player registered here gets their first link this way, before
    round 1 is paired."""
    from web.api.tournaments import player_link  # imported where used, as the others

    t, name, token = _organizer(store).reissue_player_link(tournament_id, player)
    url = player_link(t.tournament_id, token, base)
    if t.is_registration_open:
        can = "replaces their list until registration closes or round 1 is paired"
    elif t.rounds:
        can = "shows their list: round 1 is paired, it is final"
    else:
        can = "shows their list; it replaces it only while registration is open"
    click.echo(f"{t.name}: a new player link for {name} (it {can}; the old one no longer "
               f"works): {url}")
    if qr:
        import segno  # imported where used: the CLI starts without it
        segno.make(url, error="m").terminal(compact=True)


@tournament.command("close-registration")
@click.argument("tournament_id")
@STORE
@_says_which_exist
def close_registration(tournament_id: str, store: str | None) -> None:
    """Close registration: the link stops working (players are still registered here)."""
    t = _organizer(store).close_registration(tournament_id)
    click.echo(f"{t.name}: registration is closed; {_count(len(t.players), 'player')}")


@tournament.command()
@click.argument("tournament_id")
@click.argument("player")
@STORE
@_says_which_exist
def reinstate(tournament_id: str, player: str, store: str | None) -> None:
    """Undo PLAYER's drop: paired again from the next round paired."""
    t = _organizer(store).reinstate(tournament_id, player)
    click.echo(f"{t.name}: {t.player(player).name} reinstated; paired again from round {len(t.rounds) + 1}")


@tournament.command()
@click.argument("tournament_id")
@server_url_option("The server's address as the players reach it (for the /play links).")
@STORE
@_says_which_exist
def pair(tournament_id: str, base: str, store: str | None) -> None:
    """Pair the next round and create its matches: prints each table's tokens and the /play
    link of each seat and of the judge (shown only now)."""
    from web.api.tournaments import links  # imported where used, as the others

    t, started = _organizer(store).start_round(tournament_id)
    number = t.current.number if t.current else 0
    click.echo(f"{t.name}: round {number}, {_count(len(started), 'table')}")
    for s in started:
        tokens = " ".join(f"{role}={tok}" for role, tok in (s.tokens or {}).items()) \
            or "(created by a reissue meanwhile: reissue its tokens)"
        click.echo(f"table {s.table}: {s.a} (A) vs {s.b} (B)  match {s.match_id}  {tokens}")
        for role, url in links(s.match_id, s.tokens or {}, base).items():
            who = {"A": f"{s.a} (seat A)", "B": f"{s.b} (seat B)"}.get(role, "judge")
            click.echo(f"  {who}: {url}")
    if t.current and t.current.bye:
        click.echo(f"bye: {t.current.bye}")


def _small_text(path: str, kind: str, limit: int, encoding: str, about: str) -> str:
    """The text of the file ``path`` (a ``kind``: a decklist file, a pool file), read no
    further than ``limit`` bytes: opened without waiting and refused in one line if it is no
    regular file (a FIFO nothing writes to blocked the command forever, ``/dev/zero`` was read
    until memory ran out), or larger (``about``: what such a file holds)."""
    try:
        with open_regular(path, kind=kind) as handle:
            data = handle.read(limit + 1)
    except NotAMatchFileError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise click.ClickException(f"{path}: larger than {_size(limit)}; {about}")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise click.ClickException(f"{path}: not UTF-8 text") from None


def _size(limit: int) -> str:
    """``20 kB``, ``1 MB``."""
    return f"{limit // 1_000_000} MB" if limit >= 1_000_000 else f"{limit // 1000} kB"


def _count(n: int, thing: str) -> str:
    """``1 table``, ``3 tables``."""
    return f"{n} {thing}{'' if n == 1 else 's'}"


@tournament.command()
@click.argument("tournament_id")
@click.option("--format", "fmt", type=click.Choice(["table", "csv"]), default="table")
@STORE
@_says_which_exist
def standings(tournament_id: str, fmt: str, store: str | None) -> None:
    """The standings: points, OMW%, GW%, OGW% (results read from the matches)."""
    org = _organizer(store)
    t = org.load(tournament_id)
    if fmt == "csv":
        click.echo(org.csv(t, "standings"), nl=False)
        return
    results, unreadable = org.checked_results(t)
    for table in unreadable:  # one line each, and the standings of every other table
        click.echo(f"can't be read, left out of the standings: {table}", err=True)
    rows = standings_of(t, results)
    width = max([24, *(len(s.player) for s in rows)])  # a name is shown whole, never cut
    click.echo(f"{'#':>3} {'player':<{width}} {'pts':>3} {'W-L-D':>7} {'OMW':>6} {'GW':>6} "
               f"{'OGW':>6}")
    for s in rows:
        record = f"{s.wins + s.byes}-{s.losses}-{s.draws}"
        click.echo(f"{s.rank:>3} {s.player:<{width}} {s.points:>3} {record:>7} "
                   f"{100 * s.omw:>6.2f} {100 * s.gw:>6.2f} {100 * s.ogw:>6.2f}"
                   f"{'  dropped' if s.dropped else ''}")


@tournament.command()
@click.argument("tournament_id")
@click.argument("kind", type=click.Choice(["pairings", "results", "standings"]))
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="A file (default: stdout).")
@STORE
@_says_which_exist
def export(tournament_id: str, kind: str, out: str | None, store: str | None) -> None:
    """Pairings, results or standings as CSV."""
    org = _organizer(store)
    text = org.csv(org.load(tournament_id), kind)
    if out:
        Path(out).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)


@tournament.command("import-cards")
@click.argument("tournament_id")
@click.argument("pool_file", type=click.Path(exists=True, dir_okay=False))
@STORE
@_says_which_exist
def import_cards(tournament_id: str, pool_file: str, store: str | None) -> None:
    """Import POOL_FILE (.csv or .toml): the printed stats of many cards, which then count as
    in the pool for registration and round start.  A bad file imports nothing and prints one
    line per bad row (file, line, field).  Wonders of The First tournaments only."""
    path = Path(pool_file)
    text = _small_text(pool_file, "pool file", MAX_POOL_FILE, "utf-8",
                       "a pool file is CSV or TOML rows of cards")
    t, names = _organizer(store).import_cards(tournament_id, text, str(path))
    click.echo(f"{t.name}: imported {counted(len(names), 'card')} from {path.name}: "
               f"{', '.join(names[:10])}{' …' if len(names) > 10 else ''}")
