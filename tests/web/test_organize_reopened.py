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
import re

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


def _shown(page: str, pattern: str) -> str:
    found = re.search(pattern, html.unescape(page))
    assert found, pattern
    return found.group(1)


def test_a_reloaded_registration_link_page_keeps_the_printed_link(api):
    """The registration link's page reloaded (its form sent again) opened registration anew:
    the link just printed or put on the screen stopped working.  Now it changes nothing."""
    tid = new_tournament(api, players=2)
    client, csrf, page = console(api, tid)
    form = {"csrf": csrf, "link": _shown(page, r'name="link" value="([^"]+)"')}
    opened = client.post(f"/organize/t/{tid}/registration", headers=ORIGIN, data=form)
    assert opened.status_code == 201
    key = _shown(opened.get_data(as_text=True), r"register\?key=([\w-]+)")
    again = client.post(f"/organize/t/{tid}/registration", headers=ORIGIN, data=form)
    assert again.status_code == 422
    assert "nothing changed, and the link shown last still works" in html.unescape(
        again.get_data(as_text=True))
    assert api.client.get(f"/tournaments/{tid}/register?key={key}").status_code == 200
    page = client.get(f"/organize/t/{tid}").get_data(as_text=True)  # New link: a new one
    form = {"csrf": csrf, "link": _shown(page, r'name="link" value="([^"]+)"')}
    renewed = client.post(f"/organize/t/{tid}/registration", headers=ORIGIN, data=form)
    assert renewed.status_code == 201
    assert api.client.get(f"/tournaments/{tid}/register?key={key}").status_code == 403


def test_a_reloaded_player_link_page_keeps_the_link_just_given(api):
    tid = new_tournament(api, players=2)
    client, csrf, page = console(api, tid)
    form = {"csrf": csrf, "player": "Ann",
            "links": _shown(page, r'name="player" value="Ann"><input type="hidden" '
                                  r'name="links" value="(\d+)"')}
    given = client.post(f"/organize/t/{tid}/player-links", headers=ORIGIN, data=form)
    assert given.status_code == 201
    token = _shown(given.get_data(as_text=True), r"/me\?token=([\w-]+)")
    again = client.post(f"/organize/t/{tid}/player-links", headers=ORIGIN, data=form)
    assert again.status_code == 422
    assert "Ann was given a new player link since this page was shown" in html.unescape(
        again.get_data(as_text=True))
    phone = Api(api.app).client  # the player's phone: the link still opens their page
    assert phone.get(f"/tournaments/{tid}/me?token={token}", follow_redirects=True
                     ).status_code == 200


def test_a_reloaded_reissue_page_keeps_the_token_just_handed_out(api):
    tid = new_tournament(api, players=2)
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201
    mid = started["tables"][0]["match_id"]
    client, csrf, page = console(api, tid)
    form = {"csrf": csrf, "round": "1", "table": "1", "role": "A", "do": "reissue",
            "tokens": _shown(page, r'name="tokens" value="(\d+)"')}
    reissued = client.post(f"/organize/t/{tid}/reissue", headers=ORIGIN, data=form)
    assert reissued.status_code == 201
    token = _shown(reissued.get_data(as_text=True), rf"/play/{mid}\?token=([\w-]+)")
    again = client.post(f"/organize/t/{tid}/reissue", headers=ORIGIN, data=form)
    assert again.status_code == 422
    assert "nothing changed, and the links shown then still work" in html.unescape(
        again.get_data(as_text=True))
    seat = Api(api.app).client  # a player's phone: the token still enters the table
    assert seat.get(f"/play/{mid}?token={token}").status_code == 303
