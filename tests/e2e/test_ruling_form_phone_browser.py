"""The judge's *Ruling* form on a 390x844 phone: its lists and boxes were the browser's bare
controls, 19-21 px high (the card list 22 px wide with nothing chosen) under buttons of 44 px —
hard to hit with a thumb at the table, and the page's own rule is touch targets of at least
44 px (play.css), 40 px for the *End the match* controls.  Now every list and box of the
operations form (the judge's ruling, a seat's manual answer: manual.js) is at least 40 px
high, in the page's font, and none is wider than the screen.  A real ``wonders serve`` and
Debian's Chromium."""

from __future__ import annotations

from tests.e2e.helpers import ORGANIZER, api_call
from tests.e2e.test_manual_browser import _to_first_turn
from tests.e2e.test_play_browser import PHONE, enter, no_overflow
from tests.web.test_api import SEATS

LOW = 40  # px: what #ending's lists and boxes have (play.css)


def test_every_control_of_the_ruling_form_is_big_enough_to_tap(browser, server):
    base = server
    created = api_call(base, "POST", "/api/matches", ORGANIZER, {"seats": SEATS})
    mid, tokens = created["match_id"], created["tokens"]
    _to_first_turn(base, mid, tokens)
    judge = enter(browser, base, mid, tokens["judge"], **PHONE)
    judge.wait_for_selector("#ruling-form select[name=card]")
    for op in ("move", "counter", "power"):  # each shows its own fields
        judge.select_option("#ruling-form select[name=op]", op)
        fields = judge.locator("#ruling-form select:visible, #ruling-form input:visible")
        assert fields.count() >= 3, op
        for i in range(fields.count()):
            box = fields.nth(i).bounding_box()
            name = fields.nth(i).get_attribute("name")
            assert box["height"] >= LOW, f"{op}: {name} is {box['height']:.0f} px high"
            assert box["x"] + box["width"] <= PHONE["viewport"]["width"], f"{op}: {name}"
        no_overflow(judge)
    assert not judge.errors  # type: ignore[attr-defined]
