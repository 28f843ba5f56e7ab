"""Organizer endpoints: create a match (decks validated, tokens issued) and list matches."""

from __future__ import annotations

import secrets

from flask import Blueprint, request

from ledger.events import MatchOpened, SeatInfo
from ledger.store import MatchInfo
from replay import resources
from replay.decks import Deck, load_deck, validate_deck
from replay.engine import ENGINE_VERSION
from replay.recorder import Recorder
from replay.replayer import Divergence
from web.api.common import divergence_out, parse_body, query_int, require_organizer, services
from web.api.openapi import Query, route
from web.errors import IllegalError, MalformedRequestError, NotFoundError
from web.models import (CreateMatch, DivergenceOut, MatchCreated, MatchList, MatchSummary,
                        SeatEntry, Tokens)

bp = Blueprint("organizer", __name__, url_prefix="/api")

FILTERS = (Query("tournament", {"type": "string", "maxLength": 200}),
           Query("round", {"type": "integer", "minimum": 0}),
           Query("table", {"type": "integer", "minimum": 0}),
           Query("player", {"type": "string", "maxLength": 120}, "either seat's player"),
           Query("ended", {"type": "string", "enum": ["true", "false"]}))


@route(bp, "/matches", "POST", "Create a match: validated decks, one token per seat and a judge token",
       body=CreateMatch, response=MatchCreated, status=201, auth="organizer", errors=(400, 409, 422))
def create_match():
    require_organizer()
    body = parse_body(CreateMatch)
    svc = services()
    seats = [_seat_info(seat, entry) for seat, entry in zip("AB", body.seats)]
    match_id = body.match_id or f"m-{secrets.token_hex(6)}"
    opened = MatchOpened(match_id=match_id, ruleset=body.ruleset, seats=seats, format=body.format,
                         tournament=body.tournament, round=body.round, table=body.table,
                         game_number=body.game_number, previous_loser=body.previous_loser,
                         engine_version=ENGINE_VERSION)
    recorder = Recorder.open(svc.store, svc.db, opened)  # 409 if the id is taken
    tokens = svc.tokens.issue(match_id)
    return MatchCreated(match_id=match_id, tokens=Tokens(**tokens),
                        seq=recorder.length).model_dump(), 201


def _seat_info(seat: str, entry: SeatEntry) -> SeatInfo:
    deck = _deck_of(seat, entry)
    problems = validate_deck(deck, services().db)
    if problems:
        raise IllegalError(f"seat {seat} ({entry.player}): deck {deck.name!r} is not legal: "
                           + "; ".join(problems[:5]))
    return SeatInfo(seat, entry.player, deck.name, deck.entries(), deck.archive_entries())


def _deck_of(seat: str, entry: SeatEntry) -> Deck:
    if (entry.preset is None) == (entry.deck is None):
        raise MalformedRequestError(f"seat {seat}: give exactly one of 'deck' (card → copies) "
                                    f"or 'preset' (a fixture deck name)")
    if entry.preset is not None:
        presets = {p.stem: p for p in resources.decks_dir().glob("*.toml")}
        if entry.preset not in presets:
            raise MalformedRequestError(f"seat {seat}: no preset deck {entry.preset!r} "
                                        f"(choose from {', '.join(sorted(presets))})")
        return load_deck(presets[entry.preset], services().db)
    return Deck(name=entry.deck_name or f"{entry.player}'s deck", cards=entry.deck,
                archive=entry.archive)


@route(bp, "/matches", "GET", "List matches, filtered by tournament, round, table, player, ended",
       response=MatchList, query=FILTERS, errors=(400,))
def list_matches():
    infos = services().store.list()
    wanted = _filters()
    return MatchList(matches=[summary(i) for i in infos if _matches(i, wanted)]).model_dump()


@route(bp, "/matches/<match_id>", "GET", "One match's metadata and progress",
       response=MatchSummary, errors=(400, 404))
def get_match(match_id: str):
    svc = services()
    path = svc.store.path(match_id)
    for info in svc.store.list() if path.exists() else ():
        if info.match_id == match_id:
            out = summary(info)
            try:
                out.divergence = svc.tables.using(
                    match_id, lambda table: divergence_out(table, "spectator"))
            except Divergence as exc:  # a file of schema ≤ 2: shown only by re-deriving it
                out.divergence = DivergenceOut(seq=exc.seq, message=str(exc))
            return out.model_dump()
    raise NotFoundError(f"no match {match_id!r} in this store")


def summary(info: MatchInfo) -> MatchSummary:
    o = info.opened
    return MatchSummary(match_id=info.match_id, players={s.seat: s.player for s in o.seats},
                        ruleset=o.ruleset, tournament=o.tournament, round=o.round, table=o.table,
                        length=info.length, ended=info.ended, winner=info.winner,
                        reason=info.reason)


def _filters() -> dict:
    wanted = {}
    for name in ("tournament", "player"):
        if request.args.get(name) is not None:
            wanted[name] = request.args[name]
    for name in ("round", "table"):
        if request.args.get(name) is not None:
            wanted[name] = query_int(name, 0)
    ended = request.args.get("ended")
    if ended is not None:
        if ended not in ("true", "false"):
            raise MalformedRequestError(f"query parameter ended={ended!r}: use true or false")
        wanted["ended"] = ended == "true"
    return wanted


def _matches(info: MatchInfo, wanted: dict) -> bool:
    o = info.opened
    checks = {"tournament": o.tournament, "round": o.round, "table": o.table, "ended": info.ended}
    for name, value in wanted.items():
        if name == "player":
            if value not in [s.player for s in o.seats]:
                return False
        elif checks[name] != value:
            return False
    return True
