"""Names that look the same: the Unicode confusables (UTS #39), for refusing a look-alike name.

A self-registered player chooses their name, and the pairings, standings and the opponent's
own page show it.  ``"\u0410nn"`` (a Cyrillic capital A, U+0410) is another name than ``"Ann"``
(:func:`ledger.tournament.player_key` tells them apart, as it must: they are different
letters) but reads the same: a second "Ann" on every page.  :func:`reads_alike` says whether
two names are drawn alike, by their :func:`skeleton` (UTS #39, section 4) from the Unicode
confusables data that :mod:`confusable_homoglyphs` ships (``confusables.txt``):

* what is drawn first (:func:`visible`): NFKC (fullwidth letters, a mathematical bold A), the
  default-ignorable characters left out (a zero-width space, a combining grapheme joiner, a
  variation selector, a Hangul filler: drawn as nothing), blanks as spaces, spaces collapsed;
* then NFD, every character as its class's representative, NFD again: the classes are the
  data's pairs closed under "looks like" (``l``, ``I``, ``1`` and ``|`` are one class), each
  named by its sequence where the class has one (``m`` is drawn as ``rn``), else its smallest
  code point.  The data wraps each right-to-left character in left-to-right marks: they are
  taken off (an Arabic kaf and a Persian keheh are one class);
* as written, and a name written in capitals (small letters) only beside the other in
  capitals (small letters): ``"KI\u041c"`` (a Cyrillic Em) reads "KIM", Kim's name in
  capitals, while ``Ian`` does not read as ``Lan`` (folding the case after the classes made
  Lan's L an l, drawn as Ian's I), nor a Cyrillic Toma as a Latin one (their capitals alike).

Only the check of a registration asks (:meth:`ledger.tournament.Tournament.looks_like`) and
the check that a name has something visible (:func:`ledger.tournament.clean_name`); what a
tournament's log holds is never looked at again, so a log recorded before the check was made
reads as it did.  The data (about 900 KB) is loaded the first time a look is asked for.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib import resources

__all__ = ["reads_alike", "skeleton", "visible"]

#: Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties.txt): drawn as nothing.
_IGNORABLE = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
              (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
              (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
              (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
              (0xE0000, 0xE0FFF))
#: Characters drawn as a blank that are no whitespace to :meth:`str.split`.
_BLANKS = frozenset("\u2800")
_RTL_MARKS = str.maketrans("", "", "\u200e\u200f")


def is_ignorable(ch: str) -> bool:
    """Whether ``ch`` is drawn as nothing (default-ignorable, or a format character)."""
    code = ord(ch)
    return (unicodedata.category(ch) == "Cf"
            or any(lo <= code <= hi for lo, hi in _IGNORABLE))


@functools.lru_cache(maxsize=4096)
def visible(name: str) -> str:
    """What of ``name`` is drawn: NFKC, without what is drawn as nothing, blanks as spaces,
    spaces collapsed ("" for a name of nothing visible)."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(" " if ch in _BLANKS else ch for ch in text if not is_ignorable(ch))
    return " ".join(text.split())


@functools.lru_cache(maxsize=1)
def _classes() -> dict[str, str]:
    """Each confusable character's class representative: the class's shortest sequence where
    it has one (``m`` → ``rn``), else its smallest code point."""
    data = json.loads(resources.files("confusable_homoglyphs")
                      .joinpath("confusables.json").read_text(encoding="utf-8"))
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        root = node
        while parent.get(root, root) != root:
            root = parent[root]
        while node != root:  # path compression
            parent[node], node = root, parent[node]
        return root

    for char, homoglyphs in data.items():
        a = find(char.translate(_RTL_MARKS))
        for other in (h["c"].translate(_RTL_MARKS) for h in homoglyphs):
            b = find(other)
            if a != b:
                parent[max(a, b, key=_rank)] = min(a, b, key=_rank)
                a = find(a)
    return {node: find(node) for node in parent if len(node) == 1 and find(node) != node}


def _rank(node: str) -> tuple[int, int, str]:
    """The representative of a class is its least node: a sequence before a character, the
    shortest sequence, then by code points."""
    return (len(node) == 1, len(node), node)


def _mapped(text: str, classes: dict[str, str]) -> str:
    return unicodedata.normalize("NFD", "".join(classes.get(ch, ch) for ch in text))


@functools.lru_cache(maxsize=8192)
def skeleton(text: str) -> str:
    """UTS #39's skeleton of ``text``: NFD, each character as its class's representative,
    NFD, until nothing changes (a representative's own characters are mapped too)."""
    classes = _classes()
    out = unicodedata.normalize("NFD", text)
    for _ in range(4):  # a sequence's characters are their own representatives after one
        mapped = _mapped(out, classes)
        if mapped == out:
            break
        out = mapped
    return out


@functools.lru_cache(maxsize=4096)
def _looks(name: str) -> tuple[str, str, str, bool, bool]:
    """The skeletons of ``name`` as written, in small letters and in capitals, and whether it
    is written in small letters only, in capitals only."""
    seen = visible(name)
    lower, upper = seen.lower(), seen.upper()
    return (skeleton(seen), skeleton(lower), skeleton(upper), seen == lower, seen == upper)


def reads_alike(a: str, b: str) -> bool:
    """Whether names ``a`` and ``b`` are drawn alike: the same skeleton as written, or one
    written in capitals (small letters) only reads as the other in capitals (small letters):
    ``"KI\u041c"`` as Kim's KIM, while a Cyrillic ``"\u0422\u043e\u043c\u0430"`` (Toma,
    its m a small capital) is not Toma's name because their capitals are drawn alike."""
    x, y = _looks(a), _looks(b)
    return (x[0] == y[0]
            or (x[3] and x[0] == y[1]) or (y[3] and y[0] == x[1])
            or (x[4] and x[0] == y[2]) or (y[4] and y[0] == x[2]))
