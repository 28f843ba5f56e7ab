"""Names that look the same: the Unicode confusables (UTS #39), for refusing a look-alike name.

A self-registered player chooses their name, and the pairings, standings and the opponent's
own page show it.  ``"\u0410nn"`` (a Cyrillic capital A, U+0410) is another name than ``"Ann"``
(:func:`ledger.tournament.player_key` tells them apart, as it must: they are different
letters) but reads the same: a second "Ann" on every page.  :func:`look` is what a name looks
like -- each character replaced by one chosen member of its class of confusable characters,
from the Unicode confusables data that :mod:`confusable_homoglyphs` ships (``confusables.txt``
of UTS #39) -- so two names that look alike have the same look.  The classes are the data's
pairs closed under "looks like" (``l``, ``I``, ``1`` and ``|`` are one class), each named by
its smallest code point (an ASCII letter or digit where the class has one).

Only the check of a registration asks (:meth:`ledger.tournament.Tournament.looks_like`); what
a tournament's log holds is never looked at again, so a log recorded before the check was made
reads as it did.  The data (about 900 KB) is loaded the first time a look is asked for.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib import resources

__all__ = ["look"]


@functools.lru_cache(maxsize=1)
def _classes() -> dict[str, str]:
    """Each confusable character's class representative (single characters only: a
    character confusable with a sequence, ``m`` with ``rn``, is left to itself)."""
    data = json.loads(resources.files("confusable_homoglyphs")
                      .joinpath("confusables.json").read_text(encoding="utf-8"))
    parent: dict[str, str] = {}

    def find(ch: str) -> str:
        root = ch
        while parent.get(root, root) != root:
            root = parent[root]
        while ch != root:  # path compression
            parent[ch], ch = root, parent[ch]
        return root

    for char, homoglyphs in data.items():
        for other in (h["c"] for h in homoglyphs):
            if len(char) == 1 and len(other) == 1:
                a, b = find(char), find(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)  # the smaller code point names the class
    return {ch: find(ch) for ch in parent}


@functools.lru_cache(maxsize=4096)
def look(name: str) -> str:
    """What a name looks like: NFC, invisible format characters (a zero-width space) left
    out and spaces collapsed (as :func:`ledger.tournament.player_key`), every character as
    its class's representative, case folded, and every character as its class's
    representative again -- the classes are of characters as drawn, so the case is folded
    only once each is replaced (``"PauI"`` with a capital ``I`` looks like ``"Paul"``)."""
    classes = _classes()
    text = unicodedata.normalize("NFC", name)
    text = " ".join("".join(ch for ch in text if unicodedata.category(ch) != "Cf").split())
    drawn = "".join(classes.get(ch, ch) for ch in text).casefold()
    return "".join(classes.get(ch, ch) for ch in drawn)
