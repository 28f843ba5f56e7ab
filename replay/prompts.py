"""The prompt/decision protocol: what the engine is waiting for, and whether an answer fits.

The engine always waits for exactly one :class:`Prompt` ``(seat, kind, legal options)``.
Options are either listed (``options``) or, where there are too many to list (a mulligan, a
shuffle, a discard), described by a :class:`Choose`: pick between ``min`` and ``max``
distinct ids ``of`` a list, in order when ``ordered``.

Turn prompts list the legal turn actions as the decision events themselves
(``DrawDeclared``, ``PlayDeclared`` …); answer prompts list picks, answered with
``Answered(seat, kind, pick)``; chance prompts are answered with ``CoinFlipped`` or
``DeckShuffled``.
"""

from __future__ import annotations

from typing import Any

import msgspec

KINDS = ("turn", "mulligan", "first", "side", "order", "bury_order", "target", "may", "stone",
         "realm", "discard", "equip", "amount", "manual", "chance")


class Choose(msgspec.Struct, frozen=True):
    of: list[str]
    min: int
    max: int
    ordered: bool = False
    multiset: bool = False  # ``of`` may repeat ids; a pick must use exactly those (order prompts)


class Prompt(msgspec.Struct, frozen=True):
    seat: str  # "A", "B" or "chance"
    kind: str
    options: list[Any] = []
    choose: Choose | None = None
    card: str | None = None  # the card the prompt is about (a flier, a shield …)
    text: str = ""
    chance: str = ""  # a chance prompt: the chance event that answers it (its type name)

    def is_choice(self) -> bool:
        return self.choose is not None


def pick_fits(prompt: Prompt, pick: Any) -> str | None:
    """Why ``pick`` does not answer ``prompt`` (``None`` if it does)."""
    if prompt.choose is None:
        if pick in prompt.options:
            return None
        listed = ", ".join(str(o) for o in prompt.options)
        return f"{pick!r} is not one of the legal options ({listed})"
    spec = prompt.choose
    if not isinstance(pick, list):
        return f"expected a list of card ids, got {pick!r}"
    if not spec.min <= len(pick) <= spec.max:
        return f"pick {spec.min}–{spec.max} cards, got {len(pick)}"
    if spec.multiset:
        if sorted(map(str, pick)) != sorted(spec.of):
            return f"the order must use exactly {sorted(spec.of)}"
        return None
    if len(set(pick)) != len(pick):
        return "the same card is picked twice"
    missing = [p for p in pick if p not in spec.of]
    if missing:
        return f"{missing[0]!r} cannot be picked here (choose from {', '.join(spec.of)})"
    return None


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def ordinal(index: int) -> str:
    """The words of a 0-based place among options that read alike ("first", … "9th")."""
    return ORDINALS[index] if index < len(ORDINALS) else f"{index + 1}th"
