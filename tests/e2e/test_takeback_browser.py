"""Take-backs in the browser, on a live match of a real ``wonders serve`` (Debian's Chromium):

* a spectator's viewer left open while the judge takes back strikes the undone events through
  when its poll brings the take-back (it used to append the take-back and leave the events
  it undid looking as if they counted until the page was reloaded);
* after a take-back to a batch end an earlier take-back undid (that line counts again: the
  board's fold, ``ledger/line.py``), the judge's console offers the batch ends of that line
  (it used to offer only those before the earlier take-back's ``to_seq``).
"""

from __future__ import annotations

import random

from tests.e2e.helpers import ORGANIZER, api_call
from tests.web.test_api import SEATS, choose


def _length(base: str, mid: str, tokens: dict) -> int:
    return api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens["judge"])["length"]


def _decide(base: str, mid: str, tokens: dict, rng: random.Random, count: int) -> list[int]:
    """``count`` decisions by whoever is to act; the end of each one's batch."""
    ends = []
    for _ in range(count):
        seat = api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens["judge"])["prompt"]["seat"]
        prompt = api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens[seat])
        api_call(base, "POST", f"/api/matches/{mid}/decisions", tokens[seat],
                 {"decision": choose(prompt["prompt"], rng), "expected_seq": prompt["length"]})
        ends.append(_length(base, mid, tokens) - 1)
    return ends


def _take_back(base: str, mid: str, tokens: dict, to_seq: int) -> int:
    at = _length(base, mid, tokens)
    api_call(base, "POST", f"/api/matches/{mid}/takeback", tokens["judge"],
             {"to_seq": to_seq, "reason": "misplay", "expected_seq": at})
    return at


def _create(base: str) -> tuple[str, dict]:
    created = api_call(base, "POST", "/api/matches", ORGANIZER, {"seats": SEATS})
    return created["match_id"], created["tokens"]


def test_an_open_viewer_strikes_through_what_a_take_back_undid(browser, server):
    mid, tokens = _create(server)
    ends = _decide(server, mid, tokens, random.Random(1), 8)
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server}/matches/{mid}")
    page.wait_for_selector(f"#events li.ev[data-seq='{ends[-1]}']")
    back = _take_back(server, mid, tokens, ends[3])
    page.wait_for_selector(f"#events li.ev[data-seq='{back}']")  # the poll brought it
    page.wait_for_function("document.querySelectorAll('#events li.ev.undone').length > 0",
                           timeout=5000)
    struck = [int(s) for s in page.eval_on_selector_all(
        "#events li.ev.undone", "items => items.map((li) => li.dataset.seq)")]
    assert struck == list(range(ends[3] + 1, back))
    listed = page.eval_on_selector_all("#events li.ev", "items => items.map((li) => li.dataset.seq)")
    assert [int(s) for s in listed] == list(range(back + 1))  # each event once
    assert not errors, errors


def test_the_judges_console_offers_the_line_a_take_back_returned_to(browser, server):
    mid, tokens = _create(server)
    rng = random.Random(2)
    ends = _decide(server, mid, tokens, rng, 10)
    _take_back(server, mid, tokens, ends[4])
    _decide(server, mid, tokens, rng, 2)
    _take_back(server, mid, tokens, ends[8])  # back to the line the first take-back undid
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(f"{server}/play/{mid}?token={tokens['judge']}")
    page.wait_for_selector("#history li.point")
    offered = [int(s) for s in page.eval_on_selector_all(
        "#history li.point", "items => items.map((li) => li.dataset.seq)")]
    assert offered[0] == ends[7], offered  # the latest: the batch before the one taken back to
    assert set(ends[5:8]) <= set(offered), offered


def undo_rows(page) -> list[str]:
    """The judge's console's take-back rows as read, latest first."""
    page.wait_for_selector("#history li.point")
    return [text.strip() for text in page.eval_on_selector_all(
        "#history li.point", "items => items.map((li) => li.innerText.replace(/\\n.*/s, ''))")]


def check_undo_rows(rows: list[str]) -> None:
    """Each row reads "Undo <what the first undone event says>", then "and N later batch" or
    "batches": no full stop inside the sentence, no "batch(es)"."""
    assert rows and all(row.startswith("Undo ") for row in rows), rows
    assert not any(". and" in row or "(es)" in row or row.endswith(".") for row in rows), rows
    assert "later batch" not in rows[0], rows  # the latest undoes one batch
    assert rows[1].endswith(", and 1 later batch"), rows
    assert rows[-1].endswith(f", and {len(rows) - 1} later batches"), rows


def test_the_take_back_rows_read_as_sentences(browser, server):
    mid, tokens = _create(server)
    _decide(server, mid, tokens, random.Random(3), 8)
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"{server}/play/{mid}?token={tokens['judge']}")
    rows = undo_rows(page)
    assert len(rows) >= 3, rows
    check_undo_rows(rows)
