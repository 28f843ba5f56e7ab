"""No page asks for /favicon.ico (base.html names an inline icon): a page load logs no console
error and no failed request on /play, /matches and /organize, on a phone."""

from __future__ import annotations

from tests.e2e.helpers import ORGANIZER, api_call

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def test_no_page_load_logs_an_error_or_fetches_a_favicon(server, browser):
    created = api_call(server, "POST", "/api/matches", ORGANIZER, {"seats": [
        {"player": "Ann", "preset": "solfera-blaze"}, {"player": "Bob", "preset": "petraia-stone"}]})
    page = browser.new_context(**PHONE).new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("request", lambda r: problems.append(r.url) if "favicon" in r.url else None)
    page.on("response", lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto(f"{server}/play/{created['match_id']}?token={created['tokens']['A']}")
    page.wait_for_selector("#play[data-length]")
    for path in ("/matches", "/organize"):
        page.goto(f"{server}{path}")
        page.wait_for_load_state("load")
    page.wait_for_timeout(500)
    assert problems == []
