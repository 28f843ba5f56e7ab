"""The line a match stands on: which events still count after its take-backs.

A ``TakenBack(to_seq)`` at seq ``t`` says "from here on, the state is the state after event
``to_seq``" (docs/format.md) -- the state a fold kept at ``to_seq`` (``replay.timeline``,
``replay.wotf.evolve.fold``).  The events in force after ``t`` are therefore the events in
force after ``to_seq``, then ``t``: each event's predecessor on the line is the event before
it, and a take-back's is its ``to_seq``.  The line after the last event is the chain of
predecessors back to seq 0.

Usually ``to_seq`` is on the line (a take-back undoes the latest events): the events after it
leave the line.  A ``to_seq`` that an earlier take-back had undone returns to that line as the
fold does -- its events count again, and those of the line it leaves no longer count.  Every
reader that counts events (the narration's ``undone_by``, the warehouse rows, the judge's
console) follows this, so none disagrees with the board the fold shows.

A ``to_seq`` that is not an earlier seq (a file no recorder wrote: ``wonders verify`` reports
it) undoes nothing here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from ledger.events import Event, TakenBack


def _back_to(event: Event, seq: int) -> int | None:
    """The seq a take-back at ``seq`` returns to, or ``None`` (not a take-back, or not to an
    earlier seq)."""
    cls = type(event)
    is_back = _IS_BACK.get(cls)
    if is_back is None:
        is_back = _IS_BACK[cls] = issubclass(cls, TakenBack)
    if not is_back:
        return None
    to_seq = cast(TakenBack, event).to_seq
    return to_seq if 0 <= to_seq < seq else None


#: Event class -> whether it is a take-back: the readers run over every event of a match on
#: every answer, and a dict lookup costs a fraction of ``isinstance`` against an event class.
_IS_BACK: dict[type, bool] = {}


def line_of(events: Sequence[Event]) -> list[int]:
    """The seqs in force after the last of ``events`` (``events[seq]``), in order; the
    take-backs on the line included."""
    before = [seq - 1 for seq in range(len(events))]
    for seq, event in enumerate(events):
        to_seq = _back_to(event, seq)
        if to_seq is not None:
            before[seq] = to_seq
    line: list[int] = []
    seq = len(events) - 1
    while seq >= 0:
        line.append(seq)
        seq = before[seq]
    line.reverse()
    return line


def undone_by(events: Sequence[Event]) -> dict[int, int]:
    """seq -> the take-back that took event ``seq`` off the line, for every event not on the
    line after the last of ``events`` (one taken off twice: the later take-back)."""
    line: list[int] = []  # the seqs in force, in order
    place: dict[int, int] = {}  # seq on the line -> its index in ``line``
    before: list[int] = []  # each seq's predecessor on the line (as for ``line_of``)
    undone: dict[int, int] = {}
    for seq, event in enumerate(events):
        to_seq = _back_to(event, seq)
        before.append(seq - 1 if to_seq is None else to_seq)
        if to_seq is None:
            pass
        elif to_seq in place:  # the usual take-back: the latest events leave the line
            for gone in line[place[to_seq] + 1:]:
                undone[gone] = seq
                del place[gone]
            del line[place[to_seq] + 1:]
        else:  # back to a line an earlier take-back left: it counts again
            line, place = _switch(line, _chain(before, to_seq), seq, undone)
        place[seq] = len(line)
        line.append(seq)
    return undone


def _chain(before: list[int], seq: int) -> list[int]:
    """The line as it stood after ``seq``."""
    chain: list[int] = []
    while seq >= 0:
        chain.append(seq)
        seq = before[seq]
    chain.reverse()
    return chain


def _switch(old: list[int], new: list[int], by: int, undone: dict[int, int]
            ) -> tuple[list[int], dict[int, int]]:
    """Go from the line ``old`` to ``new`` at the take-back ``by``: what leaves is undone by
    it, what returns counts again."""
    kept = set(new)
    for seq in old:
        if seq not in kept:
            undone[seq] = by
    for seq in new:
        undone.pop(seq, None)
    return new, {seq: index for index, seq in enumerate(new)}
