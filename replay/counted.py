"""Counting nouns in the sentences people read (the viewer's event list, text boards, command
lines): "1 card", "3 cards" -- never "card(s)"."""

from __future__ import annotations


def counted(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the noun: ``one`` for exactly one, else ``many`` (default: ``one`` + "s")."""
    return f"{n} {one if n == 1 else (many if many is not None else one + 's')}"
