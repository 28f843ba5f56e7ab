"""The console's *Register* form keeps what the organizer entered when a registration is
refused (docs/organizer.md: "the form keeps what was typed"): the name, the decklist and the
*Deck recorded at the table* choice.  Before, the preset fell back to "the decklist", so fixing
the list's line and pressing *Register* again registered the player without the preset they
were given.  A real app over a file store, signed in as the console is."""

from __future__ import annotations

import html
import re

import pytest

from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import DECKS, call, decklist, new_tournament
from tests.web.test_tournaments_desk import ORIGIN, console


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def test_a_refused_registration_keeps_the_preset_chosen(api):
    tid = new_tournament(api, players=2)
    client, csrf, _page = console(api, tid)
    typo = decklist(DECKS[2]).replace("Highlands of Petraia", "Highlands of Petria", 1)
    refused = client.post(f"/organize/t/{tid}/players", headers=ORIGIN, data={
        "csrf": csrf, "player": "Ivy", "decklist": typo, "preset": "solfera-blaze"})
    assert refused.status_code == 422
    page = html.unescape(refused.get_data(as_text=True))
    assert "no card 'Highlands of Petria'" in page
    chosen = re.findall(r'<option value="([^"]*)" selected>', page.split('name="preset"')[1])
    assert chosen == ["solfera-blaze"]
    assert 'value="Ivy"' in page and "Highlands of Petria" in page  # name and list kept too
    registered = client.post(f"/organize/t/{tid}/players", headers=ORIGIN, data={
        "csrf": csrf, "player": "Ivy", "decklist": decklist(DECKS[2]), "preset": chosen[0]})
    assert registered.status_code == 303
    t = call(api, "GET", f"/api/tournaments/{tid}")[1]
    assert next(p for p in t["players"] if p["name"] == "Ivy")["preset"] == "solfera-blaze"
