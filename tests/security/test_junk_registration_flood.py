"""Attack: a flood of junk self-registrations fills the tournament, one at a time to undo.

The registration link is public in the room by design.  Before, someone with it could script
registrations -- a new name each, a shipped (legal) deck -- up to the tournament's
``MAX_PLAYERS`` (1024): the desk itself was then refused ("the most a tournament takes"), real
players could no longer register, and the organizer could take the junk back only one player
at a time (a *Remove* and its *Yes* per player on the console, one name per API call or
``wonders tournament remove``): two thousand taps for a thousand names.

Now the organizer removes a flood in one step, all of it or nothing: the API's
``POST /api/tournaments/{id}/bulk-removals`` (named players and/or ``self_registered_from``: every
player who registered themselves from that one on), the console's *List them to remove* (the
self-registrations from a chosen player on, each ticked; untick a real one; *Yes* removes the
ticked names shown, never one who registered after the page was shown) and
``wonders tournament remove ID NAME… [--self-registered-from NAME]``.  The desk's players
registered in between are left alone; the removed players' links stop working; the names are
free again.  Against the app in-process and a real ``wonders serve``.
"""

from __future__ import annotations

import re
from html import unescape

from werkzeug.datastructures import MultiDict

from tests.security.test_player_link_reissued import Browser, csrf_of
from tests.web.test_api import ORGANIZER, Api, new_app
from tests.web.test_selfreg import HttpPhone
from tests.web.test_tournaments import DECKS, call, decklist, new_tournament
from tests.web.test_tournaments_desk import wonders

ORIGIN = {"Origin": "http://localhost"}


def _open(api):
    status, opened = call(api, "POST", f"/api/tournaments/{api.tid}/registration")
    assert status == 201, opened
    return opened["key"]


def _self_register(api, where, key, name, deck=DECKS[2]):
    """``name`` registers on a phone of their own: (status, the phone)."""
    phone = Browser(api, where)
    status, html = phone.open(f"/tournaments/{api.tid}/register?key={key}")
    assert status == 200, html[:300]
    form = {"csrf": csrf_of(html), "key": key, "player": name, "decklist": decklist(deck)}
    status, _html = phone.open(f"/tournaments/{api.tid}/register", form)
    return status, phone


def _desk(api, name, deck=DECKS[3]):
    return call(api, "POST", f"/api/tournaments/{api.tid}/players",
                {"player": name, "decklist": decklist(deck)})


def _players(api):
    return [p["name"] for p in call(api, "GET", f"/api/tournaments/{api.tid}")[1]["players"]]


def _flooded(api, where, name="Flood Cup"):
    """Ann and Bob at the desk; Zoë registers herself (a real player); then junk-1 … junk-4
    from the link, with Cleo registered at the desk in between.  The junk's phones."""
    api.tid = new_tournament(api, players=2, name=name)
    key = _open(api)
    assert _self_register(api, where, key, "Zoë")[0] == 303
    phones = {}
    for i in range(1, 5):
        if i == 3:
            assert _desk(api, "Cleo")[0] == 201
        status, phones[f"junk-{i}"] = _self_register(api, where, key, f"junk-{i}", DECKS[i])
        assert status == 303
    assert _players(api) == ["Ann", "Bob", "Zoë", "junk-1", "junk-2", "Cleo", "junk-3",
                             "junk-4"]
    return phones


def test_a_flood_that_filled_the_tournament_is_removed_in_one_call(tmp_path, monkeypatch):
    monkeypatch.setattr("web.tournaments.MAX_PLAYERS", 8)  # 1024 in play: the same refusal
    api = Api(new_app(tmp_path))
    phones = _flooded(api, None)
    status, data = _desk(api, "Dev")
    assert status == 422 and "the most a tournament takes (8)" in data["message"], data
    length = call(api, "GET", f"/api/tournaments/{api.tid}")[1]["length"]

    status, data = call(api, "POST", f"/api/tournaments/{api.tid}/bulk-removals",
                        {"self_registered_from": "junk-1"})
    assert status == 201, data
    assert data["removed"] == ["junk-1", "junk-2", "junk-3", "junk-4"]
    assert data["tournament"]["length"] == length + 4  # one PlayerRemoved each, one append
    assert _players(api) == ["Ann", "Bob", "Zoë", "Cleo"]  # the desk's Cleo and Zoë kept
    assert _desk(api, "Dev")[0] == 201  # room again
    status, html = phones["junk-2"].open(f"/tournaments/{api.tid}/me")
    assert status == 403 and "junk-2" not in html.split('id="refused"')[1][:400]


def test_one_refused_name_removes_nothing(tmp_path, where):
    api = where if where is not None else Api(new_app(tmp_path))
    _flooded(api, where, "Refused Cup")
    for body, why in (({"players": ["junk-1", "Nobody"]}, "no player named 'Nobody'"),
                      ({"self_registered_from": "Cleo"}, "Cleo did not register themselves"),
                      ({}, "no player to remove was named")):
        status, data = call(api, "POST", f"/api/tournaments/{api.tid}/bulk-removals", body)
        assert status == 422 and why in data["message"], (body, data)
    assert len(_players(api)) == 8
    status, data = call(api, "POST", f"/api/tournaments/{api.tid}/bulk-removals",
                        {"players": ["JUNK-4", "junk-1"]})  # as a name is found anywhere
    assert status == 201 and data["removed"] == ["junk-4", "junk-1"], data
    assert status == 201 and _players(api) == ["Ann", "Bob", "Zoë", "junk-2", "Cleo", "junk-3"]
    status, data = call(api, "POST", f"/api/tournaments/{api.tid}/bulk-removals",
                        {"players": ["junk-2"]}, token="x" * 40)
    assert status in (401, 403), data  # the organizer's alone


def _console(api, where):
    """The organizer's console, signed in: its client's ``post(path, pairs)`` → (status,
    html) and the tournament page's CSRF token."""
    if where is not None:
        phone = HttpPhone(where.server.base)
        assert phone.open("/organize/login", {"token": ORGANIZER})[0] == 303

        def post(path, pairs):
            return phone.open(path, pairs)[:2]

        def get(path):
            return phone.open(path)[:2]
    else:
        client = api.app.test_client()
        assert client.post("/organize/login", data={"token": ORGANIZER},
                           headers=ORIGIN).status_code == 303

        def post(path, pairs):
            response = client.post(path, data=MultiDict(pairs), headers=ORIGIN)
            return response.status_code, response.get_data(as_text=True)

        def get(path):
            response = client.get(path)
            return response.status_code, response.get_data(as_text=True)
    return post, get


def test_the_console_lists_the_flood_and_removes_the_ticked(tmp_path, where):
    api = where if where is not None else Api(new_app(tmp_path))
    _flooded(api, where, "Console Cup")
    post, get = _console(api, where)
    status, page = get(f"/organize/t/{api.tid}")
    assert status == 200 and 'id="remove-many"' in page
    assert re.search(r"junk-3 <span class=\"muted\">[^<]*registered themselves at "
                     r"\d\d:\d\d:\d\d UTC", page), page  # when, beside each
    csrf = csrf_of(page)
    action = f"/organize/t/{api.tid}/bulk-removals"

    status, page = post(action, [("csrf", csrf), ("from", "junk-2")])
    assert status == 200, page[:500]
    box = page.split('id="confirm"')[1].split("</section>")[0]
    assert "Remove 3 players who registered themselves, from junk-2 on?" in box
    listed = [part.split('"')[0] for part in box.split('name="player" value="')[1:]]
    assert listed == ["junk-2", "junk-3", "junk-4"]  # the desk's Cleo not among them
    assert _players(api)[-1] == "junk-4"  # nothing removed by the listing

    # junk-5 arrives while the page is open: only the names shown (and ticked) go
    key = _open(api)
    assert _self_register(api, where, key, "junk-5")[0] == 303
    ticked = [("csrf", csrf), ("confirm", "yes"), ("player", "junk-2"), ("player", "junk-4")]
    status, _page = post(action, ticked)  # junk-3 unticked (a real player, say)
    assert status == 303
    assert _players(api) == ["Ann", "Bob", "Zoë", "junk-1", "Cleo", "junk-3", "junk-5"]

    status, page = post(action, [("csrf", csrf), ("confirm", "yes")])
    assert status == 422 and "no player was ticked: nothing removed" in page
    status, page = post(action, [("csrf", csrf), ("confirm", "yes"), ("player", "junk-2")])
    assert status == 422 and "no player named 'junk-2'" in unescape(page)  # removed already
    assert len(_players(api)) == 7
    status, page = post(action, [("csrf", csrf), ("from", "")])
    assert status == 422 and "no player named ''" in unescape(page)
    status, page = post(action, [("csrf", csrf), ("from", "Cleo")])
    assert status == 422 and "Cleo did not register themselves (the desk did)" in page


def test_the_cli_removes_a_flood(tmp_path):
    api = Api(new_app(tmp_path))
    _flooded(api, None)
    store = tmp_path / "store"
    done = wonders("remove", api.tid, "Zoë", "--self-registered-from", "junk-3", store=store)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Flood Cup: Zoë removed", "Flood Cup: junk-3 removed", "Flood Cup: junk-4 removed",
        "Flood Cup: 3 players removed; 5 players"]
    done = wonders("remove", api.tid, "junk-1", "Nobody", store=store)
    assert done.returncode == 1 and "no player named 'Nobody'" in done.stderr
    assert _players(api) == ["Ann", "Bob", "junk-1", "junk-2", "Cleo"]
    done = wonders("remove", api.tid, store=store)
    assert done.returncode == 2 and "--self-registered-from" in done.stderr


def test_after_round_1_nothing_is_removed_in_bulk(tmp_path):
    api = Api(new_app(tmp_path))
    _flooded(api, None, "Late Cup")
    assert call(api, "POST", f"/api/tournaments/{api.tid}/rounds")[0] == 201
    status, data = call(api, "POST", f"/api/tournaments/{api.tid}/bulk-removals",
                        {"self_registered_from": "junk-1"})
    assert status == 422 and data["message"] == ("Late Cup: round 1 is paired; players can "
                                                 "be dropped, not removed"), data
    post, get = _console(api, None)
    csrf = csrf_of(get(f"/organize/t/{api.tid}")[1])
    status, page = post(f"/organize/t/{api.tid}/bulk-removals", [("csrf", csrf),
                                                                 ("from", "junk-1")])
    assert status == 422 and 'id="confirm-players"' not in page
    assert "round 1 is paired; players can be dropped, not removed" in page
    assert len(_players(api)) == 8
