"""A tournament recorded before registrations were checked for look-alike names
(:mod:`ledger.lookalike`) may hold two: "Ann" and "\\u0410nn" (a Cyrillic A).  Both are
registered; the log reads as it did.  Yet the second one's decklist could no longer be
replaced through their player link -- the replacement is checked as a registration, and the
check refused their own name ("choose a name the pages can tell apart": a name they cannot
change).  Now a replacement sets their look-alike aside as it sets them aside; a new
registration of a look-alike is still refused.  The real tournament tool over a file store."""

from __future__ import annotations

import hashlib

import pytest

from ledger.filestore import FileStore
from ledger.tournament import TournamentError
from replay.games import game
from web.api.organizer import preset_decks
from web.demo_tournament import decklist, organizer

TOKEN_HASH = hashlib.sha256(b"the twin's player link token").hexdigest()


@pytest.fixture
def tournament(tmp_path):
    """``(org, decks)``: "Old Cup" with Ann registered at the desk and "\\u0410nn" registered
    themselves as a program before the check recorded it; registration open."""
    org = organizer(FileStore(tmp_path / "store"), 1)
    org.create("Old Cup", "old", None, "wotf", 0)
    decks = {name: found.load() for name, found in
             preset_decks(game("wotf"), org.pool_for("wotf")).items()}
    org.register("old", "Ann", decklist(decks["solfera-blaze"]))
    registered = {"type": "PlayerRegistered", "player": "\u0410nn",
                  "deck_text": decklist(decks["thalwind-sky"]).strip(),
                  "cards": dict(decks["thalwind-sky"].cards), "archive": {}, "dbs": 0,
                  "preset": None, "round": 0, "token_hash": TOKEN_HASH}
    org._change("old", lambda _t: [registered])  # as recorded before the check was made
    org.open_registration("old")
    return org, decks


def test_a_look_alike_registered_before_replaces_their_list(tournament):
    org, decks = tournament
    t = org.replace_decklist("old", TOKEN_HASH, decklist(decks["petraia-stone"]))
    assert t.players["\u0410nn"].replaced == 1
    assert t.players["\u0410nn"].cards == dict(decks["petraia-stone"].cards)
    assert t.players["Ann"].cards == dict(decks["solfera-blaze"].cards)


def test_a_new_look_alike_is_still_refused(tournament):
    org, decks = tournament
    with pytest.raises(TournamentError, match="reads the same as"):
        org.register("old", "\u0391nn", decklist(decks["petraia-stone"]))
