"""Annotations: notes on a moment (a seq) of a match, recorded as ``Annotated`` events in its log.

Who may annotate (docs/viewer.md, *Annotations*):

* the judge token of the match, at any time (shown as ``name``, default "Judge");
* a seat token, once the match has ended (shown as its player: a seat's note written live
  could carry its hidden hand to the opponent and the public), at most
  :data:`MAX_SEAT_NOTES` notes a seat;
* the organizer token, at any time -- coaches and commentators annotate through the organizer
  (shown as ``name``, default "Organizer"); spectators have no token and may not write.

Every note is public: it is an event of the match file, which anyone may download once the
match has ended.  The public list stops where the public's view of a live match stops
(:func:`~web.api.common.horizon`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from ledger.events import Annotated
from web.api.common import bearer, event_out, parse_body, role_for, services, visible_seq
from web.api.openapi import route
from web.api.tables import Table
from web.errors import ForbiddenError
from web.models import Annotate, AnnotationOut, AnnotationsOut, Recorded
from web.narration import Narrator
from web.tokens import is_same_secret

bp = Blueprint("notes", __name__, url_prefix="/api")
#: Notes a seat writes on its ended match at most (each is an event of the match file, shown
#: to everyone who opens it: without a bound, a seat's token appended thousands a minute).
MAX_SEAT_NOTES = 100
DEFAULT_NAMES = {"judge": "Judge", "organizer": "Organizer"}


def author_of(match_id: str) -> str:
    """The role writing: ``organizer`` for the organizer token, else the match token's role."""
    token = bearer()
    if token is not None and is_same_secret(token, services().settings.organizer_token):
        return "organizer"
    return role_for(match_id)


@route(bp, "/matches/<match_id>/annotations", "POST",
       "Attach a public note to a moment (seq) of the match; recorded in its log",
       body=Annotate, response=Recorded, status=201,
       auth="the judge or organizer token; a seat token once the match has ended",
       errors=(400, 401, 403, 404, 409, 422))
def annotate(match_id: str) -> tuple[dict[str, Any], int]:
    author = author_of(match_id)
    body = parse_body(Annotate)

    def write(table: Table) -> Recorded:
        seats = {s.seat: s.player for s in table.opened.seats}
        name = seats[author] if author in seats else (body.name.strip() or DEFAULT_NAMES[author])
        if author in seats and not table.state.over:
            raise ForbiddenError(f"match {match_id} is live: seat {author} may annotate once it "
                                 f"has ended (only the judge and the organizer annotate live)")
        if author in seats and _notes_by(table, author) >= MAX_SEAT_NOTES:
            raise ForbiddenError(f"match {match_id}: seat {author} has written {MAX_SEAT_NOTES} "
                                 f"notes on it, at most {MAX_SEAT_NOTES} a seat (the judge or "
                                 f"the organizer can add more)")
        stored = table.append(lambda rec: rec.annotate(body.seq, author, name, body.text,
                                                       body.expected_seq))
        narrator = Narrator(table, "spectator")
        return Recorded(seq=table.length, events=[event_out(narrator, s) for s in stored])
    return services().tables.using(match_id, write).model_dump(), 201


def _notes_by(table: Table, author: str) -> int:
    """How many notes ``author`` (a seat) has written on the match."""
    return sum(1 for e in table.events if isinstance(e, Annotated) and e.author == author)


@route(bp, "/public/matches/<match_id>/annotations", "GET",
       "The match's notes (public; a live match's up to the spectator delay)",
       response=AnnotationsOut, errors=(400, 404))
def list_notes(match_id: str) -> dict[str, Any]:
    delay = services().settings.spectator_delay
    return services().tables.using(
        match_id, lambda table: AnnotationsOut(
            match_id=match_id, notes=notes_of(table, visible_seq(table, delay)))).model_dump()


def notes_of(table: Table, last: int) -> list[AnnotationOut]:
    """The notes recorded up to seq ``last``, in order."""
    return [AnnotationOut(note=seq, seq=e.about, author=e.author, name=e.name, text=e.text)
            for seq, e in enumerate(table.events[:last + 1]) if isinstance(e, Annotated)]
