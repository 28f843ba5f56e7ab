"""An order prompt's answer names triggers, ``<card id>:ab:<card name>#<ability id>``: the
API took picked strings of at most 40 characters, so a seat could not answer an order prompt
holding a longer one (Stormcaller Adept's end-of-battle ability with a flight, R42: 47
characters; a 400 "malformed" for a legal answer, seen in CI driving random matches)."""

from __future__ import annotations

from replay.wotf.api import decision
from replay.wotf.cards import ability_key, default_cards
from replay.wotf.revisions import RULES_REVISION


def test_an_order_answer_naming_the_longest_trigger_of_the_pool_is_well_formed():
    keys = [f"B117:ab:{ability_key(card, index, RULES_REVISION)}"
            for card in default_cards() for index in range(len(card.abilities or ()))]
    longest = max(keys, key=len)
    assert len(longest) > 40
    event = decision("B", {"type": "Answered", "kind": "order", "pick": [longest, "B117:flying"]})
    assert event.pick == [longest, "B117:flying"]
