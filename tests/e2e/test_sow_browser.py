"""State of Wonder in a real browser: the viewer steps through a finished match (both cities
by area, the pitched-battle zone, names not ids, on a 390 px phone), and two seats record
decisions by clicking on /play.

A real ``wonders serve`` (``tests/security/live.py``) and Debian's Chromium
(``/usr/bin/chromium``; no browser is downloaded)."""

from __future__ import annotations

import pytest

from ledger.filestore import FileStore
from replay.games import game
from replay.replayer import Replay
from tests.security.live import LiveApi, LiveServer
from tests.web.test_sow_api import create, play_out

SOW = game("sow")
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("sow") / "store", spectator_delay=0)
    yield server, LiveApi(server)
    server.stop()


@pytest.fixture(scope="module")
def finished(live):
    server, api = live
    mid, tokens = create(api)
    play_out(api, lambda m: server.store / f"{m}.jsonl", mid, tokens, seed=5, check_every=1000)
    replay = Replay(list(FileStore.read_file(server.store / f"{mid}.jsonl")), SOW.default_cards())
    assert replay.engine.state.over
    return server, mid, replay


def watched(browser, viewport=PHONE):
    page = browser.new_context(viewport=viewport).new_page()
    errors: list[str] = []
    # a failed load is reported by its address below (the browser's own favicon.ico is not ours)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error"
            and not m.text.startswith("Failed to load resource") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400
            and not r.url.endswith("/favicon.ico") else None)
    return page, errors


def city_text(page, seat):
    return page.inner_text(f".sow-city[data-seat='{seat}']")


def test_the_viewer_steps_through_a_finished_sow_match_on_a_phone(finished, browser):
    server, mid, replay = finished
    page, errors = watched(browser)
    page.goto(f"{server.base}/matches/{mid}?seq=0&as=omniscient")
    page.wait_for_selector("#board[data-seq='0'] .sow-board")
    assert page.locator(".sow-city").count() == 2
    # the battle menu says whose city each battle was fought at, by name (it said "at A")
    battles = [b for b in page.locator("#jump-battle option").all_inner_texts() if b[0] == "#"]
    assert battles and all(b.endswith(("at Ann's city", "at Bob's city")) for b in battles), \
        battles
    # no rounds in State of Wonder: no round menu (it held only "—"), the turns are offered
    assert page.locator("#jump-round").count() == 0
    assert page.locator("#jump-turn option").count() > 1
    assert page.locator("[data-area='pitched_battle']").count() == 1
    for area in ("attackers", "fortifications", "units", "buildings", "state", "wonder_area",
                 "culture", "discard"):
        assert page.locator(f".sow-city [data-area='{area}']").count() == 2, area
    seen_cards = False
    for seq in range(1, min(len(replay), 60)):
        page.keyboard.press("ArrowRight")
        page.wait_for_selector(f"#board[data-seq='{seq}']")
        board = SOW.board(replay.state_at(seq), replay.db, "omniscient")
        for seat in "AB":
            city = board["cities"][seat]
            gold = page.inner_text(f".sow-city[data-seat='{seat}'] [data-stat='gold'] b")
            assert gold == str(city["gold"]), (seq, seat)
            shown = page.locator(f".sow-city[data-seat='{seat}'] .sow-card").count()
            on_board = sum(len(city[a]) for a in ("attackers", "fortifications", "units",
                                                  "buildings", "state"))
            assert shown == on_board, (seq, seat)
            seen_cards = seen_cards or on_board > 0
        assert page.locator(".sow-battle .sow-card").count() == len(board["pitched_battle"])
    assert seen_cards
    text = page.inner_text("#board")
    assert not any(cid in text.split() for cid in replay.engine.state.cards)  # names, not ids
    assert page.inner_text("#events li.now")  # the narrated event is marked
    # the board fits a 390 px phone: nothing wider than the screen
    width = page.evaluate("document.querySelector('#board').scrollWidth")
    assert width <= PHONE["width"], width
    assert errors == []


def test_the_spectator_sees_culture_as_a_count(finished, browser):
    server, mid, replay = finished
    page, errors = watched(browser, {"width": 1280, "height": 900})
    page.goto(f"{server.base}/matches/{mid}?seq=5&as=spectator")
    page.wait_for_selector("#board[data-seq='5'] .sow-board")
    state = replay.state_at(5)
    for seat in "AB":
        culture = page.locator(f".sow-city[data-seat='{seat}'] [data-area='culture']")
        count = sum(1 for c in state.cards.values() if c.owner == seat and c.area == "culture")
        assert culture.get_attribute("data-count") == str(count)
        names = {c.name for c in state.cards.values() if c.owner == seat and c.area == "culture"}
        shown = set(page.locator(f".sow-city[data-seat='{seat}'] [data-area='culture'] .sow-name")
                    .all_inner_texts())
        assert not shown & names
    # switch to seat A: A's culture is named, B's still a count
    page.select_option("#perspective", "A")
    page.wait_for_selector("#board[data-perspective='A'] .sow-board")
    assert page.locator(".sow-city[data-seat='A'] [data-area='culture']").get_attribute(
        "data-count") is None
    assert page.locator(".sow-city[data-seat='B'] [data-area='culture']").get_attribute(
        "data-count") is not None
    assert errors == []


def test_two_seats_record_sow_decisions_by_clicking_on_play(live, browser):
    server, api = live
    mid, tokens = create(api)
    pages = {}
    for seat in "AB":
        page, errors = watched(browser)
        page.goto(f"{server.base}/play/{mid}?token={tokens[seat]}")
        page.wait_for_selector("#play[data-length] .sow-board")
        pages[seat] = (page, errors)
    recorded = 0
    for _ in range(3):
        _, pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])
        prompt = pending["prompt"]
        if prompt is None or prompt["kind"] != "turn":
            break
        page, _ = pages[prompt["seat"]]
        page.reload()
        page.wait_for_selector("#play[data-length] .sow-board")
        before = page.get_attribute("#play", "data-length")
        options = page.locator("#prompt:not(.waiting) button.option")
        options.first.wait_for()
        assert options.count() == len(prompt["options"])  # the judge sees the same options
        plays = page.locator("#prompt button.option", has_text="plays")
        (plays if plays.count() else options).first.click()
        page.wait_for_function(f"document.querySelector('#play').dataset.length !== '{before}'")
        assert "error" not in (page.get_attribute("#status", "class") or ""), \
            page.inner_text("#status")
        recorded += 1
    assert recorded >= 2
    events = list(FileStore.read_file(server.store / f"{mid}.jsonl"))
    assert sum(type(s.event).__name__ == "PlayChosen" for s in events) >= 2
    # the other seat's page names no card of the opponent's culture
    page, _ = pages["B"]
    page.reload()
    page.wait_for_selector("#play[data-length] .sow-board")
    assert page.locator(".sow-city[data-seat='A'] [data-area='culture']").get_attribute(
        "data-count") is not None
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width  # /play fits a 390 px phone
    for _, errors in pages.values():
        assert errors == []


def test_the_judge_of_a_sow_match_is_offered_no_ruling_form(live, browser):
    """State of Wonder has no judge's operations (POST …/manual: 422): no Ruling section."""
    server, api = live
    mid, tokens = create(api)
    page, errors = watched(browser)
    page.goto(f"{server.base}/play/{mid}?token={tokens['judge']}")
    page.wait_for_selector("#play[data-length] .sow-board")
    assert page.locator("#ruling").count() == 0
    assert "Ruling" not in page.locator("#tools h2").all_inner_texts()
    assert page.locator("#history").count() == 1 and page.locator("#note textarea").count() == 1
    assert errors == []


def test_the_status_line_names_players_not_seat_letters(finished, live, browser):
    """Whose turn it is and who won read as the players' names, in the viewer and on /play
    (players are never "A" or "seat A")."""
    server, mid, replay = finished
    names = {seat.seat: seat.player for seat in replay.opened.seats}
    seq = next(s for s in range(len(replay))
               if SOW.board(replay.state_at(s), replay.db, "omniscient").get("turn_player"))
    page, errors = watched(browser)
    page.goto(f"{server.base}/matches/{mid}?seq={seq}&as=omniscient")
    page.wait_for_selector(f"#board[data-seq='{seq}'] .sow-board")
    status = page.inner_text("#status")
    assert any(f"{name} to act" in status for name in names.values()), status
    assert " A to act" not in status and " B to act" not in status, status
    page.keyboard.press("End")
    page.wait_for_selector(f"#board[data-seq='{len(replay) - 1}']")
    end = page.inner_text("#status")
    winner = replay.engine.state.winner
    if winner is not None:
        assert f"{names[winner]} wins" in end, end
    assert errors == []
    _, api = live
    other, tokens = create(api)
    seat_page, seat_errors = watched(browser)
    seat_page.goto(f"{server.base}/play/{other}?token={tokens['A']}")
    seat_page.wait_for_selector("#play[data-length] .sow-board")
    line = seat_page.inner_text("#status")
    assert " A to act" not in line and " B to act" not in line, line
    assert seat_errors == []


def advance_to(api, mid, tokens, kind: str, limit: int = 80) -> dict:
    """Answer through the API until ``kind`` is pending: each seat plays one plain unit on its
    first turn (Ann a Mercenary, which outlives Ironhold's 1 damage to each besieger; Bob a
    Militia: the decks of :func:`create`) and passes after; an attack takes every ready unit, a
    defence sends no one (so the attacker besieges); anything else takes its first answer."""
    units_played = {"A": 0, "B": 0}
    for _ in range(limit):
        _, pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])
        prompt = pending["prompt"]
        assert prompt is not None, ("nothing pending", pending)
        if prompt["kind"] == kind:
            return prompt
        seat = prompt["seat"]
        _, mine = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])
        mine = mine["prompt"]
        if mine["kind"] == "turn":
            units = [o["decision"] for o in mine["options"] if o["decision"]["type"] == "PlayChosen"
                     and o["label"].split(" plays ")[1].rstrip(".") in ("Mercenary", "Militia")]
            passing = {"type": "MainPassed"}
            decision = units[0] if units and not units_played[seat] else passing
            units_played[seat] += decision is not passing
        elif mine["choose"] is not None:
            picks = mine["choose"]["of"] if mine["kind"] == "attackers" else []
            decision = {**(mine.get("answer") or {}), "pick": picks[:mine["choose"]["max"]]}
        else:
            decision = mine["options"][0]["decision"]
        _, state = api.call("GET", f"/api/matches/{mid}/state", tokens["judge"])
        status, done = api.call("POST", f"/api/matches/{mid}/decisions", tokens[seat],
                                {"expected_seq": state["length"], "decision": decision})
        assert status == 201, done
    raise AssertionError(f"no {kind} prompt in {limit} decisions")


def test_the_seat_not_to_act_reads_what_the_other_is_doing_in_words(live, browser):
    """A State of Wonder prompt's kind is an id ("siege_defenders"): the waiting seat reads
    what its opponent is doing in words, and a turn of one-tap options asks for no "where"."""
    server, api = live
    mid, tokens = create(api)
    page, errors = watched(browser)
    page.goto(f"{server.base}/play/{mid}?token={tokens['A']}")
    page.wait_for_selector("#play[data-length] #prompt.yours .turn")
    assert page.inner_text("#prompt .hint") == "Tap what you do."  # no realm, no second tap
    prompt = advance_to(api, mid, tokens, "siege_defenders")
    assert prompt["seat"] == "B"
    page.reload()
    page.wait_for_selector("#play[data-length] #prompt .waiting-for")
    assert page.inner_text("#prompt .waiting-for") == "Waiting for Bob (defending their city)"
    assert errors == []


def test_the_judges_take_back_rows_of_a_sow_match_read_as_sentences(live, browser):
    """A State of Wonder sentence ends with a full stop: the row reads "Undo Ann plays X, and
    2 later batches", not "Undo Ann plays X. and 2 later batch(es)"."""
    from tests.e2e.test_takeback_browser import check_undo_rows, undo_rows
    server, api = live
    mid, tokens = create(api)
    with pytest.raises(AssertionError, match="did not end"):
        play_out(api, lambda m: server.store / f"{m}.jsonl", mid, tokens, seed=3, limit=6,
                 check_every=1000)
    page, errors = watched(browser)
    page.goto(f"{server.base}/play/{mid}?token={tokens['judge']}")
    rows = undo_rows(page)
    assert len(rows) >= 3, rows
    check_undo_rows(rows)
    assert errors == []
