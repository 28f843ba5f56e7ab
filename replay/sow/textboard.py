"""A State of Wonder board as plain text (``wonders replay``): each city by area, gold, income
and progress, and the pitched-battle zone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replay.counted import counted

AREAS = ("state", "fortifications", "units", "buildings", "attackers")


def board_text(match_id: str, seq: int, what: str, b: dict[str, Any],
               players: Mapping[str, str] | None = None) -> str:
    """The board view model (:func:`replay.sow.perspective.board`) as lines of text; seats by
    their players' names (``players``)."""
    def who(seat: str | None) -> str:
        return (players or {}).get(seat, seat) if seat else "-"

    lines = [f"{match_id} @ seq {seq}: {what}",
             f"turn {b['turn']}  {who(b['turn_player'])} to play, {b['phase']} phase  "
             f"({b['perspective']} view)"]
    if b["over"]:
        ending = f"{who(b['winner'])} wins" if b["winner"] else "draw"
        lines.append(f"match over: {ending} ({b['reason'].replace('_', ' ')})")
    for seat, city in b["cities"].items():
        progress = city["progress"]
        toward = (f"  {progress['card']} {progress['counters']}/{progress['target']}"
                  if progress else "")
        named = f" {who(seat)}" if who(seat) != seat else ""
        lines.append(f"{seat}{named}: gold {city['gold']}  income {city['income']}{toward}"
                     + ("  besieging" if city["besieging"] else ""))
        for area in AREAS:
            if city[area]:
                lines.append(f"   {area}: {', '.join(_card(c) for c in city[area])}")
        lines.append(f"   wonder area: {_hidden(city['wonder_area'])}")
        lines.append(f"   culture: {_hidden(city['culture'])}")
        lines.append(f"   discard: {', '.join(city['discard']) or '-'}")
    fighting = b["pitched_battle"]
    lines.append(f"pitched battle: {', '.join(_card(c) for c in fighting) or '-'}")
    return "\n".join(lines)


def _card(card: dict[str, Any]) -> str:
    text = card["name"]
    if "attack" in card:
        text += f" {card['attack']}/{card['health'] - card['damage']}"
    elif card.get("damage"):
        text += f" ({card['damage']} damage)"
    return text + (" exhausted" if card.get("exhausted") else "")


def _hidden(area: list[str] | int) -> str:
    """An area the viewer sees as names, or only as a count."""
    if isinstance(area, int):
        return counted(area, 'hidden card')
    return ", ".join(area) or "-"
