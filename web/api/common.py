"""What the API's views share: the services, who is calling, request bodies, and views of a table.

* :func:`services` -- the store, the table cache, the token book and the settings of this app;
* :func:`role_for` -- the role (``A``, ``B``, ``judge``) the caller's token holds in a match,
  from ``Authorization: Bearer …`` or from the /play page's session (writes through the
  session also need the page's CSRF token);
* :func:`parse_body` -- size-checked JSON decoded into a pydantic model;
* :func:`state_out` / :func:`events_page` / :func:`prompt_out` -- a table as one perspective may
  see it, always through the match's game (:func:`replay.games.game_of`: its board, redaction
  and narration), folded from the record (never today's engine, except for the pending
  prompt's options); events come in bounded pages;
* :func:`visible_seq` / :func:`horizon` -- how far the public sees a live match (the spectator
  delay): nothing past it is shown, counted or hinted at (lengths, ``next_seq``, divergence);
* :func:`divergence_out` -- where today's engine disagrees with the record, if it does;
* :func:`revalidated` -- a polled view with its ``ETag``; ``304`` when the client has it already.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

import msgspec
from flask import Response, current_app, has_app_context, request, session
from pydantic import BaseModel, ValidationError

from ledger.codec import Stored
from ledger.events import Event
from ledger.store import Store
from replay.game import Game
from replay.games import game as game_named
from web.api import handles
from web.api.boards import board_at, known_at
from web.api.openapi import QUERY_INT_MAX, Query
from web.api.tables import Table, Tables
from web.config import Settings
from web.errors import (
    ForbiddenError,
    MalformedRequestError,
    TooLargeError,
    UnauthenticatedError,
    describe_validation,
)
from web.models import (
    EVENTS_LIMIT,
    EVENTS_MAX_LIMIT,
    ChooseOut,
    DivergenceOut,
    EventOut,
    EventsOut,
    OptionOut,
    PromptOut,
    StateOut,
)
from web.narration import Narrator, players_of
from web.tokens import PgTokenBook, TokenBook, is_same_secret

M = TypeVar("M", bound=BaseModel)
SESSION_TOKENS = "tables"  # session key: match id -> {role, token hash}, set by /play
SESSION_CSRF = "csrf"
_INTEGER = re.compile(r"-?[0-9]+")


DEFAULT_GAME = "wotf"  # a match created without naming its game


@dataclass
class Services:
    settings: Settings
    store: Store
    tables: Tables
    tokens: TokenBook | PgTokenBook
    pools: dict[str, Any]  # game name -> its card pool (one per game, loaded on first need)

    def pool(self, name: str) -> Any:
        """The card pool of game ``name`` (its shipped pool unless the app was given one)."""
        found = self.pools.get(name)
        if found is None:
            found = self.pools[name] = game_named(name).default_cards()
        return found

    @property
    def db(self) -> Any:
        """The default game's pool."""
        return self.pool(DEFAULT_GAME)


def services() -> Services:
    return current_app.extensions["wonders"]


# -- who is calling --------------------------------------------------------------------------


def bearer() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return None


def role_for(match_id: str) -> str:
    """The caller's role in ``match_id``; 401 without a valid token for this match."""
    token = bearer()
    if token is not None:
        role = services().tokens.role_of(match_id, token)
    else:
        role = session_role(match_id)
        if role is None:
            held = entered_role(match_id)
            if held is not None:  # the /play page's token was reissued or revoked since
                raise UnauthenticatedError(link_gone(match_id, held))
            raise UnauthenticatedError(f"match {match_id}: no token (send 'Authorization: Bearer "
                                       f"<token>' with a seat or judge token of this match)")
    if role is None:
        raise UnauthenticatedError(f"match {match_id}: the token is not a seat or judge token "
                                   f"of this match")
    if token is None and request.method not in ("GET", "HEAD"):
        sent = request.headers.get("X-CSRF-Token", "")
        if not sent or not is_same_secret(sent, session.get(SESSION_CSRF, "")):
            raise ForbiddenError(f"match {match_id}: a write through the /play session needs "
                                 f"the page's X-CSRF-Token header")
    return role


def session_role(match_id: str) -> str | None:
    """The role the /play session holds in ``match_id``: the session (signed by the app's
    secret key) keeps the role and the token's hash, never the token itself."""
    role = entered_role(match_id)
    if role is None:
        return None
    entry = session[SESSION_TOKENS][match_id]
    if not services().tokens.is_role_hash(match_id, role, str(entry.get("hash", ""))):
        return None
    return role


def entered_role(match_id: str) -> str | None:
    """The role the /play session entered ``match_id`` with, whether or not its token still
    holds it (the organizer may have reissued or revoked it since)."""
    entry = (session.get(SESSION_TOKENS) or {}).get(match_id)
    if not isinstance(entry, dict) or entry.get("role") not in ("A", "B", "judge"):
        return None
    return str(entry["role"])


def link_gone(match_id: str, role: str) -> str:
    """What a /play page whose token no longer holds ``role`` says: whose link it was, by the
    player's name, and what to do -- not how an API client sends a token."""
    if role == "judge":
        whose = "the judge's link"
    else:
        name = services().tables.using(
            match_id, lambda table: players_of(table.opened).get(role))
        whose = f"{name}'s seat link" if name else f"seat {role}'s link"
    return (f"{whose} for this table no longer works: the organizer gave a new one or revoked "
            f"it; open the new link (ask the organizer or a judge for it)")


def require_role(match_id: str, allowed: tuple[str, ...], what: str) -> str:
    role = role_for(match_id)
    if role not in allowed:
        raise ForbiddenError(f"match {match_id}: a {_role_name(role)} token may not {what} "
                             f"(only {' or '.join(_role_name(r) for r in allowed)})")
    return role


def require_organizer() -> None:
    token = bearer()
    if token is None:
        raise UnauthenticatedError("this needs the organizer token ('Authorization: Bearer <token>')")
    if not is_same_secret(token, services().settings.organizer_token):
        raise ForbiddenError("the token is not the organizer token")


def _role_name(role: str) -> str:
    return "judge" if role == "judge" else f"seat {role}"


# -- request bodies --------------------------------------------------------------------------


def parse_body(model: type[M]) -> M:
    """The JSON body as ``model``: 413 over the size limit, 400 if malformed."""
    limit = services().settings.max_body_bytes
    if request.content_length is not None and request.content_length > limit:
        raise TooLargeError(f"{request.path}: body of {request.content_length} bytes; "
                            f"the limit is {limit}")
    data = request.stream.read(limit + 1)  # never buffers more than the limit
    if len(data) > limit:
        raise TooLargeError(f"{request.path}: the body is over the limit of {limit} bytes")
    if not data:
        raise MalformedRequestError(f"{request.path}: the body is empty; expected JSON")
    try:
        return model.model_validate_json(data)
    except ValidationError as exc:
        raise MalformedRequestError(f"{request.path}: {describe_validation(exc)}") from None


def query_int(name: str, default: int, low: int = 0, high: int = QUERY_INT_MAX) -> int:
    """``?name=``: an integer in ``low..high`` written in ASCII digits (``int`` alone also
    takes ``1_0``, `` 5`` and ``٣``, which no document promises), else 400."""
    raw = request.args.get(name)
    if raw is None:
        return default
    if _INTEGER.fullmatch(raw) is None:
        raise MalformedRequestError(f"query parameter {name}={raw[:40]!r} is not an integer")
    if len(raw) > 20 or not low <= int(raw) <= high:  # (int of 5,000 digits refuses)
        shown = raw if len(raw) <= 20 else f"{raw[:20]}…"
        raise MalformedRequestError(f"query parameter {name}={shown} is outside {low}..{high}")
    return int(raw)


# -- views of a table --------------------------------------------------------------------------


def event_out(narrator: Narrator, stored: Stored) -> EventOut:
    """One event of a match as the narrator's perspective may see it, in words, with the
    take-back that undid it (if one did)."""
    return EventOut(**event_fields(narrator, stored))


def event_fields(narrator: Narrator, stored: Stored) -> dict[str, Any]:
    """:func:`event_out`'s fields, as its ``model_dump()`` gives them (a live follow stream
    writes them as they are: tests/web/test_follow_messages.py compares the two)."""
    event = narrator.redact(stored.event, stored.seq)
    # ``batch`` (the seq of its batch's last event) stops where the reader's view stops: a
    # delayed spectator's last events would otherwise tell how far past the delay their
    # batch -- the live match -- has gone (a reader who sees everything sees whole batches).
    return {"seq": stored.seq, "at": stored.at, "batch": min(stored.batch, narrator.last),
            "text": narrator.words(event, stored.seq), "event": msgspec.to_builtins(event),
            "undone_by": narrator.undone_by(stored.seq)}


def state_out(table: Table, perspective: str, seq: int | None = None,
              upto: int | None = None) -> StateOut:
    """The board at ``seq`` (default: the last shown) from ``perspective``, folded from the
    record, with the pending prompt (none where today's engine disagrees with the record)
    and the divergence mark, if any.

    ``upto``: the last seq this caller may see (default: all of them; for the public, a live
    match's :func:`visible_seq`).  The answer says nothing past it: ``length`` is
    ``upto + 1``, and the prompt shows only when nothing is held back."""
    live = not table.state.over
    last = table.length - 1 if upto is None else min(upto, table.length - 1)
    seq = last if seq is None else max(0, min(seq, last))
    picture = board_at(table, seq, perspective)
    shown = known_at(table, seq, perspective)  # cards shown to this viewer by a manual reveal/look
    if any(shown.values()):  # the board as folded, plus what this viewer was shown, if anything
        picture = {**picture, "known": shown}
    prompt = prompt_out(table.game, table.engine(), perspective, prompt_salt(table),
                        players_of(table.opened)) \
        if seq == table.length - 1 and live else None
    return StateOut(match_id=table.match_id, perspective=perspective, seq=seq,
                    length=last + 1, live=live, board=picture, prompt=prompt,
                    divergence=divergence_out(table, perspective, last))


UNDISCLOSED = ("today's engine derives something else here (what differs is shown to the "
               "judge, and to everyone once the match has ended)")


def divergence_out(table: Table, perspective: str, upto: int | None = None) -> DivergenceOut | None:
    """The divergence mark of a match as ``perspective`` may see it: where today's engine
    disagrees with the record.  What differs names recorded events, which may be hidden
    cards: while the match is live only the omniscient view (the judge) reads it.

    A mark past what the caller may see (``upto``; for a live match's spectator, at most
    :func:`horizon`) is not shown: its seq would tell how far the match has gone.  Outside
    an app context (a streaming response's generator) a live match's spectator is shown a
    mark only up to an ``upto`` the caller passes."""
    mark = table.divergence()
    if mark is None:
        return None
    if perspective == "spectator" and not table.state.over:
        if has_app_context():
            seen = horizon(table)
            upto = seen if upto is None else min(upto, seen)
        elif upto is None:
            upto = -1  # no settings to ask how far the public sees: no mark
    if upto is not None and mark.seq > upto:
        return None
    shown = perspective == "omniscient" or table.state.over
    return DivergenceOut(seq=mark.seq, message=mark.message if shown else UNDISCLOSED)


def prompt_out(game: Game, engine: Any, perspective: str, salt: str = "",
               players: Mapping[str, str] | None = None) -> PromptOut | None:
    """The pending prompt; its options only for the seat it addresses (or the judge).
    ``None`` when there is none, or no engine (it disagrees with the record).

    ``salt`` (the match and its length, see :func:`prompt_salt`) makes the handles that
    stand for cards a seat may not identify in its options (:mod:`web.api.handles`);
    ``players`` (seat -> player) names the seats in the options' words."""
    if engine is None or engine.prompt is None:
        return None
    view = getattr(game, "prompt_view", None)
    shown = view(engine, perspective, handle_maker(salt), players) if view is not None \
        else generic_prompt(game, engine, perspective, players)
    return prompt_model(shown) if shown is not None else None


def prompt_model(shown: dict[str, Any]) -> PromptOut:
    """A game's prompt view as the answer's model, built without validating it again: the
    game's own view of its own prompt (a prompt offers tens of options, each a decision; their
    validation was the largest share of a board's answer outside the engine).  Missing fields
    take their defaults, in the model's order, so the answer is written as a validated
    ``PromptOut(**shown)`` would be (tests/web/test_api_rendering.py compares them at every
    prompt of whole matches of both games)."""
    options = [OptionOut.model_construct(**option) for option in shown.get("options", ())]
    choose = shown.get("choose")
    return PromptOut.model_construct(**{
        **shown, "options": options,
        "choose": ChooseOut.model_construct(**choose) if choose is not None else None})


def handle_maker(salt: str) -> Callable[[str], str]:
    """``id -> handle`` for one prompt of one match (an HMAC of the app's secret key)."""
    secret = services().settings.secret_key
    return lambda cid: handles.handle_of(secret, salt, cid)


def generic_prompt(game: Game, engine: Any, perspective: str,
                   players: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The pending prompt of a game without its own ``prompt_view``, from the protocol alone:
    listed options that are decision events are offered as they are (labelled by the game's
    narration); listed picks and a ``choose`` are answered with the game's ``answer``.
    A chance prompt (the recorder draws it; no role answers it) is named, with no options."""
    prompt = engine.prompt
    words = getattr(game, "prompt_text", None)
    text = words(engine.state, prompt.text, perspective, players) if words else prompt.text
    out: dict[str, Any] = {"seat": prompt.seat, "kind": prompt.kind, "text": text,
                           "card": prompt.card, "yours": perspective == prompt.seat}
    if prompt.kind == "chance" or perspective not in (prompt.seat, "omniscient"):
        return out  # the other seat's options would show that seat's hand
    names = game.card_names(engine.state, prompt.seat)
    answer = getattr(game, "answer", None)
    card = _card_words(game, engine.state, prompt.seat, names, players)
    if prompt.choose is not None:
        c = prompt.choose
        out["choose"] = {"of": list(c.of), "min": c.min, "max": c.max, "ordered": c.ordered,
                         "multiset": c.multiset}
        out["labels"] = {cid: card(cid) for cid in c.of}
        if answer is not None:
            out["answer"] = _without_seat(answer(prompt.seat, prompt, []))
            out["answer"].pop("pick", None)
        return out
    options = []
    label = getattr(game, "option_label", None)
    for option in prompt.options:
        if isinstance(option, Event):
            options.append({"decision": _without_seat(option),
                            "label": label(engine.state, option, prompt.seat, players)
                            if label is not None
                            else game.narrate(option, None, names, players)})
        elif answer is not None:
            options.append({"decision": _without_seat(answer(prompt.seat, prompt, option)),
                            "label": card(option) if isinstance(option, str) else str(option)})
    out["options"] = options
    return out


def _card_words(game: Game, state: Any, seat: str, names: Mapping[str, str],
                players: Mapping[str, str] | None) -> Callable[[str], str]:
    """``pick -> words`` for a listed pick or a ``choose`` entry: a card in the game's prompt
    words where it has them (two cards in play of one name told apart: which is whose, where,
    damaged or not), else its name; any other pick as it is."""
    words = getattr(game, "prompt_text", None)

    def card(pick: str) -> str:
        if pick not in names:
            return pick
        return words(state, pick, seat, players) if words is not None else names[pick]
    return card


def _without_seat(event: Any) -> dict[str, Any]:
    data = msgspec.to_builtins(event)
    data.pop("seat", None)
    data.pop("auto", None)
    return data


def prompt_salt(table: Table) -> str:
    """What a face-down handle is good for: this match at this length (one prompt)."""
    return f"{table.match_id}:{table.length}"


def events_out(table: Table, perspective: str, from_seq: int, upto: int,
               limit: int | None = None) -> list[EventOut]:
    """Events ``from_seq``..``upto`` (inclusive), at most ``limit`` of them, as
    ``perspective`` may see them."""
    if from_seq > upto:
        return []
    # hidden as of ``upto``, the last seq this viewer may see (a delayed spectator's board
    # may still show face down a card turned face up since)
    out: list[EventOut] = []
    narrator = Narrator(table, perspective, upto)
    for stored in table.store.read(table.match_id, from_seq):
        if stored.seq > upto or (limit is not None and len(out) >= limit):
            break
        out.append(event_out(narrator, stored))
    return out


#: The query parameters of an events page, as the OpenAPI document describes them.
PAGE_FROM = Query("from", {"type": "integer", "minimum": 0, "maximum": QUERY_INT_MAX},
                  "the first seq of the page")
PAGE_LIMIT = Query("limit", {"type": "integer", "minimum": 1, "maximum": EVENTS_MAX_LIMIT},
                   f"events per page (default {EVENTS_LIMIT}, at most {EVENTS_MAX_LIMIT})")


def page_limit() -> int:
    """``?limit=``: events per page (default ``EVENTS_LIMIT``, at most ``EVENTS_MAX_LIMIT``)."""
    return query_int("limit", EVENTS_LIMIT, 1, EVENTS_MAX_LIMIT)


def events_page(table: Table, perspective: str, from_seq: int, upto: int,
                limit: int) -> EventsOut:
    """One page of events ``from_seq``..``upto`` as ``perspective`` may see them: at most
    ``limit`` events, ``next_seq`` after the last one and ``has_more`` when the page was cut.
    Nothing in it goes past ``upto`` (for the public, a live match's :func:`visible_seq`):
    ``next_seq`` is at most ``upto + 1``."""
    events = events_out(table, perspective, from_seq, upto, limit)
    next_seq = events[-1].seq + 1 if events else upto + 1
    return EventsOut(match_id=table.match_id, perspective=perspective, events=events,
                     next_seq=next_seq, has_more=next_seq <= upto, limit=limit,
                     divergence=divergence_out(table, perspective, upto))


def json_response(data: bytes, status: int = 200) -> Response:
    return Response(data, status=status, mimetype="application/json")


def rendered(model: BaseModel) -> bytes:
    """An answer's JSON: the same bytes as pydantic's ``model_dump_json`` (the fields in their
    order, nested models as objects), written by msgspec, which encodes a board's plain values
    in one pass where pydantic looks at the type of each ``Any`` value (a board: ~40% less
    time).  tests/web/test_api_rendering.py holds the bytes equal over real answers."""
    return _ENCODER.encode(model)


def _fields(value: Any) -> dict[str, Any]:
    """A model met inside an answer, as msgspec writes it: its fields, in order (answer
    models have no aliases, extras or computed fields); anything else msgspec can't write is
    an error, as it was pydantic's."""
    if isinstance(value, BaseModel):
        return value.__dict__
    raise TypeError(f"cannot write a {type(value).__name__} as JSON")


_ENCODER = msgspec.json.Encoder(enc_hook=_fields)


class Tagged(NamedTuple):
    """A rendered view and its entity tag (a hash of exactly these bytes), made once per
    view (:meth:`web.api.tables.Table.view` keeps both)."""

    data: bytes
    tag: str


def tagged(data: bytes) -> Tagged:
    """``data`` with its tag: SHA-1 of the bytes (the quickest hash here, ~5 us for a board;
    a tag only tells a client's copy from another, so nothing rests on its strength)."""
    return Tagged(data, hashlib.sha1(data, usedforsecurity=False).hexdigest())


def revalidated(view: Tagged, private: bool = True) -> Response:
    """A view's JSON with its ``ETag``, or ``304 Not Modified`` without a body when the
    client's ``If-None-Match`` names it: a page polling a board that has not moved gets a few
    header lines, not the board again.  Call it only once the caller may read the view (the
    role checked): the tag stands for those bytes alone.

    ``Cache-Control: no-cache`` has every use revalidated (never a stale board); a seat's or the
    judge's view is ``private`` (no shared cache keeps it).  The tag the compressor gives a
    gzipped answer (``<tag>:gzip``, Flask-Compress) names the same bytes, so it matches too."""
    asked = request.if_none_match
    if asked and (asked.contains_weak(view.tag) or asked.contains_weak(f"{view.tag}:gzip")):
        response = Response(status=304)
    else:
        response = json_response(view.data)
    response.set_etag(view.tag)
    response.headers["Cache-Control"] = "private, no-cache" if private else "no-cache"
    return response


def visible_seq(table: Table, delay: int) -> int:
    """The last seq a spectator may see: a live match is shown ``delay`` events late."""
    last = table.length - 1
    if table.state.over:
        return last
    return max(0, last - delay)


def horizon(table: Table) -> int:
    """:func:`visible_seq` with this app's ``spectator_delay``."""
    return visible_seq(table, services().settings.spectator_delay)
