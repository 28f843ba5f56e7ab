"""A player who lost their player link (a closed tab, a dead phone): the organizer gives them a
new one -- API ``POST /api/tournaments/{id}/player-links``, the console's *New link* on the
player's row, ``wonders tournament reissue-link`` -- over a real app and a file store (the CLI
as a real subprocess).

The new link is shown once (the console with its QR code), the old one stops working at once,
the player keeps their place and their list (``PlayerLinkReissued``, the new token's hash; never
the token).  A player registered at the desk gets a first link before round 1 is paired, with
which they replace their own list while registration is open.  After round 1: a player who
holds a link gets a new one (it shows their list, final, as the old one did); one who never
had one is refused (422, one line).  An unknown player is a 404.
"""

from __future__ import annotations

import json
import re

import msgspec
import pytest

from tests.web.test_api import Api, new_app
from tests.web.test_selfreg import ORIGIN, Phone, errors, opened, player_link, refused
from tests.web.test_tournaments import DECKS, call, decklist
from tests.web.test_tournaments_desk import console, wonders
from web.tokens import hash_token


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def registered(api, name="Zoë Park", deck=DECKS[2]):
    """A tournament with Ann and Bob registered at the desk and ``name`` by themselves:
    its id, the registration key, the player's phone and their (first) player link."""
    tid, key = opened(api, players=2)
    phone = Phone(api)
    assert phone.register(tid, key, name, decklist(deck))[0] == 303
    link = player_link(phone.get(f"/tournaments/{tid}/me")[1])
    return tid, key, phone, link.removeprefix("http://localhost")


def log_of(api, tid):
    path = api.app.extensions["wonders"].store.root / ".tournaments" / f"{tid}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def player(api, tid, name):
    t = call(api, "GET", f"/api/tournaments/{tid}")[1]
    return next(p for p in t["players"] if p["name"] == name)


def test_the_api_gives_a_new_link_and_the_old_one_stops_working(api):
    tid, _key, phone, old = registered(api)
    status, data = call(api, "POST", f"/api/tournaments/{tid}/player-links",
                        {"player": "zoë park"})  # the name as a player is found: any case
    assert status == 201, data
    assert data["player"] == "Zoë Park" and data["tournament_id"] == tid and data["can_replace"]
    assert data["link"] == f"http://localhost/tournaments/{tid}/me?token={data['token']}"
    assert data["token"] != old.split("token=")[1]

    assert Phone(api).get(old)[0] == 403  # the old link: refused at once
    assert phone.get(f"/tournaments/{tid}/me")[0] == 403  # and the session opened with it
    other = Phone(api)
    status, _html, response = other.get(data["link"].removeprefix("http://localhost"))
    assert status == 303 and "token" not in response.headers["Location"]
    assert other.replace(tid, decklist(DECKS[3]))[0] == 303  # the new link replaces the list

    zoe = player(api, tid, "Zoë Park")
    assert zoe["self_registered"] and zoe["has_link"] and zoe["links_reissued"] == 1
    assert zoe["replaced"] == 1
    t = call(api, "GET", f"/api/tournaments/{tid}")[1]
    assert [p["name"] for p in t["players"]] == ["Ann", "Bob", "Zoë Park"]  # the place kept
    events = log_of(api, tid)
    (reissued,) = [e for e in events if e["type"] == "PlayerLinkReissued"]
    assert reissued["player"] == "Zoë Park" and reissued["token_hash"] == hash_token(data["token"])
    assert data["token"] not in json.dumps(events)  # only its hash is kept


def test_a_player_registered_at_the_desk_gets_a_first_link_and_fixes_their_own_list(api):
    tid, _key, _phone, _old = registered(api)
    ann = player(api, tid, "Ann")
    assert not ann["has_link"] and not ann["self_registered"]
    status, data = call(api, "POST", f"/api/tournaments/{tid}/player-links", {"player": "Ann"})
    assert status == 201 and data["can_replace"], data
    phone = Phone(api)
    assert phone.get(data["link"].removeprefix("http://localhost"))[0] == 303
    status, html, _ = phone.get(f"/tournaments/{tid}/me")
    assert status == 200 and "Replace my decklist" in html
    assert decklist(DECKS[0]).splitlines()[1] in html  # her list as the desk registered it
    assert phone.replace(tid, decklist(DECKS[4]))[0] == 303
    ann = player(api, tid, "Ann")
    assert ann["has_link"] and not ann["self_registered"] and ann["replaced"] == 1

    # registration closed: a link given now shows the list and says it can't be replaced
    assert call(api, "DELETE", f"/api/tournaments/{tid}/registration")[0] == 200
    status, data = call(api, "POST", f"/api/tournaments/{tid}/player-links", {"player": "Bob"})
    assert status == 201 and not data["can_replace"]
    bob = Phone(api)
    bob.get(data["link"].removeprefix("http://localhost"))
    status, html, _ = bob.get(f"/tournaments/{tid}/me")
    assert status == 200 and 'id="final"' in html and "Replace my decklist" not in html


def test_after_round_1_only_a_player_with_a_link_gets_a_new_one(api):
    tid, _key, _phone, old = registered(api)
    assert call(api, "POST", f"/api/tournaments/{tid}/rounds")[0] == 201
    status, data = call(api, "POST", f"/api/tournaments/{tid}/player-links", {"player": "Bob"})
    assert status == 422 and data["message"] == (
        "Spring Cup: round 1 is paired and Bob never had a player link; a link now could only "
        "show a list that is final (it is on the console)")
    assert not player(api, tid, "Bob")["has_link"]
    # the player who registered themselves: a new link shows their list, final, as before
    status, data = call(api, "POST", f"/api/tournaments/{tid}/player-links",
                        {"player": "Zoë Park"})
    assert status == 201 and not data["can_replace"]
    assert Phone(api).get(old)[0] == 403
    phone = Phone(api)
    assert phone.get(data["link"].removeprefix("http://localhost"))[0] == 303
    status, html, _ = phone.get(f"/tournaments/{tid}/me")
    assert status == 200 and 'id="final"' in html and "Round 1 is paired" in html
    status, html, _ = phone.replace(tid, decklist(DECKS[3]))
    assert status == 403 and "round 1 is paired" in errors(html)[0]
    assert player(api, tid, "Zoë Park")["replaced"] == 0


def test_unknown_player_or_tournament_is_404_and_the_body_and_token_are_checked(api):
    tid, _key, _phone, _old = registered(api)
    status, data = call(api, "POST", f"/api/tournaments/{tid}/player-links", {"player": "Nobody"})
    assert status == 404 and data["message"] == "Spring Cup: no player named 'Nobody'"
    status, data = call(api, "POST", "/api/tournaments/no-such/player-links", {"player": "Ann"})
    assert status == 404
    assert call(api, "POST", f"/api/tournaments/{tid}/player-links", {"player": ""})[0] == 400
    assert call(api, "POST", f"/api/tournaments/{tid}/player-links",
                {"player": "Ann", "token": "x"})[0] == 400
    assert call(api, "POST", f"/api/tournaments/{tid}/player-links", {"player": "Ann"},
                token=None)[0] == 401
    assert not any(e["type"] == "PlayerLinkReissued" for e in log_of(api, tid))
    spec = api.client.get("/api/openapi.json").get_json()
    post = spec["paths"]["/api/tournaments/{tournament_id}/player-links"]["post"]
    assert {"201", "404", "422"} <= set(post["responses"])
    assert "NewPlayerLink" in json.dumps(post) and "PlayerLinkOut" in json.dumps(post)


def test_the_console_asks_then_shows_the_new_link_and_its_qr_once(api):
    tid, _key, phone, old = registered(api)
    client, csrf, page = console(api, tid)
    assert "Yes, new link for Zoë Park" in page and "Yes, new link for Ann" in page
    assert "Their current link stops working at once" in page  # said where she has one
    response = client.post(f"/organize/t/{tid}/player-links",
                           data={"csrf": csrf, "player": "Zoë Park"}, headers=ORIGIN)
    assert response.status_code == 201
    html = response.get_data(as_text=True)
    link = re.search(r'<a class="url" href="([^"]+)"', html).group(1)
    assert link.startswith(f"http://localhost/tournaments/{tid}/me?token=")
    assert html.count("<svg") == 1 and "New player link: Zoë Park" in html
    assert "earlier player link stopped working" in html and "replace" in html
    token = link.split("token=")[1]
    assert Phone(api).get(old)[0] == 403 and phone.get(f"/tournaments/{tid}/me")[0] == 403
    assert Phone(api).get(link.removeprefix("http://localhost"))[0] == 303
    page = client.get(f"/organize/t/{tid}").get_data(as_text=True)
    assert token not in page and "new player link 1×" in page  # shown once

    # a post without the form's CSRF token changes nothing
    assert client.post(f"/organize/t/{tid}/player-links", data={"player": "Ann"},
                       headers=ORIGIN).status_code == 403
    assert not player(api, tid, "Ann")["has_link"]
    # a player registered at the desk: her first link (no earlier one to stop)
    response = client.post(f"/organize/t/{tid}/player-links", data={"csrf": csrf, "player": "ann"},
                           headers=ORIGIN)
    html = response.get_data(as_text=True)
    assert response.status_code == 201 and "New player link: Ann" in html
    assert "earlier player link" not in html and player(api, tid, "Ann")["has_link"]


def test_the_console_after_round_1_offers_it_only_to_a_player_with_a_link(api):
    tid, _key, _phone, _old = registered(api)
    assert call(api, "POST", f"/api/tournaments/{tid}/rounds")[0] == 201
    client, csrf, page = console(api, tid)
    assert "Yes, new link for Zoë Park" in page and "Yes, new link for Ann" not in page
    response = client.post(f"/organize/t/{tid}/player-links",
                           data={"csrf": csrf, "player": "Ann"}, headers=ORIGIN)
    assert response.status_code == 422
    assert "Ann never had a player link" in response.get_data(as_text=True)
    response = client.post(f"/organize/t/{tid}/player-links",
                           data={"csrf": csrf, "player": "Zoë Park"}, headers=ORIGIN)
    html = response.get_data(as_text=True)
    assert response.status_code == 201 and "Round 1 is paired" in html


def test_the_cli_reissues_a_link_as_a_real_process(api, tmp_path):
    tid, _key, phone, old = registered(api)
    store = tmp_path / "store"
    done = wonders("reissue-link", tid, "zoë park", "--url", "https://cup.example/", store=store)
    prefix = ("Spring Cup: a new player link for Zoë Park (it replaces their list until "
              "registration closes or round 1 is paired; the old one no longer works): "
              f"https://cup.example/tournaments/{tid}/me?token=")
    assert done.returncode == 0 and done.stdout.startswith(prefix), done.stderr
    token = done.stdout.strip().removeprefix(prefix)
    assert Phone(api).get(old)[0] == 403 and phone.get(f"/tournaments/{tid}/me")[0] == 403
    assert Phone(api).get(f"/tournaments/{tid}/me?token={token}")[0] == 303

    done = wonders("reissue-link", tid, "Ann", "--qr", store=store)
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and lines[0].startswith("Spring Cup: a new player link for Ann")
    assert len(lines) > 10 and "█" in done.stdout  # the QR code, drawn in the terminal

    done = wonders("reissue-link", tid, "Nobody", store=store)
    assert done.returncode == 1 and done.stderr.strip() == (
        "error: Spring Cup: no player named 'Nobody'")
    assert call(api, "POST", f"/api/tournaments/{tid}/rounds")[0] == 201
    done = wonders("reissue-link", tid, "Bob", store=store)
    assert done.returncode == 1 and "Bob never had a player link" in done.stderr
    assert refused(Phone(api).get(old)[1]).startswith(
        "Spring Cup: that is not (or no longer) a player link")


def test_a_list_replaced_through_a_reissued_link_is_the_one_recorded_at_the_table(tmp_path):
    """A desk player registered with a pool deck (a preset), given a link, replaced their
    list: it was accepted, and round 1 still recorded the preset (found by review)."""
    api = Api(new_app(tmp_path))
    tid, _key = opened(api, players=3)  # Ann, Bob, Cleo at the desk; registration open
    status, data = call(api, "POST", f"/api/tournaments/{tid}/players",
                        {"player": "Dev", "decklist": decklist(DECKS[3]), "preset": DECKS[3]})
    assert status == 201, data
    status, link = call(api, "POST", f"/api/tournaments/{tid}/player-links", {"player": "Dev"})
    assert status == 201 and link["can_replace"], link
    phone = Phone(api)
    assert phone.get(link["link"].removeprefix("http://localhost"))[0] == 303
    assert phone.replace(tid, decklist(DECKS[4]))[0] == 303  # accepted: "Dev's list replaced"
    status, t = call(api, "GET", f"/api/tournaments/{tid}")
    dev = next(p for p in t["players"] if p["name"] == "Dev")
    assert dev["replaced"] == 1
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, started
    table = next(tb for tb in started["tables"] if "Dev" in (tb["a"], tb["b"]))
    store = api.app.extensions["wonders"].store
    opened_event = msgspec.to_builtins(next(iter(store.read(table["match_id"], 0))).event)
    recorded = next(s for s in opened_event["seats"] if s["player"] == "Dev")
    cards = {e["card"] for e in recorded["deck"]}
    wanted = {line.split(" ", 1)[1] for line in decklist(DECKS[4]).splitlines()[1:]
              if line and not line.split(" ", 1)[0].endswith("x")}
    assert cards == wanted, (f"the table records {recorded['deck_name']!r} (Dev's preset), "
                             f"not the list Dev replaced through the link")
