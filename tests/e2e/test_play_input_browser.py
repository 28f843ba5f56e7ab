"""What a seat or the judge has on the /play page stays while it is true: an error leaves the
status line once it no longer holds (the network is back, the match moved), a second tap on a
decision already sent sends nothing (and a 409 caused by the page's own earlier write says it
was recorded), and what is ticked or typed survives events that don't change what it answers
(a call for the judge).  Phones (390x844), a real ``wonders serve``, Debian's Chromium."""

from __future__ import annotations

import time

from tests.e2e.helpers import ORGANIZER, api_call

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
STATUS_ERROR = "document.querySelector('#status').classList.contains('error')"


def create(base: str) -> tuple[str, dict[str, str]]:
    created = api_call(base, "POST", "/api/matches", ORGANIZER, {"seats": [
        {"player": "Ann", "preset": "solfera-blaze"}, {"player": "Bob", "preset": "petraia-stone"}]})
    return created["match_id"], created["tokens"]


def advance_to(base: str, mid: str, tokens: dict[str, str], kind: str) -> dict:
    """Answer every prompt (its first option, or its fewest picks) until one of ``kind``."""
    for _ in range(60):
        pending = api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens["judge"])
        prompt = pending["prompt"]
        if prompt["kind"] == kind:
            return prompt
        answer_one(base, mid, tokens, pending)
    raise AssertionError(f"no {kind} prompt")


def answer_one(base: str, mid: str, tokens: dict[str, str], pending: dict) -> None:
    """Answer the pending prompt through the API: its first option, or its fewest picks."""
    prompt = pending["prompt"]
    if prompt["choose"]:
        c = prompt["choose"]
        decision = {**(prompt["answer"] or {}), "pick": c["of"][:c["min"]]}
    else:
        decision = prompt["options"][0]["decision"]
    api_call(base, "POST", f"/api/matches/{mid}/decisions", tokens[prompt["seat"]],
             {"expected_seq": pending["length"], "decision": decision})


def enter(browser, base: str, mid: str, token: str):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{base}/play/{mid}?token={token}")
    page.wait_for_selector("#play[data-length]")
    page.errors = errors  # type: ignore[attr-defined]
    return page


def draws(base: str, mid: str, tokens: dict[str, str]) -> int:
    events = api_call(base, "GET", f"/api/matches/{mid}/events?limit=2000", tokens["judge"])
    return sum(e["event"]["type"] == "DrawDeclared" for e in events["events"])


def test_a_network_drop_leaves_no_error_once_the_page_catches_up(server, browser):
    mid, tokens = create(server)
    seat = advance_to(server, mid, tokens, "turn")["seat"]
    page = enter(browser, server, mid, tokens[seat])
    page.context.set_offline(True)
    page.wait_for_function(STATUS_ERROR, timeout=5000)  # "Failed to fetch"
    page.context.set_offline(False)
    page.wait_for_function(f"!{STATUS_ERROR}", timeout=5000)
    assert "your move" in page.inner_text("#status")
    assert page.errors == []


def test_a_second_tap_on_a_decision_in_flight_sends_nothing(server, browser):
    mid, tokens = create(server)
    seat = advance_to(server, mid, tokens, "turn")["seat"]
    page = enter(browser, server, mid, tokens[seat])
    before = draws(server, mid, tokens)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.route("**/api/**", lambda route: (time.sleep(0.8), route.continue_()))
    button = page.locator("#prompt button.option", has_text="Draw a card").first.element_handle()
    with page.expect_response(lambda r: r.url.endswith("/decisions")):
        button.tap()
    button.tap()  # the old button is still on the page while it refreshes
    page.wait_for_timeout(2500)
    assert len(posts) == 1 and draws(server, mid, tokens) == before + 1
    assert not page.evaluate(STATUS_ERROR), page.inner_text("#status")
    assert page.errors == []


def test_a_tap_refused_because_of_the_pages_own_write_says_it_was_recorded(server, browser):
    mid, tokens = create(server)
    seat = advance_to(server, mid, tokens, "turn")["seat"]
    page = enter(browser, server, mid, tokens[seat])
    before = draws(server, mid, tokens)
    page.route("**/state", lambda route: route.abort())  # the page can't redraw
    draw = page.locator("#prompt button.option", has_text="Draw a card").first
    draw.tap()
    page.wait_for_function(STATUS_ERROR, timeout=5000)  # the refresh failed
    with page.expect_response(lambda r: r.url.endswith("/decisions")) as refused:
        draw.tap()  # sent from the old length: 409
    assert refused.value.status == 409
    page.wait_for_function("document.querySelector('#status').textContent.includes('Already')")
    assert not page.evaluate(STATUS_ERROR)
    assert "decide again" not in page.inner_text("#status")
    page.unroute("**/state")
    page.wait_for_function(f"document.querySelector('#play').dataset.length > "
                           f"{page.get_attribute('#play', 'data-length')}", timeout=5000)
    assert not page.evaluate(STATUS_ERROR) and draws(server, mid, tokens) == before + 1
    assert page.errors == []


def test_ticked_cards_survive_the_other_seat_calling_the_judge(server, browser):
    mid, tokens = create(server)
    seat = advance_to(server, mid, tokens, "mulligan")["seat"]
    page = enter(browser, server, mid, tokens[seat])
    boxes = page.locator("#prompt input[type=checkbox]")
    boxes.nth(0).tap()
    boxes.nth(1).tap()
    length = page.get_attribute("#play", "data-length")
    api_call(server, "POST", f"/api/matches/{mid}/judge-call", tokens["B" if seat == "A" else "A"],
             {"text": "a question"})
    page.wait_for_function(f"document.querySelector('#play').dataset.length !== '{length}'")
    page.wait_for_timeout(1600)  # and a poll after it
    assert page.locator("#prompt input:checked").count() == 2
    assert page.errors == []


def test_the_judges_ruling_and_take_back_reason_survive_a_call(server, browser):
    mid, tokens = create(server)
    advance_to(server, mid, tokens, "turn")
    page = enter(browser, server, mid, tokens["judge"])
    form = page.locator("#ruling")
    form.locator("select[data-field=op]").select_option("resource")
    form.locator("select[data-field=seat]").select_option("A")
    form.locator("input[data-field=amount]").fill("3")
    form.locator("button[data-action=add]").tap()
    form.locator("input[data-field=note]").fill("Ann forgot her energy")
    page.locator("#history button.takeback").first.tap()
    page.fill("#history .confirm input[name=reason]", "Ann drew by mistake")
    length = page.get_attribute("#play", "data-length")
    api_call(server, "POST", f"/api/matches/{mid}/judge-call", tokens["B"], {"text": "a question"})
    page.wait_for_function(f"document.querySelector('#play').dataset.length !== '{length}'")
    page.wait_for_timeout(1600)
    assert form.locator("ol.manual-ops li").count() == 1
    assert form.locator("input[data-field=note]").input_value() == "Ann forgot her energy"
    assert page.input_value("#history .confirm input[name=reason]") == "Ann drew by mistake"
    assert page.locator("#calls li.call").count() == 1  # the call itself is shown
    assert page.errors == []


def test_a_failed_read_after_a_write_does_not_freeze_the_page(server, browser):
    """The redraw after a write reads the state and then the events; one failed read of the
    events (a network blip) must not leave the page busy for good: it polls on and catches up
    with what the match does next."""
    mid, tokens = create(server)
    seat = advance_to(server, mid, tokens, "turn")["seat"]
    page = enter(browser, server, mid, tokens[seat])
    failed: list[str] = []
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)

    def events(route):
        if posted and not failed:
            failed.append(route.request.url)
            route.abort()  # the one read of the events right after the write
        else:
            route.continue_()

    page.route("**/events?*", events)
    page.locator("#prompt button.option", has_text="Draw a card").first.tap()
    page.wait_for_timeout(1500)
    assert failed and len(posted) == 1
    pending = api_call(server, "GET", f"/api/matches/{mid}/prompt", tokens["judge"])
    answer_one(server, mid, tokens, pending)  # the match moves on, through the API
    length = api_call(server, "GET", f"/api/matches/{mid}/prompt", tokens["judge"])["length"]
    assert length > pending["length"]
    page.wait_for_function(f"Number(document.querySelector('#play').dataset.length) >= {length}",
                           timeout=8000)
