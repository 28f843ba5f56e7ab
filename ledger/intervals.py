"""Confidence intervals for win rates: the Wilson score interval, and Newcombe's interval for a
difference of two rates built from it.

Every rate the named statistics report is ``wins / games`` with a Wilson 95% interval
(Wilson 1927): unlike the normal approximation it stays inside [0, 1] and behaves at 0 or
``n`` wins and for small samples.  A difference of two independent rates (e.g. "improvement
when drawn") gets Newcombe's hybrid score interval (Newcombe 1998, method 10), which combines
the two Wilson intervals.
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal distribution


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float | None, float | None]:
    """The Wilson score interval ``(low, high)`` of ``wins / games``; ``(None, None)`` if no games."""
    if games <= 0:
        return None, None
    return _wilson(wins, games, z)


def _wilson(wins: int, games: int, z: float) -> tuple[float, float]:
    """:func:`wilson` for ``games > 0``."""
    if not 0 <= wins <= games:
        raise ValueError(f"wins must be within 0..games, got {wins}/{games}")
    p = wins / games
    z2 = z * z
    centre = p + z2 / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games))
    denominator = 1 + z2 / games
    low = 0.0 if wins == 0 else max(0.0, (centre - spread) / denominator)
    high = 1.0 if wins == games else min(1.0, (centre + spread) / denominator)  # exact at the ends
    return low, high


def rate(wins: int, games: int) -> float | None:
    """``wins / games``, or ``None`` when there are no games."""
    return wins / games if games > 0 else None


def newcombe(wins1: int, games1: int, wins2: int, games2: int,
             z: float = Z95) -> tuple[float | None, float | None]:
    """Newcombe's interval for ``wins1/games1 - wins2/games2``; ``(None, None)`` if either is empty."""
    if games1 <= 0 or games2 <= 0:
        return None, None
    p1, p2 = wins1 / games1, wins2 / games2
    l1, u1 = _wilson(wins1, games1, z)
    l2, u2 = _wilson(wins2, games2, z)
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))
