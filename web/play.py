"""The table recording page ``/play/<match>``: one seat (or the judge) records by clicking.

Entry: ``/play/<match>?token=…`` (or the form at ``/play/<match>``) checks the token, keeps
the role and the token's *hash* in the signed session cookie, and redirects to the bare URL,
so the token does not stay in the address bar or the history.  The page then talks to the
JSON API with that session (writes carry the page's CSRF token) and shows the board from the
seat's side and the pending prompt (a turn in two taps: the card, then where), the players by
name (from the match's ``MatchOpened``), a seat's "call the judge" button and the judge's
console (take-back with a confirmation, endings, notes, and rulings where the game has judge's
operations): web/static/play.js, playturn.js, judge.js.  A tournament's table is named by its
tournament, round and table; once the match is over a seat's page offers no concession or call
any more, but the match's replay and its tournament's page.

The session keeps the latest :data:`TABLES_KEPT` tables entered: a judge walking a big event
enters a table per call, and a cookie past a browser's ~4 KB is silently dropped by it (every
new table's token would then land on the form again); a table let go is entered again with its
token.

The posts that change the session (entering with a token, leaving) come only from this site:
their ``Origin`` (or, without one, their ``Referer``) must name the host the request was sent
to; a cross-site post, or one that names no origin at all, is refused with 403.
"""

from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from flask import Blueprint, redirect, render_template, request, session, url_for
from werkzeug.wrappers import Response as BaseResponse

from ledger.errors import LedgerError, MatchNotFoundError
from web.api.common import (
    SESSION_CSRF,
    SESSION_TOKENS,
    entered_role,
    link_gone,
    services,
    session_role,
)
from web.api.tournaments import organizer
from web.errors import ForbiddenError
from web.tokens import hash_token

bp = Blueprint("play", __name__)  # templates and static files: the app's (web/templates, web/static)
MAX_TOKEN = 200
#: Tables a /play session keeps at most (:func:`kept_tables`): about 70 bytes of cookie each,
#: so 32 stay well under the ~4 KB a browser keeps of a cookie, with the players' own pages
#: and the CSRF token beside them.
TABLES_KEPT = 32
DEFAULT_PORTS = {"http": "80", "https": "443"}


@bp.before_request
def same_origin_posts() -> None:
    """A post to /play changes the session: it must come from a page of this site."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return
    origin = request.headers.get("Origin")
    source = origin if origin is not None else request.headers.get("Referer")
    if not source:
        raise ForbiddenError(f"{request.path}: a post that changes the session needs an Origin "
                             f"(or Referer) header naming this site")
    if _host_of(source) != _normal_host(request.host, request.scheme):
        kind = "Origin" if origin is not None else "Referer"
        raise ForbiddenError(f"{request.path}: a cross-site post ({kind} "
                             f"{source[:100]!r}) may not change the session on this site")


def _host_of(url: str) -> str | None:
    """``host[:port]`` of an origin or URL (``None`` for ``null`` or no host)."""
    try:
        parts = urlsplit(url.strip())
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
            return None
        return _normal_host(parts.netloc.rpartition("@")[2], parts.scheme)
    except ValueError:
        return None


def _normal_host(host: str, scheme: str) -> str:
    """``host[:port]`` lower-cased, without the scheme's default port."""
    host = host.lower()
    default = DEFAULT_PORTS.get(scheme)
    if default and host.endswith(f":{default}"):
        host = host[:-len(default) - 1]
    return host


def known_match(match_id: str) -> None:
    """400 for a malformed id, 404 for a match the store doesn't have (a mistyped link: not
    a form asking for a token that no token could satisfy).  A match whose file can't be read
    opens: the page's own calls say what is wrong with it."""
    store = services().store
    store.check_id(match_id)
    try:
        store.head(match_id)
    except MatchNotFoundError:
        raise
    except LedgerError:
        pass


@bp.route("/play/<match_id>", methods=["GET"])
def page(match_id: str) -> str | tuple[str, int] | BaseResponse:
    known_match(match_id)
    token = request.args.get("token")
    if token is not None:
        return _enter(match_id, token)
    role = session_role(match_id)
    if role is None:
        held = entered_role(match_id)  # entered once, its token reissued or revoked since
        return render_template("play_enter.html", match_id=match_id, table=table_named(match_id),
                               error=link_gone(match_id, held) if held else None)
    if SESSION_CSRF not in session:
        session[SESSION_CSRF] = secrets.token_urlsafe(24)
    return render_template("play.html", match_id=match_id, role=role,
                           csrf=session[SESSION_CSRF], players=players_of(match_id),
                           rulings=has_rulings(match_id), place=place_of(match_id))


def place_of(match_id: str) -> dict[str, str | None] | None:
    """Where the match is played, as its ``MatchOpened`` records it -- the tournament's name,
    "round 1, table 2" -- and the id of the tournament whose round holds it (its page is where
    a player goes once the match is over); ``None`` for a match of no tournament."""
    opened = services().tables.using(match_id, lambda table: table.opened)
    if not opened.tournament:
        return None
    where = ", ".join(f"{what} {n}" for what, n in (("round", opened.round),
                                                       ("table", opened.table)) if n)
    return {"name": opened.tournament, "where": where,
            "id": _tournament_holding(match_id, opened.tournament, opened.round or 0)}


def table_named(match_id: str) -> dict[str, str] | None:
    """The token form's heading: the tournament, round and table and the players by name, as
    the match list shows anyone; ``None`` when the match can't be read (the form still opens)."""
    try:
        place, players = place_of(match_id), players_of(match_id)
    except LedgerError:
        return None
    return {"where": f"{place['name']} · {place['where']}" if place else f"Table {match_id}",
            "players": " vs ".join(players[seat] for seat in sorted(players))}


def _tournament_holding(match_id: str, name: str, round_no: int) -> str | None:
    try:
        listed, _unreadable = organizer().listing()
    except LedgerError:
        return None
    for t in listed:
        if t.name == name and 1 <= round_no <= len(t.rounds) and any(
                tb.match_id == match_id for tb in t.rounds[round_no - 1].tables):
            return t.tournament_id
    return None


def players_of(match_id: str) -> dict[str, str]:
    """Seat -> player name, as the match records them (its ``MatchOpened``)."""
    return services().tables.using(
        match_id, lambda table: {info.seat: info.player for info in table.opened.seats})


def has_rulings(match_id: str) -> bool:
    """Whether the match's game has judge's operations (a ``ruling``, replay/game.py): the
    judge's page offers the Ruling form only then (POST …/manual refuses it otherwise)."""
    return services().tables.using(match_id, lambda table: hasattr(table.game, "ruling"))


@bp.route("/play/<match_id>", methods=["POST"])
def enter(match_id: str) -> tuple[str, int] | BaseResponse:
    known_match(match_id)
    return _enter(match_id, request.form.get("token", ""))


@bp.route("/play/<match_id>/leave", methods=["POST"])
def leave(match_id: str) -> BaseResponse:
    tables = dict(session.get(SESSION_TOKENS) or {})
    tables.pop(match_id, None)
    session[SESSION_TOKENS] = tables
    return redirect(url_for("play.page", match_id=match_id), code=303)


def _enter(match_id: str, token: str) -> tuple[str, int] | BaseResponse:
    token = token.strip()[:MAX_TOKEN]
    role = services().tokens.role_of(match_id, token)
    if role is None:
        return render_template("play_enter.html", match_id=match_id, table=table_named(match_id),
                               error="That is not a seat or judge token of this match."), 401
    session[SESSION_TOKENS] = kept_tables(dict(session.get(SESSION_TOKENS) or {}), match_id,
                                          {"role": role, "hash": hash_token(token)})
    session[SESSION_CSRF] = secrets.token_urlsafe(24)
    return redirect(url_for("play.page", match_id=match_id), code=303)


def kept_tables(tables: dict, match_id: str, entry: dict) -> dict:
    """The session's tables once ``match_id`` is entered with ``entry``: each numbered by when
    it was entered (``n``: the cookie's keys come back sorted, not in the order they were
    set), the earliest let go past :data:`TABLES_KEPT`."""
    def entered(key: str) -> int:
        number = tables[key].get("n") if isinstance(tables[key], dict) else None
        return number if isinstance(number, int) else 0  # kept before entries were numbered

    tables.pop(match_id, None)
    tables[match_id] = {**entry, "n": max(map(entered, tables), default=0) + 1}
    for key in sorted(tables, key=entered)[:max(0, len(tables) - TABLES_KEPT)]:
        del tables[key]
    return tables
