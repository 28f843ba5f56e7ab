"""Tournament endpoints (``/api/tournaments…``), all for the organizer's bearer token.

Create a tournament of a game (Wonders of The First by default, or State of Wonder), open (and
close) registration for the players to register themselves (``/tournaments/<id>/register?key=…``,
:mod:`web.selfreg`), register players (decklists as ``count name`` lines: a Wonders deck checked
against the catalogue and rule 303, a State of Wonder deck against its pool and its deck rules;
a registration after round 1 is paired is a late entry), remove one before round 1, give a
player a new player link (a lost one; the old one stops working), drop a player (and
reinstate one dropped by mistake), start the next round (Swiss pairing and every
table's match with its tokens, in one call), read the round board and the standings, download pairings,
results and standings as CSV, reissue or revoke a table's token.  The work is done by
:class:`web.tournaments.Organizer`; every change is an event of the tournament's log
(:mod:`ledger.tournament`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Annotated, Any, Literal, ParamSpec, TypeVar

from flask import Blueprint, Response, current_app, request
from pydantic import BaseModel, ConfigDict, Field

from ledger.catalogue import DecklistError
from ledger.roundclock import MAX_ROUND_MINUTES, round_clock
from ledger.tournament import (
    Result,
    Round,
    Tournament,
    TournamentError,
    UnknownPlayerError,
    UnknownTournamentError,
    result_of,
    standings,
)
from replay.errors import CardDataError
from web.api.common import parse_body, require_organizer, services
from web.api.openapi import route
from web.api.organizer import game_of_body
from web.errors import IllegalError, MalformedRequestError, NotFoundError
from web.tournaments import Organizer, TableStart, UnreadableTable

log = logging.getLogger("wonders.web")
bp = Blueprint("tournaments", __name__, url_prefix="/api")
ERRORS = (400, 404, 409, 422)
Name = Annotated[str, Field(min_length=1, max_length=120)]
Role = Literal["A", "B", "judge", "all"]
P = ParamSpec("P")
R = TypeVar("R")


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateTournament(Body):
    name: Name
    tournament_id: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")] | None = \
        Field(None, description="default: made from the name")
    game: Annotated[str, Field(max_length=40)] = Field(
        "wotf", description="the game every table plays: wotf (Wonders of The First, the "
                            "default) or sow (State of Wonder)")
    ruleset: Annotated[str, Field(max_length=40)] | None = Field(
        None, description="default: the game's newest (wotf: 1.3.2, or 1.2; sow: 004)")
    round_minutes: Annotated[int, Field(ge=0, le=MAX_ROUND_MINUTES)] | None = Field(
        None, description="a round's time in minutes (its clock starts with the round); "
                          "null or 0: untimed")


class RoundTime(Body):
    minutes: Annotated[int, Field(ge=0, le=MAX_ROUND_MINUTES)] = Field(
        description="a round's time from now on, the round under way included (0: untimed)")


class RegisterPlayer(Body):
    player: Name
    decklist: Annotated[str, Field(min_length=1, max_length=20_000)] = Field(
        description="'count name' lines. Wonders of The First: names or set numbers, 50 "
                    "main-deck cards, tokens go to the archive (rule 303). State of Wonder: "
                    "names of its pool, 1 State, 1 Wonder or Hero and 15 more cards")
    preset: Annotated[str, Field(max_length=120)] | None = Field(
        None, description="a deck the game ships, recorded at the tables instead of the "
                          "decklist (for a decklist with cards the pool has no rules data for)")


class DropPlayer(Body):
    player: Name


class RemovePlayers(Body):
    players: Annotated[list[Name], Field(max_length=1024)] = Field(
        default_factory=list, description="players to remove, by name")
    self_registered_from: Name | None = Field(
        None, description="also every player who registered themselves from this one on, "
                          "in the order they registered (the desk's players left alone)")


class NewPlayerLink(Body):
    player: Name


class TableToken(Body):
    round: Annotated[int, Field(ge=1, le=1000)]
    table: Annotated[int, Field(ge=1, le=100_000)]
    role: Role = "all"


class PlayerOut(BaseModel):
    name: str
    dbs: int | None = Field(description="the deck's DBS (rule 303.2); null in a game "
                                        "without one (State of Wonder)")
    entered: int = Field(description="0, or the round before which a late entry entered")
    dropped: int | None = Field(None, description="the last round paired before the drop")
    preset: str | None = None
    cards: dict[str, int]
    archive: dict[str, int]
    self_registered: bool = Field(False, description="registered themselves (with the "
                                                     "registration link)")
    replaced: int = Field(0, description="how often they replaced their decklist")
    has_link: bool = Field(False, description="holds a player link: registered themselves, or "
                                              "was given one (POST …/player-links)")
    links_reissued: int = Field(0, description="how often the organizer gave them a new "
                                               "player link")
    registered_at: str | None = Field(None, description="when they registered (UTC)")


class RegistrationOut(BaseModel):
    tournament_id: str
    key: str = Field(description="the registration key (shown once; only its hash is kept)")
    link: str = Field(description="the page where players register themselves: print it or "
                                  "show it (with its QR code, on the console) at the venue")


class PlayerLinkOut(BaseModel):
    tournament_id: str
    player: str = Field(description="the player's name as registered")
    token: str = Field(description="the new player link's token (shown once; only its hash "
                                   "is kept): the old link stopped working")
    link: str = Field(description="the player's page (/tournaments/{id}/me?token=…): give it "
                                  "to the player (the console shows its QR code)")
    can_replace: bool = Field(description="whether the link replaces the decklist now "
                                          "(registration open, round 1 not paired); otherwise "
                                          "it shows the registered list")


class TableOut(BaseModel):
    table: int
    a: str
    b: str
    match_id: str | None
    status: Literal["not started", "live", "ended", "unreadable"] = Field(description=(
        "'unreadable': the match's stored data can't be read (its file damaged); its result "
        "is unknown until the file is restored"))
    result: str = Field(description="the winner's name, 'draw', 'playing', 'not started' or "
                                    "'unreadable'")
    problem: str | None = Field(None, description="why an unreadable match can't be read: "
                                                  "file, line, seq and cause")


class RoundOut(BaseModel):
    round: int
    started: bool
    bye: str | None
    tables: list[TableOut]
    started_at: str | None = Field(None, description="when the round started (UTC)")
    ends_at: str | None = Field(None, description="when its time is up (UTC; null: untimed)")


class TournamentOut(BaseModel):
    tournament_id: str
    name: str
    game: str
    ruleset: str | None
    length: int = Field(description="events in the tournament's log")
    round_minutes: int | None = Field(None, description="a round's time (null: untimed)")
    players: list[PlayerOut]
    rounds: list[RoundOut]
    registration_open: bool = Field(False, description="players may register themselves "
                                                       "(opened, not closed, round 1 not paired)")
    imported_cards: list[str] = Field([], description="names of the cards imported with pool "
                                                      "files (POST …/cards), sorted")


class RemovedOut(BaseModel):
    removed: list[str] = Field(description="the players removed, as registered")
    tournament: TournamentOut


class TournamentBrief(BaseModel):
    tournament_id: str
    name: str
    game: str
    players: int
    rounds: int


class TournamentList(BaseModel):
    tournaments: list[TournamentBrief]
    unreadable: list[str] = Field(default_factory=list, description=(
        "the ids of tournaments whose log can't be read (cut or edited by hand; the server's "
        "log says why, GET /api/tournaments/{id} the line): left out of 'tournaments'"))


class Links(BaseModel):
    A: str
    B: str
    judge: str


class StartedTable(BaseModel):
    table: int
    a: str
    b: str
    match_id: str
    tokens: dict[str, str] | None = Field(
        description="seat and judge tokens (shown once; null for a table whose match "
                    "a reissue created first: its tokens are with that desk)")
    links: Links | None
    viewer: str


class RoundStartedOut(BaseModel):
    tournament_id: str
    round: int
    bye: str | None
    tables: list[StartedTable]


class StandingOut(BaseModel):
    rank: int
    player: str
    points: int
    wins: int
    losses: int
    draws: int
    byes: int
    omw: float = Field(description="opponents' match-win % (0-1; each at least 1/3; byes left out)")
    gw: float = Field(description="game-win % (0-1, at least 1/3; a bye is two games won)")
    ogw: float = Field(description="opponents' game-win %")
    dbs: int | None = Field(description="the registered deck's DBS; null in a game without "
                                        "one (State of Wonder)")
    dropped: bool


class UnreadableOut(BaseModel):
    round: int
    table: int
    match_id: str
    problem: str = Field(description="why the match can't be read: file, line, seq and cause")


class StandingsOut(BaseModel):
    tournament_id: str
    rounds: int
    standings: list[StandingOut]
    unreadable: list[UnreadableOut] = Field([], description=(
        "tables whose match can't be read (a damaged file): left out of these standings, and "
        "no round is paired, until the file is restored"))


class TokensOut(BaseModel):
    match_id: str
    tokens: dict[str, str]
    links: dict[str, str]


class RevokedOut(BaseModel):
    match_id: str
    revoked: str


def organizer() -> Organizer:
    """This app's :class:`Organizer` (made on first use)."""
    found = current_app.extensions.get("wonders_tournaments")
    if found is None:
        svc = services()
        found = current_app.extensions["wonders_tournaments"] = Organizer(
            svc.store, svc.tokens, svc.pool("wotf"), pools=svc.pool)
    return found


def answers(view: Callable[P, R]) -> Callable[P, R]:
    """The tournament's own errors as the API's: one line each."""
    @functools.wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return view(*args, **kwargs)
        except UnknownTournamentError as exc:
            raise NotFoundError(str(exc)) from None
        except DecklistError as exc:
            raise IllegalError(f"decklist: {exc}") from None
        except TournamentError as exc:
            if "tournament id" in str(exc):
                raise MalformedRequestError(str(exc)) from None
            raise IllegalError(str(exc)) from None
    return wrapped


def checked_results(org: Organizer, t: Tournament) -> tuple[dict[str, Result],
                                                             list[UnreadableTable]]:
    """The tournament's results that can be read, and the tables whose match can't (each
    logged with why: the answer names them too)."""
    results, unreadable = org.checked_results(t)
    for table in unreadable:
        log.error("%s: %s can't be read: %s", request.path, t.tournament_id, table)
    return results, unreadable


def tournament_out(org: Organizer, t: Tournament) -> TournamentOut:
    results, unreadable = checked_results(org, t)  # a damaged match: its table says so
    problems = {u.match_id: u.problem for u in unreadable}
    return TournamentOut(
        tournament_id=t.tournament_id, name=t.name, game=t.game, ruleset=t.ruleset,
        length=t.length,
        players=[PlayerOut(name=p.name, dbs=p.dbs, entered=p.entered, dropped=p.dropped,
                           preset=p.preset, cards=p.cards, archive=p.archive,
                           self_registered=p.is_self_registered, replaced=p.replaced,
                           has_link=p.has_link, links_reissued=p.links_reissued,
                           registered_at=p.registered_at or None)
                 for p in t.players.values()],
        round_minutes=t.round_minutes,
        rounds=[round_out(t, r, results, problems) for r in t.rounds],
        registration_open=t.is_registration_open,
        imported_cards=sorted(t.cards))


def round_out(t: Tournament, r: Round, results: dict[str, Result],
              problems: dict[str, str] | None = None) -> RoundOut:
    clock = round_clock(t, r)
    return RoundOut(round=r.number, started=r.started, bye=r.bye,
                    tables=[table_out(tb, results, problems) for tb in r.tables],
                    started_at=r.started_at or None,
                    ends_at=clock.ends_at_iso if clock else None)


def table_out(tb: Any, results: dict[str, Result],
              problems: dict[str, str] | None = None) -> TableOut:
    """A table's status and result (``problems``: why each unreadable match can't be read)."""
    problem = (problems or {}).get(tb.match_id or "")
    if problem is not None:
        return TableOut(table=tb.table, a=tb.a, b=tb.b, match_id=tb.match_id,
                        status="unreadable", result="unreadable", problem=problem)
    result = results.get(tb.match_id or "")
    status = "not started" if tb.match_id is None else \
        ("ended" if result is not None and result.ended else "live")
    return TableOut(table=tb.table, a=tb.a, b=tb.b, match_id=tb.match_id, status=status,
                    result=result_of(tb, result))


def links(match_id: str, tokens: dict[str, str], base: str | None = None) -> dict[str, str]:
    """Each role's table link (``/play``, its token in the query; the console draws their QR
    codes), on ``base`` (as for :func:`registration_link`)."""
    return {role: f"{_base(base)}/play/{match_id}?token={token}" for role, token in tokens.items()}


def viewer_link(match_id: str, base: str | None = None) -> str:
    """The match's replay viewer, on ``base`` (as for :func:`registration_link`)."""
    return f"{_base(base)}/matches/{match_id}"


def started_out(t: Tournament, started: list[TableStart]) -> RoundStartedOut:
    current = t.current
    return RoundStartedOut(
        tournament_id=t.tournament_id, round=current.number if current else 0,
        bye=current.bye if current else None,
        tables=[StartedTable(table=s.table, a=s.a, b=s.b, match_id=s.match_id, tokens=s.tokens,
                             links=Links(**links(s.match_id, s.tokens)) if s.tokens else None,
                             viewer=viewer_link(s.match_id)) for s in started])


def standings_out(org: Organizer, t: Tournament) -> StandingsOut:
    results, unreadable = checked_results(org, t)
    rows = standings(t, results)
    return StandingsOut(tournament_id=t.tournament_id, rounds=len(t.rounds),
                        standings=[StandingOut(**vars(s)) for s in rows],
                        unreadable=[UnreadableOut(**vars(u)) for u in unreadable])


CSV = {"response": {"text/csv": {"schema": {"type": "string"}}}}


@route(bp, "/tournaments", "POST",
       "Create a tournament of a game (Wonders of The First or State of Wonder), Swiss rounds",
       body=CreateTournament, response=TournamentOut, status=201, auth="organizer", errors=ERRORS)
@answers
def create_tournament() -> tuple[dict[str, Any], int]:
    require_organizer()
    body = parse_body(CreateTournament)
    org = organizer()
    played = game_of_body(body.game)  # 400 for a game this program does not have
    t = org.create(body.name, body.tournament_id, body.ruleset, played.name, body.round_minutes)
    return tournament_out(org, t).model_dump(), 201


@route(bp, "/tournaments", "GET", "List the tournaments of this store",
       response=TournamentList, auth="organizer", errors=(400,))
@answers
def list_tournaments() -> dict[str, Any]:
    require_organizer()
    listed, unreadable = organizer().listing()
    return TournamentList(tournaments=[
        TournamentBrief(tournament_id=t.tournament_id, name=t.name, game=t.game,
                        players=len(t.players),
                        rounds=len(t.rounds)) for t in listed], unreadable=unreadable).model_dump()


@route(bp, "/tournaments/<tournament_id>", "GET",
       "A tournament: players and every round's tables with their status and result",
       response=TournamentOut, auth="organizer", errors=(400, 404))
@answers
def get_tournament(tournament_id: str) -> dict[str, Any]:
    require_organizer()
    org = organizer()
    return tournament_out(org, org.load(tournament_id)).model_dump()


@route(bp, "/tournaments/<tournament_id>/players", "POST",
       "Register a player with a decklist (a late entry once round 1 is paired)",
       body=RegisterPlayer, response=TournamentOut, status=201, auth="organizer", errors=ERRORS)
@answers
def register_player(tournament_id: str) -> tuple[dict[str, Any], int]:
    require_organizer()
    body = parse_body(RegisterPlayer)
    org = organizer()
    t = org.register(tournament_id, body.player, body.decklist, body.preset)
    return tournament_out(org, t).model_dump(), 201


def registration_link(tournament_id: str, key: str, base: str | None = None) -> str:
    """The address players register at (the key in its query; the console draws its QR), on
    ``base`` (the server as players reach it; default: as this request reached it)."""
    return f"{_base(base)}/tournaments/{tournament_id}/register?key={key}"


def player_link(tournament_id: str, token: str, base: str | None = None) -> str:
    """A player's page with their token (the console draws its QR), on ``base`` (as for
    :func:`registration_link`)."""
    return f"{_base(base)}/tournaments/{tournament_id}/me?token={token}"


def _base(base: str | None) -> str:
    return (request.host_url if base is None else base).rstrip("/")


@route(bp, "/tournaments/<tournament_id>/registration", "POST",
       "Open registration: a new key and the link players register themselves with (an "
       "older link stops working)",
       response=RegistrationOut, status=201, auth="organizer", errors=ERRORS)
@answers
def open_registration(tournament_id: str) -> tuple[dict[str, Any], int]:
    require_organizer()
    t, key = organizer().open_registration(tournament_id)
    return RegistrationOut(tournament_id=t.tournament_id, key=key,
                           link=registration_link(t.tournament_id, key)).model_dump(), 201


@route(bp, "/tournaments/<tournament_id>/registration", "DELETE",
       "Close registration: the link stops working (the organizer still registers players)",
       response=TournamentOut, auth="organizer", errors=ERRORS)
@answers
def close_registration(tournament_id: str) -> dict[str, Any]:
    require_organizer()
    org = organizer()
    return tournament_out(org, org.close_registration(tournament_id)).model_dump()


@route(bp, "/tournaments/<tournament_id>/removals", "POST",
       "Remove a player's registration before round 1 is paired (junk, say; later: drop)",
       body=DropPlayer, response=TournamentOut, status=201, auth="organizer", errors=ERRORS)
@answers
def remove_player(tournament_id: str) -> tuple[dict[str, Any], int]:
    require_organizer()
    body = parse_body(DropPlayer)
    org = organizer()
    return tournament_out(org, org.remove(tournament_id, body.player)).model_dump(), 201


@route(bp, "/tournaments/<tournament_id>/bulk-removals", "POST",
       "Remove many registrations at once before round 1 is paired (a flood of junk from "
       "the registration link): all of them, or none if one is refused",
       body=RemovePlayers, response=RemovedOut, status=201, auth="organizer", errors=ERRORS)
@answers
def remove_players(tournament_id: str) -> tuple[dict[str, Any], int]:
    require_organizer()
    body = parse_body(RemovePlayers)
    org = organizer()
    t, removed = org.remove_many(tournament_id, body.players, body.self_registered_from)
    return RemovedOut(removed=removed, tournament=tournament_out(org, t)).model_dump(), 201


@route(bp, "/tournaments/<tournament_id>/drops", "POST",
       "Drop a player: not paired in later rounds, still in the standings",
       body=DropPlayer, response=TournamentOut, status=201, auth="organizer", errors=ERRORS)
@answers
def drop_player(tournament_id: str) -> tuple[dict[str, Any], int]:
    require_organizer()
    body = parse_body(DropPlayer)
    org = organizer()
    return tournament_out(org, org.drop(tournament_id, body.player)).model_dump(), 201


@route(bp, "/tournaments/<tournament_id>/reinstatements", "POST",
       "Undo a drop: the player is paired again from the next round paired",
       body=DropPlayer, response=TournamentOut, status=201, auth="organizer", errors=ERRORS)
@answers
def reinstate_player(tournament_id: str) -> tuple[dict[str, Any], int]:
    require_organizer()
    body = parse_body(DropPlayer)
    org = organizer()
    return tournament_out(org, org.reinstate(tournament_id, body.player)).model_dump(), 201


@route(bp, "/tournaments/<tournament_id>/player-links", "POST",
       "Give a player a new player link (a lost one): their old link stops working at once; "
       "before round 1 any player (one registered at the desk: a first link), after it only "
       "one who holds a link (404: no such player; 422: round 1 paired and no link)",
       body=NewPlayerLink, response=PlayerLinkOut, status=201, auth="organizer", errors=ERRORS)
@answers
def reissue_player_link(tournament_id: str) -> tuple[dict[str, Any], int]:
    require_organizer()
    body = parse_body(NewPlayerLink)
    try:
        t, name, token = organizer().reissue_player_link(tournament_id, body.player)
    except UnknownPlayerError as exc:
        raise NotFoundError(str(exc)) from None
    return PlayerLinkOut(tournament_id=t.tournament_id, player=name, token=token,
                         link=player_link(t.tournament_id, token),
                         can_replace=t.is_registration_open).model_dump(), 201


@route(bp, "/tournaments/<tournament_id>/clock", "POST",
       "Set the rounds' time (minutes; 0: untimed), the round under way included",
       body=RoundTime, response=TournamentOut, status=201, auth="organizer", errors=ERRORS)
@answers
def set_round_time(tournament_id: str) -> tuple[dict[str, Any], int]:
    require_organizer()
    body = parse_body(RoundTime)
    org = organizer()
    return tournament_out(org, org.set_round_time(tournament_id, body.minutes)).model_dump(), 201


@route(bp, "/tournaments/<tournament_id>/rounds", "POST",
       "Pair the next round (Swiss) and start it: every table's match with its tokens",
       response=RoundStartedOut, status=201, auth="organizer", errors=ERRORS)
@answers
def start_round(tournament_id: str) -> tuple[dict[str, Any], int]:
    require_organizer()
    t, started = organizer().start_round(tournament_id)
    return started_out(t, started).model_dump(), 201


@route(bp, "/tournaments/<tournament_id>/standings", "GET",
       "Standings: match points, OMW%, GW%, OGW% (results from the recorded matches)",
       response=StandingsOut, auth="organizer", errors=(400, 404))
@answers
def get_standings(tournament_id: str) -> dict[str, Any]:
    require_organizer()
    org = organizer()
    return standings_out(org, org.load(tournament_id)).model_dump()


def _csv(tournament_id: str, kind: str) -> Response:
    org = organizer()
    text = org.csv(org.load(tournament_id), kind)
    return Response(text, mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="{tournament_id}-{kind}.csv"'})


@route(bp, "/tournaments/<tournament_id>/pairings.csv", "GET", "Every round's pairings as CSV",
       auth="organizer", content=CSV, errors=(400, 404))
@answers
def pairings_csv(tournament_id: str) -> Response:
    require_organizer()
    return _csv(tournament_id, "pairings")


@route(bp, "/tournaments/<tournament_id>/results.csv", "GET", "Every table's result as CSV",
       auth="organizer", content=CSV, errors=(400, 404))
@answers
def results_csv(tournament_id: str) -> Response:
    require_organizer()
    return _csv(tournament_id, "results")


@route(bp, "/tournaments/<tournament_id>/standings.csv", "GET", "The standings as CSV",
       auth="organizer", content=CSV, errors=(400, 404))
@answers
def standings_csv(tournament_id: str) -> Response:
    require_organizer()
    return _csv(tournament_id, "standings")


@route(bp, "/tournaments/<tournament_id>/reissue", "POST",
       "New tokens for a table's role (A, B, judge or all): the old ones stop working",
       body=TableToken, response=TokensOut, status=201, auth="organizer", errors=ERRORS)
@answers
def reissue_token(tournament_id: str) -> tuple[dict[str, Any], int]:
    require_organizer()
    body = parse_body(TableToken)
    match_id, tokens = organizer().reissue(tournament_id, body.round, body.table, body.role)
    return TokensOut(match_id=match_id, tokens=tokens, links=links(match_id, tokens)).model_dump(), 201


@route(bp, "/tournaments/<tournament_id>/revoke", "POST",
       "Revoke a table's token (A, B, judge or all): it stops working, no new one is shown",
       body=TableToken, response=RevokedOut, auth="organizer", errors=ERRORS)
@answers
def revoke_token(tournament_id: str) -> dict[str, Any]:
    require_organizer()
    body = parse_body(TableToken)
    match_id = organizer().revoke(tournament_id, body.round, body.table, body.role)
    return RevokedOut(match_id=match_id, revoked=body.role).model_dump()


# the console (web/organize.py) uses these too
__all__ = ["answers", "bp", "links", "organizer", "player_link", "standings_out",
           "tournament_out", "viewer_link"]


class ImportCards(Body):
    filename: Annotated[str, Field(pattern=r"(?i)^[^/\\]{1,200}\.(csv|toml)$")] = Field(
        description="the pool file's name: .csv or .toml says its format")
    text: Annotated[str, Field(min_length=1, max_length=1_000_000)] = Field(
        description="the pool file: CSV (name, cost, power, classes, keywords, tier, type, "
                    "orbital, text, manual; classes and keywords separated by ';') or TOML "
                    "([[card]] tables as in the card files); a catalogue card takes its "
                    "catalogue facts where the file leaves them out.  The whole body is "
                    "within the server's JSON body limit (64 KiB by default: about a "
                    "thousand CSV rows); split a bigger file, or upload it on /organize")


class CardsImportedOut(BaseModel):
    tournament_id: str
    imported: list[str] = Field(description="the names of the cards imported, in file order")


@route(bp, "/tournaments/<tournament_id>/cards", "POST",
       "Import a pool file (CSV or TOML) of printed stats: its cards count as in the pool "
       "for registration and round start; a bad file is refused whole, one line per bad row "
       "(Wonders of The First tournaments only: 422 for another game's)",
       body=ImportCards, response=CardsImportedOut, status=201, auth="organizer", errors=ERRORS)
@answers
def import_cards(tournament_id: str) -> tuple[dict[str, Any], int]:
    require_organizer()
    body = parse_body(ImportCards)
    try:
        t, names = organizer().import_cards(tournament_id, body.text, body.filename)
    except CardDataError as exc:
        raise IllegalError(f"pool file: {exc}") from None
    return CardsImportedOut(tournament_id=t.tournament_id, imported=names).model_dump(), 201


__all__ += ["import_cards"]
