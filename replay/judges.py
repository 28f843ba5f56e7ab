"""How a judge, and what a judge records outside the rules, read in a sentence of either
game's narration.

The API records its judge as ``"judge"`` (``web/api/judge.py``): a sentence reads "The judge
notes: …", not "Judge judge notes: …".  A recorder may give a name instead: "Jo" reads
"Judge Jo", and a name that already says it ("Judge Jo") is kept as it is.

A judge's draw (``DrawGiven``: docs/rulings.md R45, docs/rulings-sow.md R26) reads the same in
both games: who recorded it and which kind it is, agreed by both players or at time.
"""

from __future__ import annotations

from collections.abc import Callable

from ledger.events import DrawGiven

#: The end of a match drawn by the judge, by ``MatchEnded.reason`` ("The match ends in …").
DRAWN = {"agreed": "an agreed draw", "time": "a draw at time"}


def judge_named(name: str) -> str:
    """The subject of a sentence about what the judge ``name`` did."""
    name = name.strip()
    if name.lower() in ("", "judge", "the judge"):
        return "The judge"
    if name.lower().startswith("judge "):
        return name
    return f"Judge {name}"


def draw_given(event: DrawGiven, seat: Callable[[str], str]) -> str:
    """"The judge records a draw: Ann and Bob agree to it" / "… a draw at time: …" (no full
    stop); ``seat`` names a seat's player."""
    why = f" ({event.reason})" if event.reason else ""
    if event.kind == "agreed":
        return (f"{judge_named(event.judge)} records a draw: {seat('A')} and {seat('B')} agree "
                f"to it{why}")
    return (f"{judge_named(event.judge)} records a draw at time: the round's time ran out with "
            f"the match unfinished{why}")
