"""Attack: a private page kept by a shared phone's browser.

The player's own page (``/tournaments/<id>/me``: their decklist and their player link), the
seat's /play page (the hand) and the organizer's console (every player link and seat link)
were sent with no ``Cache-Control``: a browser may keep them, so the next person at a shared
phone or a venue's kiosk reads them from its history or back button.  Each is sent
``Cache-Control: no-store`` now; a public page (the pairings) is not.  In-process app.
"""

from __future__ import annotations

from tests.security.test_player_link_reissued import self_register
from tests.web.test_api import Api, new_app
from tests.web.test_play_link_gone import entered, started
from tests.web.test_tournaments import DECKS, new_tournament
from tests.web.test_tournaments_desk import console


def test_the_players_own_page_is_not_stored(tmp_path):
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=2, name="Kept Cup")
    status, _html, phone = self_register(api, None, tid, "Zoë", DECKS[2])
    assert status == 303
    page = phone.app.client.get(f"/tournaments/{tid}/me")
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    public = api.app.test_client().get(f"/tournaments/{tid}")
    assert public.status_code == 200 and "no-store" not in public.headers.get("Cache-Control", "")


def test_the_seats_play_page_and_the_console_are_not_stored(tmp_path):
    api = Api(new_app(tmp_path))
    tid, table = started(api)
    phone = entered(api, table["match_id"], table["tokens"]["A"])
    page = phone.get(f"/play/{table['match_id']}")
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    client, _csrf, _page = console(api, tid)
    assert client.get(f"/organize/t/{tid}").headers["Cache-Control"] == "no-store"
