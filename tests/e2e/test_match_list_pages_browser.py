"""The match list's pages on a 390x844 phone, on a real ``wonders serve`` (Debian's
Chromium): 51 matches make two pages; the next and previous links are thumb-sized, inside the
screen, and keep the filters."""

from __future__ import annotations

from tests.e2e.helpers import ORGANIZER, api_call
from tests.web.test_api import SEATS


def test_the_match_list_pages_on_a_phone(browser, server):
    for n in range(51):
        api_call(server, "POST", "/api/matches", ORGANIZER,
                 {"seats": SEATS, "tournament": "Cup", "match_id": f"m-{n:03d}"})
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server}/matches?tournament=Cup")
    assert page.locator("#matches tbody tr[data-match]").count() == 50
    following = page.locator("#pager-bottom a.next")
    box = following.bounding_box()
    assert box["height"] >= 44 and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    following.click()
    page.wait_for_url("**page=2**")
    rows = page.eval_on_selector_all("#matches tbody tr[data-match]",
                                     "rows => rows.map((tr) => tr.dataset.match)")
    assert rows == ["m-050"] and "tournament=Cup" in page.url
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.locator("#pager-top a.prev").click()
    page.wait_for_url("**page=1**")
    assert page.locator("#matches tbody tr[data-match]").count() == 50
    assert errors == []
