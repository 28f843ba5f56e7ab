"""The /play token form on a 390x844 phone (a player whose session is gone, or who typed the
bare table address): its box was the browser's bare input, 21 px high and 177 px wide, with
a 35 px *Enter*.  Now the box spans the screen, 44 px high, above a 44 px *Enter*, and a
pasted token enters the table.  A real ``wonders serve`` and Debian's Chromium."""

from __future__ import annotations

from tests.e2e.helpers import ORGANIZER, api_call
from tests.e2e.test_play_browser import PHONE, no_overflow
from tests.web.test_api import SEATS


def test_the_token_box_is_thumb_sized_and_enters_the_table(browser, server):
    created = api_call(server, "POST", "/api/matches", ORGANIZER, {"seats": SEATS})
    mid, tokens = created["match_id"], created["tokens"]
    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{server}/play/{mid}")
    box = page.locator("input[name=token]").bounding_box()
    enter = page.locator("button[type=submit]").bounding_box()
    assert box["height"] >= 44 and box["width"] >= 300, box
    assert enter["height"] >= 44, enter
    no_overflow(page)
    page.fill("input[name=token]", tokens["B"])
    page.locator("button[type=submit]").tap()
    page.wait_for_selector("#play[data-role='B'][data-length]")
