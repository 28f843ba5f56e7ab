"""The replay viewer and the stats dashboard in a real browser, served by a real `wonders demo`.

``wonders demo --port 0`` runs as a subprocess (a small tournament: run with the tournament tool and
played by bots, ingested and served by waitress on a free loopback port); Playwright drives Debian's Chromium
(``/usr/bin/chromium``; no browser is downloaded).  Every page is checked for console errors
and for requests leaving 127.0.0.1.  The board the browser shows is compared with the
replayer's state at the same seq.  Viewer responsiveness (key press to board updated) is
measured in the page and printed, never asserted.  Screenshots go to ``$WONDERS_SCREENSHOTS``
(the committed ones in docs/screenshots were made with it set) or to the test's tmp dir.
"""

from __future__ import annotations

import statistics
import time
import urllib.parse
import urllib.request
from pathlib import Path

import duckdb
import pytest

from ledger import stats as named
from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.wotf.cards import default_cards
from replay.wotf.perspective import board
from tests.e2e.demo import ORGANIZER, running_demo
from tests.e2e.helpers import api_call


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    with running_demo(tmp_path_factory.mktemp("demo") / "wonders-data") as served:
        yield served


class Watched:
    """A page whose console errors and non-loopback requests are collected."""

    def __init__(self, browser, width=1400, height=1000):
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.errors: list[str] = []
        self.foreign: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", self._request)

    def _request(self, request) -> None:
        url = urllib.parse.urlsplit(request.url)
        if url.scheme not in ("data", "about") and url.hostname != "127.0.0.1":
            self.foreign.append(request.url)

    def check_clean(self) -> None:
        assert self.errors == [], self.errors
        assert self.foreign == [], self.foreign


def _replay(store: Path, match_id: str) -> Replay:
    return Replay(list(FileStore.read_file(store / f"{match_id}.jsonl")), default_cards())


def _seq(page) -> int:
    return int(page.get_attribute("#board", "data-seq"))


def _press(page, key: str, expected: int) -> float:
    """Press ``key``, wait until the board shows ``expected``; the page's own timing (ms)."""
    page.keyboard.press(key)
    page.wait_for_function(f"document.querySelector('#board').dataset.seq === '{expected}'")
    return float(page.get_attribute("#board", "data-render-ms"))


def _shown_board(page) -> dict:
    """What the page draws: stones per realm, card powers, hand counts and hand names."""
    return page.evaluate("""() => {
      const realms = [...document.querySelectorAll('#realms .realm')].map(r => ({
        number: Number(r.dataset.realm), stones: r.dataset.stones,
        locked: r.classList.contains('locked'),
        powers: Object.fromEntries([...r.querySelectorAll('.card')].filter(c => c.querySelector('.power'))
                   .map(c => [c.dataset.card, c.querySelector('.power').textContent]))}));
      const seats = {};
      for (const s of ['A', 'B']) {
        const hand = document.querySelector(`#seat-${s} .hand`);
        seats[s] = {count: Number(hand.dataset.count),
                    names: [...hand.querySelectorAll('.card:not(.back) .name')].map(n => n.textContent),
                    backs: hand.querySelectorAll('.card.back').length,
                    stones: document.querySelector(`#seat-${s} [data-stat=stones] b`).textContent};
      }
      return {realms, seats};
    }""")


def _expected_board(replay: Replay, seq: int, perspective: str) -> dict:
    b = board(replay.state_at(seq), replay.db, perspective)

    def num(x):
        return str(int(x)) if float(x).is_integer() else str(round(x, 2))
    realms = [{"number": r["number"], "stones": ",".join(r["stones"]), "locked": not r["active"],
               "powers": {c["id"]: num(c["power"]) for side in ("B", "A") for c in r["cards"][side]
                          if "power" in c}} for r in b["realms"]]
    seats = {}
    for s in ("A", "B"):
        p = b["players"][s]
        hand = p["hand"]
        seats[s] = {"count": p["hand_count"], "names": [c["name"] for c in hand] if hand else [],
                    "backs": 0 if hand is not None else p["hand_count"], "stones": str(p["stones"])}
    return {"realms": realms, "seats": seats}


def _ended_match(store: Path) -> str:
    return min(p.stem for p in store.glob("demo-cup-*.jsonl"))


def test_step_through_a_match_with_the_keyboard(demo, browser, shots):
    base, store = demo
    w = Watched(browser)
    page = w.page
    page.goto(f"{base}/")
    assert page.url.endswith("/matches")
    rows = page.locator("#matches tbody tr[data-match]")
    assert rows.count() == len(list(store.glob("*.jsonl")))
    match_id = _ended_match(store)
    page.click(f"#matches a:text-is('{match_id}')")
    page.wait_for_selector("#board[data-seq='0']")
    replay = _replay(store, match_id)
    last = len(replay) - 1

    # Step with the keyboard; after each step the board is the replayer's.
    step_ms = []
    for seq in range(1, 31):
        step_ms.append(_press(page, "ArrowRight" if seq % 2 else "j", seq))
        if seq % 6 == 0:
            assert _shown_board(page) == _expected_board(replay, seq, "omniscient"), seq
    _press(page, "k", 29)
    _press(page, "ArrowLeft", 28)
    jump_ms = [_press(page, "End", last)]
    assert _shown_board(page) == _expected_board(replay, last, "omniscient")
    jump_ms.append(_press(page, "Home", 0))
    jump_ms.append(_press(page, "End", last))
    third = replay.index.rounds[3]
    jump_ms.append(_press(page, "3", third))
    assert _shown_board(page) == _expected_board(replay, third, "omniscient")
    assert "Round 3 begins" in page.inner_text("#current")

    # The jump menus: the second battle, then round 2's third turn.
    battle_seq = replay.index.battles[1][0]
    page.select_option("#jump-battle", str(battle_seq))
    page.wait_for_selector(f"#board[data-seq='{battle_seq}']")
    assert _shown_board(page) == _expected_board(replay, battle_seq, "omniscient")
    turn = next(t for t in replay.index.turns if t.round == 2 and t.number == 3)
    page.select_option("#jump-turn", str(turn.seq))
    page.wait_for_selector(f"#board[data-seq='{turn.seq}']")

    # Play, then pause: the board moves on by itself.
    page.select_option("#speed", "40")
    page.click("#play")
    page.wait_for_function(f"Number(document.querySelector('#board').dataset.seq) >= {turn.seq + 5}")
    page.click("#play")
    w.check_clean()
    late = [t.seq for t in replay.index.turns if t.round == max(replay.index.rounds) - 1][-1]
    page.goto(f"{base}/matches/{match_id}?seq={late}&as=omniscient")
    page.wait_for_selector(f"#board[data-seq='{late}']")
    # docs/screenshots/viewer.png is made at 1280x800 by test_viewer_moments_browser.py
    print(f"\nviewer responsiveness ({len(replay)} events): key press to board updated, "
          f"single step p50 {statistics.median(step_ms):.1f} ms (max {max(step_ms):.1f}), "
          f"jumps across the match {', '.join(f'{ms:.1f}' for ms in jump_ms)} ms; "
          f"for comparison, the server's own work per board (state_at + board, in-process) "
          f"p50 {_board_ms(replay):.2f} ms and a step by reloading the page (the naive way) "
          f"p50 {_reload_ms(page, base, match_id, late):.1f} ms")


def _board_ms(replay: Replay) -> float:
    """The floor: computing one board in-process, no HTTP, no browser."""
    times = []
    for seq in range(0, len(replay), max(1, len(replay) // 40)):
        start = time.perf_counter()
        board(replay.state_at(seq), replay.db, "omniscient")
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _reload_ms(page, base: str, match_id: str, seq: int) -> float:
    """The naive viewer: every step a full page load of the deep link."""
    times = []
    for n in range(seq - 5, seq):
        start = time.perf_counter()
        page.goto(f"{base}/matches/{match_id}?seq={n}&as=omniscient")
        page.wait_for_selector(f"#board[data-seq='{n}']")
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def test_perspectives_hide_cards_and_a_deep_link_restores_the_view(demo, browser, shots):
    base, store = demo
    match_id = _ended_match(store)
    replay = _replay(store, match_id)
    seq = replay.index.rounds[2] + 3
    w = Watched(browser)
    page = w.page
    page.goto(f"{base}/matches/{match_id}?seq={seq}&as=omniscient")
    page.wait_for_selector(f"#board[data-seq='{seq}'][data-perspective='omniscient']")
    both = _shown_board(page)
    assert both["seats"]["A"]["names"] and both["seats"]["B"]["names"]

    page.select_option("#perspective", "A")
    page.wait_for_selector("#board[data-perspective='A']")
    seen = _shown_board(page)
    assert seen == _expected_board(replay, seq, "A")
    assert seen["seats"]["B"]["names"] == [] and seen["seats"]["B"]["backs"] == both["seats"]["B"]["count"]
    assert page.locator("#events li.ev-DeckOrdered").count() > 0
    hidden_names = set(both["seats"]["B"]["names"]) - set(both["seats"]["A"]["names"])
    hand_text = page.inner_text("#seat-B")
    assert not any(name in hand_text for name in hidden_names)
    assert "draws a hidden card" in page.inner_text("#events")  # B's draws, as A sees them

    page.select_option("#perspective", "spectator")
    page.wait_for_selector("#board[data-perspective='spectator']")
    assert _shown_board(page) == _expected_board(replay, seq, "spectator")

    # A deep link reopens exactly that view.
    _press(page, "ArrowRight", seq + 1)
    link = page.get_attribute("#deeplink", "href")
    assert link == f"/matches/{match_id}?seq={seq + 1}&as=spectator" and page.url.endswith(link)
    other = browser.new_page()
    other.goto(f"{base}/matches/{match_id}?seq={seq + 1}&as=B")
    other.wait_for_selector(f"#board[data-seq='{seq + 1}'][data-perspective='B']")
    assert other.input_value("#perspective") == "B"
    assert _shown_board(other) == _expected_board(replay, seq + 1, "B")
    page.goto(f"{base}{link}")
    page.wait_for_selector(f"#board[data-seq='{seq + 1}'][data-perspective='spectator']")
    assert _shown_board(page) == _expected_board(replay, seq + 1, "spectator")
    w.check_clean()


def test_the_dashboard_draws_its_charts(demo, browser, shots):
    base, store = demo
    con = duckdb.connect(str(store / "warehouse.duckdb"), read_only=True)
    try:
        tables = {name: named.compute(con, name, named.Filters())
                  for name in ("cards", "matchups", "realms", "dbs", "first-player")}
    finally:
        con.close()
    w = Watched(browser, height=1200)
    page = w.page
    page.goto(f"{base}/stats")
    page.wait_for_selector("#heatmap")
    assert page.locator("#realm-chart rect.bar").count() == len(tables["realms"].rows)
    assert page.locator("#dbs-chart rect.bar").count() == len(tables["dbs"].rows)
    assert page.locator("#heatmap g.cell").count() == len(tables["matchups"].rows)
    assert page.locator("#cards-table tbody tr[data-card]").count() == len(tables["cards"].rows)
    first = tables["first-player"].records()[0]
    assert f"won {first['first_wins']} of {first['games']} games" in page.inner_text("#first-player")
    box = page.locator("#realm-chart").bounding_box()
    assert box["width"] > 200 and box["height"] > 60
    page.screenshot(path=str(shots / "dashboard.png"), full_page=True)

    page.click("#cards-table th a:text('Card')")
    page.wait_for_url("**sort=card**")
    names = page.locator("#cards-table tbody tr[data-card]").evaluate_all(
        "rows => rows.map(r => r.dataset.card)")
    assert names == sorted(names, reverse=True) or names == sorted(names)
    w.check_clean()

    page.goto(f"{base}/matches?player=Amara%20Okafor&sort=events&desc=1")
    counts = [int(c) for c in page.locator("#matches td.num").all_inner_texts()]
    assert counts and counts == sorted(counts, reverse=True)
    assert all("Amara Okafor" in t for t in page.locator("#matches tbody tr").all_inner_texts())
    page.screenshot(path=str(shots / "matches.png"))
    w.check_clean()



def _decide(base, match_id, tokens) -> bool:
    """Submit one decision for whichever seat is prompted; False once the match is over."""
    pending = api_call(base, "GET", f"/api/matches/{match_id}/prompt", tokens["judge"])
    prompt = pending["prompt"]
    if prompt is None:
        return False
    mine = api_call(base, "GET", f"/api/matches/{match_id}/prompt", tokens[prompt["seat"]])["prompt"]
    if mine["options"]:
        passes = [o for o in mine["options"] if o["label"] == "Pass"]
        decision = (passes or mine["options"])[0]["decision"]
    else:
        choose = mine["choose"]
        decision = {"type": "Answered", "kind": mine["kind"], "pick": choose["of"][:choose["min"]]}
    api_call(base, "POST", f"/api/matches/{match_id}/decisions", tokens[prompt["seat"]],
         {"expected_seq": pending["length"], "decision": decision})
    return True


def test_a_live_match_updates_and_shows_no_hidden_card(demo, browser):
    base, _store = demo
    created = api_call(base, "POST", "/api/matches", ORGANIZER, {"seats": [
        {"player": "Ann", "preset": "solfera-blaze"}, {"player": "Bob", "preset": "petraia-stone"}]})
    match_id, tokens = created["match_id"], created["tokens"]
    w = Watched(browser)
    page = w.page
    page.goto(f"{base}/matches/{match_id}?as=A")  # a live match: spectator only
    page.wait_for_selector("#board[data-perspective='spectator']")
    assert "live" in page.inner_text("#notice")
    assert page.locator("#perspective option[value=A]").is_disabled()
    assert page.locator(".hand .card:not(.back)").count() == 0
    start = _seq(page)
    for _ in range(6):
        _decide(base, match_id, tokens)
    length = api_call(base, "GET", f"/api/matches/{match_id}/prompt", tokens["judge"])["length"]
    page.wait_for_selector(f"#board[data-seq='{length - 1}']", timeout=15000)
    assert _seq(page) > start
    assert page.locator(".hand .card:not(.back)").count() == 0
    assert page.locator(f"#events li[data-seq='{length - 1}']").count() == 1
    w.check_clean()


def _lands(page, seq: int) -> None:
    """The board reaches ``seq`` and stays there (no late answer overwrites it)."""
    page.wait_for_function(f"document.querySelector('#board').dataset.seq === '{seq}'",
                           timeout=10_000)
    page.wait_for_timeout(600)
    assert _seq(page) == seq


def test_every_quick_press_counts(demo, browser):
    """Steps count from the step asked for last, not the one on screen: keys, the step
    buttons and swipes pressed faster than the board is fetched each move one step."""
    base, store = demo
    match_id = _ended_match(store)
    w = Watched(browser)
    page = w.page
    page.goto(f"{base}/matches/{match_id}?seq=20&as=omniscient")
    page.wait_for_selector("#board[data-seq='20']")
    for _ in range(10):
        page.keyboard.press("ArrowRight")
    _lands(page, 30)
    for key in "jjjjjkk":
        page.keyboard.press(key)
    _lands(page, 33)
    page.keyboard.press("ArrowRight")  # one on, one back: the board stays where it was
    page.keyboard.press("ArrowLeft")
    _lands(page, 33)
    page.evaluate("() => { for (let i = 0; i < 6; i++) document.getElementById('next').click();"
                  " document.getElementById('prev').click(); }")
    _lands(page, 38)
    page.evaluate("""() => {
      const board = document.getElementById('board');
      const touch = (type, x) => board.dispatchEvent(new TouchEvent(type, { changedTouches: [
        new Touch({ identifier: 1, target: board, clientX: x, clientY: 300 })] }));
      for (let i = 0; i < 4; i++) { touch('touchstart', 300); touch('touchend', 100); }
    }""")
    _lands(page, 42)
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    _lands(page, 2)
    w.check_clean()


def test_quick_presses_on_a_live_match_count_when_the_poll_lands(demo, browser):
    """A live match's viewer polls for new events; a poll landing while pressed steps are
    still being fetched must not take the board back to the step on screen."""
    base, _store = demo
    created = api_call(base, "POST", "/api/matches", ORGANIZER, {"seats": [
        {"player": "Ann", "preset": "solfera-blaze"}, {"player": "Bob", "preset": "petraia-stone"}]})
    match_id, tokens = created["match_id"], created["tokens"]
    for _ in range(30):
        _decide(base, match_id, tokens)
    w = Watched(browser)
    page = w.page
    page.goto(f"{base}/matches/{match_id}?seq=3")
    page.wait_for_selector("#board[data-seq='3']")
    last = int(page.get_attribute("#scrubber", "max"))  # the last event shown
    assert last > 10, last  # the board is not following the live end
    moved: list[bool] = []

    def slowly(route) -> None:
        """Steps are fetched slowly; while the first is held the match moves on, so the
        viewer's next poll (each second) finds new events with the pressed steps in flight."""
        if not moved:
            moved.append(_decide(base, match_id, tokens) and _decide(base, match_id, tokens))
        time.sleep(1.5)
        route.continue_()

    page.route("**/step?*", slowly)
    page.evaluate("""() => { for (let i = 0; i < 3; i++) document.body.dispatchEvent(
        new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true })); }""")
    _lands(page, 6)
    assert moved == [True]
    w.check_clean()


def test_the_match_list_fits_a_phone(demo, browser, shots):
    """At 390x844 the list is a card per match: no sideways page scroll, and every sort link,
    player and result lies within the screen."""
    base, _store = demo
    w = Watched(browser, 390, 844)
    page = w.page
    page.goto(f"{base}/matches")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    outside = page.evaluate("""() => [...document.querySelectorAll(
        '#matches a.sort, #matches td[data-label^="Seat"], #matches td.result')]
      .map(e => e.getBoundingClientRect()).filter(r => r.left < 0 || r.right > 390).length""")
    assert outside == 0
    first = page.locator("#matches tbody tr[data-match]").first
    assert "wins" in first.locator("td.result").inner_text()
    label = first.locator("td[data-label='Seat A']").evaluate(
        "td => getComputedStyle(td, '::before').content")
    assert label == '"Seat A "'  # each line of the card says what it is
    page.screenshot(path=str(shots / "matches-phone.png"))
    w.check_clean()
