"""A lost player link given again from the organizer console on a 390×844 phone.

*New link* on a player's row asks first ("Yes, new link for …"); the second tap answers a page
with the player's new link and its QR code, which fits the phone even for a name with no break
point.  The code fills its box: it was drawn 87 px wide in the corner of a 320 px box (the SVG
had a size and no viewBox, so the stylesheet grew the box, not the code -- the registration
page's too).  A second phone opens the new link and replaces the list, while the link the
player had before is refused.  A real ``wonders serve`` subprocess (the ``server`` fixture)
and the system Chromium.
"""

from __future__ import annotations

from playwright.sync_api import sync_playwright

from tests.e2e.helpers import ORGANIZER, api_call
from tests.e2e.test_organize_browser import PHONE, _fits, decklist
from tests.e2e.test_organize_phone_browser import LONG, _signed_in


def test_a_new_player_link_asked_then_shown_with_its_qr_and_the_old_one_refused(server, shots):
    base = server
    tid = api_call(base, "POST", "/api/tournaments", ORGANIZER,
                   {"name": "Link Cup"})["tournament_id"]
    api_call(base, "POST", f"/api/tournaments/{tid}/players", ORGANIZER,
             {"player": LONG, "decklist": decklist("solfera-blaze")})
    api_call(base, "POST", f"/api/tournaments/{tid}/registration", ORGANIZER)
    old = api_call(base, "POST", f"/api/tournaments/{tid}/player-links", ORGANIZER,
                   {"player": LONG})["link"]  # the link she lost
    with sync_playwright() as pw:
        browser, page = _signed_in(pw, base)
        page.goto(f"{base}/organize/t/{tid}")
        row = page.locator(f"#players li:has(input[name=player][value='{LONG}'])")
        row.locator("summary", has_text="New link").tap()  # the first tap only asks
        yes = row.get_by_role("button", name=f"Yes, new link for {LONG}")
        assert yes.is_visible() and "current link stops working" in row.inner_text()
        _fits(page)
        row.screenshot(path=str(shots / "organize-player-link-ask.png"))
        yes.tap()
        page.wait_for_selector("figure.player-link svg")
        _fits(page)  # the link, its QR code and the long name
        drawn, box = page.evaluate("""() => {
            const svg = document.querySelector('figure.player-link svg');
            return [svg.querySelector('path').getBoundingClientRect().width,
                    svg.getBoundingClientRect().width]; }""")
        assert box >= 250 and drawn >= 0.8 * box, (drawn, box)  # the code fills its box
        page.screenshot(path=str(shots / "organize-player-link.png"), full_page=True)
        link = page.locator("figure.player-link a.url").get_attribute("href")
        assert link != old and f"/tournaments/{tid}/me?token=" in link

        phone = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
        phone.goto(old)
        assert "not (or no longer) a player link" in phone.locator("#refused").inner_text()
        phone.goto(link)  # the new link: her page, the token gone from the address bar
        assert phone.url == f"{base}/tournaments/{tid}/me"
        phone.fill("textarea[name=decklist]", decklist("thalwind-sky"))
        phone.get_by_role("button", name="Replace my decklist").tap()
        phone.wait_for_selector("#replaced")
        browser.close()
    t = api_call(base, "GET", f"/api/tournaments/{tid}", ORGANIZER)
    (player,) = t["players"]
    assert player["replaced"] == 1 and player["links_reissued"] == 2
