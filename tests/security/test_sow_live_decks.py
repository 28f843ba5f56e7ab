"""Attack: reading a live State of Wonder match's hands from its deck list, on a real server.

In State of Wonder "the 15 cards you have in your deck acts as your hand" and the Wonder or
Hero starts face down in the Wonder Area, "a Hidden Area, only the corresponding player can
see the area" (rules 004, Zones & Areas).  So a deck list names a hand and a face-down card,
and the other seat's list is redacted (docs/rulings-sow.md R15).  Two ways round it worked:

* the match list's card filter searched both deck lists of every match, live ones too:
  ``/matches?card=Vorga`` listed a live match exactly when a seat's face-down Wonder was Vorga
  the Unbroken, and ``card=<any name>`` told which cards a seat held;
* a deck's name was shown to everyone (the match list, the viewer's heading, ``MatchOpened``
  in every perspective's events): a preset's name ("Ashen Raid") names its whole list.

Now a live match's opening is read by the public as the game shows it to a spectator (no deck
lists, no deck names), by the other seat without its opponent's; once the match has ended,
all of it is public again.
"""

from __future__ import annotations

import json

import pytest

from tests.security.live import LiveApi, LiveServer
from tests.web.test_api import ORGANIZER

FACE_DOWN = "Vorga the Unbroken"  # Ashen Raid's Wonder (fixtures/sow/decks/ashen-raid.toml)
HELD = "Plunder Pit"  # a card of Ashen Raid's culture and of no other preset


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(tmp_path_factory.mktemp("sow-decks") / "store", spectator_delay=0)
    yield LiveApi(live)
    live.stop()


def _create(api: LiveApi, match_id: str) -> dict[str, str]:
    status, data = api.call("POST", "/api/matches", ORGANIZER, {
        "game": "sow", "match_id": match_id,
        "seats": [{"player": "Ann", "preset": "Ashen Raid"},
                  {"player": "Bob", "preset": "Ironhold Walls"}]})
    assert status == 201, data
    return data["tokens"]


def _listed(api: LiveApi, card: str) -> bool:
    return "live-decks" in api.client.get(f"/matches?card={card}").get_data(as_text=True)


def test_the_public_reads_no_hand_of_a_live_sow_match_from_its_deck_list(server):
    tokens = _create(server, "live-decks")
    assert not _listed(server, FACE_DOWN.split()[0]), "the card filter named a face-down Wonder"
    assert not _listed(server, HELD.replace(" ", "+")), "the card filter named a card in hand"
    public = {
        "list": server.client.get("/matches").get_data(as_text=True),
        "page": server.client.get("/matches/live-decks").get_data(as_text=True),
        "events": json.dumps(server.call("GET", "/api/public/matches/live-decks/events")[1]),
        "follow": server.client.get("/api/matches/live-decks/follow?timeout=0")
        .get_data(as_text=True)}
    for where, text in public.items():
        assert "Ashen Raid" not in text and "Ironhold Walls" not in text, where
        assert FACE_DOWN not in text and HELD not in text, where
    theirs = json.dumps(server.call("GET", "/api/matches/live-decks/events", tokens["B"])[1])
    assert "Ashen Raid" not in theirs and "Ironhold Walls" in theirs  # its own deck's name

    # Once the match has ended its file is public, and so are the decks.
    status, data = server.call("POST", "/api/matches/live-decks/decisions", tokens["A"], {
        "expected_seq": server.state("live-decks", tokens["A"])["length"],
        "decision": {"type": "Conceded"}})
    assert status == 201, data
    assert _listed(server, FACE_DOWN.split()[0]) and _listed(server, HELD.replace(" ", "+"))
    assert "Ashen Raid" in server.client.get("/matches/live-decks").get_data(as_text=True)
