"""The replay viewer: the match list ``/matches`` and the step-through viewer ``/matches/<id>``.

The page is server-rendered (``matches.html``, ``viewer.html``); ``web/static/viewer.js`` steps
through the match with one JSON fetch per step:

* ``GET /matches/<id>/step?seq=N&as=P`` -- the board at seq ``N`` from perspective ``P``
  (always through the match's game: its ``board``, ``redact`` and ``narrate``) and the
  narrated event, with the board's game (``game``: the page picks its renderer by it); rendered once and
  kept in a bounded cache, so stepping back and forth costs a dictionary lookup;
* ``GET /matches/<id>/timeline?as=P&from=N`` -- the narrated events (each with ``undone_by``:
  the take-back that undid it, or null), the round / turn / battle index the controls jump to
  and the scrubber marks, the notes (``Annotated`` events, :mod:`web.api.notes`) and the
  players' names; the page polls it while the match is live.

``?note=K`` on the page's address opens the note recorded at seq ``K`` beside its moment.

Every board is a fold of the recorded events (the table's :class:`~replay.timeline.Timeline`),
never today's engine: a match the engine disagrees with is shown as recorded, with a banner
and a mark at the seq where it diverges (``divergence: {seq, message}`` in both JSONs).

A live match is shown as the public API shows it: as a spectator only, and
``spectator_delay`` events late (:func:`web.api.common.visible_seq`); every other perspective
(and the omniscient one) opens once the match has ended.  Nothing the page or its JSON carries
goes past the delay: ``length`` is the events shown (``last + 1``), never the live match's.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter, OrderedDict
from typing import cast

import msgspec
from flask import Blueprint, Response, current_app, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from ledger.errors import LedgerError
from ledger.events import MatchOpened, TakenBack
from ledger.rows import tournament_id_of
from ledger.store import MatchInfo, Store
from replay.errors import ReplayError
from replay.games import deck_title
from replay.games import game as game_named
from web import tournament_menu
from web.api.boards import board_at
from web.api.common import divergence_out, json_response, query_int, services, visible_seq
from web.api.notes import notes_of
from web.api.organizer import public_length
from web.api.public import public_perspective
from web.api.tables import Table
from web.errors import MalformedRequestError, public_problem
from web.narration import Narrator

log = logging.getLogger("wonders.web")
bp = Blueprint("viewer", __name__)  # templates and static files: the app's
STEP_CACHE = 4096  # rendered steps kept per process (a step is ~5 kB)


# -- the match list ------------------------------------------------------------------------

SORTS = {"match": lambda r: r["match_id"],
         "tournament": lambda r: (r["tournament"] or "", r["round"] or 0, r["table"] or 0),
         "ruleset": lambda r: r["ruleset"], "a": lambda r: r["players"]["A"].lower(),
         "b": lambda r: r["players"]["B"].lower(), "result": lambda r: r["result"],
         "events": lambda r: r["length"]}
RESULTS = ("A", "B", "draw", "live")
LIST_PAGE = 50  # matches per page of /matches (``?page=``: previous / next links)


@bp.get("/")
def home() -> BaseResponse:
    return redirect(url_for("viewer.matches"))


@bp.get("/matches")
def matches() -> str:
    rows, problems = listing(services().store, current_app.extensions)
    wanted = {k: request.args.get(k, "").strip() for k in
              ("tournament", "player", "card", "ruleset", "result")}
    sort = request.args.get("sort", "match")
    if sort not in SORTS:
        raise MalformedRequestError(f"sort={sort!r}: use one of {', '.join(SORTS)}")
    descending = request.args.get("desc") == "1"
    shown = sort_rows(filter_rows(rows, wanted), sort, descending)
    pages = max(1, -(-len(shown) // LIST_PAGE))
    page = min(query_int("page", 1, 1, 10**6), pages)  # past the last (fewer fit now): the last
    choices = {"tournament": tournament_choices(rows),
               "ruleset": sorted({r["ruleset"] for r in rows})}
    chosen = tournament_menu.selected(choices["tournament"], wanted["tournament"])
    return render_template("matches.html", rows=shown[(page - 1) * LIST_PAGE:page * LIST_PAGE],
                           fitting=len(shown), first=(page - 1) * LIST_PAGE + 1, page=page,
                           pages=pages, total=len(rows), problems=problems, wanted=wanted,
                           link_args={k: v for k, v in wanted.items() if v},
                           sort=sort, descending=descending, choices=choices,
                           shared=_shared_names(rows), chosen_tournament=chosen)


def _shared_names(rows: list[dict]) -> set[str]:
    """The tournament names several tournaments (ids) share: a weekly "Friday Cup"."""
    ids = Counter(name for name, _id in {(r["tournament"], r["tournament_id"]) for r in rows
                                         if r["tournament"] and r["tournament_id"]})
    return {name for name, count in ids.items() if count > 1}


def tournament_choices(rows: list[dict]) -> list[tournament_menu.Option]:
    """The tournament filter's options, as the dashboard's (:mod:`web.tournament_menu`)."""
    return tournament_menu.options({(r["tournament"], r["tournament_id"]) for r in rows})


def listing(store: Store, extensions: dict) -> tuple[list[dict], list[str]]:
    """One row per match of the store, and the problems of matches that cannot be read (as
    anyone may read them: :func:`~web.errors.public_problem`; the whole error goes to the
    server's log); a match's summary is read again only when its head (length, last hash)
    changed."""
    cache: dict = extensions.setdefault("wonders_listing", {})
    rows, problems, present = [], [], set()
    for match_id, head in store.heads().items():
        present.add(match_id)
        if isinstance(head, Exception):
            problems.append(_unreadable(match_id, head))
            continue
        hit = cache.get(match_id)
        if hit is None or hit[0] != head:
            try:
                hit = cache[match_id] = (head, _row(store.info(match_id)))
            except LedgerError as exc:
                problems.append(_unreadable(match_id, exc))
                continue
        rows.append(hit[1])
    for gone in set(cache) - present:
        cache.pop(gone, None)
    return rows, problems


def _unreadable(match_id: str, exc: Exception) -> str:
    """A listed problem: the whole error to the log, the public words to the page."""
    log.error("match %s cannot be listed: %s", match_id, exc)
    return public_problem(match_id, exc)


def public_opening(opened: MatchOpened, ended: bool) -> MatchOpened:
    """A match's ``MatchOpened`` as anyone may read it: all of it once the match has ended
    (its file is public then); while it is live, as its game shows it to a spectator -- the
    game's perspective decides, as for every other event (State of Wonder leaves out the deck
    lists and deck names, which would name both hands and the face-down Wonders, R15)."""
    if ended:
        return opened
    try:
        played = game_named(opened.game)
    except ReplayError:  # a game this program lacks: nothing of the decks is shown
        return msgspec.structs.replace(opened, seats=[
            msgspec.structs.replace(s, deck=[], deck_name="", archive=[]) for s in opened.seats])
    return cast(MatchOpened, played.redact(opened, "spectator"))


def deck_titles(opened: MatchOpened) -> dict[str, str]:
    """Each seat's deck as people read it (:func:`replay.games.deck_title`: a shipped deck's
    title for the id the match records); as recorded for a game this program lacks, or one
    that gives no titles."""
    try:
        played = game_named(opened.game)
    except ReplayError:
        return {s.seat: s.deck_name for s in opened.seats}
    return {s.seat: deck_title(played, s.deck_name) if s.deck_name else ""
            for s in opened.seats}


def _row(info: MatchInfo) -> dict:
    opened = public_opening(info.opened, info.ended)
    seats = {s.seat: s for s in opened.seats}
    result = "live" if not info.ended else (info.winner or "draw")
    cards = {entry.card.lower() for s in opened.seats for entry in s.deck}
    return {"match_id": info.match_id, "tournament": opened.tournament,
            "tournament_id": tournament_id_of(opened), "round": opened.round,
            "table": opened.table, "ruleset": opened.ruleset,
            "length": public_length(info.length, info.ended),
            "players": {seat: seats[seat].player for seat in ("A", "B")},
            "decks": deck_titles(opened),
            "result": result, "reason": info.reason, "cards": cards}


def filter_rows(rows: list[dict], wanted: dict[str, str]) -> list[dict]:
    """Rows matching every given filter (player and card: case-insensitive substrings;
    tournament: its id where a tournament has it, else its name -- every tournament of it --,
    as ``wonders stats --tournament``)."""
    player, card = wanted["player"].lower(), wanted["card"].lower()
    key = ("tournament_id" if any(r["tournament_id"] == wanted["tournament"] for r in rows)
           else "tournament")
    if wanted["result"] and wanted["result"] not in RESULTS:
        raise MalformedRequestError(f"result={wanted['result']!r}: use one of {', '.join(RESULTS)}")
    return [r for r in rows
            if (not wanted["tournament"] or r[key] == wanted["tournament"])
            and (not wanted["ruleset"] or r["ruleset"] == wanted["ruleset"])
            and (not wanted["result"] or r["result"] == wanted["result"])
            and (not player or any(player in p.lower() for p in r["players"].values()))
            and (not card or any(card in c for c in r["cards"]))]


def sort_rows(rows: list[dict], sort: str, descending: bool) -> list[dict]:
    return sorted(rows, key=SORTS[sort], reverse=descending)


# -- the viewer page -------------------------------------------------------------------------


@bp.get("/matches/<match_id>")
def viewer(match_id: str) -> str:
    delay = services().settings.spectator_delay

    def prepare(table: Table) -> tuple[str, str | None, bytes, dict]:
        perspective, notice = _page_perspective(table)
        last = visible_seq(table, delay)
        default = last if not table.state.over else 0
        seq = max(0, min(query_int("seq", default), last))
        return (perspective, notice, _step(table, seq, perspective, last),
                _timeline(table, perspective, 0, last))
    perspective, notice, step, timeline = services().tables.using(match_id, prepare)
    opened = public_opening(timeline.pop("opened"), not timeline["live"])
    perspectives = timeline.pop("all_perspectives")
    return render_template("viewer.html", match_id=match_id, opened=opened, notice=notice,
                           divergence=timeline["divergence"],
                           perspective=perspective, perspectives=perspectives,
                           game_title=timeline.pop("game_title"),
                           has_rounds=timeline["has_rounds"], decks=deck_titles(opened),
                           step_json=_script_safe(step.decode()),
                           timeline_json=_script_safe(json.dumps(timeline)))


def _script_safe(text: str) -> str:
    """JSON to embed in a ``<script>`` element, escaped for HTML: ``<``, ``>`` and ``&`` become
    JSON's ``\\u003c``, ``\\u003e``, ``\\u0026`` (the same string to a JSON parser), so no text a
    player chose (``</script>``, ``<!--<script>``) can end the element or change how the HTML
    parser reads it; U+2028/U+2029 are escaped for older JavaScript parsers."""
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _page_perspective(table: Table) -> tuple[str, str | None]:
    """The page degrades a deep link's perspective to spectator while the match is live."""
    wanted = request.args.get("as", "omniscient" if table.state.over else "spectator")
    if wanted not in table.game.perspectives:
        raise MalformedRequestError(f"as={wanted!r}: use spectator, A, B or omniscient")
    if wanted != "spectator" and not table.state.over:
        return "spectator", ("This match is live: it is shown as a spectator sees it "
                             "(hands and deck order appear once it has ended).")
    return wanted, None


# -- JSON for the page -----------------------------------------------------------------------


@bp.get("/matches/<match_id>/step")
def step(match_id: str) -> Response:
    delay = services().settings.spectator_delay

    def render(table: Table) -> bytes:
        perspective = public_perspective(table)
        last = visible_seq(table, delay)
        seq = query_int("seq", last)
        if seq > last:
            raise MalformedRequestError(f"seq={seq}: match {match_id} shows seq 0..{last} "
                                        f"to the public now")
        return _step(table, seq, perspective, last)
    return json_response(services().tables.using(match_id, render))


@bp.get("/matches/<match_id>/timeline")
def timeline(match_id: str) -> dict:
    delay = services().settings.spectator_delay

    def render(table: Table) -> dict:
        perspective = public_perspective(table)
        out = _timeline(table, perspective, query_int("from", 0), visible_seq(table, delay))
        out.pop("opened")
        out.pop("all_perspectives")
        out.pop("game_title")
        return out
    return services().tables.using(match_id, render)


def _step(table: Table, seq: int, perspective: str, last: int) -> bytes:
    """The board at ``seq`` as JSON bytes, cached by (match, length, perspective, seq)."""
    cache = _step_cache()
    key = (table.match_id, table.length, last, perspective, seq)
    data = cache.get(key)
    if data is None:
        # Hidden as of ``last``, what this viewer may see (not the live state: a card face
        # down at the horizon and turned face up since is still hidden here).
        game, narrator = table.game, Narrator(table, perspective, last)
        event = narrator.redact(table.events[seq], seq)
        data = msgspec.json.encode({
            "match_id": table.match_id, "seq": seq, "last": last, "length": last + 1,
            "live": not table.state.over, "perspective": perspective, "game": game.name,
            "text": narrator.words(event, seq), "undone_by": narrator.undone_by(seq),
            "kind": type(event).__name__,
            "board": board_at(table, seq, perspective),
            "divergence": _divergence(table, perspective)})
        cache.put(key, data)
    return data


def _timeline(table: Table, perspective: str, start: int, last: int) -> dict:
    """Narrated events ``start``..``last``, the jump index (rounds, turns, battles) and the
    divergence mark, all from the recorded events."""
    game = table.game
    narrator = Narrator(table, perspective, last)  # names and hidden cards as of ``last``
    # what a reader jumps to: the marks of the events no take-back undid (as of ``last``)
    index = table.index.standing(narrator.undone)
    rounds = sorted((r, s) for r, s in index.rounds.items() if s <= last)
    events, current = [], 0
    round_at: list[int] = []  # seq -> the round its event is in
    round_of = getattr(game, "round_of", None)
    for seq in range(last + 1):
        event = table.events[seq]
        started = round_of(event) if round_of is not None else None
        if started is not None:
            current = started
        elif isinstance(event, TakenBack) and 0 <= event.to_seq < seq:
            current = round_at[event.to_seq]  # back in the round of the state it returns to
        round_at.append(current)
        if seq >= start:
            events.append({"seq": seq, "round": current, "kind": type(event).__name__,
                           "text": narrator.text(event, seq), "undone_by": narrator.undone_by(seq)})
    return {
        "match_id": table.match_id, "perspective": perspective, "last": last,
        "length": last + 1, "live": not table.state.over, "from": start,
        "game": game.name, "game_title": game.title, "has_rounds": round_of is not None,
        "all_perspectives": list(game.perspectives),
        "perspectives": list(game.perspectives) if table.state.over else ["spectator"],
        "events": events, "opened": table.opened,
        "players": {s.seat: s.player for s in table.opened.seats},
        "notes": [n.model_dump() for n in notes_of(table, last)],
        "divergence": _divergence(table, perspective),
        "rounds": [{"round": r, "seq": s} for r, s in rounds],
        "turns": [{"seq": t.seq, "round": t.round, "turn": t.number, "seat": t.seat}
                  for t in index.turns if t.seq <= last],
        "battles": [{"seq": s, "round": r, "realm": realm, "number": n}
                    for n, (s, r, realm) in enumerate(index.battles, start=1) if s <= last],
    }


def _divergence(table: Table, perspective: str) -> dict | None:
    """Where today's engine disagrees with the record (``{seq, message}``), or ``None``."""
    mark = divergence_out(table, perspective)
    return mark.model_dump() if mark is not None else None


# -- the step cache --------------------------------------------------------------------------


class StepCache:
    """A thread-safe LRU of rendered steps."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self._items: OrderedDict[tuple, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> bytes | None:
        with self._lock:
            data = self._items.get(key)
            if data is not None:
                self._items.move_to_end(key)
            return data

    def put(self, key: tuple, data: bytes) -> None:
        with self._lock:
            self._items[key] = data
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)


def _step_cache() -> StepCache:
    return current_app.extensions.setdefault("wonders_steps", StepCache(STEP_CACHE))
