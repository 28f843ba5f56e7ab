"""Decklists as people really paste them (:mod:`ledger.catalogue`), against the real catalogue.

Reasonable decklists were refused: a file with a UTF-8 byte order mark (``line 1
('\\ufeff3 …'): write it as 'count name'``), a straight apostrophe for the catalogue's curly
``By\u2019ylar Pyreforge`` (and a curly one for a straight name), a decomposed ``Jän`` as a Mac
pastes it, two or non-breaking spaces inside a name; a near miss (``Glow Smiht``, ``Agaric
Suprme``) said nothing about the card meant.  Names are now compared by a key (NFKC, apostrophes alike, spaces
collapsed, case folded) and an unknown name gets "did you mean …?" (difflib).
"""

from __future__ import annotations

import unicodedata

import pytest

from ledger.catalogue import DecklistError, load_catalogue, parse_decklist
from replay.resources import data_root

CAT = load_catalogue(data_root() / "catalogue" / "existence.csv")
CURLY = "By\u2019ylar Pyreforge"  # as the catalogue spells it
STRAIGHT = "Baern Bal'Thor"


def _deck(extra: str) -> str:
    """49 catalogue cards (3 each of 16 Wonders, 1 more) and a token, then ``extra`` (1 card)."""
    wonders = [c for c in CAT.cards if c.type == "Wonder" and c.name not in (CURLY, STRAIGHT)
               and c.name.isascii()]
    token = next(c for c in CAT.cards if c.type == "Token")
    lines = [f"3 {c.name}" for c in wonders[:16]] + [f"1 {wonders[16].name}", extra,
                                                      f"1 {token.name}"]
    return "\n".join(lines) + "\n"


def test_the_catalogue_has_the_names_these_cases_rely_on():
    assert CAT.named(CURLY) is not None and CAT.named(STRAIGHT).name == STRAIGHT
    assert CAT.named("Jän, the Magician") is not None


@pytest.mark.parametrize("typed, meant", [
    ("By'ylar Pyreforge", CURLY),                       # straight for the catalogue's curly
    ("Baern Bal\u2019Thor", STRAIGHT),                  # curly paste of a straight name
    (unicodedata.normalize("NFD", "Jän, the Magician"), "Jän, the Magician"),  # macOS paste
    ("Baern  Bal'Thor", STRAIGHT),                      # two spaces
    ("Baern\u00a0Bal'Thor", STRAIGHT),                  # a non-breaking space
    ("BAERN BAL'THOR", STRAIGHT),
])
def test_a_name_spelt_another_way_is_the_same_card(typed, meant):
    deck = parse_decklist(_deck(f"1 {typed}"), CAT)
    assert deck.cards.get(meant) == 1 and sum(deck.cards.values()) == 50


def test_a_byte_order_mark_before_the_first_line_is_not_part_of_it():
    deck = parse_decklist("\ufeff" + _deck(f"1 {STRAIGHT}"), CAT)
    assert sum(deck.cards.values()) == 50


def test_a_near_miss_says_which_card_was_meant_in_one_line():
    with pytest.raises(DecklistError) as refused:
        parse_decklist(_deck("1 Agaric Suprme"), CAT)
    message = str(refused.value)
    assert message.startswith("line 18: no card 'Agaric Suprme' in the catalogue; did you mean "
                              "'Agaric Supreme'") and "\n" not in message
    with pytest.raises(DecklistError) as refused:
        parse_decklist(_deck("1 Qzxv Wpt"), CAT)
    assert "did you mean" not in str(refused.value)  # nothing close: no guess
