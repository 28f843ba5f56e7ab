"""The console's sign-in on a 390x844 phone: the organizer token's box was the browser's bare
input, 21 px high in a small font (the login page lacked the console's styles), the first
thing an organizer touches on the day.  Now it is the console's box (at least 40 px, the
page's font) above a 44 px *Sign in*, and signing in works from it.  A real ``wonders serve``
and Debian's Chromium."""

from __future__ import annotations

from tests.e2e.helpers import ORGANIZER
from tests.e2e.test_play_browser import PHONE, no_overflow


def test_the_token_box_is_thumb_sized_and_signs_in(browser, server):
    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{server}/organize")
    box = page.locator("input[name=token]").bounding_box()
    button = page.locator("button[type=submit]").bounding_box()
    assert box["height"] >= 40, f"the token box is {box['height']:.0f} px high"
    assert button["height"] >= 44, f"Sign in is {button['height']:.0f} px high"
    assert box["width"] >= 300  # the screen's width, not a narrow box
    no_overflow(page)
    page.fill("input[name=token]", ORGANIZER)
    page.locator("button[type=submit]").tap()
    page.wait_for_selector("input[name=name]")  # the console's New tournament form
