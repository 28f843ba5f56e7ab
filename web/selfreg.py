"""Players registering themselves: ``/tournaments/<id>/register?key=…`` and their player page.

The organizer opens registration (:meth:`web.tournaments.Organizer.open_registration`) and
shows its link -- with the registration key -- on paper or a screen.  On their phone a player
opens it and sends a name and a decklist (pasted ``count name`` lines, or a text file): the
organizer's own checks (:meth:`~web.tournaments.Organizer.self_register` goes through
``Organizer._registered``), each error one line on the page, the form kept.  Registered, they
land on their player page, which shows once their **player link**
(``/tournaments/<id>/me?token=…``): with it they see their registered list and replace it
(``DecklistReplaced``) until registration closes or round 1 is paired; after that the link
shows the list, final, under their day (:mod:`web.player_day`: this round's table, opponent,
seat and result, their earlier rounds, their standing).  Only hashes are kept: the key's in
``RegistrationOpened``, the player token's in their ``PlayerRegistered``.  A lost link is
replaced by the organizer (console, API, CLI: ``PlayerLinkReissued``, the new token's hash): the
old link, and a session opened with it, stop working at once; a player registered at the desk
may be given a link this way too.

Like ``/play``: opening the player link keeps the token's *hash* in the signed session cookie
and redirects to the bare ``/tournaments/<id>/me`` (the token leaves the address bar); every
post carries the session's CSRF token and must come from this site
(:func:`web.play.same_origin_posts`).  A wrong or replaced key, a closed registration, a round
paired or a token that is no player's of this tournament is refused with one line (403); a
page never shows another player's list.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from flask import Blueprint, redirect, render_template, request, session, url_for
from werkzeug.wrappers import Response as BaseResponse

from ledger.catalogue import DecklistError
from ledger.errors import ConflictError
from ledger.tournament import (
    MAX_DECKLIST,
    MAX_NAME,
    RegistrationRefusedError,
    Tournament,
    TournamentError,
    UnknownTournamentError,
)
from web.api.tournaments import organizer
from web.errors import ForbiddenError, IllegalError, NotFoundError
from web.play import same_origin_posts
from web.player_day import player_day
from web.tokens import hash_token

bp = Blueprint("selfreg", __name__)
SESSION_CSRF = "selfreg_csrf"
SESSION_PLAYERS = "selfreg_players"  # tournament id -> the player token's hash
SESSION_NEW = "selfreg_new"  # the token just issued, shown once on the player page
MAX_KEY = 200
#: What a refused form shows again of a pasted decklist (the refusal says it is too long).
SHOWN_DECKLIST = MAX_DECKLIST
#: A name is never cut (the check refuses one over :data:`MAX_NAME`); a post's field past
#: this is no name anyone typed: the check sees this much of it, enough to say how long.
MAX_FIELD = 100_000
Page = tuple[str, int]


@bp.before_request
def checked_posts() -> None:
    same_origin_posts()  # from this site only
    if request.method == "POST":
        sent = request.form.get("csrf", "")
        if not sent or not hmac.compare_digest(sent, session.get(SESSION_CSRF, "")):
            raise ForbiddenError(f"{request.path}: the form's session has expired; open the "
                                 f"link again")


def _csrf() -> str:
    if SESSION_CSRF not in session:
        session[SESSION_CSRF] = secrets.token_urlsafe(24)
    return str(session[SESSION_CSRF])


def _load(tournament_id: str) -> Tournament:
    try:
        return organizer().load(tournament_id)
    except (UnknownTournamentError, TournamentError):
        raise NotFoundError(f"no tournament {tournament_id[:120]!r} here") from None


def _register_page(t: Tournament, key: str, status: int = 200, error: str | None = None,
                   refused: str | None = None, form: dict[str, str] | None = None) -> Page:
    return render_template("register.html", t=t, key=key, csrf=_csrf(), error=error,
                           refused=refused, form=form or {}, game=_game(t)), status


def _game(t: Tournament) -> dict[str, Any]:
    """What the pages say of the tournament's game: its title, whether it has a catalogue
    (Wonders of The First: set numbers, DBS, an archive of tokens)."""
    org = organizer()
    return {"title": org.game_of(t).title, "catalogue": org.has_catalogue(t)}


@bp.get("/tournaments/<tournament_id>/register")
def register_form(tournament_id: str) -> Page:
    t = _load(tournament_id)
    key = request.args.get("key", "").strip()[:MAX_KEY]
    try:
        organizer().check_key(t, key)
    except RegistrationRefusedError as exc:
        return _register_page(t, "", 403, refused=str(exc))
    return _register_page(t, key)


@bp.post("/tournaments/<tournament_id>/register")
def register(tournament_id: str) -> Page | BaseResponse:
    t = _load(tournament_id)
    key = request.form.get("key", "").strip()[:MAX_KEY]
    name = request.form.get("player", "")[:MAX_FIELD]
    pasted = request.form.get("decklist", "")
    form = {"player": name[:MAX_NAME], "decklist": pasted[:SHOWN_DECKLIST]}
    try:
        text = _uploaded() or pasted
        if not text.strip():
            raise IllegalError("paste your decklist ('count name' lines) or choose its file")
        t, token = organizer().self_register(tournament_id, key, name, text)
    except RegistrationRefusedError as exc:
        return _register_page(t, "", 403, refused=str(exc))
    except (DecklistError, TournamentError, ConflictError, IllegalError) as exc:
        return _register_page(t, key, 422, error=str(exc), form=form)
    _remember(tournament_id, hash_token(token))
    session[SESSION_NEW] = token
    return redirect(url_for("selfreg.player_page", tournament_id=tournament_id), code=303)


def _uploaded() -> str:
    """A decklist file's text ('' when none was chosen); one line if it is no small text."""
    upload = request.files.get("decklist_file")
    if upload is None or not upload.filename:
        return ""
    data = upload.read(MAX_DECKLIST + 1)
    if len(data) > MAX_DECKLIST:
        raise IllegalError(f"{upload.filename[-80:]}: larger than {MAX_DECKLIST // 1000} kB; a "
                           f"decklist is 'count name' lines")
    try:
        return data.decode("utf-8-sig")  # a byte order mark (Notepad) is no part of line 1
    except UnicodeDecodeError:
        raise IllegalError(f"{upload.filename[-80:]}: not UTF-8 text; paste the list "
                           f"instead") from None


def _remember(tournament_id: str, digest: str) -> None:
    players = dict(session.get(SESSION_PLAYERS) or {})
    players[tournament_id] = digest
    session[SESSION_PLAYERS] = players
    session[SESSION_CSRF] = secrets.token_urlsafe(24)


@bp.get("/tournaments/<tournament_id>/me")
def player_page(tournament_id: str) -> Page | BaseResponse:
    t = _load(tournament_id)
    token = request.args.get("token")
    if token is not None:  # the player link: kept as a hash, then the bare address
        digest = hash_token(token.strip()[:MAX_KEY])
        try:
            organizer().player_of(t, digest)
        except RegistrationRefusedError as exc:
            return _player_page(t, None, 403, refused=str(exc))
        _remember(tournament_id, digest)
        return redirect(url_for("selfreg.player_page", tournament_id=tournament_id), code=303)
    return _player_page(t, _digest(tournament_id))


def _digest(tournament_id: str) -> str:
    return str((session.get(SESSION_PLAYERS) or {}).get(tournament_id, ""))


def _player_page(t: Tournament, digest: str | None, status: int = 200,
                 error: str | None = None, refused: str | None = None,
                 form: dict[str, str] | None = None) -> Page:
    player = None
    if refused is None:
        try:
            player = organizer().player_of(t, digest or "")
        except RegistrationRefusedError as exc:
            refused, status = (f"{exc}: open your latest player link (lost it? the "
                               f"organizer gives you a new one)"), 403
    new = session.pop(SESSION_NEW, None) if player is not None else None
    link = (url_for("selfreg.player_page", tournament_id=t.tournament_id, token=new,
                    _external=True) if new else None)
    values: dict[str, Any] = {"t": t, "player": player, "csrf": _csrf(), "error": error,
                              "refused": refused, "link": link, "form": form or {},
                              "game": _game(t),
                              "day": player_day(t, player) if player is not None else None}
    return render_template("register_player.html", **values), status


@bp.post("/tournaments/<tournament_id>/me/decklist")
def replace_decklist(tournament_id: str) -> Page | BaseResponse:
    t = _load(tournament_id)
    digest = _digest(tournament_id)
    pasted = request.form.get("decklist", "")
    form = {"decklist": pasted[:SHOWN_DECKLIST]}
    try:
        text = _uploaded() or pasted
        if not text.strip():
            raise IllegalError("paste your new decklist ('count name' lines) or choose its file")
        organizer().replace_decklist(tournament_id, digest, text)
    except RegistrationRefusedError as exc:
        if not organizer().load(tournament_id).player_with_token(digest):
            return _player_page(t, digest, 403)
        return _player_page(t, digest, 403, error=str(exc))
    except (DecklistError, TournamentError, ConflictError, IllegalError) as exc:
        return _player_page(t, digest, 422, error=f"{NOT_REPLACED}\n{exc}", form=form)
    return redirect(url_for("selfreg.player_page", tournament_id=tournament_id,
                            replaced=1), code=303)


@bp.get("/tournaments/<tournament_id>/me/decklist")
def replaced_page_reopened(tournament_id: str) -> BaseResponse:
    """The address a refused replacement answered at, opened again (a phone restoring the tab,
    a bookmark): the player's own page, not the server's "method not allowed"."""
    return redirect(url_for("selfreg.player_page", tournament_id=tournament_id), code=303)


#: The first line of a refused replacement: the page shows the registered list just below it,
#: and a player reading only "line 2: 4 copies of Sun Knight …" took the new list as sent.
NOT_REPLACED = ("Your decklist was not replaced: your registered list (below) still stands. "
                "Fix the new list under Replace your decklist and send it again.")


__all__ = ["bp"]
