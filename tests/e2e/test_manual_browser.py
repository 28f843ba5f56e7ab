"""A judge enters a ruling on /play with the operations form (no JSON anywhere): a card of
seat A's hand put on top of A's deck, and a card of B's hand revealed to seat A; every
label names the players (Ann is A, Bob is B), never a seat letter or a card id.

A real ``wonders serve`` subprocess on a free loopback port, driven by Playwright with the
system Chromium (``/usr/bin/chromium``); skipped where it is missing (tests/e2e/conftest.py).
"""

from __future__ import annotations

from playwright.sync_api import sync_playwright

from tests.e2e.helpers import CHROMIUM, FLAGS, ORGANIZER, api_call


def _to_first_turn(base: str, mid: str, tokens: dict[str, str]) -> None:
    """Answer the setup prompts through the API (first player, realm side, no mulligan)."""
    for _ in range(20):
        prompt = api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens["judge"])
        pending, length = prompt["prompt"], prompt["length"]
        if pending is None or pending["kind"] == "turn":
            return
        seat = pending["seat"]
        mine = api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens[seat])["prompt"]
        if mine.get("choose"):
            decision = {**mine["answer"], "pick": mine["choose"]["of"][:mine["choose"]["min"]]}
        else:
            decision = mine["options"][0]["decision"]
        api_call(base, "POST", f"/api/matches/{mid}/decisions", tokens[seat],
                 {"expected_seq": length, "decision": decision})
    raise AssertionError("the setup did not reach a turn")


def _add(page, **fields) -> None:
    form = page.locator("#ruling-form")
    for name, value in fields.items():
        box = form.locator(f"select[name={name}]")
        if name == "card":
            box.select_option(label=value)
        else:
            box.select_option(value=value)
    form.locator("button[data-action=add]").click()


def test_a_judge_puts_a_card_on_top_and_reveals_one_with_the_form(server):
    base = server
    created = api_call(base, "POST", "/api/matches", ORGANIZER, {"seats": [
        {"player": "Ann", "preset": "solfera-blaze"}, {"player": "Bob", "preset": "petraia-stone"}]})
    mid, tokens = created["match_id"], created["tokens"]
    _to_first_turn(base, mid, tokens)
    judge_board = api_call(base, "GET", f"/api/matches/{mid}/state", tokens["judge"])["board"]
    a_card = judge_board["players"]["A"]["hand"][0]
    b_card = judge_board["players"]["B"]["hand"][0]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_context().new_page()
        page.goto(f"{base}/play/{mid}?token={tokens['judge']}")
        page.wait_for_selector("#ruling-form")
        assert page.locator("#ruling-form textarea").count() == 0
        labels = page.locator("#ruling-form select[name=card] option").all_inner_texts()
        assert f"{a_card['name']} — Ann's hand" in labels
        assert not any(a_card["id"] in label for label in labels)  # names, never ids
        before = page.get_attribute("#play", "data-length")
        _add(page, op="move", card=f"{a_card['name']} — Ann's hand", to_zone="deck", position="top")
        _add(page, op="reveal", card=f"{b_card['name']} — Bob's hand", seat="A")
        listed = page.locator("#ruling-form ol.manual-ops li").all_inner_texts()
        assert listed[0].startswith(f"move {a_card['name']} to the top of its owner's deck")
        assert listed[1].startswith(f"reveal {b_card['name']} to Ann")
        page.locator("#ruling-form input[name=note]").fill("a put on top and a reveal")
        page.locator("#ruling-form button[data-action=record]").click()
        page.wait_for_function(f"document.querySelector('#play').dataset.length !== '{before}'")
        assert "error" not in (page.get_attribute("#status", "class") or ""), page.inner_text("#status")

        seat_a = browser.new_context().new_page()
        seat_a.goto(f"{base}/play/{mid}?token={tokens['A']}")
        seat_a.wait_for_selector("#board .known")
        assert b_card["name"] in seat_a.inner_text("#board .known")
        browser.close()
    after = api_call(base, "GET", f"/api/matches/{mid}/state", tokens["judge"])["board"]
    top = after["players"]["A"]["deck"][0]
    assert top["name"] == a_card["name"]
    seen_by_a = api_call(base, "GET", f"/api/matches/{mid}/state", tokens["A"])["board"]
    assert [c["name"] for c in seen_by_a["known"]["B"]] == [b_card["name"]]
    seen_by_b = api_call(base, "GET", f"/api/matches/{mid}/state", tokens["B"])["board"]
    assert "known" not in seen_by_b  # B was shown nothing (its own hand it sees anyway)


def test_a_seat_looks_deep_into_a_deck_and_shuffles_its_own_with_the_form(server):
    """A seat answering its own card's manual prompt on /play: it looks at the bottom card of
    B's deck (a place beyond the top ten, entered in the place field; a seat looks at a deck's
    top or bottom five, R48) and shuffles its own deck (rules revision 8); the record names
    the card, and the shuffle is a chance event."""
    from tests.web.test_api_judge_public import _deck_with

    base = server
    oracle = "Oracle of Whispers"  # unscripted: playing it raises a manual prompt
    created = api_call(base, "POST", "/api/matches", ORGANIZER, {"seats": [
        {"player": "Ann", "deck": _deck_with(oracle, 2)},
        {"player": "Bob", "preset": "thalwind-sky"}], "previous_loser": "B"})
    mid, tokens = created["match_id"], created["tokens"]
    _to_first_turn(base, mid, tokens)
    judge = api_call(base, "GET", f"/api/matches/{mid}/state", tokens["judge"])
    board = judge["board"]
    cid = next(c["id"] for c in board["players"]["A"]["deck"] + board["players"]["A"]["hand"]
               if c["name"] == oracle)
    deck_b = [c["id"] for c in board["players"]["B"]["deck"]]
    api_call(base, "POST", f"/api/matches/{mid}/manual", tokens["judge"], {
        "ops": [{"op": "move", "card": cid, "to_zone": "hand"},
                {"op": "resource", "seat": "A", "resource": "energy", "value": 10}],
        "note": "setup", "expected_seq": judge["length"]})
    prompt = api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens["A"])
    play = next(o["decision"] for o in prompt["prompt"]["options"]
                if o["decision"].get("card") == cid and o["decision"].get("realm") == 1)
    api_call(base, "POST", f"/api/matches/{mid}/decisions", tokens["A"],
             {"expected_seq": prompt["length"], "decision": play})
    since = api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens["A"])["length"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        page.goto(f"{base}/play/{mid}?token={tokens['A']}")
        page.wait_for_selector("#manual-form")
        form = page.locator("#manual-form")
        assert "shuffle" in form.locator("select[name=op] option").all_inner_texts()[3]
        form.locator("select[name=op]").select_option(value="look")
        form.locator("select[name=card]").select_option(value="deck:B:")
        assert form.locator("input[name=place]").is_visible()
        form.locator("input[name=place]").fill(str(len(deck_b)))
        form.locator("select[name=seat]").select_option(value="A")
        form.locator("button[data-action=add]").click()
        form.locator("select[name=op]").select_option(value="shuffle")
        assert not form.locator("input[name=place]").is_visible()
        form.locator("select[name=seat]").select_option(value="A")
        form.locator("button[data-action=add]").click()
        listed = form.locator("ol.manual-ops li").all_inner_texts()
        assert listed[0].startswith(f"Ann looks at card {len(deck_b)} from the top of Bob's "
                                    f"deck"), listed
        assert listed[1].startswith("shuffle Ann's deck"), listed
        form.locator("button[data-action=record]").click()
        page.wait_for_function(f"document.querySelector('#play').dataset.length !== '{since}'")
        assert "error" not in (page.get_attribute("#status", "class") or ""), page.inner_text("#status")
        browser.close()
    events = api_call(base, "GET", f"/api/matches/{mid}/events?from={since}", tokens["judge"])["events"]
    answered = next(e["event"] for e in events if e["event"]["type"] == "ManualResolved")
    assert answered["ops"][0] == {**answered["ops"][0], "op": "look", "card": deck_b[-1], "seat": "A"}
    assert any(e["event"]["type"] == "DeckShuffled" and e["event"]["seat"] == "A" for e in events)
