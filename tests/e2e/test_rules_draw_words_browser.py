"""A match the rules end in a draw (405: stones even and no realm held alone; reason "draw")
reads "draw (tied)" on the match list, in the viewer's status and on the players' /play pages,
and its narration says why ("stones even, no realm held alone") -- not "draw (draw)", as
every one of them said; ``wonders replay`` of its file reads "match over: draw (tied)".  Both
players pass to the end of round 7 through the seat API; a real ``wonders serve``, Debian's
Chromium on a phone."""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.e2e.helpers import ORGANIZER, api_call
from tests.e2e.test_play_input_browser import PHONE, enter

ROOT = Path(__file__).resolve().parents[2]


def passed_to_a_draw(base: str) -> tuple[str, dict[str, str]]:
    """A match both seats play by passing (keeping their hands): it ends by the rules, drawn."""
    created = api_call(base, "POST", "/api/matches", ORGANIZER, {"seats": [
        {"player": "Ann", "preset": "solfera-blaze"}, {"player": "Bob", "preset": "petraia-stone"}]})
    mid, tokens = created["match_id"], created["tokens"]
    for _ in range(400):
        pending = api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens["judge"])
        prompt = pending["prompt"]
        if prompt is None:
            break
        if prompt["choose"]:
            decision = {**prompt["answer"], "pick": prompt["choose"]["of"][:prompt["choose"]["min"]]}
        else:
            options = [o["decision"] for o in prompt["options"]]
            decision = next((d for d in options if d["type"] == "Passed"), options[0])
        api_call(base, "POST", f"/api/matches/{mid}/decisions", tokens[prompt["seat"]],
                 {"expected_seq": pending["length"], "decision": decision})
    state = api_call(base, "GET", f"/api/matches/{mid}/state", tokens["judge"])["board"]
    assert state["over"] and state["winner"] is None and state["reason"] == "draw", state
    return mid, tokens


def test_a_rules_draw_reads_tied_everywhere(browser, server, tmp_path):
    mid, tokens = passed_to_a_draw(server)
    with urllib.request.urlopen(f"{server}/matches", timeout=10) as response:
        listing = response.read().decode()
    assert "draw (tied)" in listing and "draw (draw)" not in listing
    viewer = browser.new_context(**PHONE).new_page()
    viewer.goto(f"{server}/matches/{mid}")
    viewer.wait_for_selector("#status")
    viewer.keyboard.press("End")  # the last event: the match's end
    viewer.wait_for_function("document.querySelector('#status').textContent.includes('draw')")
    assert "draw (tied)" in viewer.inner_text("#status")
    seat = enter(browser, server, mid, tokens["A"])
    seat.wait_for_function("document.querySelector('#status').textContent.includes('over')")
    assert seat.inner_text("#status") == "Match over: draw (tied)."
    events = api_call(server, "GET", f"/api/matches/{mid}/events?limit=2000", tokens["A"])
    assert events["events"][-1]["text"] == (  # the narration, in the viewer and on /play
        "The match ends in a draw: stones even, no realm held alone (Ann 0 – Bob 0)")
    path = tmp_path / f"{mid}.jsonl"  # the file, downloaded, read by `wonders replay`
    with urllib.request.urlopen(f"{server}/api/public/matches/{mid}/file", timeout=10) as got:
        path.write_bytes(got.read())
    done = subprocess.run([sys.executable, "-m", "web.cli", "replay", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert "\nmatch over: draw (tied)\n" in done.stdout, done.stdout + done.stderr
