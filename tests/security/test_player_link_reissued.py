"""A player link the organizer replaced is refused everywhere it was accepted, at once.

A player link (``/tournaments/<id>/me?token=…``) is accepted by the player's page (opening it
keeps the token's hash in the session) and by the decklist replace (``POST …/me/decklist``,
the session's hash).  After the organizer gives the player a new link
(``PlayerLinkReissued``), the old link -- opened fresh, or already held in a phone's session,
a form's CSRF token in hand -- opens nothing, shows none of the list and replaces nothing
(nothing is written); the new link works.  Against the app in-process and a real
``wonders serve`` (the phone's session in a cookie jar).
"""

from __future__ import annotations

from tests.web.test_api import Api, new_app
from tests.web.test_selfreg import HttpPhone, Phone, refused
from tests.web.test_tournaments import DECKS, call, decklist, new_tournament

ORIGIN = {"Origin": "http://localhost"}


class Browser:
    """A phone with its own cookies: ``open(path, form=None)`` → (status, html), a form post
    carrying this site's Origin; redirects are answers, not followed."""

    def __init__(self, api, where):
        self.http = HttpPhone(where.server.base) if where is not None else None
        self.app = Phone(api) if where is None else None

    def open(self, path, form=None):
        if self.http is not None:
            status, html, _headers = self.http.open(path, form)
            return status, html
        if form is None:
            status, html, _response = self.app.get(path)
            return status, html
        response = self.app.client.post(path, data=form, headers=ORIGIN)
        return response.status_code, response.get_data(as_text=True)


def csrf_of(html):
    return html.split('name="csrf" value="')[1].split('"')[0]


def self_register(api, where, tid, player, deck):
    """Open ``tid``'s registration link on a new phone and register ``player`` with the
    sample deck ``deck``: (status, html) of the form's answer, and the phone."""
    status, opened = call(api, "POST", f"/api/tournaments/{tid}/registration")
    assert status == 201, opened
    key = opened["key"]
    phone = Browser(api, where)
    status, html = phone.open(f"/tournaments/{tid}/register?key={key}")
    assert status == 200
    form = {"csrf": csrf_of(html), "key": key, "player": player, "decklist": decklist(deck)}
    status, html = phone.open(f"/tournaments/{tid}/register", form)
    return status, html, phone


def test_the_old_player_link_is_refused_everywhere_after_a_reissue(tmp_path, where):
    api = where if where is not None else Api(new_app(tmp_path))
    tid = new_tournament(api, players=1, name="Link Cup")

    # Zoë registers on her phone; her link opened on a second phone too
    status, _html, phone = self_register(api, where, tid, "Zoë", DECKS[2])
    assert status == 303
    status, html = phone.open(f"/tournaments/{tid}/me")
    assert status == 200
    old = html.split('id="your-link"')[1].split('<a href="')[1].split('"')[0]
    old_path = old[old.index("/tournaments/"):]
    phone_csrf = csrf_of(html)
    second = Browser(api, where)
    assert second.open(old_path)[0] == 303
    status, html = second.open(f"/tournaments/{tid}/me")
    assert status == 200
    second_csrf = csrf_of(html)
    her_card = decklist(DECKS[2]).splitlines()[1]
    assert her_card in html

    status, data = call(api, "POST", f"/api/tournaments/{tid}/player-links", {"player": "Zoë"})
    assert status == 201, data
    length = call(api, "GET", f"/api/tournaments/{tid}")[1]["length"]

    # the old link opened fresh: refused, none of her list shown
    status, html = Browser(api, where).open(old_path)
    assert status == 403 and her_card not in html and "<form" not in html.split('id="refused"')[1]
    assert refused(html) == "Link Cup: that is not (or no longer) a player link of this tournament"
    # the sessions that opened it: the page and the replace refused, nothing written
    for browser, csrf in ((phone, phone_csrf), (second, second_csrf)):
        status, html = browser.open(f"/tournaments/{tid}/me")
        assert status == 403 and her_card not in html
        status, html = browser.open(f"/tournaments/{tid}/me/decklist",
                                    {"csrf": csrf, "decklist": decklist(DECKS[3])})
        assert status == 403 and her_card not in html, html
    t = call(api, "GET", f"/api/tournaments/{tid}")[1]
    zoe = next(p for p in t["players"] if p["name"] == "Zoë")
    assert t["length"] == length and zoe["replaced"] == 0  # nothing written

    # the new link: accepted
    fresh = Browser(api, where)
    assert fresh.open(data["link"][data["link"].index("/tournaments/"):])[0] == 303
    status, html = fresh.open(f"/tournaments/{tid}/me")
    assert status == 200 and her_card in html


def test_a_link_reissued_on_one_postgresql_server_is_refused_by_another(pg_url):
    """Two servers on one database: the reissue is the log's, so the other server refuses the
    old link (and the session it left) from its next request."""
    from tests.web.test_store_app_postgres import pg_app
    first, second = pg_app(pg_url), pg_app(pg_url)
    tid = new_tournament(first, players=1, name="Pg Link Cup")
    ann = call(first, "POST", f"/api/tournaments/{tid}/player-links", {"player": "Ann"})[1]
    old = ann["link"].removeprefix("http://localhost")
    phone = Phone(second)
    assert phone.get(old)[0] == 303 and phone.get(f"/tournaments/{tid}/me")[0] == 200
    new = call(first, "POST", f"/api/tournaments/{tid}/player-links", {"player": "Ann"})[1]
    assert phone.get(f"/tournaments/{tid}/me")[0] == 403
    assert Phone(second).get(old)[0] == 403
    assert Phone(second).get(new["link"].removeprefix("http://localhost"))[0] == 303
