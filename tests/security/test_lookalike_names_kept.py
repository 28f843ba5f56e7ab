"""A player registered before a look-alike check could not replace their decklist after it.

A tournament's log keeps the names it registered: a log recorded before the look-alike check
(or before it saw a pair, as ``Kirn`` beside ``Kim``: UTS #39's m and rn, a German surname
beside a Korean one) can hold two names that the check now says read alike.  The player's
decklist replacement through their link (``POST /tournaments/<id>/me/decklist``) went through
the registration's whole check, the name included: Kirn's new list was refused ("'Kirn' reads
the same as 'Kim', registered already ... choose a name the pages can tell apart") though Kirn
chose no name -- the name is theirs, recorded, and cannot be changed there.  A replacement now
checks the list, not the name; a new registration beside them is still refused.
"""

from __future__ import annotations

import dataclasses

from tests.security.test_player_link_reissued import Browser, csrf_of
from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import DECKS, call, decklist


def test_a_name_recorded_before_the_check_keeps_its_decklist_replace(tmp_path):
    api = Api(new_app(tmp_path))
    status, t = call(api, "POST", "/api/tournaments", {"name": "Old Log Cup"})
    tid = t["tournament_id"]
    assert call(api, "POST", f"/api/tournaments/{tid}/players",
                {"player": "Kim", "decklist": decklist(DECKS[0])})[0] == 201
    with api.app.app_context():  # Kirn, as a program before the check registered them
        from web.api.tournaments import organizer
        org = organizer()
        org._change(tid, lambda t: [org._registered(dataclasses.replace(t, players={}), "Kirn",
                                                    decklist(DECKS[1]), None)])
    assert call(api, "POST", f"/api/tournaments/{tid}/registration")[0] == 201
    status, link = call(api, "POST", f"/api/tournaments/{tid}/player-links", {"player": "Kirn"})
    assert status == 201, link

    phone = Browser(api, None)
    assert phone.open(link["link"][link["link"].index("/tournaments/"):])[0] == 303
    status, html = phone.open(f"/tournaments/{tid}/me")
    assert status == 200
    status, html = phone.open(f"/tournaments/{tid}/me/decklist",
                              {"csrf": csrf_of(html), "decklist": decklist(DECKS[2])})
    assert status in (200, 303), html[html.find("reads the same") - 80:][:300]
    kirn = next(p for p in call(api, "GET", f"/api/tournaments/{tid}")[1]["players"]
                if p["name"] == "Kirn")
    assert kirn["replaced"] == 1

    status, data = call(api, "POST", f"/api/tournaments/{tid}/players",  # a new one: refused
                        {"player": "K\u0456rn", "decklist": decklist(DECKS[3])})
    assert status == 422 and "reads the same as" in data["message"], data
