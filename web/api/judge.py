"""Judge endpoints: take back to a seq, a manual effect, an ending (a concession, a game loss
or a draw), a note.

The judge token of a match reads the omniscient view through the seat endpoints' ``/state``
and ``/events`` (its perspective is ``omniscient``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint
from pydantic import ValidationError

from ledger.codec import Stored
from replay.recorder import Recorder
from web.api.common import event_out, parse_body, require_role, services
from web.api.openapi import route
from web.api.tables import Table
from web.errors import IllegalError, MalformedRequestError, describe_validation
from web.models import Ending, Manual, Note, Recorded, TakeBack
from web.narration import Narrator

bp = Blueprint("judge", __name__, url_prefix="/api/matches")
JUDGE = ("judge",)
JUDGE_ERRORS = (400, 404, 409, 422)


def _record(match_id: str, write: Callable[[Recorder], list[Stored]]) -> tuple[dict[str, Any], int]:
    def run(table: Table) -> Recorded:
        stored = table.append(write)
        narrator = Narrator(table, "omniscient")
        return Recorded(seq=table.length, events=[event_out(narrator, s) for s in stored])
    return services().tables.using(match_id, run).model_dump(), 201


@route(bp, "/<match_id>/takeback", "POST", "Take the match back to the end of an earlier batch",
       body=TakeBack, response=Recorded, status=201, auth="the judge token", errors=JUDGE_ERRORS)
def take_back(match_id: str) -> tuple[dict[str, Any], int]:
    require_role(match_id, JUDGE, "take back")
    body = parse_body(TakeBack)
    return _record(match_id, lambda rec: rec.take_back(body.to_seq, "judge", body.reason,
                                                       body.expected_seq))


@route(bp, "/<match_id>/manual", "POST", "Enter a ruling as primitive operations",
       body=Manual, response=Recorded, status=201, auth="the judge token", errors=JUDGE_ERRORS)
def manual_effect(match_id: str) -> tuple[dict[str, Any], int]:
    require_role(match_id, JUDGE, "enter a manual effect")
    body = parse_body(Manual)

    def write(rec: Recorder) -> list[Stored]:
        rule = getattr(rec.game, "ruling", None)
        if rule is None:
            raise IllegalError(f"match {match_id}: this game has no judge's operations "
                               f"({rec.game.title})")
        try:
            effect = rule(body.ops, body.note, body.card)
        except ValidationError as exc:
            raise MalformedRequestError(describe_validation(exc, ("ops",))) from None
        return rec.manual(effect, body.expected_seq)
    return _record(match_id, write)


@route(bp, "/<match_id>/ending", "POST", "End the match: a concession, a game loss or a draw "
       "(agreed, or at time)", body=Ending, response=Recorded, status=201,
       auth="the judge token", errors=JUDGE_ERRORS)
def ending(match_id: str) -> tuple[dict[str, Any], int]:
    require_role(match_id, JUDGE, "end the match (a concession, a game loss or a draw)")
    body = parse_body(Ending)
    return _record(match_id, lambda rec: _end(rec, body))


def _end(rec: Recorder, body: Ending) -> list[Stored]:
    """The ending ``body`` asks for, recorded (the model checked that its fields fit its kind)."""
    if body.kind == "draw":
        assert body.draw is not None
        return rec.give_draw(body.draw, body.reason, expected_seq=body.expected_seq)
    assert body.seat is not None
    if body.kind == "game_loss":
        return rec.give_game_loss(body.seat, body.reason, body.expected_seq)
    return rec.concede(body.seat, body.reason, body.expected_seq)


@route(bp, "/<match_id>/notes", "POST", "Add a judge's note to the log",
       body=Note, response=Recorded, status=201, auth="the judge token", errors=JUDGE_ERRORS)
def note(match_id: str) -> tuple[dict[str, Any], int]:
    require_role(match_id, JUDGE, "add a judge note")
    body = parse_body(Note)
    return _record(match_id, lambda rec: rec.note("judge", body.text, body.expected_seq))
