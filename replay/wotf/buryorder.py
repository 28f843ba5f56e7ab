"""The order of a buried group is its owner's knowledge (docs/rulings.md R46).

Bury (Game Terms): "Put a card or group of cards on the bottom of its owner's deck in any order
of the owner's choice".  From rules revision 7 the owner orders a group of two or more different
cards with an ``order`` prompt (R20, :func:`replay.wotf.ops.bury_in_order`): the answer is
recorded, then the cards move to the bottom one by one in that order -- each owner's answer
first (a group of both seats' cards: one after the other), then every move, one batch.

Which cards went is public (they were revealed, or chosen in public); the order they now sit in
at the bottom of a hidden deck is known to their owner only, as in a physical game where the
owner arranges them face down.  So for any other viewer (the other seat, a spectator):

* the owner's ``order`` answer shows ``?`` for each card it orders;
* the moves of the group (each move with the events it brings along, an equipment left behind
  or a token ceasing to exist) are shown in a canonical order -- by card name, then id -- that
  says nothing of the owner's choice: the k-th move a viewer reads is the k-th of the group so
  sorted.

Only the event at a seq changes, never how many there are or where a batch ends; the record
itself, the engine and the fold are untouched.  The owner's seat and the omniscient view read
the events as recorded.

Which answers are a bury's: from rules revision 12 the prompt has a kind of its own,
``bury_order``, so the answer says so itself -- hidden from the moment it is written, with
nothing to wait for (the last event of a log, the first owner's answer of a group of both
seats' cards) -- and an ``order`` answer is always one of the public orders (triggers,
fliers, returns: 502, 403.5).  Revisions 7-11 recorded a bury's order as an ``order``
answer too: telling it from the others takes the events after it (it is a bury's when the
moves that follow its answers bury a card it ordered), so one with nothing after it yet is
hidden until they are written.  The revision is the match's (``MatchOpened``, seq 0 of the
log); a log that does not start with it is read as of revisions 7-11.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from ledger.events import Event, MatchOpened
from replay.wotf.events import Answered, CardMoved, Unequipped
from replay.wotf.revisions import BURY_ORDER_KIND_REVISION
from replay.wotf.words import HIDDEN

BURY = "bury"  # the reason of the move ``bury_in_order`` makes
BURY_ORDER = "bury_order"  # the kind of a bury's order prompt from revision 12
ORDER = "order"  # the kind of every order prompt before revision 12


def as_seen(event: Event, log: Sequence[Event], seq: int, perspective: str) -> Event:
    """``event`` (``log[seq]``) as ``perspective`` may see it, as far as a bury order goes:
    ``log`` is the match's events from seq 0, as far as they are written (the run of moves
    after an answer is written with it, or with the last answer of a group of both seats)."""
    if perspective == "omniscient" or not _is_concerned(type(event)):
        return event  # (most events: one look-up of their type)
    if isinstance(event, Answered) and event.kind == BURY_ORDER:
        return _hidden(event, perspective)  # a bury's by its kind (revision 12): no waiting
    answer = isinstance(event, Answered) and _is_order_answer(event)
    if not (answer or _is_run_member(event)):
        return event  # a draw, a play, any other answer: as it is
    if not 0 <= seq < len(log) or log[seq] != event:
        return event  # not the event at ``seq`` of this log: nothing to tell it by
    if isinstance(event, Answered):
        if has_bury_order_kind(log):
            return event  # an order of triggers, fliers or returns: public (502, 403.5)
        return _answer_as_seen(event, log, seq, perspective)
    return _move_as_seen(log, seq, perspective)


def has_bury_order_kind(log: Sequence[Event]) -> bool:
    """Whether ``log`` (a match's events from seq 0) is of a match recorded at revision 12 or
    later, whose bury orders are ``bury_order`` answers and whose ``order`` answers are all
    public; ``False`` for a log that does not start with its ``MatchOpened``."""
    opened = log[0] if log else None
    return isinstance(opened, MatchOpened) and opened.rules_revision >= BURY_ORDER_KIND_REVISION


def _hidden(answer: Answered, perspective: str) -> Event:
    """A bury's order answer as ``perspective`` reads it: as recorded by its owner, a ``?``
    for each card ordered by anyone else."""
    if answer.seat == perspective:
        return answer
    return msgspec.structs.replace(answer, pick=[HIDDEN] * len(_picks(answer)))


#: Event class -> whether it may be part of a bury (an answer, a move, what a move brings
#: along): asked of every event a reader reads, and a dict look-up costs a fraction of
#: ``isinstance`` against the event classes.
_CONCERNED: dict[type, bool] = {}


def _is_concerned(cls: type) -> bool:
    found = _CONCERNED.get(cls)
    if found is None:
        found = _CONCERNED[cls] = issubclass(cls, (Answered, CardMoved, Unequipped))
    return found


def board_seq(log: Sequence[Event], seq: int, perspective: str) -> int:
    """The seq whose board ``perspective`` is shown at ``seq``.  Inside the moves of a group it
    may not see in order (before the last of them), the board a move left would show which
    cards have gone first -- from a public zone, The Abyss say -- so it is the board before the
    first move, every card of the group still where it was; from the last move on, the board
    as it stands (all of them at the bottom)."""
    if perspective == "omniscient" or not 0 <= seq < len(log) or \
            not _is_concerned(type(log[seq])) or not _is_run_member(log[seq]):
        return seq
    start = seq
    while start > 0 and _is_run_member(log[start - 1]):
        start -= 1
    run = _run(log, start)
    if seq >= start + len(run) - 1:
        return seq
    answers, before, kinds = [], start - 1, _bury_kinds(log)
    while before >= 0 and _is_order_answer(log[before], kinds):
        answers.append(log[before])
        before -= 1
    moved = {_buried(e) for e in run}
    private = any(isinstance(a, Answered) and a.seat != perspective and moved & set(_picks(a))
                  for a in answers)
    return start - 1 if private else seq


def _is_order_answer(event: Event, kinds: tuple[str, ...] = (ORDER, BURY_ORDER)) -> bool:
    """An owner's answer that may be (``order``, revisions 7-11) or is (``bury_order``) the
    order of a buried group; the moves after it tell an ``order`` answer's."""
    return isinstance(event, Answered) and event.kind in kinds and isinstance(event.pick, list)


def _bury_kinds(log: Sequence[Event]) -> tuple[str, ...]:
    """The kinds of answer that may order the bury moves after them in ``log``: from revision
    12 a ``bury_order`` only (an ``order`` answer is a public order there)."""
    return (BURY_ORDER,) if has_bury_order_kind(log) else (ORDER, BURY_ORDER)


def _is_bury_move(event: Event) -> bool:
    return isinstance(event, CardMoved) and event.reason == BURY and event.to_zone == "deck"


def _is_run_member(event: Event) -> bool:
    """A bury move, or an event a move brings along (an equipment left behind, R44; a token
    ceasing to exist, 203)."""
    return _is_bury_move(event) or isinstance(event, Unequipped) or \
        (isinstance(event, CardMoved) and event.to_zone == "gone" and event.from_zone == "deck")


def _answer_as_seen(event: Answered, log: Sequence[Event], seq: int, perspective: str) -> Event:
    if event.seat == perspective:
        return event
    start = seq + 1
    while start < len(log) and _is_order_answer(log[start]):
        start += 1  # the other owner's answer, before any card moves
    ordered = _picks(event)
    if start < len(log) and not any(_buried(e) in ordered for e in _run(log, start)):
        return event  # the answer orders something else: triggers, fliers, returns (502)
    # Its moves follow (a bury), or nothing follows yet: a group of both seats' cards whose
    # other owner is still choosing -- an order of triggers or fliers has its batch's events
    # after it -- so it stays hidden until what follows tells which it is (revisions 7-11).
    return _hidden(event, perspective)


def _picks(answer: Event) -> list[str]:
    pick = answer.pick if isinstance(answer, Answered) else None
    return [str(p) for p in pick] if isinstance(pick, list) else []


def _buried(event: Event) -> str | None:
    """The card a bury move moves (None for any other event)."""
    return event.card if isinstance(event, CardMoved) and _is_bury_move(event) else None


def _run(log: Sequence[Event], start: int) -> list[Event]:
    """The run of bury moves (with what they bring along) that starts at ``start``."""
    end = start
    while end < len(log) and _is_run_member(log[end]):
        end += 1
    return list(log[start:end]) if start < end and _is_bury_move(log[start]) else []


def _move_as_seen(log: Sequence[Event], seq: int, perspective: str) -> Event:
    start = seq
    while start > 0 and _is_run_member(log[start - 1]):
        start -= 1
    answers, before, kinds = [], start - 1, _bury_kinds(log)
    while before >= 0 and _is_order_answer(log[before], kinds):
        answers.append(log[before])
        before -= 1
    run = _run(log, start)
    if not answers or not run:
        return log[seq]
    chunks = _chunks(run)
    for answer in answers:
        if not isinstance(answer, Answered) or answer.seat == perspective:
            continue  # its owner reads its own group as recorded
        ordered = set(_picks(answer))
        places = [n for n, chunk in enumerate(chunks) if chunk[0].card in ordered]
        canonical = sorted((chunks[n] for n in places), key=lambda c: (c[0].name, c[0].card))
        for n, chunk in zip(places, canonical, strict=True):
            chunks[n] = chunk
    shown = [e for chunk in chunks for e in chunk]
    return shown[seq - start]


def _chunks(run: list[Event]) -> list[list[Any]]:
    """The run cut at each bury move: each move (first) with the events it brought along."""
    chunks: list[list[Any]] = []
    for event in run:
        if _is_bury_move(event):
            chunks.append([event])
        else:
            chunks[-1].append(event)
    return chunks
