"""The judge records a draw from the console on a 390x844 phone (docs/organizer.md, *End the
match*): choosing a draw hides the seat list (a draw has no loser), *End the match…* asks for a
confirmation in a sentence naming both players and the kind of draw, and only *End the match*
records it; the seats' pages and the replay viewer then read the result as a draw.  Both games,
both kinds; a real ``wonders serve`` and Debian's Chromium."""

from __future__ import annotations

import pytest

from ledger.filestore import FileStore
from tests.e2e.helpers import ORGANIZER, api_call
from tests.e2e.test_play_browser import PHONE, enter, no_overflow
from tests.web.test_api import SEATS
from tests.web.test_sow_api import sow_seats

SENTENCES = {
    "agreed": "Ann and Bob draw: both players agree to it (table 7). Ask both of them first.",
    "time": "Ann and Bob draw at time: the round's time ran out with the match unfinished "
            "(table 7).",
}


def _create(base: str, game: str) -> tuple[str, dict[str, str]]:
    body = {"game": "sow", "seats": sow_seats()} if game == "sow" else {"seats": SEATS}
    created = api_call(base, "POST", "/api/matches", ORGANIZER, body)
    return created["match_id"], created["tokens"]


@pytest.mark.parametrize(("game", "kind"), [("wotf", "time"), ("sow", "agreed")])
def test_the_judge_records_a_draw_on_a_phone_and_every_page_reads_it(browser, server, tmp_path,
                                                                        game, kind):
    base, store = server, tmp_path / "s"  # the conftest's server serves that store
    mid, tokens = _create(base, game)
    seat = enter(browser, base, mid, tokens["A"])
    judge = enter(browser, base, mid, tokens["judge"])
    no_overflow(judge)
    assert judge.is_visible("#ending select[name=seat]")
    judge.select_option("#ending select[name=kind]", f"draw:{kind}")
    assert not judge.is_visible("#ending select[name=seat]")  # a draw names no seat
    judge.fill("#ending input[name=reason]", "table 7")
    judge.locator("#end-match").tap()
    assert SENTENCES[kind] in judge.inner_text("#ending .confirm")
    no_overflow(judge)
    judge.locator("#ending .confirm button.cancel").tap()  # nothing recorded yet
    assert [type(e.event).__name__ for e in FileStore(store).read(mid)][-1] != "DrawGiven"
    judge.locator("#end-match").tap()
    judge.locator("#confirm-ending").tap()
    judge.wait_for_selector(f"#status:has-text('Match over: draw ({kind})')")
    seat.reload()
    seat.wait_for_selector(f"#status:has-text('Match over: draw ({kind})')")
    viewer = browser.new_context(**PHONE).new_page()
    viewer.goto(f"{base}/matches/{mid}?seq=999999")
    viewer.wait_for_selector(f"text=draw ({kind})")
    assert not seat.errors and not judge.errors
    events = [type(e.event).__name__ for e in FileStore(store).read(mid)]
    assert events[-2:] == ["DrawGiven", "MatchEnded"]
