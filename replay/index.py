"""The addresses people use in a match: rounds, turns and a game's own places, by seq.

"Round 4, turn 7", "the battle in realm 3": an :class:`Index` sees each event in order and
asks the game (:meth:`replay.game.Game.address`) whether it starts one.
"""

from __future__ import annotations

import bisect
from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ledger.events import Event
from replay.game import Game


class TurnMark(msgspec.Struct, frozen=True, gc=False):
    """A turn taken: where, in which round, its number in the round, by whom.  Plain values
    only, so not tracked by the garbage collector (a held match has hundreds, a server many
    matches: a full collection need not walk them)."""

    seq: int
    round: int
    number: int  # 1-based turn number within the round
    seat: str


@dataclass
class Index:
    """Addresses people use: rounds, turns and the game's own places (a Wonders battle in a
    realm), by seq; :meth:`see` each event, the game says which events start one, and
    :meth:`take_back` each take-back.

    Like the log, the index keeps every mark, those of events a take-back undid too; after a
    take-back the count goes on from the round and turn of its ``to_seq`` (the events after a
    take-back to round 2's third turn are in round 2, from its fourth turn), and
    :meth:`standing` leaves out the marks of undone events (what a reader jumps to)."""

    game: Game = field(compare=False, repr=False)
    rounds: dict[int, int] = field(default_factory=dict)  # round -> seq where it starts (last)
    turns: list[TurnMark] = field(default_factory=list)
    places: list[tuple[int, int, str, Any]] = field(default_factory=list)  # (seq, round, kind, at)
    round_starts: list[tuple[int, int]] = field(default_factory=list)  # (seq, round), every one
    _round: int = field(default=0, compare=False, repr=False)
    _turn_no: int = field(default=0, compare=False, repr=False)
    # (seq, round, turn number) after each round, turn or take-back, by seq: the count at any seq
    _clock: list[tuple[int, int, int]] = field(default_factory=list, compare=False, repr=False)

    def see(self, seq: int, event: Event) -> None:
        address = self.game.address(event)
        if address is None:
            return
        if address.kind == "round":
            self._round, self._turn_no = address.at, 0
            self.rounds[address.at] = seq
            self.round_starts.append((seq, address.at))
        elif address.kind == "turn":
            self._turn_no += 1
            self.turns.append(TurnMark(seq, self._round, self._turn_no, address.at))
        else:
            self.places.append((seq, self._round, address.kind, address.at))
            return
        self._clock.append((seq, self._round, self._turn_no))

    def take_back(self, seq: int, to_seq: int) -> None:
        """A take-back at ``seq`` to the state after ``to_seq``: the round and turn count go
        back to theirs there (the last count taken at or before ``to_seq`` -- every take-back
        takes one, so none lies between)."""
        at = bisect.bisect_right(self._clock, (to_seq, _MAX, _MAX)) - 1
        self._round, self._turn_no = self._clock[at][1:] if at >= 0 else (0, 0)
        self._clock.append((seq, self._round, self._turn_no))

    def standing(self, undone: Container[int]) -> Index:
        """The marks of the events not ``undone`` (seqs a take-back undid)."""
        out = Index(self.game)
        out.round_starts = [(seq, r) for seq, r in self.round_starts if seq not in undone]
        out.rounds = {r: seq for seq, r in out.round_starts}
        out.turns = [mark for mark in self.turns if mark.seq not in undone]
        out.places = [place for place in self.places if place[0] not in undone]
        return out

    @property
    def battles(self) -> list[tuple[int, int, Any]]:
        """``(seq, round, where)`` of every battle."""
        return [(seq, round_, at) for seq, round_, kind, at in self.places if kind == "battle"]


_MAX = 2**62  # past any round or turn number: bisects to the last count at a seq
