"""A seat reading a whole deck's order through its own answer to a manual prompt.

A seat answers the manual prompt of its own unscripted card itself when the card touches only
its side, and a ``look`` at a deck card was let through anywhere in any deck ("look at the top
three cards of any deck"): one answer of forty looks, ``deck:B:1`` to ``deck:B:40``, was
recorded (201), and seat A's board then listed all of Bob's deck cards under ``known`` with
their places -- the judge's deck order -- while Bob read only "Ann looks at a hidden card".
Now a seat's answer looks at the top and the bottom :data:`~replay.wotf.manual.SEAT_LOOK_DEPTH`
cards of a deck only (docs/rulings.md R48): a look further in is refused (403, nothing
recorded); the judge may still rule it.
"""

from __future__ import annotations

import pytest

from replay.wotf.manual import SEAT_LOOK_DEPTH
from tests.web.test_manual_form import _oracle_prompt


def _looks(cid: str, places) -> dict:
    return {"type": "ManualResolved", "card": cid,
            "ops": [{"op": "look", "card": place, "seat": "A"} for place in places]}


@pytest.mark.parametrize("seat", ["B", "A"])  # the other seat's deck, and its own
def test_a_seat_can_not_read_a_deck_beyond_its_ends(tmp_path, seat):
    api, mid, tokens, cid, prompt = _oracle_prompt(tmp_path)
    size = len(api.state(mid, tokens["judge"])["board"]["players"][seat]["deck"])
    whole = _looks(cid, [f"deck:{seat}:{n}" for n in range(1, size + 1)])
    status, data = api.decide(mid, tokens["A"], whole, prompt["length"])
    assert status == 403, data
    assert f"more than {SEAT_LOOK_DEPTH} from its top and its bottom" in data["message"]
    assert "judge" in data["message"]
    assert "known" not in api.state(mid, tokens["A"])["board"]  # nothing was shown
    deep = _looks(cid, [f"deck:{seat}:{SEAT_LOOK_DEPTH + 1}"])
    assert api.decide(mid, tokens["A"], deep, prompt["length"])[0] == 403
    ends = _looks(cid, [f"deck:{seat}:{n}" for n in (*range(1, SEAT_LOOK_DEPTH + 1),
                                                     *range(size - SEAT_LOOK_DEPTH + 1, size + 1))])
    status, data = api.decide(mid, tokens["A"], ends, prompt["length"])
    assert status == 201, data
