"""Card files name their factions (``[factions]``: ``ashen = "Ashen Horde"``): the pool knows
each faction its cards use by a name people read (the match-ups showed ``ashen``); one faction
named two ways across files, or a name that is no string, is an error naming the file."""

from __future__ import annotations

import shutil

import pytest

from replay.errors import CardDataError
from replay.sow.cards import cards_dir, load_pool
from replay.sow.game import GAME


def test_the_shipped_pool_names_every_faction_its_cards_use():
    pool = GAME.default_cards()
    used = {card.faction for card in pool.cards()} - {"neutral"}
    assert used and used <= set(pool.factions)
    assert pool.faction_name("ashen") == "Ashen Horde"
    assert GAME.archetype_names(pool) == {"ashen": "Ashen Horde", "ironhold": "Ironhold",
                                          "sunmarch": "Sunmarch"}
    assert pool.with_cards([]).factions == pool.factions
    assert GAME.load_cards([str(cards_dir())]).factions == pool.factions


def test_a_faction_without_a_name_is_shown_as_its_id():
    assert GAME.default_cards().faction_name("tidewater") == "tidewater"


@pytest.fixture
def pool_dir(tmp_path):
    shutil.copytree(cards_dir(), tmp_path / "cards")
    return tmp_path / "cards"


def test_one_faction_named_two_ways_is_an_error(pool_dir):
    (pool_dir / "zz.toml").write_text('[factions]\nashen = "The Ash"\n')
    with pytest.raises(CardDataError, match=r"zz.toml: faction 'ashen' is named 'The Ash' here "
                                            r"and 'Ashen Horde' in another card file"):
        load_pool(pool_dir)


def test_a_name_that_is_no_string_is_an_error(pool_dir):
    (pool_dir / "zz.toml").write_text("[factions]\nashen = 3\n")
    with pytest.raises(CardDataError, match=r"zz.toml: \[factions\].ashen: each faction's name"):
        load_pool(pool_dir)


def test_one_name_given_to_two_factions_is_an_error(pool_dir):
    """Two factions shown by one name would be one row and column of the match-ups, the
    numbers of one hiding the other's."""
    (pool_dir / "zz.toml").write_text('[factions]\ntidewater = "Ironhold"\n')
    with pytest.raises(CardDataError, match=r"zz.toml: faction 'tidewater' is named "
                                            r"'Ironhold', the name of faction 'ironhold'"):
        load_pool(pool_dir)
