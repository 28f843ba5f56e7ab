"""State of Wonder's event lines read as English to the players who see them in the event list
(replay/sow/narrate.py): one unit entering a siege "enters" it."""

from __future__ import annotations

from replay.sow.events import CountersAdded, SiegeEntered
from replay.sow.narrate import narrate

PLAYERS = {"A": "Ann", "B": "Bob"}
NAMES = {"A1": "Raider", "A2": "Mercenary"}


def test_one_unit_enters_a_siege_and_two_enter_it():
    assert narrate(SiegeEntered("A", ["A1"]), NAMES, PLAYERS) == "Ann's Raider enters the siege."
    assert narrate(SiegeEntered("A", ["A1", "A2"]), NAMES, PLAYERS) == \
        "Ann's Raider, Mercenary enter the siege."


def test_one_counter_and_two_counters():
    """It read 'Raider gets 1 +1/+1 counter(s).' in the viewer's event list."""
    assert narrate(CountersAdded("A1", "Raider", 1), NAMES, PLAYERS) == \
        "Raider gets 1 +1/+1 counter."
    assert narrate(CountersAdded("A1", "Raider", 2), NAMES, PLAYERS) == \
        "Raider gets 2 +1/+1 counters."
