"""A Wonders of The First board as plain text (``wonders replay``): the realms with their stones
and cards, each seat's resources, hand and abyss."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replay.counted import counted


def board_text(match_id: str, seq: int, what: str, b: dict[str, Any],
               players: Mapping[str, str] | None = None) -> str:
    """The board view model as lines of text; seats by their players' names (``players``)."""
    def num(x: object) -> str:
        return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)

    def who(seat: str | None) -> str:
        return (players or {}).get(seat, seat) if seat else "-"

    lines = [f"{match_id} @ seq {seq}: {what}",
             f"round {b['round']}  turn {who(b['turn'])}  first {who(b['first'])}  "
             f"({b['perspective']} view, rules {b['ruleset']})"]
    if b["over"]:
        ending = f"{who(b['winner'])} wins" if b["winner"] else "draw"
        why = "tied" if b["reason"] == "draw" else b["reason"].replace("_", " ")  # 405
        lines.append(f"match over: {ending} ({why})")
    for seat in ("A", "B"):
        p = b["players"][seat]
        named = f" {who(seat)}" if who(seat) != seat else ""
        lines.append(f"{seat}{named}: energy {num(p['energy'])}  actions {p['actions']}  free attacks "
                     f"{p['free_attacks']}  faith {num(p['faith'])}  stones {p['stones']}  "
                     f"deck {p['deck_count']}")
        hand = ", ".join(c["name"] for c in p["hand"]) if p["hand"] is not None else \
            counted(p['hand_count'], 'hidden card')
        lines.append(f"   hand: {hand or '-'}")
        lines.append(f"   abyss: {', '.join(c['name'] for c in p['abyss']) or '-'}")
    lines.append("realms:")
    for r in b["realms"]:
        state = "active" if r["active"] else "locked"
        stones = "/".join(who(s) if s in ("A", "B") else s for s in r["stones"])
        lines.append(f"  {r['number']} [{state}] stone {stones}")
        for seat in ("A", "B"):
            cards = r["cards"][seat]
            if cards:
                shown = ", ".join(
                    f"{c['name']}" + (f" ({num(c['power'])})" if "power" in c else "")
                    + (" tapped" if c["tapped"] else "")
                    + "".join(f" {k}x{n}" for k, n in c["counters"].items()) for c in cards)
                lines.append(f"     {who(seat)}: {shown}")
    return "\n".join(lines)
