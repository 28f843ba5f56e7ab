"""Play from here: the sandbox page ``/matches/<id>/sandbox`` and its JSON (issue 18, item 5).

From any moment of an *ended* recorded match, the sandbox opens the engine where a seat was
prompted (:mod:`replay.sandbox`) and lists the legal options as the recording API lists them
(:func:`web.api.common.prompt_out`, omniscient); choosing one plays it in memory.  Nothing is
written anywhere: the position is the match, the seq and the moves, all in the URL
(``/matches/<id>/sandbox?seq=N&moves=3-p0.2``), recomputed on each request from the
re-derived record (one :class:`~replay.replayer.Replay` per match and length, cached).

Only ended matches: once a match has ended every perspective of it is public, so the
omniscient sandbox shows nothing a viewer could not see already; a live match's sandbox
would need the hidden cards (docs/viewer.md).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import msgspec
from flask import Blueprint, current_app, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from ledger.events import Event, MatchOpened
from replay import sandbox
from replay.game import Game
from replay.replayer import Replay
from web.api.common import prompt_out, query_int, services
from web.api.openapi import QUERY_INT_MAX, Query, route
from web.api.tables import DivergedError, Table, rederive
from web.errors import ForbiddenError, MalformedRequestError
from web.models import SandboxOut
from web.narration import players_of

bp = Blueprint("sandbox", __name__)
REPLAYS = 8  # re-derived matches kept per process
SEQ = Query("seq", {"type": "integer", "minimum": 0, "maximum": QUERY_INT_MAX},
            "the moment to start from")
MOVES = Query("moves", {"type": "string", "maxLength": 1200},
              "the moves tried so far: `3` (option 3), `p0.2` (picks 0 and 2), joined by `-`")


@route(bp, "/api/public/matches/<match_id>/sandbox", "GET",
       "Play from here: an ended match at `seq` after the tried `moves`, with the legal "
       "options now (computed in memory, never stored)", response=SandboxOut,
       query=(SEQ, MOVES), errors=(400, 403, 404, 409, 422))
def sandbox_json(match_id: str) -> dict[str, Any]:
    return position(match_id).model_dump()


@bp.get("/matches/<match_id>/sandbox")
def sandbox_page(match_id: str) -> str:
    out = position(match_id)
    return render_template("sandbox.html", match_id=match_id, out=out,
                           opened=_opened(match_id), state_json=out.model_dump_json())


@bp.get("/matches/<match_id>/sandbox/pick")
def sandbox_pick(match_id: str) -> BaseResponse:
    """A choose prompt's form: the checked picks become one ``p`` move (none checked: ``p``
    alone, which the engine takes where the prompt allows choosing none)."""
    picks = request.args.getlist("pick")
    if not all(p.isascii() and p.isdigit() for p in picks):
        raise MalformedRequestError("pick: card numbers only (pick=<number>)")
    moves = [m for m in request.args.get("moves", "").split("-") if m]
    moves.append("p" + ".".join(picks))
    return redirect(url_for("sandbox.sandbox_page", match_id=match_id,
                            seq=query_int("seq", 0), moves="-".join(moves)))


def position(match_id: str) -> SandboxOut:
    seq = query_int("seq", 0)
    moves = sandbox.parse_moves(request.args.get("moves", ""))

    def build(table: Table) -> SandboxOut:
        if not table.state.over:
            raise ForbiddenError(f"match {match_id} is live: play from here opens once it has "
                                 f"ended (a sandbox of a live match would show hidden cards)")
        if seq >= table.length:
            raise MalformedRequestError(f"seq={seq}: match {match_id} has seq 0..{table.length - 1}")
        replay = _replay(table)
        game, players = table.game, players_of(table.opened)
        at = sandbox.open_position(
            replay, seq, moves, lambda engine: _listed(game, engine, players),
            game.decision, game.answer_chance)
        engine = at.engine
        names = game.card_names(engine.state, "omniscient")
        cards = game.cards_of(engine)
        played = [game.narrate(batch[0], None, names, players, cards) for batch in at.played]
        recorded, taken = None, None
        shown = _listed(game, engine, players)
        if not moves and at.opened_at + 1 < table.length:
            event = table.events[at.opened_at + 1]
            recorded = game.narrate(event, None, names, players, cards)
            taken = _option_of(shown, event)
        return SandboxOut(match_id=match_id, seq=at.opened_at, moves="-".join(moves),
                          played=played, board=game.board(engine.state, game.cards_of(engine),
                                                          "omniscient"),
                          prompt=shown, recorded=recorded, recorded_option=taken)
    return services().tables.using(match_id, build)


def _listed(game: Game, engine: Any, players: dict[str, str]) -> dict[str, Any] | None:
    """The prompt's options as the API lists them, the seats named by their players."""
    shown = prompt_out(game, engine, "omniscient", players=players)
    return shown.model_dump() if shown is not None else None


def _option_of(shown: dict[str, Any] | None, event: Event) -> int | None:
    """The index of the listed option that is the recorded decision ``event``, if one is."""
    data = msgspec.to_builtins(event)
    data.pop("seat", None)
    data.pop("auto", None)
    options = (shown or {}).get("options") or []
    return next((i for i, o in enumerate(options) if o["decision"] == data), None)


def _opened(match_id: str) -> MatchOpened:
    return services().tables.using(match_id, lambda table: table.opened)


def _replay(table: Table) -> Replay:
    """The match re-derived by today's engine (cached per match and length); 409 if today's
    engine disagrees with the record (it can't be continued, even in a sandbox)."""
    cache = _replays()
    key = (table.match_id, table.length)
    with cache.lock:
        replay = cache.items.get(key)
        if replay is not None:
            cache.items.move_to_end(key)
            return replay
    replay, mark = rederive(table.events, table.db)
    if replay is None:
        raise DivergedError(f"match {table.match_id}: today's engine disagrees with the record "
                           f"at seq {mark.seq if mark else '?'}, so it can't be played from here")
    with cache.lock:
        cache.items[key] = replay
        while len(cache.items) > REPLAYS:
            cache.items.popitem(last=False)
    return replay


class _Replays:
    def __init__(self) -> None:
        self.items: OrderedDict[tuple, Replay] = OrderedDict()
        self.lock = threading.Lock()


def _replays() -> _Replays:
    return current_app.extensions.setdefault("wonders_sandbox_replays", _Replays())
