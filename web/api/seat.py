"""Seat endpoints: the pending prompt with its legal options, decisions, and the match as the
caller's role may see it (a seat sees only its own hand; the judge token sees everything)."""

from __future__ import annotations

import msgspec
from flask import Blueprint

from ledger.events import Conceded, Event
from replay.wotf.events import (
    ActivationDeclared, Answered, AttackDeclared, DrawDeclared, HarvestDeclared, ManualOp,
    ManualResolved, Passed, PlayDeclared,
)
from replay.errors import IllegalDecisionError
from replay.wotf.manual import why_not_seat_ops
from replay.wotf.perspective import face_down_ids
from web.api import handles
from web.api.common import (PAGE_FROM, PAGE_LIMIT, divergence_out, event_out, events_page,
                            json_response, offers_hidden_cards, page_limit,
                            parse_body, prompt_out, prompt_salt, query_int, rendered,
                            require_role, role_for, services, state_out)
from web.api.openapi import route
from web.errors import ForbiddenError, IllegalError
from web.models import (Activate, Answer, Attack, Concede, Draw, EventsOut, Harvest, Pass,
                        PendingOut, Play, Recorded, ResolveManually, StateOut, SubmitDecision)

bp = Blueprint("seat", __name__, url_prefix="/api/matches")
SEATS = ("A", "B")


def perspective_of(role: str) -> str:
    return "omniscient" if role == "judge" else role


@route(bp, "/<match_id>/prompt", "GET", "The pending prompt; its legal options if it is yours",
       response=PendingOut, auth="a seat or judge token of the match", errors=(400, 404))
def get_prompt(match_id: str):
    perspective = perspective_of(role_for(match_id))

    def view(table):
        engine = table.engine() if not table.state.over else None
        return PendingOut(match_id=match_id, length=table.length,
                          prompt=prompt_out(engine, perspective, prompt_salt(table)),
                          divergence=divergence_out(table, perspective))
    return services().tables.using(match_id, view).model_dump()


@route(bp, "/<match_id>/decisions", "POST", "Submit your seat's decision at expected_seq",
       body=SubmitDecision, response=Recorded, status=201, auth="a seat token of the match",
       errors=(400, 403, 404, 409, 422))
def submit_decision(match_id: str):
    seat = require_role(match_id, SEATS, "decide for a seat (judges take back or rule instead)")
    body = parse_body(SubmitDecision)
    decision = to_event(seat, body.decision)

    def write(table):
        check_manual_cards(seat, decision, table)
        stored = submit_as_seen(table, seat, decision, body.expected_seq)
        hidden = face_down_ids(table.state)
        return Recorded(seq=table.length, events=[event_out(s, seat, hidden) for s in stored])
    return services().tables.using(match_id, write).model_dump(), 201


@route(bp, "/<match_id>/state", "GET", "The board now, from your role's perspective",
       response=StateOut, auth="a seat or judge token of the match", errors=(400, 404))
def get_state(match_id: str):
    perspective = perspective_of(role_for(match_id))

    def view(table):
        return table.view(("state", perspective),
                          lambda: rendered(state_out(table, perspective)))
    return json_response(services().tables.using(match_id, view))


@route(bp, "/<match_id>/events", "GET", "Events from a seq, from your role's perspective, one "
       "page at a time: at most `limit`; ask again with `from=next_seq` while `has_more`",
       response=EventsOut, auth="a seat or judge token of the match", errors=(400, 404),
       query=(PAGE_FROM, PAGE_LIMIT))
def get_events(match_id: str):
    perspective = perspective_of(role_for(match_id))
    start, limit = query_int("from", 0), page_limit()

    def view(table):
        return events_page(table, perspective, start, table.length - 1, limit)
    return services().tables.using(match_id, view).model_dump()


def submit_as_seen(table, seat: str, decision: Event, expected_seq: int) -> list:
    """Record the seat's decision (face-down handles turned into ids).  A refused answer to
    a prompt whose options are deck or face-down cards is refused without the engine's
    words, which list those options as the seat may not see them."""
    engine = table.recorder.engine
    hidden = engine.prompt is not None and engine.prompt.seat == seat and \
        offers_hidden_cards(engine)
    event = with_card_ids(decision, table)
    try:
        return table.append(lambda rec: rec.submit(event, expected_seq))
    except IllegalDecisionError:
        if not (hidden and isinstance(decision, Answered)):
            raise
        raise wrong_answer(table, decision) from None


def wrong_answer(table, decision: Answered) -> IllegalError:
    """The one refusal of any wrong answer to a prompt offering deck or face-down cards."""
    return IllegalError(
        f"match {table.match_id}: {decision.pick!r} does not answer the pending "
        f"{decision.kind!r} prompt; GET /api/matches/{table.match_id}/prompt lists its "
        f"options as you may see them")


def check_manual_cards(seat: str, decision: Event, table) -> None:
    """A seat's manual answer touches only its own cards and its own resources
    (:func:`replay.wotf.manual.why_not_seat_ops`); anything touching the other seat's cards or
    resources, the stones or control is a judge's ruling (POST /manual): 403.  The refusal
    never says where a card it names is (the other seat's hand or deck)."""
    prompt = table.recorder.engine.prompt
    if not isinstance(decision, ManualResolved) or prompt is None or \
            (prompt.seat, prompt.kind) != (seat, "manual"):
        return  # not its manual prompt: the engine refuses it (rule 403.2)
    why = why_not_seat_ops(table.state, seat, decision.ops)
    if why is not None:
        raise ForbiddenError(
            f"match {table.match_id}: {why}; a seat enters only what touches its own cards "
            f"and resources -- the judge must enter it (POST /api/matches/{table.match_id}/manual)")


def with_card_ids(decision: Event, table) -> Event:
    """An answer naming face-down cards by the handles its prompt offered, with their ids."""
    if not isinstance(decision, Answered):
        return decision
    known = handles.handles(table.recorder.engine, services().settings.secret_key,
                            prompt_salt(table))
    if not known:
        return decision
    if handles.raw_ids(decision.pick, table.recorder.engine):
        # A face-down card named by its id, not by this prompt's handle: the seat can't have
        # seen that id, so it is refused like any wrong answer (the refusal confirms nothing).
        raise wrong_answer(table, decision)
    return msgspec.structs.replace(decision, pick=handles.revealed(decision.pick, known))


def to_event(seat: str, decision) -> Event:
    """The ledger event for a decision body, for the caller's seat."""
    if isinstance(decision, Pass):
        return Passed(seat)
    if isinstance(decision, Draw):
        return DrawDeclared(seat)
    if isinstance(decision, Play):
        return PlayDeclared(seat, decision.card, decision.realm, list(decision.targets))
    if isinstance(decision, Attack):
        return AttackDeclared(seat, decision.realm)
    if isinstance(decision, Activate):
        return ActivationDeclared(seat, decision.card, decision.ability, list(decision.targets))
    if isinstance(decision, Harvest):
        return HarvestDeclared(seat, list(decision.cards))
    if isinstance(decision, Answer):
        return Answered(seat, decision.kind, decision.pick)
    if isinstance(decision, Concede):
        return Conceded(seat, decision.reason)
    if isinstance(decision, ResolveManually):
        return ManualResolved(seat, decision.card, [ManualOp(**op.model_dump()) for op in decision.ops])
    raise TypeError(f"unknown decision {type(decision).__name__}")
