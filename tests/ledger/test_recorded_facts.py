"""Analytics read a match's cards as its file recorded them (issue 12: "a DBS errata silently
changed analytics of old matches")."""

from ledger.filestore import FileStore
from ledger.rows import FileInfo
from replay.resources import golden_dir
from replay.wotf.cards import default_cards
from replay.wotf.deckfacts import CardFact
from replay.wotf.decks import card_facts
from replay.wotf.facts import match_facts
from replay.wotf.plainstats import summarize

MATCH = "golden-s3-r3-132-0001.jsonl"


def test_a_dbs_errata_in_todays_pool_leaves_recorded_analytics_alone():
    path = golden_dir() / MATCH
    stored = list(FileStore.read_file(path))
    today = card_facts(default_cards())
    info = FileInfo(path.name, path.stat().st_size, 0)
    before = {r.seat: r.dbs_total for r in match_facts(stored, info, today).tables["players"]}
    assert any(before.values()), "the scripted decks carry DBS"
    errata = {name: CardFact(fact.orbital, fact.dbs + 5) for name, fact in today.items()}
    after = {r.seat: r.dbs_total for r in match_facts(stored, info, errata).tables["players"]}
    assert after == before
    plain = summarize(path, errata)
    assert {seat: s.dbs for seat, s in plain.seats.items()} == before
