"""The addresses people use in a match: rounds, turns and a game's own places, by seq.

"Round 4, turn 7", "the battle in realm 3": an :class:`Index` sees each event in order and
asks the game (:meth:`replay.game.Game.address`) whether it starts one.
"""

from __future__ import annotations

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
    realm), by seq; :meth:`see` each event, the game says which events start one."""

    game: Game = field(compare=False, repr=False)
    rounds: dict[int, int] = field(default_factory=dict)  # round -> seq where it starts
    turns: list[TurnMark] = field(default_factory=list)
    places: list[tuple[int, int, str, Any]] = field(default_factory=list)  # (seq, round, kind, at)
    _round: int = field(default=0, compare=False, repr=False)
    _turn_no: int = field(default=0, compare=False, repr=False)

    def see(self, seq: int, event: Event) -> None:
        address = self.game.address(event)
        if address is None:
            return
        if address.kind == "round":
            self._round, self._turn_no = address.at, 0
            self.rounds[address.at] = seq
        elif address.kind == "turn":
            self._turn_no += 1
            self.turns.append(TurnMark(seq, self._round, self._turn_no, address.at))
        else:
            self.places.append((seq, self._round, address.kind, address.at))

    @property
    def battles(self) -> list[tuple[int, int, Any]]:
        """``(seq, round, where)`` of every battle."""
        return [(seq, round_, at) for seq, round_, kind, at in self.places if kind == "battle"]
