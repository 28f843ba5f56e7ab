"""How a judge is named in a sentence of either game's narration.

The API records its judge as ``"judge"`` (``web/api/judge.py``): a sentence reads "The judge
notes: …", not "Judge judge notes: …".  A recorder may give a name instead: "Jo" reads
"Judge Jo", and a name that already says it ("Judge Jo") is kept as it is.
"""

from __future__ import annotations


def judge_named(name: str) -> str:
    """The subject of a sentence about what the judge ``name`` did."""
    name = name.strip()
    if name.lower() in ("", "judge", "the judge"):
        return "The judge"
    if name.lower().startswith("judge "):
        return name
    return f"Judge {name}"
