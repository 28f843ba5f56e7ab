"""A decklist (or a name) longer than the limit was cut without a word, and the cut one taken.

The registration forms -- a player's own (``/tournaments/<id>/register``), their decklist
replacement (``/tournaments/<id>/me/decklist``) and the console's *Register* -- kept the first
20,000 characters of a pasted decklist and the first 120 of a name, and went on with those.
A list pasted with notes above it (20,025 characters), its last line ``1x Thalwind Spirit
Token``, was registered (303, "registered") with an archive of one token: the player's
second token was gone and nothing said so.  The API refused the same list (a 422 of its
schema).  Now every path refuses a decklist over 20,000 characters and a new name over 120
with one line saying how long it is and the limit, and writes nothing; a list at the limit is
taken whole.
"""

from __future__ import annotations

import html as htmlmod

from tests.security.test_direction_controls_in_names import _players
from tests.security.test_player_link_reissued import Browser, csrf_of
from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import DECKS, call, decklist, new_tournament
from tests.web.test_tournaments_desk import ORIGIN, console

LIMIT = 20_000


def _padded(deck: str, length: int) -> tuple[str, str]:
    """``deck`` with a note above it, ``length`` characters in all; and its last line."""
    body = decklist(deck)
    pad = length - len(body) - 1
    return "#" + "n" * (pad - 1) + "\n" + body, body.rstrip("\n").splitlines()[-1]


def _open(api, tid):
    key = call(api, "POST", f"/api/tournaments/{tid}/registration")[1]["key"]
    phone = Browser(api, None)
    status, page = phone.open(f"/tournaments/{tid}/register?key={key}")
    assert status == 200
    return phone, key, csrf_of(page)


def _refused_line(page: str) -> str:
    shown = htmlmod.unescape(page.split('id="errors">')[1].split("</p>")[0])
    return shown.replace("<br>", "\n").splitlines()[-1]


def test_a_long_pasted_decklist_is_refused_not_cut(tmp_path):
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=1, name="Long Cup")
    phone, key, csrf = _open(api, tid)
    text, last = _padded(DECKS[1], LIMIT + 25)
    assert last == "1x Thalwind Spirit Token"
    status, page = phone.open(f"/tournaments/{tid}/register",
                              {"csrf": csrf, "key": key, "player": "Zed", "decklist": text})
    assert status == 422, "registered with its last line cut"
    assert "20025 characters" in _refused_line(page) and "20000" in _refused_line(page)
    assert _players(api, tid) == ["Ann"]

    whole, _ = _padded(DECKS[1], LIMIT)  # at the limit: taken whole, both tokens
    status, page = phone.open(f"/tournaments/{tid}/register",
                              {"csrf": csrf, "key": key, "player": "Zed", "decklist": whole})
    assert status == 303
    zed = next(p for p in call(api, "GET", f"/api/tournaments/{tid}")[1]["players"]
               if p["name"] == "Zed")
    assert zed["archive"] == {"Thalwind Sprout Token": 1, "Thalwind Spirit Token": 1}

    status, page = phone.open(f"/tournaments/{tid}/me")  # the replacement: refused too
    status, page = phone.open(f"/tournaments/{tid}/me/decklist",
                              {"csrf": csrf_of(page), "decklist": text})
    assert status == 422 and "20025 characters" in htmlmod.unescape(page)
    t = call(api, "GET", f"/api/tournaments/{tid}")[1]
    assert next(p for p in t["players"] if p["name"] == "Zed")["replaced"] == 0


def test_a_long_name_is_refused_not_cut(tmp_path):
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=1, name="Name Cup")
    phone, key, csrf = _open(api, tid)
    name = "Zed " + "Q" * 126  # 130 characters: the first 120 were registered
    status, page = phone.open(f"/tournaments/{tid}/register", {
        "csrf": csrf, "key": key, "player": name, "decklist": decklist(DECKS[1])})
    assert status == 422 and "130 characters" in _refused_line(page)
    assert _players(api, tid) == ["Ann"]


def test_the_console_refuses_a_long_decklist_too(tmp_path):
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=1, name="Desk Cup")
    client, csrf, _page = console(api, tid)
    text, _ = _padded(DECKS[1], LIMIT + 25)
    refused = client.post(f"/organize/t/{tid}/players", headers=ORIGIN,
                          data={"csrf": csrf, "player": "Zed", "decklist": text})
    assert refused.status_code == 422
    assert "20025 characters" in htmlmod.unescape(refused.get_data(as_text=True))
    assert _players(api, tid) == ["Ann"]
