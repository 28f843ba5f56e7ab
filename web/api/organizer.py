"""Organizer endpoints: create a match (decks validated, tokens issued) and list matches.

A create is atomic with its tokens (:meth:`web.tokens.TokenBook.creating`): the match
appears only after its tokens, and a create that fails or dies half-way is rolled back.  One
match's summary reads only that match (:meth:`ledger.store.Store.info`); a listing is filtered
by the store (:meth:`ledger.store.Store.list`: in SQL for PostgreSQL).
"""

from __future__ import annotations

import logging
import secrets
import unicodedata
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, request

from ledger.errors import ConflictError, LedgerError
from ledger.events import DeckEntry, MatchOpened, SeatInfo, as_seat
from ledger.store import MATCH_ID, MatchInfo
from ledger.tournament import TournamentError, player_name
from replay.game import Game
from replay.games import UnknownGameError, game
from replay.recorder import Recorder
from replay.replayer import Divergence
from web.api.common import divergence_out, parse_body, query_int, require_organizer, services
from web.api.openapi import QUERY_INT_MAX, Query, route
from web.errors import IllegalError, MalformedRequestError, public_problem
from web.models import (
    MATCHES_LIMIT,
    MATCHES_MAX_LIMIT,
    CreateMatch,
    DivergenceOut,
    MatchCreated,
    MatchList,
    MatchSummary,
    SeatEntry,
    Tokens,
)

bp = Blueprint("organizer", __name__, url_prefix="/api")
log = logging.getLogger("wonders.web")

#: The longest text filters (a tournament's name, a player's), as the document says.
TEXT_FILTERS = {"tournament": 200, "player": 120}
FILTERS = (Query("tournament", {"type": "string", "maxLength": TEXT_FILTERS["tournament"]}),
           Query("round", {"type": "integer", "minimum": 0, "maximum": QUERY_INT_MAX}),
           Query("table", {"type": "integer", "minimum": 0, "maximum": QUERY_INT_MAX}),
           Query("player", {"type": "string", "maxLength": TEXT_FILTERS["player"]},
                 "either seat's player"),
           Query("ended", {"type": "string", "enum": ["true", "false"]}))
#: The list's page: its size and its cursor (the last match id of the page before).
LIST_PAGE = (Query("limit", {"type": "integer", "minimum": 1, "maximum": MATCHES_MAX_LIMIT},
                   f"matches per page (default {MATCHES_LIMIT}, at most {MATCHES_MAX_LIMIT})"),
             Query("after", {"type": "string", "maxLength": 128},
                   "the cursor: the matches after this match id (the last of the page before; "
                   "the answer's `next` carries it)"))


@route(bp, "/matches", "POST", "Create a match: validated decks, one token per seat and a judge token",
       body=CreateMatch, response=MatchCreated, status=201, auth="organizer", errors=(400, 409, 422))
def create_match() -> tuple[dict[str, Any], int]:
    require_organizer()
    body = parse_body(CreateMatch)
    svc = services()
    played = game_of_body(body.game)
    ruleset = body.ruleset if body.ruleset is not None else played.rulesets[0]
    if ruleset not in played.rulesets:
        raise MalformedRequestError(f"ruleset {ruleset!r}: {played.title} is played under "
                                    f"{' or '.join(played.rulesets)}")
    pool = svc.pool(played.name)
    seats = [_seat_info(played, pool, seat, entry, body.format)
             for seat, entry in zip("AB", body.seats, strict=False)]
    match_id = body.match_id or f"m-{secrets.token_hex(6)}"
    opened = MatchOpened(match_id=match_id, ruleset=ruleset, seats=seats, format=body.format,
                         tournament=body.tournament, round=body.round, table=body.table,
                         game_number=body.game_number, previous_loser=body.previous_loser,
                         engine_version=played.engine_version, game=played.name)
    with svc.tokens.creating(match_id) as creation:  # 409 if taken
        tokens = creation.issue()  # the tokens first: never a match file without them
        try:
            recorder = Recorder.open(svc.store, pool, opened)
        except ConflictError:
            creation.not_ours()
            raise ConflictError(f"match {match_id!r} already exists in this store; nothing "
                                f"was written") from None
    svc.tables.adopt(recorder)  # its seats use it next: no re-derivation of what was just written
    return MatchCreated(match_id=match_id, tokens=Tokens(**tokens),
                        seq=recorder.length).model_dump(), 201


def game_of_body(name: str) -> Game:
    """The game a create names (400 if this program does not have it)."""
    try:
        return game(name)
    except UnknownGameError as exc:
        raise MalformedRequestError(f"game: {exc}") from None


def _seat_info(played: Game, pool: Any, seat: str, entry: SeatEntry, format: str) -> SeatInfo:
    deck = _deck_of(played, pool, seat, entry)
    info = SeatInfo(as_seat(seat), entry.player, deck.name, deck.entries(), deck.archive_entries())
    check_seat_names([info])
    check_decks([info], pool, played, format)  # in the match's format (304.1)
    return info


def check_seat_names(seats: list[SeatInfo]) -> None:
    """A seat's player name as the tournament desk takes one (:func:`player_name`: no control
    character, no text direction control, something visible): 422 naming the seat.  A create's
    and an import's -- a match file brought from elsewhere names its players as its maker
    wrote them, and every page shows them."""
    for info in seats:
        broken = next((ch for ch in info.player if unicodedata.category(ch) == "Cc"), None)
        if broken is not None:  # the desk makes a line break a space; a seat keeps its name
            raise IllegalError(f"seat {info.seat}: a player's name can't contain a control "
                               f"character (U+{ord(broken):04X})")
        try:
            player_name(info.player)
        except TournamentError as exc:
            raise IllegalError(f"seat {info.seat}: {exc}") from None


MAX_ENTRIES = 200  # distinct cards in a deck (it holds 50 in all) and archive entries
DECK_SIZE = 50  # the most copies of one card an entry may count (no game's deck holds more)


class Entries(list):
    """A seat's deck as entries (a list of ``DeckEntry``), with the protocol's deck methods
    (``name``, ``entries()``, ``archive_entries()``) for the game's ``deck_problems``."""

    def __init__(self, name: str, entries: list[DeckEntry], archive: list[DeckEntry]):
        super().__init__(entries)
        self.name, self.archive = name, archive

    def entries(self) -> list[DeckEntry]:
        return list(self)

    def archive_entries(self) -> list[DeckEntry]:
        return list(self.archive)


def check_decks(seats: list[SeatInfo], db: Any, played: Game | None = None,
                format: str | None = None, rules_revision: int | None = None) -> None:
    """The deck rules (303) for every seat, against ``db`` (for an import: the cards its file
    records): 422 naming the seat and the first problems.  Counts are bounded (1–50 copies,
    each card listed once) before anything is built from them, so an absurd count costs
    nothing; a create and an import go through this same check, in the match's ``format``
    (an import: for the ``rules_revision`` it was recorded at)."""
    for info in seats:
        problems = deck_problems(info, db, played or game("wotf"), format, rules_revision)
        if problems:
            raise IllegalError(f"seat {info.seat} ({info.player}): deck {info.deck_name!r} is "
                               f"not legal: " + "; ".join(problems[:5]))


def deck_problems(info: SeatInfo, db: Any, played: Game, format: str | None = None,
                  rules_revision: int | None = None) -> list[str]:
    """Every problem with a seat's deck and archive (empty: legal)."""
    problems = []
    for table, entries in (("cards", info.deck), ("archive", info.archive)):
        if len(entries) > MAX_ENTRIES:
            problems.append(f"{table}: {len(entries)} entries; at most {MAX_ENTRIES}")
            continue
        seen: set[str] = set()
        for entry in entries:
            if type(entry.count) is not int or not 1 <= entry.count <= DECK_SIZE:
                problems.append(f'{table}."{entry.card}": {entry.count!r} copies; each card '
                                f'counts 1–{DECK_SIZE} (rule 303)')
            if entry.card in seen:
                problems.append(f'{table}."{entry.card}": listed twice')
            seen.add(entry.card)
    if problems:  # nothing below may see an absurd count
        return problems
    deck = Entries(info.deck_name or f"seat {info.seat}'s deck", list(info.deck),
                   list(info.archive))
    return played.deck_problems(deck, db, format, rules_revision)


def _deck_of(played: Game, pool: Any, seat: str, entry: SeatEntry) -> Any:
    if (entry.preset is None) == (entry.deck is None):
        raise MalformedRequestError(f"seat {seat}: give exactly one of 'deck' (card → copies) "
                                    f"or 'preset' (a fixture deck name)")
    if entry.preset is not None:
        presets = preset_decks(played, pool)
        if entry.preset not in presets:
            raise MalformedRequestError(f"seat {seat}: no preset deck {entry.preset!r} "
                                        f"(choose from {', '.join(sorted(presets))})")
        found = presets[entry.preset]
        return found.load() if hasattr(found, "load") else found
    return Entries(entry.deck_name or f"{entry.player}'s deck",
                   [DeckEntry(card, count) for card, count in (entry.deck or {}).items()],
                   [DeckEntry(card, count) for card, count in entry.archive.items()])


def preset_decks(played: Game, pool: Any) -> dict[str, Any]:
    """The decks an organizer may name: the game's presets, else its sample decks by name."""
    presets = getattr(played, "preset_decks", None)
    if presets is not None:
        return presets(pool)
    return {deck.name: deck for deck in played.sample_decks(pool)}


@route(bp, "/matches", "GET", "List matches, filtered by tournament, round, table, player, ended",
       response=MatchList, query=FILTERS + LIST_PAGE, errors=(400,))
def list_matches() -> dict[str, Any]:
    filters = _filters()
    limit = query_int("limit", MATCHES_LIMIT, 1, MATCHES_MAX_LIMIT)
    after = request.args.get("after")
    if after is not None and not MATCH_ID.fullmatch(after):
        raise MalformedRequestError(f"query parameter after={after[:40]!r}: not a match id "
                                    f"(letters, digits, '.', '_', '-'; at most 128)")
    unreadable: list[tuple[str, LedgerError]] = []
    infos = sorted(services().store.list(unreadable, **filters), key=lambda info: info.match_id)
    if after is not None:
        infos = [info for info in infos if info.match_id > after]
    page, has_more = infos[:limit], len(infos) > limit
    following = None
    if has_more:
        args = {k: v for k, v in request.args.items() if k not in ("after", "limit")}
        following = "/api/matches?" + urlencode({**args, "limit": limit,
                                                 "after": page[-1].match_id})
    return MatchList(matches=[summary(i) for i in page], has_more=has_more, next=following,
                     limit=limit, problems=_problems(unreadable, after,
                                                     page[-1].match_id if has_more else None)
                     ).model_dump()


def _problems(unreadable: list[tuple[str, LedgerError]], after: str | None,
              last: str | None) -> list[str]:
    """The unreadable matches whose ids fall in this page's range (after ``after``, up to
    ``last``; the last page: all the rest), as anyone may read them -- the whole error to the
    server's log (web.errors.public_problem)."""
    out = []
    for match_id, exc in sorted(unreadable, key=lambda pair: pair[0]):
        if (after is None or match_id > after) and (last is None or match_id <= last):
            log.error("match %s cannot be listed: %s", match_id, exc)
            out.append(public_problem(match_id, exc))
    return out


@route(bp, "/matches/<match_id>", "GET", "One match's metadata and progress",
       response=MatchSummary, errors=(400, 404))
def get_match(match_id: str) -> dict[str, Any]:
    svc = services()
    info = svc.store.info(svc.store.check_id(match_id))  # a bad id: 400; missing: 404
    out = summary(info)
    try:
        out.divergence = svc.tables.using(
            match_id, lambda table: divergence_out(table, "spectator"))
    except Divergence as exc:  # a file of schema ≤ 2: shown only by re-deriving it
        out.divergence = DivergenceOut(seq=exc.seq, message=str(exc))
    return out.model_dump()


def summary(info: MatchInfo) -> MatchSummary:
    """A match's metadata as the public may see it: a live match's length stops at the
    spectator delay (its true length would tell how far play has gone)."""
    o = info.opened
    return MatchSummary(match_id=info.match_id, game=o.game,
                        players={s.seat: s.player for s in o.seats},
                        ruleset=o.ruleset, tournament=o.tournament, round=o.round, table=o.table,
                        length=public_length(info.length, info.ended), ended=info.ended,
                        winner=info.winner, reason=info.reason)


def public_length(length: int, ended: bool) -> int:
    """How many events of a match the public may know of (all once it has ended)."""
    return length if ended else max(1, length - services().settings.spectator_delay)


def _filters() -> dict[str, Any]:
    wanted: dict[str, Any] = {}
    for name, longest in TEXT_FILTERS.items():
        if request.args.get(name) is not None:
            wanted[name] = request.args[name]
            if len(wanted[name]) > longest:
                raise MalformedRequestError(f"query parameter {name}: {len(wanted[name])} "
                                            f"characters; at most {longest}")
    for name in ("round", "table"):
        if request.args.get(name) is not None:
            wanted[name] = query_int(name, 0)
    ended = request.args.get("ended")
    if ended is not None:
        if ended not in ("true", "false"):
            raise MalformedRequestError(f"query parameter ended={ended!r}: use true or false")
        wanted["ended"] = ended == "true"
    return wanted
