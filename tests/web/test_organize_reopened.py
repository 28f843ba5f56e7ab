"""A console page that answered a post, opened again by its address.

Starting a round answers at ``/organize/t/<id>/rounds`` with the seat and judge links; a phone
that reloads the tab, or an organizer who bookmarks or shares that address, opened it with a
GET and read "Something went wrong — The method is not allowed for the requested URL." (405).
Now it is the tournament's console, saying why the links can't be shown again and where a lost
one is reissued (the same for a reissue's, the registration link's and a player's new link's
page); a refused form's address (``…/players`` and the other posts) goes to the console.  A
real app over a file store, signed in as the console is."""

from __future__ import annotations

import html

import pytest

from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import call, concede, new_tournament
from tests.web.test_tournaments_desk import ORIGIN, console


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def test_the_round_links_address_opened_again_is_the_console_saying_why(api):
    tid = new_tournament(api, players=4)
    client, csrf, _page = console(api, tid)
    started = client.post(f"/organize/t/{tid}/rounds", headers=ORIGIN, data={"csrf": csrf})
    assert started.status_code == 201
    again = client.get(f"/organize/t/{tid}/rounds")
    assert again.status_code == 200
    page = html.unescape(again.get_data(as_text=True))
    assert "shown once, when it started" in page and "reissue it on the round board" in page
    assert 'id="board"' in page and "Table 1" in page  # the round board itself, to reissue from


@pytest.mark.parametrize(("action", "says"), [
    ("reissue", "reissue it again on the round board"),
    ("registration", "New link under Players register themselves"),
    ("player-links", "New link beside the player"),
])
def test_every_shown_once_page_opened_again_says_where_to_get_a_new_one(api, action, says):
    tid = new_tournament(api, players=2)
    client, _csrf, _page = console(api, tid)
    again = client.get(f"/organize/t/{tid}/{action}")
    assert again.status_code == 200
    assert says in html.unescape(again.get_data(as_text=True))


@pytest.mark.parametrize("action", ["players", "drops", "removals", "reinstatements", "clock",
                                    "revoke", "cards", "registration/close"])
def test_a_refused_forms_address_opened_again_goes_to_the_console(api, action):
    tid = new_tournament(api, players=2)
    client, _csrf, _page = console(api, tid)
    again = client.get(f"/organize/t/{tid}/{action}")
    assert again.status_code == 303
    assert again.headers["Location"].endswith(f"/organize/t/{tid}")


def test_signed_out_it_asks_for_the_token_and_shows_nothing(api):
    tid = new_tournament(api, players=2)
    again = api.client.get(f"/organize/t/{tid}/rounds")
    assert again.status_code == 303 and again.headers["Location"].endswith("/organize")
    assert call(api, "GET", f"/api/tournaments/{tid}")[0] == 200


def test_the_start_form_sent_again_after_its_round_ended_pairs_nothing(api):
    """A links page reloaded (the browser sends its form again) once every table of its round
    had ended paired and started the next round, unasked, its links lost to a page no one was
    looking at.  The start form now names its round: sent again, it pairs nothing and says
    so; the console's current button (the next round) still starts it."""
    tid = new_tournament(api, players=4)
    client, csrf, page = console(api, tid)
    assert 'name="round" value="1"' in page
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201
    for table in started["tables"]:
        concede(api, table["match_id"], table["tokens"]["judge"], "B")
    again = client.post(f"/organize/t/{tid}/rounds", headers=ORIGIN,
                        data={"csrf": csrf, "round": "1"})
    assert again.status_code == 422
    said = html.unescape(again.get_data(as_text=True))
    assert "this button was for round 1, and the next round is 2" in said
    assert "nothing was paired" in said
    assert len(call(api, "GET", f"/api/tournaments/{tid}")[1]["rounds"]) == 1
    assert client.post(f"/organize/t/{tid}/rounds", headers=ORIGIN,
                       data={"csrf": csrf, "round": "2"}).status_code == 201
    assert len(call(api, "GET", f"/api/tournaments/{tid}")[1]["rounds"]) == 2
