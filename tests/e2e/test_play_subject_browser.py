"""Two copies of a card on /play: the first taps tell them apart by the API's ``subject``.

Seat A's turn with two Sky Roc of the North in hand (each playable into several realms: a
group of options each, two taps), set by the judge's manual effect through a real ``wonders
serve`` (the position of tests/web/test_play_option_labels.py).  By name alone both groups
would read "Play Sky Roc of the North"; the API names them apart ("… (copy 1)", "… (copy 2)"),
and the page must show those words (web/static/playturn.js ``groupLabel``).  Tapping the second
copy's group, then a realm, records a ``PlayDeclared`` of exactly that copy: the match file's
next event names the card the option with that subject acts with.  A phone (390x844), Debian's
Chromium.
"""

from __future__ import annotations

import pytest

from ledger.filestore import FileStore
from tests.e2e.helpers import start_server, stop_server
from tests.e2e.test_play_browser import enter, reload
from tests.web.live_http import call
from tests.web.test_api import ORGANIZER
from tests.web.test_api_hidden_info import Table
from tests.web.test_play_option_labels import two_copies_turn

CARD = "Sky Roc of the North"


class LiveApi:
    """The API client ``Table`` drives, over HTTP to a real server."""

    def __init__(self, base: str) -> None:
        self.base = base

    def call(self, method, path, token=None, body=None):
        return call(self.base, method, path, token, body)

    def state(self, mid, token):
        status, data = self.call("GET", f"/api/matches/{mid}/state", token)
        assert status == 200, data
        return data

    def decide(self, mid, token, decision, expected_seq):
        return self.call("POST", f"/api/matches/{mid}/decisions", token,
                         {"expected_seq": expected_seq, "decision": decision})


@pytest.fixture
def live(tmp_path):
    """A real ``wonders serve`` (the API tests' organizer token); its base URL and store."""
    proc, base = start_server(tmp_path / "s", organizer=ORGANIZER)
    try:
        yield base, tmp_path / "s"
    finally:
        stop_server(proc)


def group_texts(page) -> list[str]:
    """The first taps' words, without a group's count of options."""
    groups = page.locator("#prompt button.group")
    out = []
    for i in range(groups.count()):
        text = groups.nth(i).inner_text()
        count = groups.nth(i).locator(".count")
        out.append(text.removesuffix(count.inner_text()).strip() if count.count() else text)
    return out


def test_two_copies_of_a_card_are_told_apart_and_a_tap_records_that_copy(browser, live):
    base, store = live
    t = Table(None, api=LiveApi(base))
    pending, _bells = two_copies_turn(t)
    copies: dict[str, str] = {}  # subject -> the card its options act with
    for o in pending["options"]:
        if o["decision"]["type"] == "PlayDeclared" and o["subject"].startswith(CARD):
            copies.setdefault(o["subject"], o["decision"]["card"])
    assert sorted(copies) == [f"{CARD} (copy 1)", f"{CARD} (copy 2)"], copies
    assert len(set(copies.values())) == 2

    page = enter(browser, base, t.mid, t.tokens["A"])
    length = reload(page)
    page.locator("#prompt.yours button.group").first.wait_for()
    texts = group_texts(page)
    assert len(set(texts)) == len(texts), texts  # no two first taps read alike
    for subject in copies:
        assert texts.count(f"Play {subject}") == 1, texts

    wanted = f"{CARD} (copy 2)"
    page.locator("#prompt button.group", has_text=f"Play {wanted}").tap()
    assert page.inner_text("#prompt .turn .question") == f"Play {wanted}: choose"
    page.locator("#prompt button.detail", has_text="Realm 2").tap()
    page.wait_for_function(f"document.querySelector('#play').dataset.length !== '{length}'")
    assert "error" not in (page.get_attribute("#status", "class") or ""), \
        page.inner_text("#status")

    played = next(s.event for s in FileStore(store).read(t.mid, int(length)))
    assert type(played).__name__ == "PlayDeclared" and played.seat == "A", played
    assert (played.card, played.realm) == (copies[wanted], 2), played
    assert not page.errors  # type: ignore[attr-defined]
