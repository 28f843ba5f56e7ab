"""The tournaments' public pages: where a player finds their table, their result and the
standings on their own phone, or on a screen at the venue -- no token needed.

``/tournaments`` lists the store's tournaments; ``/tournaments/<id>`` shows the latest round's
pairings **by player name** (each player once: their table, seat, opponent and result, a link
to watch the table's match), then the standings; ``/tournaments/<id>/rounds/<n>`` an earlier
round's pairings.  ``?player=`` narrows the pairings to the names that contain it ("find your
table"), so a 300-player room's list is one line per search.

What is shown is what the match listing (``/matches``) already shows anyone -- the players of
each table, its round and table number, its result -- and the standings computed from those
results.  Nothing of a deck is shown (no list, no Deck Balance Score: a DBS is read from the
decklist), and no token or link that records.  Pages are rendered on the server (no script).

What 300 phones refresh costs little: the tournament is the book's kept fold (read again only
when its log changed, :meth:`ledger.tournament.TournamentBook.load`), and a round's seatings
and the standings are kept rendered by their content (:func:`seatings_html`,
:func:`standings_html`): an unchanged round is escaped once, a new result renders it again.
"""

from __future__ import annotations

import functools
import logging
import unicodedata
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, render_template, request, url_for
from markupsafe import Markup

from ledger.errors import LedgerError
from ledger.roundclock import round_clock
from ledger.tournament import (
    SAFE_ID,
    Result,
    Round,
    Standing,
    Table,
    Tournament,
    TournamentError,
    player_key,
    standings,
)
from web.api.tournaments import organizer
from web.errors import NotFoundError

bp = Blueprint("tournament_pages", __name__)
log = logging.getLogger("wonders.web")
MAX_QUERY = 120  # characters of a ?player= search kept
KEPT_PARTS = 32  # rendered seatings and standings kept (a few tournaments, rounds, searches)


@dataclass(frozen=True)
class Seating:
    """One player's line of a round: where they sit and how it went, from their side."""

    player: str
    table: int | None  # None: the bye
    seat: str  # "A", "B" or "" (the bye)
    opponent: str
    outcome: str  # "playing", "won", "lost", "draw", "bye", "not started", "unreadable"
    match_id: str | None


@bp.get("/tournaments")
def tournaments() -> str:
    """Every tournament of the store, newest rounds first; one unreadable is named, not shown."""
    listed, unreadable = organizer().listing()  # why one can't be read: the server's log
    return render_template("tournaments.html", tournaments=listed, unreadable=unreadable)


@bp.get("/tournaments/<tournament_id>")
def tournament(tournament_id: str) -> str:
    t = _load(tournament_id)
    return _round_page(t, len(t.rounds), with_standings=True)


@bp.get("/tournaments/<tournament_id>/rounds/<int:number>")
def round_page(tournament_id: str, number: int) -> str:
    t = _load(tournament_id)
    if not 1 <= number <= len(t.rounds):
        raise NotFoundError(f"{t.name}: no round {number} (rounds paired: {len(t.rounds)})")
    return _round_page(t, number, with_standings=False)


def _load(tournament_id: str) -> Tournament:
    if not SAFE_ID.fullmatch(tournament_id):
        raise NotFoundError(f"no tournament {tournament_id[:120]!r} here")
    try:
        return organizer().load(tournament_id)
    except TournamentError as exc:  # its log can't be read: why is the operator's
        log.warning("%s: %s", request.path, exc)
        raise NotFoundError(f"tournament {tournament_id[:120]!r} can't be read (the server's "
                            f"log says why)") from None
    except LedgerError:
        raise NotFoundError(f"no tournament {tournament_id[:120]!r} here") from None


def readable_results(t: Tournament) -> tuple[dict[str, Result], set[str]]:
    """The results that can be read and the matches that can't (each logged: the whole
    message is the operator's; a page says only which table)."""
    results, damaged = organizer().readable_results(t)
    for match_id, exc in damaged.items():
        log.error("%s: match %s left out: %s", request.path, match_id, exc)
    return results, set(damaged)


def _round_page(t: Tournament, number: int, with_standings: bool) -> str:
    results, damaged = readable_results(t)
    played = t.rounds[number - 1] if number else None
    wanted = request.args.get("player", "").strip()[:MAX_QUERY]
    seatings = seatings_of(played, results, damaged) if played is not None else []
    shown = [s for s in seatings if is_found(wanted, s.player)] if wanted else seatings
    ranked = standings(t, results) if with_standings else None
    return render_template(
        "tournament.html", t=t, round=played, seatings=shown, total=len(seatings), wanted=wanted,
        seatings_html=seatings_html(tuple(shown), wanted, watch_prefix()),
        standings_html=standings_html(tuple(ranked or ())),
        tally=_tally(seatings), standings=ranked,
        unreadable=_unreadable(t, damaged),
        clock=round_clock(t, played) if played is not None else None,
        latest=number == len(t.rounds))


@functools.lru_cache(maxsize=KEPT_PARTS)
def seatings_html(seatings: tuple[Seating, ...], wanted: str, watch: str) -> Markup:
    """A round's seatings as the page shows them, kept rendered for the seatings (what is
    rendered is these arguments alone: a change of any is another entry, never a stale one):
    300 phones refreshing an unchanged round get the same lines, escaped once."""
    return Markup(render_template("tournament_seatings.html", seatings=seatings,
                                  wanted=wanted, watch=watch))


@functools.lru_cache(maxsize=KEPT_PARTS)
def standings_html(ranked: tuple[Standing, ...]) -> Markup:
    """The standings' table, kept rendered for the standings (as :func:`seatings_html`)."""
    return Markup(render_template("tournament_standings.html", standings=ranked))


def watch_prefix() -> str:
    """The viewer's address of a match without its id (``/matches/``, under any prefix the
    app is mounted at): a seating's "Watch" link is it and the match id (an id is letters,
    digits, ``.``, ``_`` and ``-``: nothing to quote), not a ``url_for`` per player."""
    return url_for("viewer.viewer", match_id="m")[:-1]


def seatings_of(played: Round, results: dict[str, Result],
                damaged: set[str] | None = None) -> list[Seating]:
    """Every player of the round once, by name (case and accents aside), the bye included;
    a table whose match is in ``damaged`` (its stored data cannot be read) is "unreadable"."""
    out = [s for tb in played.tables for s in _table_seatings(played, tb, results, damaged)]
    if played.bye is not None:
        out.append(Seating(played.bye, None, "", "", "bye", None))
    return sorted(out, key=lambda s: (player_key(s.player), s.player))


def seating_of(played: Round, player: str, results: dict[str, Result],
               damaged: set[str] | None = None) -> Seating | None:
    """``player``'s line of the round (their name as registered), as :func:`seatings_of`
    gives it, or ``None``: not paired in it (dropped before it, or entered after it)."""
    if played.bye == player:
        return Seating(player, None, "", "", "bye", None)
    for tb in played.tables:
        if player in (tb.a, tb.b):
            return next(s for s in _table_seatings(played, tb, results, damaged)
                        if s.player == player)
    return None


def _table_seatings(played: Round, tb: Table, results: dict[str, Result],
                    damaged: set[str] | None) -> list[Seating]:
    """A table's two lines, seat A's then seat B's."""
    result = results.get(tb.match_id or "")
    out = []
    for seat, player, opponent in (("A", tb.a, tb.b), ("B", tb.b, tb.a)):
        outcome = ("unreadable" if tb.match_id in (damaged or set())
                   else _outcome(seat, tb.match_id, result, played.started))
        out.append(Seating(player, tb.table, seat, opponent, outcome, tb.match_id))
    return out


def _outcome(seat: str, match_id: str | None, result: Result | None, started: bool) -> str:
    if match_id is None or not started:
        return "not started"
    if result is None or not result.ended:
        return "playing"
    if result.winner is None:
        return "draw"
    return "won" if result.winner == seat else "lost"


def is_found(wanted: str, name: str) -> bool:
    """Whether a search finds a name: a part of it, case and accents aside ("o brien" finds
    "Finn Ó Brien")."""
    return _plain(wanted) in _plain(name)


def _plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", player_key(text))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _unreadable(t: Tournament, damaged: set[str]) -> list[str]:
    """"round 1 table 2" for each table whose match cannot be read (no path, no byte of it)."""
    return [f"round {r.number} table {tb.table}" for r in t.rounds for tb in r.tables
            if tb.match_id in damaged]


def _tally(seatings: list[Seating]) -> dict[str, Any]:
    """The round at a glance: its tables, how many ended, which still play."""
    tables: dict[int, str] = {s.table: s.outcome for s in seatings if s.table is not None}
    playing = sorted(n for n, outcome in tables.items() if outcome == "playing")
    ended = sum(1 for outcome in tables.values()
                if outcome not in ("playing", "not started", "unreadable"))
    return {"tables": len(tables), "ended": ended, "playing": playing}
