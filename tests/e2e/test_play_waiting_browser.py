"""The seat not to act reads what the other is doing in words, during the set-up too: the
status line "Setting up · waiting for Ann" (not "Round 0"), the prompt "Waiting for Ann
(choosing who plays first)", then "(choosing the side of realm 1)" and the mulligan's words
(rules 401, 402.1) -- never the prompt's kind, an id ("first", "side").  A phone (390x844), a
real ``wonders serve``, Debian's Chromium."""

from __future__ import annotations

from tests.e2e.helpers import api_call
from tests.e2e.test_play_input_browser import answer_one, create, enter

NAMES = {"A": "Ann", "B": "Bob"}


def pending(base: str, mid: str, tokens: dict[str, str]) -> dict:
    return api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens["judge"])


def test_the_waiting_seat_reads_the_set_up_in_words(browser, server):
    base = server
    mid, tokens = create(base)
    asked = pending(base, mid, tokens)
    assert asked["prompt"]["kind"] == "first"
    chooser = asked["prompt"]["seat"]
    waiting = "B" if chooser == "A" else "A"
    page = enter(browser, base, mid, tokens[waiting])
    who = NAMES[chooser]
    page.wait_for_function("document.querySelector('.waiting-for') !== null")
    assert page.inner_text("#status").startswith(f"Setting up · waiting for {who}")
    assert page.inner_text(".waiting-for") == f"Waiting for {who} (choosing who plays first)"
    answer_one(base, mid, tokens, asked)  # the seat playing second picks a side (401)
    side = pending(base, mid, tokens)["prompt"]
    assert side["kind"] == "side"
    page = enter(browser, base, mid, tokens["B" if side["seat"] == "A" else "A"])
    page.wait_for_function("document.querySelector('.waiting-for') !== null")
    assert page.inner_text(".waiting-for") == (
        f"Waiting for {NAMES[side['seat']]} (choosing the side of realm 1)")
    answer_one(base, mid, tokens, pending(base, mid, tokens))
    mulligan = pending(base, mid, tokens)["prompt"]
    assert mulligan["kind"] == "mulligan"
    other = "B" if mulligan["seat"] == "A" else "A"
    page = enter(browser, base, mid, tokens[other])
    page.wait_for_function("document.querySelector('.waiting-for') !== null")
    assert page.inner_text(".waiting-for") == (
        f"Waiting for {NAMES[mulligan['seat']]} (choosing cards to put back (mulligan))")
    assert not page.errors  # type: ignore[attr-defined]
