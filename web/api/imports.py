"""Import: upload a match file; it is checked like a create and verified (hash chain, the deck
rules, every decision legal, every outcome re-derived -- what ``wonders verify`` checks) before
it is stored.  A damaged file, or one whose decks break the deck rules (rule 303, against the
cards the file records), is refused with the message, and nothing is stored.  The decks are
checked right after the ledger check, before the file is folded or re-derived: an absurd count
is refused at the cost of reading one line.  A file of schema 3 today's engine disagrees with
is intact and shown as recorded: it is imported, and the answer carries the divergence mark
(``divergence: {seq, message}``).

Storing is atomic with the tokens (:meth:`web.tokens.TokenBook.creating`): the verified lines
are stored byte for byte (:meth:`ledger.store.Store.import_lines`, in any backend) under the
pending create, after its tokens."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from ledger.errors import ConflictError, LedgerError
from ledger.events import MatchOpened
from ledger.integrity import CUT, TORN, check_bytes
from replay.errors import ReplayError
from replay.games import game_of
from replay.reading import Reading
from replay.replayer import Replay
from replay.timeline import TimelineError, open_timeline
from web.api.common import require_organizer, services
from web.api.openapi import route
from web.api.organizer import check_decks, check_seat_names
from web.api.tables import Mark, final_state, rederive
from web.errors import IllegalError, MalformedRequestError, TooLargeError
from web.models import DivergenceOut, Imported, Tokens

bp = Blueprint("imports", __name__, url_prefix="/api")
UPLOAD = "upload"  # how messages name the uploaded file


class ImportedWithTokens(Imported):
    tokens: Tokens


@route(bp, "/import", "POST", "Upload a match file (JSON lines); verified before it is stored",
       response=ImportedWithTokens, status=201, auth="organizer", errors=(400, 409, 413, 422),
       content={"request": {"application/x-ndjson": {"schema": {"type": "string"}}}})
def import_match() -> tuple[dict[str, Any], int]:
    require_organizer()
    svc = services()
    limit = svc.settings.max_import_bytes
    if request.content_length is not None and request.content_length > limit:
        raise TooLargeError(f"match file of {request.content_length} bytes; the limit is {limit}")
    data = request.get_data(cache=False)
    if len(data) > limit:
        raise TooLargeError(f"match file of {len(data)} bytes; the limit is {limit}")
    if not data.strip():
        raise MalformedRequestError("the upload is empty; send a match file's JSON lines as the body")
    reading, mark = _checked(data)
    match_id = svc.store.check_id(reading.opened.match_id)
    with svc.tokens.creating(match_id) as creation:  # 409 if the id is taken
        tokens = creation.issue()  # the tokens first: never a match without them
        try:
            svc.store.import_lines(data)  # never over a match
        except ConflictError:
            creation.not_ours()
            raise ConflictError(f"match {match_id!r} already exists in this store; "
                                f"nothing was imported") from None
    s = final_state(reading)
    result = ("in progress" if not s.over else
              f"{s.winner} wins ({s.reason})" if s.winner else f"draw ({s.reason})")
    divergence = DivergenceOut(seq=mark.seq, message=mark.message) if mark else None
    return ImportedWithTokens(match_id=match_id, length=len(reading), result=result,
                              divergence=divergence, tokens=Tokens(**tokens)).model_dump(), 201


def _checked(data: bytes) -> tuple[Reading, Mark | None]:
    """The ``wonders verify`` check of one file, and its reading; failure → 422 (400 for a
    torn or cut file) with the verify message.

    The ledger check (:func:`ledger.integrity.check_bytes`: canonical lines, hash chain, seqs,
    whole batches only) names line and seq; a damaged file is refused.  A file of schema 3 is
    then folded (shown as recorded) and re-derived by the engine: where the engine disagrees
    it is still imported, with the divergence mark.  A file of schema ≤ 2 is shown only by
    re-deriving it, so a divergence refuses it."""
    try:
        check = check_bytes(data, UPLOAD)
        if check.status in (TORN, CUT):  # not a whole match file: a malformed upload
            raise MalformedRequestError(f"verify failed: {check.message} "
                                        f"(a match file holds whole batches only)")
        if not check.ok:  # damaged (or from a newer program): refused as illegal, like the engine's
            raise IllegalError(f"verify failed: {check.message}")
        events = list(check.events)
        opened = events[0].event if events else None
        if not isinstance(opened, MatchOpened):
            raise IllegalError("verify failed: the upload does not start with MatchOpened")
        played = game_of(opened)  # a game this program does not have: refused here
        pool = services().pool(played.name)
        # The deck rules, against the cards the file records, before anything is folded
        check_seat_names(opened.seats)
        check_decks(opened.seats, played.match_cards(opened, pool), played, opened.format,
                    opened.rules_revision)  # as recorded: a later rule refuses no old match
        reading = open_timeline(events, pool)
    except (LedgerError, ReplayError, TimelineError) as exc:
        raise IllegalError(f"verify failed: {exc}") from None
    if isinstance(reading, Replay):
        return reading, None  # re-derived already
    _, mark = rederive(reading.events, pool)
    return reading, mark
