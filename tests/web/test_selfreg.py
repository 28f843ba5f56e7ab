"""Players registering themselves (``/tournaments/<id>/register?key=…``, web/selfreg.py), over
a real app and a file store (and a PostgreSQL one where a test database is at hand).

The organizer opens registration (API, console, CLI): a key shown once, only its hash in the
log.  A player registers with a name and a decklist through the same checks as the
organizer's (duplicate names by player key, each decklist error one line naming the line, the
form kept), gets a player link, sees their own list and replaces it; the organizer's API and
console show the latest list.  Refused with one line: no key, a wrong key, a replaced key, a
closed registration, round 1 paired, a token that is no player's, another player's session;
a cross-site post or one without the form's CSRF token.  The public page says "Registration
is open" without the key; the organizer removes junk before round 1.  A State of Wonder
tournament's player registers through a live ``wonders serve`` (real HTTP, a cookie jar): its
game's checks, no DBS.
"""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from ledger.tournament import MAX_PLAYERS
from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import DECKS, call, decklist, new_tournament
from tests.web.test_tournaments_desk import console, wonders

ORIGIN = {"Origin": "http://localhost"}


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def opened(api, players=2, name="Spring Cup"):
    tid = new_tournament(api, players=players, name=name)
    status, data = call(api, "POST", f"/api/tournaments/{tid}/registration")
    assert status == 201, data
    assert data["link"] == f"http://localhost/tournaments/{tid}/register?key={data['key']}"
    return tid, data["key"]


class Phone:
    """A player's own browser: its own cookies (a new test client of the same app)."""

    def __init__(self, api):
        self.client = api.app.test_client()

    def get(self, path):
        response = self.client.get(path)
        return response.status_code, response.get_data(as_text=True), response

    def csrf(self, html):
        return html.split('name="csrf" value="')[1].split('"')[0]

    def session_csrf(self):
        """The CSRF token of a form this phone opened earlier (the page may show none now)."""
        with self.client.session_transaction() as session:
            return session["selfreg_csrf"]

    def register(self, tid, key, player, text, csrf=None, headers=ORIGIN, files=None):
        if csrf is None:
            _s, html, _r = self.get(f"/tournaments/{tid}/register?key={key}")
            csrf = self.csrf(html) if 'name="csrf"' in html else ""
        data = {"csrf": csrf, "key": key, "player": player, "decklist": text, **(files or {})}
        response = self.client.post(f"/tournaments/{tid}/register", data=data, headers=headers)
        return response.status_code, response.get_data(as_text=True), response

    def replace(self, tid, text, headers=ORIGIN):
        self.get(f"/tournaments/{tid}/me")  # a page opened before (its form may be gone now)
        csrf = self.session_csrf()
        response = self.client.post(f"/tournaments/{tid}/me/decklist",
                                    data={"csrf": csrf, "decklist": text},
                                    headers=headers)
        return response.status_code, response.get_data(as_text=True), response


def refused(html):
    found = re.search(r'id="refused">(.*?)</p>', html, re.S)
    return unescape(found.group(1)) if found else None


def errors(html):
    found = re.search(r'id="errors">(.*?)</p>', html, re.S)
    return [unescape(line) for line in found.group(1).split("<br>")] if found else []


def player_link(html):
    return re.search(r'id="your-link".*?<a href="([^"]+)"', html, re.S).group(1)


def test_a_player_registers_sees_their_list_and_replaces_it(api):
    tid, key = opened(api)
    phone = Phone(api)
    status, html, response = phone.register(tid, key, "Zoë Park", decklist(DECKS[2]))
    assert status == 303 and response.headers["Location"].endswith(f"/tournaments/{tid}/me")
    status, html, _ = phone.get(f"/tournaments/{tid}/me")
    assert status == 200 and "Zoë Park" in html and "You are registered" in html
    link = player_link(html)
    assert link.startswith(f"http://localhost/tournaments/{tid}/me?token=")
    first_card = decklist(DECKS[2]).splitlines()[1]
    assert first_card in html  # their registered list
    status, again, _ = phone.get(f"/tournaments/{tid}/me")
    assert 'id="your-link"' not in again  # the link is shown once

    # the organizer sees a self-registered player with the list
    t = call(api, "GET", f"/api/tournaments/{tid}")[1]
    zoe = next(p for p in t["players"] if p["name"] == "Zoë Park")
    assert zoe["self_registered"] and zoe["replaced"] == 0 and t["registration_open"]

    # the link opens the page on another phone, and the list is replaced
    other = Phone(api)
    status, _html, response = other.get(link.removeprefix("http://localhost"))
    assert status == 303 and "token" not in response.headers["Location"]
    status, html, response = other.replace(tid, decklist(DECKS[3]))
    assert status == 303, html
    status, html, _ = other.get(response.headers["Location"])
    assert 'id="replaced"' in html and decklist(DECKS[3]).splitlines()[1] in html
    assert "replaced 1 time" in html
    t = call(api, "GET", f"/api/tournaments/{tid}")[1]
    zoe = next(p for p in t["players"] if p["name"] == "Zoë Park")
    expected = tomllib_cards(DECKS[3])
    assert zoe["cards"] == expected and zoe["replaced"] == 1
    _client, _csrf, page = console(api, tid)
    assert "registered themselves" in page and "list replaced 1×" in page
    assert decklist(DECKS[3]).splitlines()[1] in page  # the latest list on the console

    # only hashes are kept: neither the key nor the player's token is in the log
    log = (api.app.extensions["wonders"].store.root / ".tournaments" / f"{tid}.jsonl").read_text()
    token = link.split("token=")[1]
    assert key not in log and token not in log
    kinds = [json.loads(line)["type"] for line in log.splitlines()]
    assert kinds.count("RegistrationOpened") == 1 and kinds[-1] == "DecklistReplaced"


def tomllib_cards(deck):
    return {line.split(" ", 1)[1]: int(line.split(" ", 1)[0])
            for line in decklist(deck).splitlines()[1:] if not line.split(" ", 1)[0].endswith("x")}


def test_the_organizers_checks_one_line_per_error_and_the_form_kept(api):
    tid, key = opened(api)  # Ann and Bob registered at the desk
    phone = Phone(api)
    status, html, _ = phone.register(tid, key, "  ann ", decklist(DECKS[2]))
    assert status == 422 and errors(html) == [
        "Spring Cup: 'ann' is registered already (as 'Ann')"]
    bad = decklist(DECKS[2]).replace("\n", "\nNot A Card Line\n", 1)
    status, html, _ = phone.register(tid, key, "Cleo", bad)
    assert status == 422 and errors(html) == [
        "line 2 ('Not A Card Line'): write it as 'count name', e.g. '3 Glow Smith'"]
    assert "Not A Card Line" in html and 'value="Cleo"' in html  # the form kept
    status, html, _ = phone.register(tid, key, "Cleo", decklist(DECKS[2]) + "2 Wibble Snark\n")
    assert status == 422 and len(errors(html)) == 1 and "Wibble Snark" in errors(html)[0]
    status, html, _ = phone.register(tid, key, "\u200b", decklist(DECKS[2]))
    assert status == 422 and "needs a name" in errors(html)[0]
    status, html, _ = phone.register(tid, key, "Cleo", "   ")
    assert status == 422 and "paste your decklist" in errors(html)[0]
    assert len(call(api, "GET", f"/api/tournaments/{tid}")[1]["players"]) == 2  # nothing added


def test_a_decklist_file_registers_too(api):
    import io
    tid, key = opened(api)
    phone = Phone(api)
    text = "\ufeff" + decklist(DECKS[4])
    status, html, _ = phone.register(
        tid, key, "Finn", "", files={"decklist_file": (io.BytesIO(text.encode()), "deck.txt")})
    assert status == 303, html
    status, html, _ = phone.register(
        tid, key, "Gus", "", files={"decklist_file": (io.BytesIO(b"\xff\xfe4"), "deck.txt")})
    assert status == 422 and errors(html) == ["deck.txt: not UTF-8 text; paste the list instead"]


def test_refusals_without_the_right_key_or_once_closed_or_paired(api):
    tid, key = opened(api, players=2)
    phone = Phone(api)
    for wrong in ("", "nope", key[:-1]):
        status, html, _ = phone.get(f"/tournaments/{tid}/register?key={wrong}")
        assert status == 403 and refused(html) == (
            "Spring Cup: this registration link is not (or no longer) valid; ask the "
            "organizer for the current one"), wrong
        assert "<form" not in html.split('id="refused"')[1]
    # a post with a wrong key is refused too, whatever the form
    status, html, _ = phone.register(tid, "nope", "Cleo", decklist(DECKS[2]),
                                     csrf=phone.csrf(phone.get(f"/tournaments/{tid}/register?key="
                                                               f"{key}")[1]))
    assert status == 403 and "not (or no longer) valid" in refused(html)

    # a new link: the old key stops working
    status, second = call(api, "POST", f"/api/tournaments/{tid}/registration")
    assert status == 201 and second["key"] != key
    assert phone.get(f"/tournaments/{tid}/register?key={key}")[0] == 403
    assert phone.get(f"/tournaments/{tid}/register?key={second['key']}")[0] == 200
    status, html, _ = phone.register(tid, second["key"], "Cleo", decklist(DECKS[2]))
    assert status == 303

    # closed: refused, the player's list is final
    status, data = call(api, "DELETE", f"/api/tournaments/{tid}/registration")
    assert status == 200 and not data["registration_open"]
    status, html, _ = phone.get(f"/tournaments/{tid}/register?key={second['key']}")
    assert status == 403 and refused(html) == "Spring Cup: registration is closed; ask the organizer"
    status, html, _ = phone.get(f"/tournaments/{tid}/me")
    assert status == 200 and 'id="final"' in html and "Replace my decklist" not in html
    status, html, _ = phone.replace(tid, decklist(DECKS[3]))
    assert status == 403 and "can no longer be replaced" in errors(html)[0]
    status, data = call(api, "DELETE", f"/api/tournaments/{tid}/registration")
    assert status == 422 and data["message"] == "Spring Cup: registration is not open"

    # reopened, then round 1 paired: self-registration and replacing are refused
    _s, third = call(api, "POST", f"/api/tournaments/{tid}/registration")
    assert call(api, "POST", f"/api/tournaments/{tid}/rounds")[0] == 201
    status, html, _ = phone.get(f"/tournaments/{tid}/register?key={third['key']}")
    assert status == 403 and "round 1 is paired, so registration is closed" in refused(html)
    status, html, _ = phone.register(tid, third["key"], "Dev", decklist(DECKS[3]),
                                     csrf=phone.session_csrf())  # a form opened before
    assert status == 403 and "late entries register at the organizer's desk" in refused(html)
    status, html, _ = phone.replace(tid, decklist(DECKS[3]))
    assert status == 403 and "round 1 is paired" in errors(html)[0]
    status, data = call(api, "POST", f"/api/tournaments/{tid}/registration")
    assert status == 422 and "round 1 is paired" in data["message"]
    t = call(api, "GET", f"/api/tournaments/{tid}")[1]
    assert len(t["players"]) == 3 and not t["registration_open"]
    assert next(p for p in t["players"] if p["name"] == "Cleo")["replaced"] == 0


def test_a_token_is_one_players_own_and_posts_need_the_form_and_this_site(api):
    tid, key = opened(api, players=0)
    ann, bob = Phone(api), Phone(api)
    assert ann.register(tid, key, "Ann", decklist(DECKS[0]))[0] == 303
    assert bob.register(tid, key, "Bob", decklist(DECKS[1]))[0] == 303
    ann_link = player_link(ann.get(f"/tournaments/{tid}/me")[1])
    bob_html = bob.get(f"/tournaments/{tid}/me")[1]
    ann_card, bob_card = (decklist(d).splitlines()[1] for d in DECKS[:2])
    assert ann_card != bob_card and bob_card in bob_html and ann_card not in bob_html

    stranger = Phone(api)
    status, html, _ = stranger.get(f"/tournaments/{tid}/me")  # no link: nobody's page
    assert status == 403 and ann_card not in html and bob_card not in html
    assert refused(html).startswith(
        "Spring Cup: that is not (or no longer) a player link of this tournament")
    status, html, _ = stranger.get(f"/tournaments/{tid}/me?token=forged")
    assert status == 403 and refused(html) == (
        "Spring Cup: that is not (or no longer) a player link of this tournament")
    # a player link is one tournament's: another tournament refuses it
    other, _ = opened(api, players=0, name="Other Cup")
    status, html, _ = stranger.get(f"/tournaments/{other}/me?token={ann_link.split('token=')[1]}")
    assert status == 403 and ann_card not in html

    # a replace needs the form's CSRF token and this site's Origin
    csrf = bob.csrf(bob.get(f"/tournaments/{tid}/me")[1])
    post = bob.client.post
    assert post(f"/tournaments/{tid}/me/decklist", data={"csrf": "forged", "decklist": ann_card},
                headers=ORIGIN).status_code == 403
    assert post(f"/tournaments/{tid}/me/decklist", data={"csrf": csrf, "decklist": ann_card},
                headers={"Origin": "http://evil.example"}).status_code == 403
    assert post(f"/tournaments/{tid}/me/decklist",
                data={"csrf": csrf, "decklist": ann_card}).status_code == 403  # no origin
    assert stranger.register(tid, key, "Cleo", decklist(DECKS[2]), csrf="")[0] == 403
    t = call(api, "GET", f"/api/tournaments/{tid}")[1]
    assert [p["replaced"] for p in t["players"]] == [0, 0] and len(t["players"]) == 2


def test_the_public_page_says_registration_is_open_without_the_key(api):
    tid = new_tournament(api, players=2)
    html = api.client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "Registration is open" not in html and "No round has been paired yet" in html
    _s, data = call(api, "POST", f"/api/tournaments/{tid}/registration")
    html = api.client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "Registration is open" in html and data["key"] not in html and "key=" not in html
    call(api, "DELETE", f"/api/tournaments/{tid}/registration")
    assert "Registration is open" not in api.client.get(f"/tournaments/{tid}").get_data(as_text=True)


def test_the_console_opens_shows_the_link_and_qr_and_closes(api):
    tid = new_tournament(api, players=1)
    client, csrf, page = console(api, tid)
    assert "Registration is closed" in page and "Open registration" in page
    response = client.post(f"/organize/t/{tid}/registration", data={"csrf": csrf}, headers=ORIGIN)
    assert response.status_code == 201
    html = response.get_data(as_text=True)
    link = re.search(r'<a class="url" href="([^"]+)"', html).group(1)
    assert link.startswith(f"http://localhost/tournaments/{tid}/register?key=")
    assert html.count("<svg") == 1
    key = link.split("key=")[1]
    assert Phone(api).get(f"/tournaments/{tid}/register?key={key}")[0] == 200
    page = client.get(f"/organize/t/{tid}").get_data(as_text=True)
    assert "Registration is open." in page and key not in page  # shown once
    assert client.post(f"/organize/t/{tid}/registration/close", data={"csrf": csrf},
                       headers=ORIGIN).status_code == 303
    assert Phone(api).get(f"/tournaments/{tid}/register?key={key}")[0] == 403


def test_junk_is_removed_before_round_1_and_dropped_after(api):
    tid, key = opened(api, players=2)
    junk = Phone(api)
    assert junk.register(tid, key, "Spam Spam", decklist(DECKS[2]))[0] == 303
    client, csrf, page = console(api, tid)
    assert "Yes, remove Spam Spam" in page
    assert client.post(f"/organize/t/{tid}/removals", data={"csrf": csrf, "player": "spam spam"},
                       headers=ORIGIN).status_code == 303
    t = call(api, "GET", f"/api/tournaments/{tid}")[1]
    assert [p["name"] for p in t["players"]] == ["Ann", "Bob"]
    status, _html, _ = junk.get(f"/tournaments/{tid}/me")  # their link is nobody's now
    assert status == 403
    assert junk.register(tid, key, "Spam Spam", decklist(DECKS[2]))[0] == 303  # the name is free
    status, data = call(api, "POST", f"/api/tournaments/{tid}/removals", {"player": "Spam Spam"})
    assert status == 201 and len(data["players"]) == 2
    assert call(api, "POST", f"/api/tournaments/{tid}/rounds")[0] == 201
    status, data = call(api, "POST", f"/api/tournaments/{tid}/removals", {"player": "Ann"})
    assert status == 422 and data["message"] == ("Spring Cup: round 1 is paired; Ann can be "
                                                 "dropped, not removed")


def test_a_tournament_takes_at_most_max_players(api, monkeypatch):
    monkeypatch.setattr("web.tournaments.MAX_PLAYERS", 3)
    tid, key = opened(api, players=2)
    assert Phone(api).register(tid, key, "Cleo", decklist(DECKS[2]))[0] == 303
    status, html, _ = Phone(api).register(tid, key, "Dev", decklist(DECKS[3]))
    assert status == 422 and errors(html) == [
        "Spring Cup: 3 players registered, the most a tournament takes (3)"]
    status, data = call(api, "POST", f"/api/tournaments/{tid}/players",
                        {"player": "Dev", "decklist": decklist(DECKS[3])})
    assert status == 422 and "the most a tournament takes" in data["message"]
    assert MAX_PLAYERS == 1024  # as docs/organizer.md says


def test_the_cli_opens_and_closes_registration(api, tmp_path):
    tid = new_tournament(api, players=0)
    store = tmp_path / "store"
    done = wonders("open-registration", tid, "--url", "https://cup.example/", store=store)
    prefix = (f"Spring Cup: registration is open; players register at "
              f"https://cup.example/tournaments/{tid}/register?key=")
    assert done.returncode == 0 and done.stdout.startswith(prefix), done.stderr
    key = done.stdout.strip().removeprefix(prefix)
    assert Phone(api).get(f"/tournaments/{tid}/register?key={key}")[0] == 200
    done = wonders("close-registration", tid, store=store)
    assert done.stdout.strip() == "Spring Cup: registration is closed; 0 players", done.stderr
    assert Phone(api).get(f"/tournaments/{tid}/register?key={key}")[0] == 403
    done = wonders("close-registration", tid, store=store)
    assert done.returncode == 1 and done.stderr.strip() == (
        "error: Spring Cup: registration is not open")


def test_players_register_themselves_on_a_postgresql_store(pg_url):
    from tests.web.test_store_app_postgres import pg_app
    api = pg_app(pg_url)
    tid, key = opened(api, players=1, name="Pg Cup")
    phone = Phone(api)
    assert phone.register(tid, key, "Bob", decklist(DECKS[1]))[0] == 303
    link = player_link(phone.get(f"/tournaments/{tid}/me")[1])
    again = pg_app(pg_url)  # another server on the same database
    other = Phone(again)
    assert other.get(link.removeprefix("http://localhost"))[0] == 303
    assert other.replace(tid, decklist(DECKS[2]))[0] == 303
    t = call(api, "GET", f"/api/tournaments/{tid}")[1]
    bob = next(p for p in t["players"] if p["name"] == "Bob")
    assert bob["self_registered"] and bob["replaced"] == 1
    assert Phone(again).register(tid, "wrong", "Cleo", decklist(DECKS[2]))[0] == 403


class HttpPhone:
    """A phone over real HTTP to a live ``wonders serve``: its own cookie jar, form posts with
    this site's Origin, redirects not followed (the status is the answer)."""

    def __init__(self, base):
        import http.cookiejar
        import urllib.request

        class Keep(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None

        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), Keep())

    def open(self, path, form=None):
        import urllib.error
        import urllib.parse
        import urllib.request
        data = None if form is None else urllib.parse.urlencode(form).encode()
        request = urllib.request.Request(self.base + path, data=data,
                                         headers={"Origin": self.base} if form else {})
        try:
            with self.opener.open(request, timeout=20) as response:
                return response.status, response.read().decode(), response.headers
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(), exc.headers


def test_a_state_of_wonder_player_registers_through_a_real_server(tmp_path):
    """The same Organizer registration for a State of Wonder tournament: its pool and deck
    rules (one line), no DBS; over a live server, the phone's session in its cookie jar."""
    from tests.security.live import LiveApi, LiveServer
    from tests.web.test_tournaments_sow import sow_decklist, sow_decks

    server = LiveServer(tmp_path / "store")
    try:
        desk = LiveApi(server)
        status, t = call(desk, "POST", "/api/tournaments", {"name": "SoW Open", "game": "sow"})
        assert status == 201, t
        tid = t["tournament_id"]
        status, opened_ = call(desk, "POST", f"/api/tournaments/{tid}/registration")
        assert status == 201 and opened_["link"].startswith(server.base)
        key = opened_["key"]
        phone = HttpPhone(server.base)
        status, html, _ = phone.open(f"/tournaments/{tid}/register?key={key}")
        assert status == 200 and "1 State, 1 Wonder or Hero and 15 more" in html
        csrf = html.split('name="csrf" value="')[1].split('"')[0]
        form = {"csrf": csrf, "key": key, "player": "Ann"}
        decks = sow_decks()
        status, html, _ = phone.open(f"/tournaments/{tid}/register",
                                     {**form, "decklist": sow_decklist(decks[0]) + "1 Glow Smith\n"})
        assert status == 422 and len(errors(html)) == 1
        assert "no card 'Glow Smith' in the State of Wonder card pool" in errors(html)[0]
        status, _html, headers = phone.open(f"/tournaments/{tid}/register",
                                            {**form, "decklist": sow_decklist(decks[0])})
        assert status == 303 and headers["Location"].endswith(f"/tournaments/{tid}/me")
        status, html, _ = phone.open(f"/tournaments/{tid}/me")
        assert status == 200 and "State of Wonder" in html and "DBS" not in html
        csrf = html.split('name="csrf" value="')[1].split('"')[0]  # a new one once registered
        status, html, _ = phone.open(f"/tournaments/{tid}/me/decklist",
                                     {"csrf": csrf, "decklist": sow_decklist(decks[1])})
        assert status == 303, html
        t = call(desk, "GET", f"/api/tournaments/{tid}")[1]
        (ann,) = t["players"]
        assert ann["dbs"] is None and ann["replaced"] == 1 and ann["self_registered"]
        assert ann["cards"] == {e.card: e.count for e in decks[1].entries()}
    finally:
        server.stop()


def test_a_refused_replacement_says_the_registered_list_still_stands(api):
    """A replacement refused by the deck checks showed only "line 2: 4 copies of Sun Knight …"
    above the registered list: a player took their new list as sent.  The first line now says
    it was not replaced and that the registered list stands; the reason follows."""
    tid, key = opened(api)
    phone = Phone(api)
    assert phone.register(tid, key, "Zoë Park", decklist(DECKS[2]))[0] == 303
    status, html, _ = phone.replace(tid, "3 Glow Smith\n2 No Such Card")
    assert status == 422
    said = errors(html)
    assert said[0].startswith("Your decklist was not replaced: your registered list (below) "
                              "still stands.")
    assert "no card 'No Such Card'" in said[1]
    assert decklist(DECKS[2]).splitlines()[1] in html  # the registered list, as it stands


def test_the_refused_replacements_address_opened_again_is_the_players_page(api):
    """After a refused replacement the phone's address is ``…/me/decklist``; a tab restored or
    the address opened again read "Something went wrong — the method is not allowed" (405).
    Now it is the player's own page."""
    tid, key = opened(api)
    phone = Phone(api)
    assert phone.register(tid, key, "Zoë Park", decklist(DECKS[2]))[0] == 303
    assert phone.replace(tid, "3 Glow Smith")[0] == 422
    status, _html, response = phone.get(f"/tournaments/{tid}/me/decklist")
    assert status == 303 and response.headers["Location"].endswith(f"/tournaments/{tid}/me")
    status, html, _ = phone.get(f"/tournaments/{tid}/me")
    assert status == 200 and "Zoë Park" in html
