"""Deck building: the shipped decks are legal and every rule has its clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.events import DeckEntry
from replay.errors import CardDataError
from replay.sow.cards import Card, CardPool, load_file, load_pool
from replay.sow.decks import Deck, deck_problems, load_deck
from tests.replay.sow.helpers import decks, pool

GOOD = Deck("ok", "Ironhold", "Colossus", {"Militia": 3, "Shieldbearer": 3, "Halberdier": 3,
                                           "Palisade": 3, "Quarry": 3})


def test_shipped_decks_are_legal() -> None:
    assert len(decks()) >= 3
    for deck in decks().values():
        assert deck_problems(deck, pool()) == [], deck.name


def test_the_pool() -> None:
    cards = pool().cards()
    assert len(cards) >= 40
    assert len({c.faction for c in cards} - {"neutral"}) >= 3
    assert sum(c.type == "state" for c in cards) >= 3
    assert not any(c.official for c in cards)
    ids = [a.id for c in cards for a in c.abilities]
    assert len(ids) == len(set(ids))
    kinds = {a.kind for c in cards for a in c.abilities}
    assert kinds == {"static", "triggered", "activated"}


def test_a_legal_deck_has_no_problems() -> None:
    assert deck_problems(GOOD, pool()) == []


@pytest.mark.parametrize("deck, message", [
    (Deck("x", "Ironhold", "Colossus", {"Militia": 3, "Shieldbearer": 3, "Halberdier": 3,
                                         "Palisade": 3, "Quarry": 2}), "this one has 14"),
    (Deck("x", "Ironhold", "Colossus", {"Militia": 4, "Shieldbearer": 3, "Halberdier": 3,
                                         "Palisade": 3, "Quarry": 2}), "no more than 3"),
    (Deck("x", "Ironhold", "Colossus", {"Militia": 3, "Shieldbearer": 3, "Halberdier": 3,
                                         "Palisade": 3, "Raider": 3}), "same faction as your state"),
    (Deck("x", "Ironhold", "Sun Spire", dict(GOOD.cards)), "same faction as your state"),
    (Deck("x", "Ironhold", "Militia", dict(GOOD.cards)), "exactly 1 Wonder or Hero"),
    (Deck("x", "Colossus", "Colossus", dict(GOOD.cards)), "exactly 1 State"),
    (Deck("x", "Ironhold", "Colossus", {**GOOD.cards, "Nope": 1}), "unknown card 'Nope'"),
])
def test_each_deck_rule_has_its_error(deck: Deck, message: str) -> None:
    problems = deck_problems(deck, pool())
    assert any(message in p for p in problems), problems


def test_two_states_or_two_wonders_as_entries() -> None:
    entries = [*GOOD.entries(), DeckEntry("Stonewatch"), DeckEntry("Sun Spire")]
    problems = deck_problems(entries, pool())
    assert any("1 State card" in p for p in problems)
    assert any("1 Hero or Wonder" in p for p in problems)


def test_bad_card_files_name_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[cards]]\nname = "Oops"\ntype = "unit"\ncost = 1\nattack = 1\nhealth = 0\n')
    with pytest.raises(CardDataError, match="health"):
        load_file(bad)
    bad.write_text('[[cards]]\nname = "Oops"\ntype = "spell"\n')
    with pytest.raises(CardDataError, match="type"):
        load_file(bad)
    bad.write_text('[[cards]]\nname = "Oops"\ntype = "building"\nhealth = 2\n[[cards.abilities]]\n'
                   'id = "x"\nkind = "static"\neffect = "gain_gold"\n')
    with pytest.raises(CardDataError, match="static"):
        load_file(bad)
    with pytest.raises(CardDataError, match="no card files"):
        load_pool(tmp_path / "empty")


def test_a_bad_deck_file_is_a_card_data_error(tmp_path: Path) -> None:
    bad = tmp_path / "d.toml"
    bad.write_text('name = "d"\nstate = "Ironhold"\n')
    with pytest.raises(CardDataError):
        load_deck(bad)


def test_a_card_defined_twice_is_an_error() -> None:
    card = Card(name="Twice", type="building", health=1)
    with pytest.raises(CardDataError, match="twice"):
        CardPool([card, card])


def test_the_faction_rule_names_the_factions_not_their_ids() -> None:
    """The message read "'Raider' is a ashen card; … (ironhold)": the faction ids."""
    deck = Deck("x", "Ironhold", "Colossus", {"Militia": 3, "Shieldbearer": 3, "Halberdier": 3,
                                              "Palisade": 3, "Raider": 3})
    assert [p for p in deck_problems(deck, pool()) if "Raider" in p] == [
        "'Raider' is a card of Ashen Horde; \"You may only use faction cards from the same "
        "faction as your state\" (your State 'Ironhold' is of Ironhold)"]
