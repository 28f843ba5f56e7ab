"""The viewer as people use it (issue 18, items 2, 4, 5), in a real browser on a real demo.

* the current event and the step controls stay in the viewport over 60 steps at 1280x800 and
  at 390x844 (keys on the desktop; buttons and swipes on the phone), the board flipped to the
  viewer's seat, the scrubber's marks matching the match's index;
* annotations: added in the page, shown in the dock, the list and on the scrubber, opened by
  their link, downloaded with the match file and imported into a second server;
* play from here: a sandbox opened at seq N lists the options the engine offered the
  recorder there (the recorded decision among them), plays another one in memory, and the
  match file is unchanged.

Figures printed, never asserted: key press -> board updated (p50/p99) and the page weight of
the viewer and the dashboard (raw and gzipped with Python's gzip).  Screenshots go to
``$WONDERS_SCREENSHOTS`` (docs/screenshots) or to the test's tmp dir.
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
import urllib.error
import urllib.request

import pytest

from replay.sandbox import opening_seq
from replay.wotf import api as wotf_api
from tests.e2e.demo import ORGANIZER, running_demo
from tests.e2e.helpers import api_call, start_server
from tests.e2e.test_viewer_browser import Watched, _ended_match, _press, _replay
from web.models import OptionOut
from web.narration import players_of


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    with running_demo(tmp_path_factory.mktemp("demo") / "wonders-data") as served:
        yield served


SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
IN_VIEW = ("#current", "#scrubber", "#prev", "#next", "#play")


def _in_view(page, selectors=IN_VIEW) -> list[str]:
    """The selectors whose box is not wholly inside the viewport."""
    return page.evaluate("""(selectors) => selectors.filter((s) => {
      const r = document.querySelector(s).getBoundingClientRect();
      return !(r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth
               && r.width > 0 && r.height > 0);
    })""", list(selectors))


def _swipe(page, dx: int) -> None:
    """A horizontal swipe on the board, as touch events."""
    page.evaluate("""(dx) => {
      const board = document.querySelector('#board');
      const r = board.getBoundingClientRect();
      const y = Math.max(10, Math.min(r.top + 40, innerHeight - 300)), x = 200;
      const touch = (cx) => new Touch({identifier: 1, target: board, clientX: cx, clientY: y});
      const fire = (type, cx, touches) => board.dispatchEvent(new TouchEvent(type,
        {changedTouches: [touch(cx)], touches, bubbles: true}));
      fire('touchstart', x, [touch(x)]);
      fire('touchend', x + dx, []);
    }""", dx)


def _wait_seq(page, seq: int) -> None:
    page.wait_for_function(f"document.querySelector('#board').dataset.seq === '{seq}'")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_current_event_and_controls_stay_in_view_over_60_steps(demo, browser, shots, size):
    base, store = demo
    match_id = _ended_match(store)
    replay = _replay(store, match_id)
    width, height = SIZES[size]
    w = Watched(browser, width, height)
    page = w.page
    start = replay.index.rounds[2]
    page.goto(f"{base}/matches/{match_id}?seq={start}&as=B")
    _wait_seq(page, start)
    assert _in_view(page) == []
    key_ms = []
    for n in range(1, 61):
        seq = start + n
        if size == "desktop":
            key_ms.append(_press(page, "ArrowRight", seq))
        elif n % 3 == 0:
            _swipe(page, -120)
            _wait_seq(page, seq)
        else:
            page.click("#next")
            _wait_seq(page, seq)
        if n == 20:  # the reader scrolls down to the far seat and the realms
            page.mouse.wheel(0, 2000)
            page.wait_for_timeout(150)
        assert _in_view(page) == [], (n, _in_view(page))
        assert f"(#{seq})" in page.inner_text("#current")
        if size == "desktop":  # the highlighted row is scrolled into the list's view
            box = page.locator("aside.events").bounding_box()
            now = page.locator("#events li.now").bounding_box()
            assert box["y"] <= now["y"] and now["y"] + now["height"] <= box["y"] + box["height"] + 1
    if size == "phone":
        _swipe(page, 120)  # a right swipe steps back
        _wait_seq(page, start + 59)

    # View as B: B's panel under the realms, A's above; as A the other way round.
    def order():
        return [page.locator(s).bounding_box()["y"] for s in ("#seat-A", "#realms", "#seat-B")]
    a_y, realms_y, b_y = order()
    assert a_y < realms_y < b_y
    page.select_option("#perspective", "A")
    page.wait_for_selector("#board[data-perspective='A']")
    a_y, realms_y, b_y = order()
    assert b_y < realms_y < a_y
    # Realm headers read as words; the scrubber's marks are the match's index.
    locked = page.locator("#realms .realm.locked .realm-head")
    if locked.count():
        assert re.fullmatch(r"Realm \d locked", locked.first.evaluate("n => n.textContent"))
    assert page.locator("#marks .turn").count() == len(replay.index.turns)
    assert page.locator("#marks .battle").count() == len(replay.index.battles)
    assert page.locator("#marks .round").count() == len(replay.index.rounds)
    battle = replay.index.battles[0][0]
    page.locator(f"#marks .battle[data-seq='{battle}']").dispatch_event("click")
    _wait_seq(page, battle)
    w.check_clean()
    # A coach's note on the moment the screenshots show (the organizer annotates).
    noted = api_call(base, "POST", f"/api/matches/{match_id}/annotations", ORGANIZER,
                     {"seq": start + 40, "name": "Coach Kim", "text": {
                         "desktop": "Count the stones before choosing where to play",
                         "phone": "Compare this turn with the line in the sandbox"}[size]})
    note = noted["events"][0]["seq"]
    if size == "desktop":
        page.goto(f"{base}/matches/{match_id}?seq={start + 40}&as=B&note={note}")
        _wait_seq(page, start + 40)
        page.wait_for_selector(f"#notes-here .note.focus[data-note='{note}']")
        assert _in_view(page, (*IN_VIEW, "#notes-here .note.focus")) == []
        page.screenshot(path=str(shots / "viewer.png"))
        jumps = [_press(page, "End", note), _press(page, "Home", 0),  # the note is the last event
                 _press(page, "3", replay.index.rounds[3])]
        key_ms.sort()
        p99 = key_ms[min(len(key_ms) - 1, round(0.99 * (len(key_ms) - 1)))]
        print(f"\nviewer at 1280x800 ({len(replay)} events): key press to board updated over "
              f"60 steps p50 {statistics.median(key_ms):.1f} ms, p99 {p99:.1f} ms, max "
              f"{key_ms[-1]:.1f} ms; jumps (End, Home, round 3) "
              f"{', '.join(f'{ms:.1f}' for ms in jumps)} ms")
        print(_page_weights(base, match_id))
    else:
        page.goto(f"{base}/matches/{match_id}?seq={start + 40}&as=B&note={note}")
        _wait_seq(page, start + 40)
        page.wait_for_selector(f"#notes-here .note.focus[data-note='{note}']")
        assert _in_view(page, (*IN_VIEW, "#notes-here .note.focus")) == []
        page.screenshot(path=str(shots / "viewer-phone.png"))
        height_px = page.evaluate("document.documentElement.scrollHeight")
        print(f"\nviewer at 390x844: page {height_px} px tall, controls fixed at the bottom")


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=20) as response:  # no Accept-Encoding: raw bytes
        return response.read()


def _page_weights(base: str, match_id: str) -> str:
    """The bytes a first visit loads (the page and its own CSS and JS), raw and gzipped."""
    def weigh(path: str) -> tuple[int, int, list[str]]:
        html = _get(base + path)
        assets = re.findall(rb'(?:href|src)="(/static/[^"]+)"', html)
        parts = [html, *(_get(base + a.decode()) for a in assets)]
        js = [a.decode() for a in assets if a.endswith(b".js")]
        for name in js:  # the modules those import
            for imported in re.findall(rb'from "\./([^"]+)"', _get(base + name)):
                parts.append(_get(f"{base}/static/{imported.decode()}"))
        return sum(map(len, parts)), sum(len(gzip.compress(p)) for p in parts), \
            [a.decode() for a in assets]
    viewer = weigh(f"/matches/{match_id}")
    stats = weigh("/stats")
    return (f"page weight (HTML + its CSS/JS, gzip measured with Python's gzip): viewer "
            f"{viewer[0] / 1024:.1f} kB raw, {viewer[1] / 1024:.1f} kB gzipped; dashboard "
            f"{stats[0] / 1024:.1f} kB raw, {stats[1] / 1024:.1f} kB gzipped")


# -- annotations -------------------------------------------------------------------------------


def test_notes_are_added_shown_linked_exported_and_reimported(demo, browser, tmp_path):
    base, store = demo
    match_id = sorted(p.stem for p in store.glob("demo-cup-*.jsonl"))[-1]
    replay = _replay(store, match_id)
    about = replay.index.battles[0][0]
    w = Watched(browser, 1280, 800)
    page = w.page
    page.goto(f"{base}/matches/{match_id}?seq={about}&as=omniscient")
    _wait_seq(page, about)
    page.click("#annotate summary")
    page.fill("#note-text", "The first battle: <b>not bold</b>, watch realm control")
    page.fill("#note-token", ORGANIZER)
    page.fill("#note-name", "Coach Kim")
    page.click("#note-form button[type=submit]")
    page.wait_for_selector("#notes-here .note")
    assert "Coach Kim" in page.inner_text("#notes-here")
    assert "<b>not bold</b>" in page.inner_text("#notes-here")  # text, never markup
    assert page.locator(f"#events li.note[data-about='{about}']").count() == 1
    assert page.locator(f"#marks .note[data-seq='{about}']").count() == 1
    note = int(page.get_attribute("#notes-here .note", "data-note"))
    assert note == len(replay)  # recorded after MatchEnded, as the next event of the log
    assert page.url.endswith(f"?seq={about}&as=omniscient&note={note}")

    # A wrong token is one clear line, and nothing is written.
    page.fill("#note-text", "spam")
    page.fill("#note-token", "not-a-token")
    page.click("#note-form button[type=submit]")
    page.wait_for_function("document.querySelector('#note-result').textContent.includes('token')")
    assert "\n" not in page.inner_text("#note-result")
    assert [e for e in w.errors if "401" not in e] == []  # the browser logs the refused request
    w.errors.clear()

    # The note's link opens the moment with the note focused.
    other = Watched(browser, 390, 844)
    link = page.get_attribute("#notes-here .note .note-link", "href")
    other.page.goto(base + link)
    _wait_seq(other.page, about)
    other.page.wait_for_selector(f"#notes-here .note.focus[data-note='{note}']")
    assert other.page.locator("#notes-here .note.focus").is_visible()
    assert _in_view(other.page, ("#notes-here .note.focus", "#current")) == []

    # The match file carries the note; a second server imports it and shows it.
    data = _get(f"{base}/api/public/matches/{match_id}/file")
    assert b'"type":"Annotated"' in data and data == (store / f"{match_id}.jsonl").read_bytes()
    proc, second = start_server(tmp_path / "second", organizer=ORGANIZER)
    try:
        request = urllib.request.Request(f"{second}/api/import", data=data, method="POST",
                                         headers={"Authorization": f"Bearer {ORGANIZER}",
                                                  "Content-Type": "application/x-ndjson"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 201
        page.goto(f"{second}/matches/{match_id}?seq={about}&note={note}")
        page.wait_for_selector(f"#notes-here .note.focus[data-note='{note}']")
        assert "Coach Kim" in page.inner_text("#notes-here")
        listed = json.loads(_get(f"{second}/api/public/matches/{match_id}/annotations"))
        assert [n["text"] for n in listed["notes"]] == \
            ["The first battle: <b>not bold</b>, watch realm control"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    w.check_clean()
    other.check_clean()


# -- play from here ----------------------------------------------------------------------------


def _decision_point(replay, near: int) -> int:
    """A seq at or after ``near`` where a seat decided with listed options (a turn prompt)."""
    seq = near
    while True:
        seq = opening_seq(replay, seq)
        engine = replay.engine_after(seq)
        if engine.prompt is not None and engine.prompt.kind == "turn":
            return seq
        seq += 1


def test_a_sandbox_lists_the_options_the_recorder_had_and_plays_another(demo, browser, shots):
    base, store = demo
    match_id = _ended_match(store)
    path = store / f"{match_id}.jsonl"
    replay = _replay(store, match_id)
    n = _decision_point(replay, replay.index.rounds[3] + 5)
    engine = replay.engine_after(n)  # the recorder's engine at n (the file re-derives)
    expected = wotf_api.prompt_view(engine, "omniscient", lambda cid: cid,  # seats by name
                                    players_of(replay.events[0]))
    recorded = wotf_api._without_seat(replay.events[n + 1])
    assert recorded in [o["decision"] for o in expected["options"]]
    before = path.read_bytes()

    w = Watched(browser, 1280, 800)
    page = w.page
    page.goto(f"{base}/matches/{match_id}?seq={n}&as=omniscient")
    _wait_seq(page, n)
    page.click("#sandbox-link")
    page.wait_for_selector("#board[data-ready='1']")
    labels = page.locator("#options li a").all_inner_texts()
    assert labels == [o["label"] for o in expected["options"]]
    shown = json.loads(_get(f"{base}/api/public/matches/{match_id}/sandbox?seq={n}"))
    # as the API's model writes them (a turn option's ``subject``; null for the others)
    assert shown["seq"] == n and shown["prompt"]["options"] == \
        [OptionOut(**o).model_dump() for o in expected["options"]]
    taken = [o["decision"] for o in expected["options"]].index(recorded)
    assert page.get_attribute("#options li.recorded", "data-option") == str(taken)
    page.screenshot(path=str(shots / "sandbox.png"))

    # Try something else than the record: the other option, played in memory.
    other = next(i for i, o in enumerate(expected["options"]) if o["decision"] != recorded)
    page.click(f"#options li[data-option='{other}'] a")
    page.wait_for_selector("#played li")
    assert page.url.endswith(f"seq={n}&moves={other}")
    assert expected["options"][other]["label"].split()[0].lower() in \
        page.inner_text("#played").lower() or page.locator("#played li").count() == 1
    after = json.loads(_get(f"{base}/api/public/matches/{match_id}/sandbox?seq={n}&moves={other}"))
    assert after["played"] and after["board"] != shown["board"]
    shared = Watched(browser, 390, 844)  # the link is the whole position
    shared.page.goto(page.url)
    shared.page.wait_for_selector("#board[data-ready='1']")
    assert shared.page.inner_text("#played") == page.inner_text("#played")
    page.click("#undo")
    page.wait_for_selector("#options")
    assert page.locator("#played").count() == 0
    assert path.read_bytes() == before  # nothing was written
    w.check_clean()
    shared.check_clean()


def test_a_live_match_has_no_sandbox(demo):
    base, _store = demo
    created = api_call(base, "POST", "/api/matches", ORGANIZER, {"seats": [
        {"player": "Ann", "preset": "solfera-blaze"}, {"player": "Bob", "preset": "petraia-stone"}]})
    try:
        _get(f"{base}/api/public/matches/{created['match_id']}/sandbox?seq=0")
    except urllib.error.HTTPError as exc:
        assert exc.code == 403 and "live" in json.loads(exc.read())["message"]
    else:
        raise AssertionError("a live match's sandbox was served")
