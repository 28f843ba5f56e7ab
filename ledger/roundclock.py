"""A Swiss round's clock: how long a round may take, and how much of it is left.

A tournament may have a round time (``round_minutes``, set when it is created or changed by a
``RoundClockSet`` event, :mod:`ledger.tournament`).  A round's clock starts when the round is
started (its ``RoundStarted`` line's ``at``) and is read against the time now; it is never
stored, so changing the round time moves the end of the round under way too (an organizer who
gives the room five more minutes sets the time five minutes longer).  When the time is up the
judges end the matches still playing (a concession, a game loss or a draw they record); the
clock only tells everyone where the round stands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ledger.tournament import (
    MAX_ROUND_MINUTES,
    Round,
    Tournament,
    TournamentError,
    is_round_minutes,
    parse_at,
)

__all__ = ["MAX_ROUND_MINUTES", "Clock", "check_minutes", "parse_at", "round_clock"]


@dataclass(frozen=True)
class Clock:
    """A started round's clock at one moment."""

    started_at: datetime
    ends_at: datetime
    seconds_left: int  # negative: the time is up, by that much

    @property
    def ends_at_iso(self) -> str:
        """The end as ISO 8601 in UTC to the millisecond (``2026-11-27T14:55:00.000Z``): a
        form every browser's ``Date.parse`` reads (Safari refuses six digits of fraction)."""
        return self.ends_at.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    @property
    def is_up(self) -> bool:
        return self.seconds_left <= 0

    @property
    def words(self) -> str:
        """"35 min left", "under a minute left", "time is up (6 min over)"."""
        minutes = abs(self.seconds_left) // 60
        if not self.is_up:
            return f"{minutes} min left" if minutes else "under a minute left"
        return f"time is up ({minutes} min over)" if minutes else "time is up"


def round_clock(tournament: Tournament, played: Round, now: datetime | None = None) -> Clock | None:
    """The clock of ``played`` (``None``: an untimed tournament, or a round not started)."""
    if tournament.round_minutes is None or not played.started or not played.started_at:
        return None
    started = parse_at(played.started_at)
    ends = started + timedelta(minutes=tournament.round_minutes)
    left = (ends - (now or datetime.now(UTC))).total_seconds()
    return Clock(started, ends, int(left // 1) if left >= 0 else -int(-left // 1))


def check_minutes(minutes: int) -> int:
    """A round time an organizer may set: 0 (untimed) to :data:`MAX_ROUND_MINUTES`."""
    if not is_round_minutes(minutes):
        raise TournamentError(f"round time {minutes!r}: a whole number of minutes from 1 to "
                              f"{MAX_ROUND_MINUTES}, or 0 for untimed rounds")
    return minutes
