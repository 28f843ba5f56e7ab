"""A player's own tournament day, as their page shows it (``/tournaments/<id>/me``,
:mod:`web.selfreg`): this round's table, opponent, seat and result first, then each earlier
round of theirs, their standing and whether they dropped.

Nothing here is worked out anew.  A round's line is the tournament's public page's own
(:func:`web.tournament_pages.seating_of`: the same outcome words -- playing, won, lost, draw,
bye, not started, unreadable), read from the same results (a table whose match can't be read
is "unreadable", logged for the operator, and left out of the standings); the standing is the
player's row of the ledger's :func:`ledger.tournament.standings` (place, points, wins, losses,
draws, byes), the table the standings page shows.  No token is read or shown: a seat's link is
kept only as a hash, so the page says where it comes from instead (the table slip, the
organizer or a judge).
"""

from __future__ import annotations

from dataclasses import dataclass

from ledger.roundclock import Clock, round_clock
from ledger.tournament import Player, Round, Standing, Tournament, standings
from web.tournament_pages import Seating, readable_results, seating_of


@dataclass(frozen=True)
class PlayerDay:
    """What a player's page says of their day (all empty before round 1 is paired)."""

    current: Round | None  # the latest round paired
    now: Seating | None  # their line of it (None: not paired in it)
    earlier: list[tuple[int, Seating]]  # (round, line) of each earlier round they were in
    standing: Standing | None  # their row of the standings (None: no round paired yet)
    players: int  # rows of the standings
    clock: Clock | None  # the current round's clock, if timed and started

    @property
    def is_playing(self) -> bool:
        """Whether their table of this round is still to be played (their seat link matters)."""
        return self.now is not None and self.now.outcome in ("playing", "not started")


def player_day(t: Tournament, player: Player) -> PlayerDay:
    """``player``'s day in ``t``, from the results the store can read now."""
    if not t.rounds:
        return PlayerDay(None, None, [], None, 0, None)
    results, damaged = readable_results(t)
    lines = [(r.number, seating_of(r, player.name, results, damaged)) for r in t.rounds]
    earlier = [(number, s) for number, s in lines[:-1] if s is not None]
    ranked = standings(t, results)
    mine = next((s for s in ranked if s.player == player.name), None)
    current = t.rounds[-1]
    return PlayerDay(current, lines[-1][1], earlier, mine, len(ranked),
                     round_clock(t, current))


__all__ = ["PlayerDay", "player_day"]
