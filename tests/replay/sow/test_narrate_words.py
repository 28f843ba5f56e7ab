"""State of Wonder's event lines read as English to the players who see them in the event list
(replay/sow/narrate.py): one unit entering a siege "enters" it."""

from __future__ import annotations

from replay.sow.events import SiegeEntered
from replay.sow.narrate import narrate

PLAYERS = {"A": "Ann", "B": "Bob"}
NAMES = {"A1": "Raider", "A2": "Mercenary"}


def test_one_unit_enters_a_siege_and_two_enter_it():
    assert narrate(SiegeEntered("A", ["A1"]), NAMES, PLAYERS) == "Ann's Raider enters the siege."
    assert narrate(SiegeEntered("A", ["A1", "A2"]), NAMES, PLAYERS) == \
        "Ann's Raider, Mercenary enter the siege."
