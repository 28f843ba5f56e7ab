"""The organizer console ``/organize``: a tournament from registration to standings, on a phone.

Entry: the form at ``/organize`` takes the organizer token and keeps only its *hash* in the
signed session cookie (like ``/play``'s seats); the session holds while the organizer token
and the app's secret key stay the same.  Every page is rendered on the server (no script
needed), every post carries the session's CSRF token and must come from this site (the same
``Origin``/``Referer`` check as ``/play``).

Pages: the tournaments (each with its game) and a create form (a name and the game: Wonders of
The First or State of Wonder); one tournament's page, naming its game -- open registration for
the players to register themselves (a page with the link and its QR code, :mod:`web.selfreg`),
close it, register a player (decklist pasted as ``count name`` lines), each player's latest
list, remove a registration before round 1 (junk, say; a flood of junk at once: the
self-registrations from one player on, listed and ticked before *Yes* removes them), give a
player a new player link (a lost one: a second tap confirms it; a page with the link and its
QR code, shown once), drop (a second tap confirms it) and reinstate, start the next round,
the round board (each table's players by name, live / ended and the result, a link to its
viewer), reissue or revoke a table's token (a revoke is confirmed on a page naming the table
and the token), the standings and the CSV downloads.  Starting a round and reissuing
answer with a page of seat and judge links, each as a URL and a QR code (SVG drawn here by
``segno``; nothing is fetched at run time).  Tokens are shown once, on that page: a lost one is
reissued.  The operations are :class:`web.tournaments.Organizer`'s, as in the JSON API.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import segno
from flask import Blueprint, Response, redirect, render_template, request, session, url_for
from werkzeug.wrappers import Response as BaseResponse

from ledger.catalogue import DecklistError
from ledger.errors import ConflictError
from ledger.roundclock import round_clock
from ledger.tournament import (
    MAX_PLAYERS,
    MAX_POOL_FILE,
    Tournament,
    TournamentError,
    UnknownTournamentError,
    parse_at,
    standings,
)
from replay.counted import counted
from replay.errors import CardDataError
from web.api.common import services
from web.api.tournaments import links, organizer, player_link, registration_link, table_out
from web.errors import ForbiddenError, IllegalError, NotFoundError
from web.play import same_origin_posts
from web.selfreg import MAX_FIELD
from web.tokens import hash_token
from web.tournaments import TableStart

log = logging.getLogger("wonders.web")

bp = Blueprint("organize", __name__)
SESSION_KEY = "organizer"
SESSION_CSRF = "organize_csrf"
MAX_TOKEN = 200
Page = tuple[str, int]  # a rendered page and its status


@bp.before_request
def checked_posts() -> None:
    same_origin_posts()  # a post changes the tournament or the session: from this site only
    if request.method == "POST" and request.endpoint not in ("organize.login",):
        sent = request.form.get("csrf", "")
        if not signed_in() or not hmac.compare_digest(sent, session.get(SESSION_CSRF, "")):
            raise ForbiddenError(f"{request.path}: the form's session has expired; open "
                                 f"/organize and sign in again")


def signed_in() -> bool:
    held = session.get(SESSION_KEY)
    expected = hash_token(services().settings.organizer_token)
    return isinstance(held, str) and hmac.compare_digest(held, expected)


def qr_svg(url: str) -> str:
    """The URL as a QR code, an inline ``<svg>`` element with a ``viewBox`` and no size of its
    own: the stylesheet sizes it, and the code scales with it (with a fixed size, a larger box
    held the code small in its corner)."""
    return segno.make(url, error="m").svg_inline(scale=3, border=2, omitsize=True)


def _page(template: str, status: int = 200, **values: Any) -> Page:
    if SESSION_CSRF not in session:
        session[SESSION_CSRF] = secrets.token_urlsafe(24)
    return render_template(template, csrf=session[SESSION_CSRF], **values), status


@bp.route("/organize", methods=["GET"])
def home() -> Page:
    if not signed_in():
        return _page("organize_login.html", error=None)
    return _home()


def _home(error: str | None = None, status: int = 200) -> Page:
    listed, unreadable = organizer().listing()
    return _page("organize.html", status, tournaments=listed, unreadable=unreadable, error=error,
                 games=_games(), titles=_titles())


def _games() -> list[tuple[str, str]]:
    """The games a tournament may be of, ``(name, title)``, the default first."""
    from replay.games import game, names
    from web.tournaments import GAME
    return [(n, game(n).title) for n in sorted(names(), key=lambda n: (n != GAME, n))]


def _titles() -> dict[str, str]:
    return dict(_games())


@bp.route("/organize/login", methods=["POST"])
def login() -> Page | BaseResponse:
    token = request.form.get("token", "").strip()[:MAX_TOKEN]
    if not hmac.compare_digest(hash_token(token), hash_token(services().settings.organizer_token)):
        return _page("organize_login.html", 401, error="That is not the organizer token.")
    session[SESSION_KEY] = hash_token(token)
    session[SESSION_CSRF] = secrets.token_urlsafe(24)
    return redirect(url_for("organize.home"), code=303)


@bp.route("/organize/logout", methods=["POST"])
def logout() -> BaseResponse:
    session.pop(SESSION_KEY, None)
    session.pop(SESSION_CSRF, None)
    return redirect(url_for("organize.home"), code=303)


@bp.route("/organize/tournaments", methods=["POST"])
def create() -> Page | BaseResponse:
    try:
        t = organizer().create(request.form.get("name", "")[:MAX_FIELD],
                               request.form.get("tournament_id") or None,
                               game_name=request.form.get("game", "")[:40] or "wotf",
                               round_minutes=form_minutes())
    except (TournamentError, ConflictError) as exc:
        return _home(str(exc), 422)
    return redirect(url_for("organize.tournament", tournament_id=t.tournament_id), code=303)


def _require() -> BaseResponse | None:
    if not signed_in():
        return redirect(url_for("organize.home"), code=303)
    return None


@bp.route("/organize/t/<tournament_id>", methods=["GET"])
def tournament(tournament_id: str) -> Page | BaseResponse:
    return _require() or _tournament(tournament_id)


#: What a page that answered a post showed only then, said when its address is opened again
#: (the phone reloaded the tab, the address was bookmarked or shared): its tokens and keys are
#: kept only as hashes, so the page can't be shown again.
SHOWN_ONCE = {
    "rounds": "A round's seat and judge links were shown once, when it started: their tokens "
              "are kept only as hashes. A lost one: reissue it on the round board below.",
    "reissue": "Reissued links were shown once, when they were made: their tokens are kept "
               "only as hashes. A lost one: reissue it again on the round board below.",
    "registration": "The registration link was shown once, when registration was opened: its "
                    "key is kept only as a hash. Lost it? New link under Players register "
                    "themselves, below (the old one stops working).",
    "player-links": "A player's new link was shown once, when it was made: its token is kept "
                    "only as a hash. Lost again? New link beside the player, below.",
}

#: The console's other post-only addresses: opened again (a refused form's page reloaded),
#: they go to the tournament's page.
POSTS_ONLY = ("players", "cards", "registration/close", "removals", "bulk-removals", "drops",
              "reinstatements", "clock", "revoke")


def _reopened(tournament_id: str, action: str) -> Page | BaseResponse:
    """A console page that answered a post, opened by its address: the tournament's page
    saying why its links can't be shown again, never the server's "method not allowed"."""
    if action not in SHOWN_ONCE:
        return redirect(url_for("organize.tournament", tournament_id=tournament_id), code=303)
    return _require() or _tournament(tournament_id, SHOWN_ONCE[action])


for _action in (*SHOWN_ONCE, *POSTS_ONLY):
    bp.add_url_rule(f"/organize/t/<tournament_id>/{_action}", f"reopened_{_action}",
                    _reopened, methods=["GET"], defaults={"action": _action})


@bp.route("/organize/t/<tournament_id>/rounds/<int:number>", methods=["GET"])
def round_board(tournament_id: str, number: int) -> Page | BaseResponse:
    """One round's whole board (an earlier round's: the tournament's page shows the latest)."""
    return _require() or _tournament(tournament_id, board=number)


def _tournament(tournament_id: str, error: str | None = None, status: int = 200,
                form: dict[str, str] | None = None, confirm: dict[str, Any] | None = None,
                board: int | None = None) -> Page:
    """The tournament's page: the latest round's board in full (an earlier round is a line
    linking to its own page, ``board``: 300 players' nine rounds are 1,350 tables), the
    standings, the players.  The matches' results are read once for all of it."""
    org = organizer()
    try:
        t = org.load(tournament_id)
    except (UnknownTournamentError, TournamentError) as exc:
        raise NotFoundError(str(exc)) from None
    if board is not None and not 1 <= board <= len(t.rounds):
        raise NotFoundError(f"{t.name}: no round {board} (rounds paired: {len(t.rounds)})")
    results, damaged = org.readable_results(t)  # a damaged match: its table says so
    for match_id, problem in damaged.items():
        log.error("%s: match %s can't be read: %s", request.path, match_id, problem)
    full = board if board is not None else len(t.rounds)
    rounds = []
    for r in reversed(t.rounds):
        tables = [_unreadable(table_out(tb, results)) if tb.match_id in damaged
                  else table_out(tb, results) for tb in r.tables]
        rounds.append({"number": r.number, "started": r.started, "bye": r.bye, "tables": tables,
                       "clock": round_clock(t, r),
                       "full": r.number == full,
                       "live": [tb.table for tb in tables if tb.status == "live"],
                       "ended": sum(1 for tb in tables if tb.status == "ended")})
    about = {"title": org.game_of(t).title, "catalogue": org.has_catalogue(t)}
    if board is not None:
        return _page("organize.html", status, t=t, rounds=rounds, board_only=True,
                     error=error, tournaments=None, confirm=None, form={}, game=about,
                     damaged=sorted(damaged))
    return _page("organize.html", status, t=t, rounds=rounds, standings=standings(t, results),
                 damaged=sorted(damaged),
                 presets=_presets(t), error=error, form=form or {}, tournaments=None,
                 confirm=confirm, board_only=False, game=about)


def _unreadable(table: Any) -> SimpleNamespace:
    """A board's table whose match can't be read (its file damaged): said so, not "live"."""
    return SimpleNamespace(**{**table.model_dump(), "status": "unreadable",
                              "result": "can't be read (wonders verify MATCH gives why)"})


def _presets(t: Any) -> dict[str, str]:
    """The decks the organizer may record at the tables: id (what the form sends) -> the
    deck's title (what the console shows: *Solfera Blaze*), by title."""
    from replay.games import deck_title
    from web.api.organizer import preset_decks
    org = organizer()
    played = org.game_of(t)
    titles = {key: deck_title(played, key)
              for key in preset_decks(played, org.pool_for(t.game))}
    return dict(sorted(titles.items(), key=lambda item: (item[1].lower(), item[0])))


def _act(tournament_id: str, action: Callable[[], Page | None]) -> Page | BaseResponse:
    """Run a change; an error is one line on the tournament's page."""
    if (redirected := _require()) is not None:
        return redirected
    try:
        out = action()
    except (DecklistError, TournamentError, ConflictError, IllegalError) as exc:
        if isinstance(exc, UnknownTournamentError):
            raise NotFoundError(str(exc)) from None
        return _tournament(tournament_id, str(exc), 422, form=dict(request.form))
    if out is None:
        return redirect(url_for("organize.tournament", tournament_id=tournament_id), code=303)
    return out


def _no_page(_changed: object) -> None:
    """A change the tournament's own page shows: :func:`_act` redirects there (``None``)."""
    return None


@bp.route("/organize/t/<tournament_id>/players", methods=["POST"])
def register(tournament_id: str) -> Page | BaseResponse:
    f = request.form
    return _act(tournament_id, lambda: _no_page(organizer().register(
        tournament_id, f.get("player", "")[:MAX_FIELD], f.get("decklist", ""),
        f.get("preset") or None)))


@bp.route("/organize/t/<tournament_id>/cards", methods=["POST"])
def import_cards(tournament_id: str) -> Page | BaseResponse:
    """A pool file uploaded from the console: its printed stats join the tournament's pool; a
    bad file is one line per bad row on the page (nothing imported)."""
    upload = request.files.get("pool")

    def run() -> None:
        if upload is None or not upload.filename:
            raise IllegalError("choose a pool file (.csv or .toml) to import")
        data = upload.read(MAX_POOL_FILE + 1)
        if len(data) > MAX_POOL_FILE:
            raise IllegalError(f"{upload.filename}: larger than 1 MB")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise IllegalError(f"{upload.filename}: not UTF-8 text") from None
        try:
            organizer().import_cards(tournament_id, text, upload.filename[-200:])
        except CardDataError as exc:
            raise IllegalError(str(exc)) from None
    return _act(tournament_id, run)


@bp.route("/organize/t/<tournament_id>/registration", methods=["POST"])
def open_registration(tournament_id: str) -> Page | BaseResponse:
    """Open registration (or replace its link): a page with the link and its QR code, to
    print or show on a screen -- shown once, like the seats' links (a lost one: a new link)."""
    def run() -> Page:
        _as_shown(tournament_id, "link", registration_marker,
                  "registration's link was changed since this page was shown (a reloaded "
                  "page sends its form again): nothing changed, and the link shown last still "
                  "works. For a new link, tap New link under Players register themselves.")
        t, key = organizer().open_registration(tournament_id)
        url = registration_link(t.tournament_id, key)
        return _page("organize_registration.html", 201, t=t, url=url, qr=qr_svg(url))
    return _act(tournament_id, run)


@bp.route("/organize/t/<tournament_id>/registration/close", methods=["POST"])
def close_registration(tournament_id: str) -> Page | BaseResponse:
    return _act(tournament_id, lambda: _no_page(organizer().close_registration(tournament_id)))


@bp.route("/organize/t/<tournament_id>/removals", methods=["POST"])
def remove(tournament_id: str) -> Page | BaseResponse:
    return _act(tournament_id, lambda: _no_page(organizer().remove(
        tournament_id, request.form.get("player", "")[:120])))


@bp.route("/organize/t/<tournament_id>/bulk-removals", methods=["POST"])
def remove_many(tournament_id: str) -> Page | BaseResponse:
    """Junk from the registration link, removed at once: the self-registrations from one
    player on are listed first, each ticked (untick a real player); only *Yes* removes the
    ticked ones -- those named on the page, never one who registered after it was shown."""
    def run() -> Page | None:
        if request.form.get("confirm") == "yes":
            chosen = [name[:120] for name in request.form.getlist("player")[:MAX_PLAYERS]]
            if not chosen:
                raise IllegalError("no player was ticked: nothing removed")
            organizer().remove_many(tournament_id, chosen)
            return None
        t = organizer().load(tournament_id)
        if t.rounds:
            raise TournamentError(f"{t.name}: round 1 is paired; players can be dropped, not "
                                  f"removed")
        first = request.form.get("from", "")[:120]
        junk = t.self_registered_from(first)
        confirm = {"question": f"Remove {counted(len(junk), 'player')} who registered "
                               f"themselves, from {junk[0].name} on?",
                   "detail": "Untick anyone who is a real player. The ticked ones are removed "
                             "as if never registered: their player links stop working and "
                             "their names are free again. Players the desk registered are "
                             "not listed.",
                   "button": "Yes, remove the ticked players", "fields": {},
                   "players": [(p.name, _clock_time(p.registered_at)) for p in junk],
                   "action": url_for("organize.remove_many", tournament_id=tournament_id)}
        return _tournament(tournament_id, confirm=confirm)
    return _act(tournament_id, run)


@bp.app_template_filter("clock_time")
def _clock_time(at: str) -> str:
    """A log line's ``at`` as the console shows it: ``14:32:05 UTC`` (``''``: none)."""
    return f"{parse_at(at):%H:%M:%S} UTC" if at else ""


@bp.route("/organize/t/<tournament_id>/player-links", methods=["POST"])
def reissue_player_link(tournament_id: str) -> Page | BaseResponse:
    """A player's new link (a lost one; asked on the player's row first): a page with the link
    and its QR code, shown once -- their old link stops working at once."""
    def run() -> Page:
        who = request.form.get("player", "")[:120]
        _as_shown(tournament_id, "links", lambda t: _links_given(t, who),
                  f"{who} was given a new player link since this page was shown (a reloaded "
                  f"page sends its form again): nothing changed, and the link shown then still "
                  f"works. For another, tap New link beside them.")
        t, name, token = organizer().reissue_player_link(tournament_id, who)
        url = player_link(t.tournament_id, token)
        p = t.players.get(name)  # None only if removed at another desk meanwhile
        had_one = p is not None and (p.is_self_registered or p.links_reissued > 1)
        return _page("organize_player_link.html", 201, t=t, name=name, had_one=had_one,
                     url=url, qr=qr_svg(url))
    return _act(tournament_id, run)


@bp.route("/organize/t/<tournament_id>/drops", methods=["POST"])
def drop(tournament_id: str) -> Page | BaseResponse:
    return _act(tournament_id, lambda: _no_page(organizer().drop(
        tournament_id, request.form.get("player", "")[:120])))


@bp.route("/organize/t/<tournament_id>/reinstatements", methods=["POST"])
def reinstate(tournament_id: str) -> Page | BaseResponse:
    return _act(tournament_id, lambda: _no_page(organizer().reinstate(
        tournament_id, request.form.get("player", "")[:120])))


@bp.route("/organize/t/<tournament_id>/rounds", methods=["POST"])
def start_round(tournament_id: str) -> Page | BaseResponse:
    def run() -> Page:
        _not_started_yet(tournament_id, request.form.get("round"))
        t, started = organizer().start_round(tournament_id)
        return _links_page(t.name, tournament_id, f"Round {t.current.number if t.current else 0}",
                           started, t.current.bye if t.current else None,
                           organizer().game_of(t).title)
    return _act(tournament_id, run)


def _as_shown(tournament_id: str, field: str, now: Callable[[Tournament], str],
              changed: str) -> None:
    """A form whose answer is shown once (a new registration link, a player's new link, new
    seat tokens) carries what it was shown against (``field``): sent again once that changed
    -- a reloaded answer page sends its form again -- it would make yet another link and cut
    off the one just handed out (printed, scanned); it changes nothing and says so."""
    sent = request.form.get(field)
    if sent is None:
        return
    t = organizer().load(tournament_id)
    if sent != now(t):
        raise TournamentError(f"{t.name}: {changed}")


def registration_marker(t: Tournament) -> str:
    """What the registration forms are shown against: the open link's key hash's start, or
    ``closed`` (not the key: only its hash is kept)."""
    return (t.registration_key_hash or "closed")[:16]


def _links_given(t: Tournament, name: str) -> str:
    try:
        return str(t.player(name).links_reissued)
    except TournamentError:
        return ""  # no such player: the reissue itself says so


def _not_started_yet(tournament_id: str, wanted: str | None) -> None:
    """The start form names the round its button starts: the same form sent again (a reloaded
    links page, a second phone's stale page) once that round is under way -- or over, when it
    would have paired the next one unasked -- pairs nothing and says why."""
    if wanted is None:
        return
    t = organizer().load(tournament_id)
    cur = t.current
    number = cur.number if cur and not cur.started else len(t.rounds) + 1
    if wanted != str(number):
        raise TournamentError(
            f"{t.name}: this button was for round {wanted[:6]}, and the next round is {number} "
            f"(a reloaded page sends its form again): nothing was paired. A round's links were "
            f"shown once, when it started; a lost one is reissued on the round board. To start "
            f"round {number}, tap Pair and start round {number}.")


@bp.route("/organize/t/<tournament_id>/clock", methods=["POST"])
def set_round_time(tournament_id: str) -> Page | BaseResponse:
    return _act(tournament_id, lambda: _no_page(organizer().set_round_time(
        tournament_id, form_minutes())))


def form_minutes() -> int:
    """The form's round time in minutes (empty: 0, untimed); anything else but a whole
    number is the tournament's error, one line."""
    text = request.form.get("round_minutes", "").strip()[:6]
    if not text:
        return 0
    if not (text.isascii() and text.isdigit()):
        raise TournamentError(f"round time {text!r}: a whole number of minutes (0: untimed)")
    return int(text)


@bp.route("/organize/t/<tournament_id>/reissue", methods=["POST"])
def reissue(tournament_id: str) -> Page | BaseResponse:
    def run() -> Page:
        _as_shown(tournament_id, "tokens", lambda t: str(len(t.reissued)),
                  "tokens were reissued or revoked since this page was shown (a reloaded page "
                  "sends its form again): nothing changed, and the links shown then still "
                  "work. To reissue one, choose it on the round board and tap Reissue.")
        round_no, table_no, role = _int("round"), _int("table"), _role("reissue")
        t = organizer().load(tournament_id)
        tb = t.table(round_no, table_no)
        match_id, tokens = organizer().reissue(tournament_id, round_no, table_no, role)
        started = TableStart(round_no, table_no, tb.a, tb.b, match_id, tokens)
        return _links_page(t.name, tournament_id, f"Round {round_no}, table {table_no}: new "
                           f"{'tokens' if role == 'all' else role + ' token'}", [started], None,
                           organizer().game_of(t).title)
    return _act(tournament_id, run)


@bp.route("/organize/t/<tournament_id>/revoke", methods=["POST"])
def revoke(tournament_id: str) -> Page | BaseResponse:
    """A revoke is asked first: a page naming the table and whose token stops working; only
    its *Yes* (``confirm=yes``) revokes."""
    def run() -> Page | None:
        round_no, table_no, role = _int("round"), _int("table"), _role("revoke")
        if request.form.get("confirm") == "yes":
            organizer().revoke(tournament_id, round_no, table_no, role)
            return None
        t = organizer().load(tournament_id)
        tb = t.table(round_no, table_no)
        whose = {"A": f"{tb.a}'s seat token (A)", "B": f"{tb.b}'s seat token (B)",
                 "judge": "the judge's token", "all": f"all three tokens ({tb.a}'s, {tb.b}'s "
                                                     f"and the judge's)"}[role]
        confirm = {"question": f"Revoke {whose} of round {round_no}, table {table_no} "
                               f"({tb.a} vs {tb.b})?",
                   "detail": "It stops working at once and nothing new is shown: to give a "
                             "new one, reissue it.",
                   "button": "Yes, revoke", "fields": {"round": round_no, "table": table_no,
                                                       "role": role},
                   "action": url_for("organize.revoke", tournament_id=tournament_id)}
        return _tournament(tournament_id, confirm=confirm)
    return _act(tournament_id, run)


def _role(doing: str) -> str:
    role = request.form.get("role", "")
    if role not in ("A", "B", "judge", "all"):
        raise TournamentError(f"choose which token to {doing}: a seat's, the judge's or all "
                              f"three")
    return role


def _int(name: str) -> int:
    raw = request.form.get(name, "")
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 6:  # int() refuses "²"
        raise TournamentError(f"{name}: {raw[:20]!r} is not a number")
    return int(raw)


def _links_page(name: str, tournament_id: str, heading: str, started: list[TableStart],
                bye: str | None, game: str) -> Page:
    tables = []
    for s in started:
        urls = links(s.match_id, s.tokens) if s.tokens else {}
        roles = [{"role": role, "who": {"A": s.a, "B": s.b}.get(role, "judge"), "url": url,
                  "qr": qr_svg(url)} for role, url in urls.items()]
        tables.append({"table": s.table, "a": s.a, "b": s.b, "match_id": s.match_id,
                       "round": s.round, "roles": roles})
    return _page("organize_links.html", 201, name=name, tournament_id=tournament_id,
                 heading=heading, tables=tables, bye=bye, game=game)


@bp.route("/organize/t/<tournament_id>/<kind>.csv", methods=["GET"])
def download(tournament_id: str, kind: str) -> Response:
    if not signed_in():
        raise ForbiddenError("/organize: sign in with the organizer token first")
    org = organizer()
    try:
        text = org.csv(org.load(tournament_id), kind)
    except (UnknownTournamentError, TournamentError) as exc:
        raise NotFoundError(str(exc)) from None
    return Response(text, mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="{tournament_id}-{kind}.csv"'})


__all__ = ["bp", "qr_svg"]
