"""Gaps an audit found (issue "Tests that catch bugs"): rules the suite named but did not pin.

* **Protector** (``replay/wotf/battle.py``, ``Battles._seize``): a protector counter stops the
  *attacker's* seizure.  The shipped case ``c-protector-does-not-stop-the-defender`` has the
  protector on the losing attacker's side, so the check ran only on a side without one: here
  the *defender* holds the protector and wins -- it seizes, and keeps its counter.
* **R25** (``docs/rulings.md``): a banished realm's stones don't count.  The cases it names
  look at zones only; here a banished realm's stone decides the winner at the end of round 7
  (and the energy of round 7), under both rulesets.
* **Archetype and DBS** (``replay/wotf/deckfacts.py``): the 25% rule for a second orbital and
  the DBS total (deck plus archive, 303.2), computed by hand -- not compared with functions
  that call ``deckfacts`` themselves.

The cases are conformance cases (``replay.wotf.conformance``, the format of
``fixtures/conformance``), kept here as text; each also runs through ``wonders conformance``.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ledger.events import DeckEntry, MatchOpened, SeatInfo
from replay.wotf.conformance import run_file
from replay.wotf.deckfacts import CardFact, archetype, dbs_total, main_orbitals, recorded_facts

REPO = Path(__file__).resolve().parents[2]

PROTECTOR_OF_A_WINNING_DEFENDER = """\
name = "audit-protector-of-a-winning-defender"
rules = "1.3.2"
source = "Protector: stoppage of an enemy attack (a protector stops the attacker's seizure only)"
description = '''
B's Hill Brute carries a protector counter and defends successfully against A's Stone Pup: B
seizes the stone; its protector counter is not spent and no seizure is prevented.'''
[cards."Filler"]
type = "wonder"
power = 1
cost = 9
[cards."Hill Brute"]
type = "wonder"
power = 3
cost = 2
[cards."Stone Pup"]
type = "wonder"
power = 1
cost = 1
[state]
round = 1
turn = "A"
[state.A]
deck = ["Filler", "Filler", "Filler", "Filler", "Filler"]
[state.B]
deck = ["Filler", "Filler", "Filler", "Filler", "Filler"]
[[state.world]]
id = "pup"
card = "Stone Pup"
controller = "A"
realm = 1
[[state.world]]
id = "brute"
card = "Hill Brute"
controller = "B"
realm = 1
counters = { "protector" = 1 }
[[steps]]
player = "A"
action = "attack"
realm = 1
[expect]
prompt = "turn"
turn = "B"
[expect.stones]
"1" = "B"
[expect.cards."brute"]
counters = { "protector" = 1 }
"""

BANISHED_STONES_DECIDE_THE_WINNER = """\
name = "audit-banished-realm-stones-decide-the-winner-132"
rules = "1.3.2"
source = '''
R25 (docs/rulings.md): a banished realm's stones don't count; 405: after round 7 the player with
the most stones wins, tie-break: the lowest realm with a single controller'''
description = '''
Round 7: A holds realms 2 and 4, B realms 1 and 3. A banishes realm 3; both pass and the match
ends: A 2 stones, B 1 -- A wins on stones. Counting the banished realm's stone would make it
2-2, and the tie-break (realm 1) would give the match to B.'''
[cards."Filler"]
type = "wonder"
power = 1
cost = 9
[state]
round = 7
turn = "A"
[state.stones]
"1" = "B"
"2" = "A"
"3" = "B"
"4" = "A"
[state.A]
energy = 5
hand = [{ id = "rite", card = "Cataclysm Rite" }]
deck = ["Filler", "Filler", "Filler", "Filler"]
[state.B]
deck = ["Filler", "Filler", "Filler", "Filler"]
[[steps]]
player = "A"
action = "play"
card = "rite"
[[steps]]
player = "A"
expect_prompt = "realm"
pick = 3
[[steps]]
player = "B"
action = "pass"
[[steps]]
player = "A"
action = "pass"
[expect]
over = true
winner = "A"
[expect.stones]
"3" = "B"
"""

BANISHED_STONES_GIVE_NO_ENERGY = """\
name = "audit-banished-realm-stones-give-no-energy-132"
rules = "1.3.2"
source = '''
R25 (docs/rulings.md): a banished realm's stones don't count; 202.1: energy at round start =
round number + stones controlled'''
description = '''
Round 6: A banishes realm 3, which holds B's stone (B also holds realm 1). Round 7 begins: B
gains 7 + 1 energy, not 7 + 2; A, with realms 2 and 4, gains 7 + 2 (and paid 4 of its 5 for the
rite).'''
[cards."Filler"]
type = "wonder"
power = 1
cost = 9
[state]
round = 6
turn = "A"
[state.stones]
"1" = "B"
"2" = "A"
"3" = "B"
"4" = "A"
[state.A]
energy = 5
hand = [{ id = "rite", card = "Cataclysm Rite" }]
deck = ["Filler", "Filler", "Filler", "Filler"]
[state.B]
deck = ["Filler", "Filler", "Filler", "Filler"]
[[steps]]
player = "A"
action = "play"
card = "rite"
[[steps]]
player = "A"
expect_prompt = "realm"
pick = 3
[[steps]]
player = "B"
action = "pass"
[[steps]]
player = "A"
action = "pass"
[expect]
round = 7
[expect.A]
energy = 9
[expect.B]
energy = 8
"""


def _both_rulesets(text: str) -> list[str]:
    """The case under v1.3.2 and the same case under v1.2 (named ``-12``)."""
    assert 'rules = "1.3.2"' in text
    return [text, text.replace('rules = "1.3.2"', 'rules = "1.2"').replace('-132"', '-12"', 1)
            .replace('name = "audit-protector-of-a-winning-defender"',
                     'name = "audit-protector-of-a-winning-defender-12"')]


CASES = [*_both_rulesets(PROTECTOR_OF_A_WINNING_DEFENDER),
         *_both_rulesets(BANISHED_STONES_DECIDE_THE_WINNER),
         *_both_rulesets(BANISHED_STONES_GIVE_NO_ENERGY)]


def _write(tmp_path: Path, text: str) -> Path:
    name = tomllib.loads(text)["name"]
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text", CASES, ids=lambda t: tomllib.loads(t)["name"])
def test_audit_case_passes(tmp_path, text):
    result = run_file(_write(tmp_path, text))
    assert result.passed, result.line()


def test_the_cases_look_at_what_the_rules_decide():
    """Each case states the outcome the rule decides (not only where cards went)."""
    for text in CASES:
        expect = tomllib.loads(text)["expect"]
        name = tomllib.loads(text)["name"]
        if "protector" in name:
            assert expect["stones"] == {"1": "B"} and expect["cards"]["brute"]["counters"]
        elif "winner" in name:
            assert expect["over"] is True and expect["winner"] == "A"
        else:
            assert expect["B"]["energy"] == 8


def test_the_cases_run_through_the_conformance_command(tmp_path):
    paths = [str(_write(tmp_path, text)) for text in CASES]
    done = subprocess.run([sys.executable, "-m", "web.cli", "conformance", *paths], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(CASES)} passed, 0 failed" in done.stdout


# -- archetype and DBS, by hand -----------------------------------------------------------------

FACTS = {
    "Quarry": CardFact("Petraia", 0),
    "Warden": CardFact("Petraia", 2),
    "Shade": CardFact("Umbrathene", 1),
    "Ember": CardFact("Solfera", 3),
    "Relic": CardFact(None, 5),            # no orbital: counts in the deck's size only
    "Golem Token": CardFact("Petraia", 4),  # an archive token: its DBS counts (303.2)
}


def deck(**counts: int) -> list[DeckEntry]:
    return [DeckEntry(card.replace("_", " "), n) for card, n in counts.items()]


def test_a_second_orbital_with_exactly_a_quarter_of_the_deck_is_part_of_the_archetype():
    # 40 cards: Petraia 20 (Quarry 8 + Warden 12), Umbrathene 10 = 40 / 4, Solfera 9, Relic 1
    entries = deck(Quarry=8, Warden=12, Shade=10, Ember=9, Relic=1)
    assert main_orbitals(entries, FACTS) == ("Petraia", "Umbrathene")
    assert archetype(entries, FACTS) == "Petraia+Umbrathene"


def test_a_second_orbital_one_card_short_of_a_quarter_is_not():
    # 40 cards: Umbrathene 9 < 10; the cards without an orbital still count in the 40
    entries = deck(Quarry=8, Warden=12, Shade=9, Ember=9, Relic=2)
    assert main_orbitals(entries, FACTS) == ("Petraia",)
    assert archetype(entries, FACTS) == "Petraia"


def test_the_quarter_is_of_the_whole_main_deck_including_unknown_cards():
    # 48 cards: Umbrathene 11 would be a quarter of 44, but 12 is a quarter of 48
    entries = deck(Warden=20, Shade=11, Ember=9, Relic=4, Mystery=4)
    assert main_orbitals(entries, FACTS) == ("Petraia",)
    assert main_orbitals(deck(Warden=20, Shade=12, Ember=8, Relic=4, Mystery=4), FACTS) == \
        ("Petraia", "Umbrathene")


def test_the_two_orbitals_are_sorted_by_name_not_by_count():
    entries = deck(Shade=20, Quarry=10, Ember=5, Relic=5)  # Umbrathene first by count
    assert archetype(entries, FACTS) == "Petraia+Umbrathene"


def test_the_most_played_orbital_alone_whatever_its_share():
    assert main_orbitals(deck(Ember=3, Relic=37), FACTS) == ("Solfera",)
    assert main_orbitals(deck(Relic=40), FACTS) == () and archetype(deck(Relic=40), FACTS) == ""


def test_the_dbs_total_is_every_deck_card_and_every_archive_token():
    entries = deck(Quarry=8, Warden=12, Shade=10, Ember=9, Relic=1, Mystery=3)
    # 8*0 + 12*2 + 10*1 + 9*3 + 1*5 + 3*0 (unknown: 0) = 66; archive 2 Golem Tokens: 2*4 = 8
    assert dbs_total(entries, [], FACTS) == 66
    assert dbs_total(entries, [DeckEntry("Golem Token", 2)], FACTS) == 74
    assert dbs_total([], [], FACTS) == 0


def test_a_match_is_analysed_with_the_facts_its_file_recorded():
    opened = MatchOpened(match_id="m", ruleset="1.3.2",
                         seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")],
                         cards=[{"name": "Shade", "type": "wonder", "orbital": "Solfera", "dbs": 7},
                                {"name": "Quarry", "type": "land"}])
    facts = recorded_facts(opened, FACTS)
    assert facts["Shade"] == CardFact("Solfera", 7)   # recorded: the errata of today's pool don't apply
    assert facts["Quarry"] == CardFact(None, 0)       # recorded without orbital and DBS: the defaults
    assert facts["Ember"] == FACTS["Ember"]           # not recorded: today's pool
    entries = deck(Shade=10, Ember=10, Quarry=20)
    assert archetype(entries, facts) == "Solfera"     # 20 Solfera; Quarry has no orbital now
    assert dbs_total(entries, [], facts) == 10 * 7 + 10 * 3
