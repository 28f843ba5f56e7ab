"""Seat endpoints: the pending prompt with its legal options, decisions, and the match as the
caller's role may see it (a seat sees only its own hand; the judge token sees everything)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response
from pydantic import ValidationError

from ledger.codec import Stored
from ledger.events import Annotated, Conceded, Event, JudgeCalled, as_seat
from replay.errors import IllegalDecisionError
from replay.game import Game, Refused
from web.api.common import (
    PAGE_FROM,
    PAGE_LIMIT,
    Tagged,
    divergence_out,
    event_out,
    events_page,
    handle_maker,
    json_response,
    page_limit,
    parse_body,
    prompt_out,
    prompt_salt,
    query_int,
    rendered,
    require_role,
    revalidated,
    role_for,
    services,
    state_out,
    tagged,
)
from web.api.openapi import route
from web.api.tables import Table
from web.errors import (
    ForbiddenError,
    IllegalError,
    MalformedRequestError,
    StaleSeqError,
    describe_validation,
)
from web.models import (
    Concede,
    EventsOut,
    JudgeCall,
    PendingOut,
    Recorded,
    StateOut,
    SubmitDecision,
)
from web.narration import Narrator, players_of

bp = Blueprint("seat", __name__, url_prefix="/api/matches")
SEATS = ("A", "B")


def perspective_of(role: str) -> str:
    return "omniscient" if role == "judge" else role


@route(bp, "/<match_id>/prompt", "GET", "The pending prompt; its legal options if it is yours",
       response=PendingOut, auth="a seat or judge token of the match", errors=(400, 404))
def get_prompt(match_id: str) -> Response:
    perspective = perspective_of(role_for(match_id))

    def view(table: Table) -> PendingOut:
        engine = table.engine() if not table.state.over else None
        return PendingOut(match_id=match_id, length=table.length,
                          prompt=prompt_out(table.game, engine, perspective,
                                            prompt_salt(table), players_of(table.opened)),
                          divergence=divergence_out(table, perspective))
    return json_response(rendered(services().tables.using(match_id, view)))


@route(bp, "/<match_id>/decisions", "POST", "Submit your seat's decision at expected_seq",
       body=SubmitDecision, response=Recorded, status=201, auth="a seat token of the match",
       errors=(400, 403, 404, 409, 422))
def submit_decision(match_id: str) -> Response:
    seat = require_role(match_id, SEATS, "decide for a seat (judges take back or rule instead)")
    body = parse_body(SubmitDecision)

    def write(table: Table) -> Recorded:
        decision = to_event(table.game, seat, body.decision)
        stored = submit_as_seen(table, seat, decision, body.expected_seq)
        narrator = Narrator(table, seat)
        return Recorded(seq=table.length, events=[event_out(narrator, s) for s in stored])
    return json_response(rendered(services().tables.using(match_id, write)), 201)


@route(bp, "/<match_id>/judge-call", "POST", "Call the judge to your table (recorded as "
       "JudgeCalled; the judge's page shows it)", body=JudgeCall, response=Recorded, status=201,
       auth="a seat token of the match", errors=(400, 403, 404, 409, 422))
def call_judge(match_id: str) -> Response:
    seat = require_role(match_id, SEATS, "call the judge (only a seat does)")
    body = parse_body(JudgeCall)

    def write(table: Table) -> Recorded:
        still_open = open_call(table.events, seat)
        if still_open is not None:
            raise StaleSeqError(
                f"match {match_id}: seat {seat} called the judge at seq {still_open} and nothing "
                f"has happened at the table since; that call stands (the judge's page shows "
                f"it), so this one is not recorded")
        stored = table.append(lambda rec: rec.call_judge(seat, body.text, body.expected_seq))
        narrator = Narrator(table, seat)
        return Recorded(seq=table.length, events=[event_out(narrator, s) for s in stored])
    return json_response(rendered(services().tables.using(match_id, write)), 201)


def open_call(events: list, seat: str) -> int | None:
    """The seq of ``seat``'s judge call if nothing has happened since it but other calls and
    annotations (no move of the game, nothing the judge did): one open call per seat.  Each
    call is an event, so calls without end would keep the other seat's ``expected_seq``
    stale -- every one of its decisions a 409 -- and flood the judge's list."""
    for seq in range(len(events) - 1, -1, -1):
        event = events[seq]
        if isinstance(event, JudgeCalled):
            if event.seat == seat:
                return seq
        elif not isinstance(event, Annotated):
            return None
    return None


@route(bp, "/<match_id>/state", "GET", "The board now, from your role's perspective",
       response=StateOut, auth="a seat or judge token of the match", errors=(400, 404),
       revalidates=True)
def get_state(match_id: str) -> Response:
    perspective = perspective_of(role_for(match_id))

    def view(table: Table) -> Tagged:
        return table.view(("state", perspective),
                          lambda: tagged(rendered(state_out(table, perspective))))
    return revalidated(services().tables.using(match_id, view))


@route(bp, "/<match_id>/events", "GET", "Events from a seq, from your role's perspective, one "
       "page at a time: at most `limit`; ask again with `from=next_seq` while `has_more`",
       response=EventsOut, auth="a seat or judge token of the match", errors=(400, 404),
       query=(PAGE_FROM, PAGE_LIMIT))
def get_events(match_id: str) -> Response:
    perspective = perspective_of(role_for(match_id))
    start, limit = query_int("from", 0), page_limit()

    def view(table: Table) -> EventsOut:
        return events_page(table, perspective, start, table.length - 1, limit)
    return json_response(rendered(services().tables.using(match_id, view)))


def submit_as_seen(table: Table, seat: str, decision: Event, expected_seq: int) -> list[Stored]:
    """Record the seat's decision as the game takes it from a seat (``seat_decision``: cards
    named by the handles its prompt offered turned into ids, what only a judge may enter
    refused).  A refused answer to a prompt whose options name cards the seat may not see is
    refused without the engine's words, which would list them.

    A stale ``expected_seq`` is a 409 before anything else is checked: the answer is to a
    prompt that is gone (a second tap, the other seat's phone), and checked against the one
    pending now it read as a wrong answer (tests/security/test_stale_answer_is_a_conflict.py)."""
    if expected_seq < table.length:
        raise StaleSeqError(
            f"match {table.match_id}: expected seq {expected_seq} but the match has "
            f"{table.length} events: seq {expected_seq}..{table.length - 1} were recorded since "
            f"the prompt this answers (a second tap, or the other seat); nothing was written; "
            f"reload and decide again")
    engine = table.recorder.engine
    prepare = getattr(table.game, "seat_decision", None)
    conceal = False
    if prepare is not None:
        try:
            decision, conceal = prepare(engine, seat, decision, handle_maker(prompt_salt(table)))
        except Refused as exc:
            if exc.forbidden:
                raise ForbiddenError(
                    f"match {table.match_id}: {exc}; a seat enters only what touches its own "
                    f"cards and resources -- the judge must enter it "
                    f"(POST /api/matches/{table.match_id}/manual)") from None
            if not exc.conceal:
                raise IllegalError(f"match {table.match_id}: {exc}") from None
            raise wrong_answer(table, decision) from None
    try:
        return table.append(lambda rec: rec.submit(decision, expected_seq))
    except IllegalDecisionError:
        if not conceal:
            raise
        raise wrong_answer(table, decision) from None


def wrong_answer(table: Table, decision: Event) -> IllegalError:
    """The one refusal of any wrong answer to a prompt offering cards the seat may not see."""
    return IllegalError(
        f"match {table.match_id}: {getattr(decision, 'pick', None)!r} does not answer the "
        f"pending {getattr(decision, 'kind', '')!r} prompt; GET /api/matches/"
        f"{table.match_id}/prompt lists its options as you may see them")


def to_event(game: Game, seat: str, body: dict[str, Any]) -> Event:
    """The ledger event for a decision body, for the caller's seat: a concession is the
    ledger's own; every other decision is the match's game's (``decision``)."""
    if body.get("type") == "Conceded":
        try:
            concede = Concede.model_validate(body)
        except ValidationError as exc:
            raise MalformedRequestError(describe_validation(exc, ("decision",))) from None
        return Conceded(as_seat(seat), concede.reason)
    try:
        return game.decision(seat, body)
    except ValidationError as exc:
        raise MalformedRequestError(describe_validation(exc, ("decision",))) from None
    except (ValueError, TypeError) as exc:
        raise MalformedRequestError(f"decision: {exc}") from None
