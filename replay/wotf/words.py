"""The words narration uses for what events carry as ids: cards, abilities and seats.

Events name cards by instance id (``A12``, ``B-T3``), abilities by key (``ab:Cloud Veil#0``,
``Grave Warden#death-9da253a8``) and players by seat (``A``).  A :class:`Words` turns each into
what a reader may know: the card's name where the perspective may name it (else "a hidden
card"), the ability as its card's ability, the seat as the player's name.  Free text the engine
wrote (a trigger's detail, a count's key) is scrubbed of ids the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

HIDDEN = "?"  # what a redacted event shows for a card it may not name (perspective.HIDDEN)
UNNAMED = "a hidden card"
#: Keyword triggers whose name is not the keyword people read: Rage's sacrifice at the end of
#: its battle (revision 11, docs/rulings.md R42) reads "Mad Boar's rage: sacrificed".
SPOKEN = {"rage_sacrifice": "rage"}

#: A card instance id: ``<seat><n>`` (deck), ``<seat>-T<n>`` (archive tokens) or
#: ``<seat>-t<n>`` (stand-in tokens).
CARD_ID = re.compile(r"\b[AB](?:-[Tt])?\d+\b")
#: An ability key, with or without the stack's ``ab:`` prefix: a card name (capitalised
#: words, "of"/"the" between them) then ``#`` and the ability's stable id or position.
ABILITY_KEY = re.compile(r"(?:ab:)?((?:[A-Z][\w'\u2019-]*)(?: (?:of|the|[A-Z][\w'\u2019-]*))*)#[\w-]+")


class Words:
    """Card id -> name (as a perspective may name it) and seat -> player name."""

    def __init__(self, names: Mapping[str, str] | None = None,
                 players: Mapping[str, str] | None = None):
        self.names = names or {}
        self.players = players or {}

    def card(self, cid: str | None) -> str:
        """A card's name, or "a hidden card" where this reader may not name it."""
        if not cid or cid == HIDDEN:
            return UNNAMED
        return self.names.get(cid) or UNNAMED

    def cards(self, cids: list[str]) -> str:
        return ", ".join(self.card(c) for c in cids) or "nothing"

    def named(self, name: str | None) -> str:
        """A name an event carries (hidden as ``?`` or empty where redacted)."""
        return name if name and name != HIDDEN else UNNAMED

    def seat(self, seat: str | None) -> str:
        """A seat as its player's name ("player A" where the match names no one)."""
        if seat is None:
            return "no one"
        return self.players.get(seat) or f"player {seat}"

    def other(self, seat: str) -> str:
        return self.seat("B" if seat == "A" else "A")

    def ability(self, label: str, card_name: str | None = None) -> str:
        """An ability as people read it: a keyword is its name; a card's own ability is
        "ability" (the card's name is said before it)."""
        if label == HIDDEN:
            return "ability"
        if label.startswith("ab:") or "#" in label:
            return "ability"
        return SPOKEN.get(label, label)

    def text(self, text: str) -> str:
        """Free text the engine wrote, with card ids and ability keys put in words."""
        text = ABILITY_KEY.sub(lambda m: f"{m.group(1)}'s ability", text)
        return CARD_ID.sub(lambda m: self.card(m.group(0)), text)
