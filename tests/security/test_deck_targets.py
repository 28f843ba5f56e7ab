"""Attack: reading one's own deck order from a deck target's options.

A deck card's id is its place in the setup shuffle: ``A13`` was thirteenth from the top
(replay/wotf/instances.py), so until a later shuffle a deck's order *is* its ids' order.  Deep
Diver ("put target Wonder you own with cost 1 from your deck into this realm") offered its
seat the deck's matching cards by id -- "Monsoon Wyvern (Ann's deck), the first" as ``A13``,
"the second" as ``A20`` --, and ten cards drawn since the setup put them 3rd and 10th from the
top: the seat read where each cost-1 Wonder lies in its deck, which no one may know (rule
402: a deck's order is unknown; docs/security.md).  A deck card is now offered like a face-down
card: an opaque handle good for this prompt only, labelled by its name, the handles in their
own order; the card's id in its place is refused like any wrong answer.
"""

from __future__ import annotations

import json

from tests.web.test_api_hidden_info import Table, _deep_diver_looks_into_the_deck


def test_a_deck_target_names_no_deck_card_by_id(tmp_path, where):
    t = Table(tmp_path, api=where, spectator_delay=0)
    deck = _deep_diver_looks_into_the_deck(t)
    pending = t.prompt("A")
    prompt = pending["prompt"]
    assert prompt["kind"] == "target" and len(prompt["options"]) == len(deck) > 1
    text = json.dumps(pending)
    assert not any(f'"{cid}"' in text for cid in deck), f"deck ids offered: {text}"
    picks = [o["decision"]["pick"] for o in prompt["options"]]
    assert picks == sorted(picks) and all(p.startswith("hidden-") for p in picks)
    assert {o["label"] for o in prompt["options"]} == {"Monsoon Wyvern (Ann's deck)"}

    # a card's id in place of its handle is refused exactly like an id that is no card
    refusals = {}
    for pick in (deck[0], "A999"):
        status, data = t.decide("A", {"type": "Answered", "kind": "target", "pick": pick},
                                pending["length"])
        assert status == 422, data
        refusals[pick] = data["message"].replace(repr(pick), "<pick>")
    assert refusals[deck[0]] == refusals["A999"]
    status, data = t.decide("A", prompt["options"][0]["decision"], pending["length"])
    assert status == 201, data
    answered = [e["event"] for e in data["events"] if e["event"]["type"] == "Answered"]
    assert answered[0]["pick"] in deck  # recorded as the card it is
