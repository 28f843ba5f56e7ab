"""Pool files (replay/wotf/poolimport.py): CSV and TOML rows become validated cards, catalogue
facts filled in; every bad row is one line naming file, line and field; nothing else escapes."""

from __future__ import annotations

import pytest

from replay.wotf.poolimport import PoolFileError, parse_pool_file

FACTS = {"Agaric Supreme": ("Wonder", "Petraia", "Existence", "004", 11, "Mythic"),
         "Some Token": ("Token", "Petraia", "Existence", "T-01", 0, "")}


def lookup(name):
    return FACTS.get(name)


def test_a_csv_row_takes_the_catalogue_facts_it_leaves_out():
    [card] = parse_pool_file("name,cost,power,classes,keywords\n"
                             "Agaric Supreme,5,7,Monster; Rite,guardian;link:Thalwind\n",
                             "p.csv", lookup)
    assert (card.type, card.orbital, card.number, card.dbs, card.rarity) == (
        "wonder", "Petraia", "004", 11, "Mythic")
    assert (card.cost, card.power, card.classes, card.keywords) == (
        5, 7, ("Monster", "Rite"), ("guardian", "link:Thalwind"))
    assert not card.manual and not card.entered_at_table


def test_a_catalogue_token_imports_as_a_wonder_token_unless_the_row_says_otherwise():
    [token] = parse_pool_file("name,power\nSome Token,1\n", "p.csv", lookup)
    assert token.token and token.type == "wonder"
    [item] = parse_pool_file("name,type\nSome Token,item\n", "p.csv", lookup)
    assert item.type == "item"


def test_every_bad_row_is_one_line_and_nothing_is_returned():
    text = ("name,cost,power,tier\nAgaric Supreme,1,1,mythical\nHomebrew,1,1,\n"
            "Agaric Supreme,1,1,\n,1,1,\n")
    with pytest.raises(PoolFileError) as caught:
        parse_pool_file(text, "p.csv", lookup)
    lines = caught.value.lines
    assert len(lines) == 4, lines
    assert lines[0].startswith("p.csv: line 2 (Agaric Supreme): field 'tier'")
    assert lines[1].startswith("p.csv: line 3 (Homebrew): field 'type'")
    assert lines[2] == "p.csv: line 4: field 'name': 'Agaric Supreme' is in the file twice"
    assert lines[3] == "p.csv: line 5: field 'name': a card needs its name"


def test_what_is_not_csv_or_toml_is_one_line():
    with pytest.raises(PoolFileError, match=r"^p.csv: line 1: not CSV"):
        parse_pool_file('name,cost\n"' + "x" * 200_000 + '",1\n', "p.csv", lookup)
    with pytest.raises(PoolFileError, match=r"a pool file is \.csv or \.toml"):
        parse_pool_file("name\nx\n", "p.txt", lookup)
    with pytest.raises(PoolFileError, match="no cards in the file"):
        parse_pool_file("name,cost\n", "p.csv", lookup)
    with pytest.raises(PoolFileError, match=r"line 3 .*field 'type'"):
        parse_pool_file("# c\n\n[[card]]\nname = 'X'\n", "p.toml", lookup)
