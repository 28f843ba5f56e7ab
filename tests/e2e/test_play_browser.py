"""Two seats record a whole (short) match by clicking on /play, and the judge takes one back.

A real ``wonders serve`` subprocess on a free loopback port, driven by Playwright with the
system Chromium (``/usr/bin/chromium``, installed by ``.ci/run`` from Debian); no browser is
ever downloaded.  The seats pass every turn and answer every other prompt by clicking, so the
match runs its seven rounds to the end (rule 403.4: both passed → the round ends).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.wotf.cards import default_cards
from tests.e2e.helpers import CHROMIUM, FLAGS, api_call

ORGANIZER = "browser-test-organizer-token-0123456789"


@pytest.fixture
def server(tmp_path):
    env = dict(os.environ, WONDERS_ORGANIZER_TOKEN=ORGANIZER, WONDERS_SPECTATOR_DELAY="0")
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--store", str(tmp_path / "s"),
                             "--port", "0", "--threads", "8"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
    try:
        line = proc.stdout.readline()
        assert "serving" in line, line + proc.stderr.read()
        yield line.split(" on ")[1].split()[0], tmp_path / "s"
    finally:
        proc.terminate()
        proc.wait(timeout=10)



def _act(page, choose_draw=False):
    """Reload the seat's page and answer its prompt by clicking."""
    page.reload()
    page.wait_for_selector("#play[data-length]")
    before = page.get_attribute("#play", "data-length")
    ready = page.locator("#prompt:not(.waiting) button.option, #prompt:not(.waiting) #submit-choice")
    ready.first.wait_for()
    if page.locator("#submit-choice").count():
        spec_min = int(page.evaluate("document.querySelector('#prompt .choice p').textContent"
                                     ".match(/\\d+/)[0]"))
        boxes = page.locator("#prompt input[type=checkbox]")
        for i in range(spec_min):
            boxes.nth(i).check()
        page.click("#submit-choice")
    else:
        wanted = "Draw a card" if choose_draw else "Pass"
        option = page.locator("#prompt button.option", has_text=wanted)
        (option if option.count() else page.locator("#prompt button.option")).first.click()
    page.wait_for_function(f"document.querySelector('#play').dataset.length !== '{before}'")
    assert "error" not in (page.get_attribute("#status", "class") or ""), page.inner_text("#status")


def test_two_seats_record_a_match_by_clicking_and_the_judge_takes_back(server):
    base, store = server
    created = api_call(base, "POST", "/api/matches", ORGANIZER, {"seats": [
        {"player": "Ann", "preset": "solfera-blaze"}, {"player": "Bob", "preset": "petraia-stone"}]})
    mid, tokens = created["match_id"], created["tokens"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        pages = {}
        for role in ("A", "B", "judge"):
            page = browser.new_context().new_page()
            page.goto(f"{base}/play/{mid}?token={tokens[role]}")
            assert page.url == f"{base}/play/{mid}"  # the token left the address bar
            page.wait_for_selector("#play[data-length]")
            pages[role] = page
        assert "hidden card(s)" in pages["A"].inner_text("#board")  # B's hand, from A's side
        drew = took_back = False
        for _ in range(200):
            state = api_call(base, "GET", f"/api/matches/{mid}/state", tokens["judge"])
            if state["prompt"] is None:
                break
            seat = state["prompt"]["seat"]
            is_turn = state["prompt"]["kind"] == "turn"
            _act(pages[seat], choose_draw=is_turn and not drew)
            if is_turn and not drew:
                drew, hand = True, state["board"]["players"][seat]["hand_count"]
                judge = pages["judge"]
                judge.reload()
                judge.locator("#history button.takeback").first.click()  # undo the draw
                judge.wait_for_function("document.querySelector('#events').textContent"
                                        ".includes('take')")
                after = api_call(base, "GET", f"/api/matches/{mid}/state", tokens["judge"])
                assert after["board"]["players"][seat]["hand_count"] == hand
                took_back = True
        final = api_call(base, "GET", f"/api/matches/{mid}/state", tokens["judge"])
        assert final["board"]["over"] and final["board"]["round"] == 7 and took_back
        pages["A"].reload()
        pages["A"].wait_for_selector("#status:has-text('Match over')")
        browser.close()
    events = list(FileStore.read_file(store / f"{mid}.jsonl"))
    replay = Replay(events, default_cards())
    assert replay.engine.state.over
    assert any(type(e.event).__name__ == "TakenBack" for e in events)
