"""State of Wonder narration names an ability by its printed text, never by its id: the
reasons the engine records ("Ashen Horde: ashen-horde-plunder", "cost of firebrand-torch")
read in words, for every event of the golden matches."""

from __future__ import annotations

from pathlib import Path

from ledger.filestore import FileStore
from replay.sow import events as ev
from replay.sow.cards import load_pool
from replay.sow.narrate import narrate

MATCHES = Path(__file__).parents[3] / "fixtures" / "sow" / "matches"
PLAYERS = {"A": "Ann", "B": "Bob"}
ABILITY_IDS = {a.id for card in load_pool().cards() for a in card.abilities}


def test_gold_and_costs_name_the_ability_by_its_text():
    gained = narrate(ev.GoldGained("A", 2, "Ashen Horde: ashen-horde-plunder"), {}, PLAYERS)
    assert gained == "Ann gains 2 gold (Ashen Horde: “When you besiege a player, gain 2 Gold”)."
    spent = narrate(ev.GoldSpent("B", 1, "Firebrand: firebrand-torch"), {}, PLAYERS)
    assert spent.startswith("Bob spends 1 gold (Firebrand: “Pay 1 Gold, Exhaust;")
    assert narrate(ev.Exhausted("A7", "Firebrand", "cost of firebrand-torch"), {}, PLAYERS) == \
        "Firebrand is exhausted (the cost of its ability)."
    assert narrate(ev.GoldSpent("A", 1, "Homebrew: homebrew-thing"), {}, PLAYERS) == \
        "Ann spends 1 gold (Homebrew's ability)."  # a card the data doesn't know: no id either
    assert narrate(ev.GoldGained("A", 3, "income"), {}, PLAYERS) == "Ann gains 3 gold (income)."


def test_no_line_of_the_golden_matches_names_an_ability_id():
    lines = [narrate(s.event, {}, PLAYERS) for path in sorted(MATCHES.glob("*.jsonl"))
             for s in FileStore.read_file(path)]
    assert len(lines) > 100
    leaks = [line for line in lines if any(a in line for a in ABILITY_IDS)]
    assert leaks == []


def test_an_ability_reads_as_the_match_records_it_not_as_todays_pool_has_it():
    """The text comes from the match's own card definitions (what its file records): a match
    recorded with another wording, or with a card today's pool lacks, reads as recorded."""
    from replay.sow.cards import CardPool

    today = load_pool()
    horde = today["Ashen Horde"]
    plunder = next(a for a in horde.abilities if a.id == "ashen-horde-plunder")
    reworded = horde.model_copy(update={"abilities": [
        a.model_copy(update={"text": "When you besiege a player, take 2 Gold."})
        if a is plunder else a for a in horde.abilities]})
    homebrew = reworded.model_copy(update={"name": "Homebrew Keep", "abilities": [
        plunder.model_copy(update={"id": "homebrew-keep-tithe", "text": "Tithe 1 Gold."})]})
    recorded = today.with_cards([reworded, homebrew])
    assert isinstance(recorded, CardPool)
    event = ev.GoldGained("A", 2, "Ashen Horde: ashen-horde-plunder")
    assert narrate(event, {}, PLAYERS, recorded) == \
        "Ann gains 2 gold (Ashen Horde: “When you besiege a player, take 2 Gold”)."
    assert narrate(event, {}, PLAYERS) == \
        "Ann gains 2 gold (Ashen Horde: “When you besiege a player, gain 2 Gold”)."  # no pool given
    assert narrate(ev.GoldSpent("B", 1, "Homebrew Keep: homebrew-keep-tithe"), {}, PLAYERS,
                   recorded) == "Bob spends 1 gold (Homebrew Keep: “Tithe 1 Gold”)."
