"""Play from here: a sandbox position from any moment of a recorded match (issue 18, item 5).

A sandbox is an engine positioned where a player had a choice in the record, plus the other
decisions someone tries from there, written as a short list of *moves* (so the whole sandbox
is a link: the match, the seq and the moves).  Nothing is ever written: the engine runs in
memory on a copy (:meth:`~replay.replayer.Replay.engine_after`), and the randomness a tried
decision needs (a shuffle) is drawn from an RNG seeded by the match, the seq and the move
number, so the same link shows the same position.

The moment ``seq`` opens at the first point at or after it where a seat was prompted: the
end of a segment followed by a fed event that is not chance (so not seq 0 when the set-up's
outcomes follow it, and not a point where chance answered next, as the record says).

A move is one of:

* ``3`` -- option 3 of the listed options (0-based);
* ``p0.2`` -- for a prompt that asks to choose cards: the picks ``choose.of[0]`` and
  ``choose.of[2]``, in that order.

Who may see what is the caller's business (docs/viewer.md: only ended matches, whose every
perspective is open, get a sandbox).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ledger.errors import LedgerError
from ledger.events import Event
from ledger.registry import kind_of
from replay.errors import ReplayError
from replay.replayer import Replay

MAX_MOVES = 200  # a link's moves, at most


class SandboxError(ReplayError):
    """A sandbox move that can't be played (malformed, out of range or illegal)."""


@dataclass
class Position:
    """A sandbox: the engine after the moves, where it opened, and what each move did."""

    engine: Any
    opened_at: int  #: the recorded seq the sandbox starts from
    moves: list[str]
    played: list[list[Event]] = field(default_factory=list)  #: each move's decision and outcomes


#: ``(game, engine) -> prompt dict`` listing the options as the API does (web's ``prompt_out``)
Lister = Callable[[Any], dict[str, Any] | None]
#: ``(seat, decision dict) -> Event``
Maker = Callable[[str, dict[str, Any]], Event]


def opening_seq(replay: Replay, seq: int) -> int:
    """The first point at or after ``seq`` where a seat (not chance) was prompted, per the
    record; the last seq if the match ends before one."""
    last = len(replay) - 1
    ends = sorted({0, *(s.end for s in replay.segments)})
    for end in ends:
        if end < seq:
            continue
        if end == last:
            return end
        following = replay.events[end + 1]  # a seat's decision (or a note) was fed next
        if replay.game.is_fed(following) and kind_of(type(following).__name__) != "chance":
            return end
    return last


def parse_moves(text: str) -> list[str]:
    """The moves of a link (``3-p0.2-0``: an option number, or the picks of a choose prompt,
    ``p`` alone picking none); ``SandboxError`` saying what is malformed."""
    if not text:
        return []
    moves = text.split("-")
    if len(moves) > MAX_MOVES:
        raise SandboxError(f"moves: {len(moves)} moves; a sandbox link holds at most {MAX_MOVES}")
    for move in moves:
        picks = move.startswith("p")
        body = move[1:] if picks else move
        parts = (body.split(".") if body else []) if picks else [body]
        if not all(p.isascii() and p.isdigit() and len(p) <= 4 for p in parts):
            raise SandboxError(f"moves: {move!r} is not a move (an option number like 3, or "
                               f"picks like p0.2, p alone for none)")
    return moves


def open_position(replay: Replay, seq: int, moves: list[str], listing: Lister, make: Maker,
                  answer_chance: Callable[[Any, random.Random], Event]) -> Position:
    """The sandbox at recorded ``seq`` after ``moves`` (each checked by the engine first)."""
    start = opening_seq(replay, seq)
    position = Position(replay.engine_after(start), start, moves)
    for number, move in enumerate(moves, start=1):
        engine = position.engine
        prompt = engine.prompt
        if prompt is None:
            raise SandboxError(f"move {number} ({move}): the match is over; nothing to decide")
        decision = _decision(listing(engine), move, number, make)
        reason = engine.check(decision)
        if reason is not None:
            raise SandboxError(f"move {number} ({move}): the engine refuses it: {reason}")
        try:
            batch = engine.decide(decision)
            rng = random.Random(f"{replay.match_id}:{start}:{number}")
            while engine.prompt is not None and engine.prompt.kind == "chance":
                batch += engine.decide(answer_chance(engine.prompt, rng))
        except (ReplayError, LedgerError) as exc:
            raise SandboxError(f"move {number} ({move}): {exc}") from None
        position.played.append(batch)
    return position


def _decision(shown: dict[str, Any] | None, move: str, number: int, make: Maker) -> Event:
    """The decision event a move stands for, from the options as listed."""
    if shown is None:
        raise SandboxError(f"move {number} ({move}): nothing is asked here")
    seat = shown["seat"]
    if move.startswith("p"):
        choose = shown.get("choose")
        if not choose:
            raise SandboxError(f"move {number} ({move}): this prompt lists options, not picks")
        of = choose["of"]
        indexes = [int(i) for i in move[1:].split(".")] if move != "p" else []
        if any(i >= len(of) for i in indexes):
            raise SandboxError(f"move {number} ({move}): there are {len(of)} cards to pick from")
        body = {**shown.get("answer", {}), "pick": [of[i] for i in indexes]}
        return _made(make, seat, body, number, move)
    options = shown.get("options") or []
    if not options and shown.get("choose"):
        raise SandboxError(f"move {number} ({move}): this prompt asks for picks of its "
                           f"{len(shown['choose']['of'])} cards (like p0.2, p alone for none), "
                           f"not an option number")
    index = int(move)
    if index >= len(options):
        raise SandboxError(f"move {number} ({move}): there are {len(options)} options here")
    return _made(make, seat, options[index]["decision"], number, move)


def _made(make: Maker, seat: str, body: dict[str, Any], number: int, move: str) -> Event:
    try:
        return make(seat, body)
    except (ValueError, TypeError) as exc:
        raise SandboxError(f"move {number} ({move}): {exc}") from None
