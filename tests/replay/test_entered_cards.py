"""Catalogue cards entered at the table (docs/rulings.md R34): a match records a card the pool
has no rules data for by its catalogue facts; its owner enters the printed stats the first time
it sees it; the entry folds into the match's cards; the file replays from itself alone."""

from __future__ import annotations

import random

import pytest

from ledger import FileStore
from ledger.events import DeckEntry
from replay.errors import IllegalDecisionError
from replay.recorder import Recorder
from replay.replayer import Replay
from replay.verify import verify_file
from replay.wotf.bots import RandomBot
from replay.wotf.cards import CardDB, MatchCards, catalogue_entry
from replay.wotf.events import CardStatsEntered, PlayDeclared
from replay.wotf.evolve import fold
from replay.wotf.perspective import board, redact_event
from replay.wotf.state import state_hash
from tests.replay.helpers import opened, small_db, small_deck

# Existence 004 and 002 as the catalogue lists them (fixtures/catalogue/existence.csv).
AGARIC = catalogue_entry("Agaric Supreme", "Wonder", "Petraia", "Existence", "004", 11, "Mythic")
AERIUS = catalogue_entry("Aerius of Thalwind", "Wonder", "Thalwind", "Existence", "002", 5,
                         "Mythic")
AETHERION = catalogue_entry("Aetherion of Boundless", "Wonder", "Boundless", "Existence", "003",
                            5, "Mythic")
STATS = {"Aetherion of Boundless": {"cost": 2, "power": 3, "classes": [], "keywords": [],
                                    "manual": True},
         "Agaric Supreme": {"cost": 1, "power": 6, "classes": ["Elemental"],
                            "keywords": ["guardian"], "manual": False},
         "Aerius of Thalwind": {"cost": 0, "power": 2, "classes": [], "keywords": ["flying"],
                                "manual": True}}


def _db() -> CardDB:
    return small_db().with_cards([AGARIC, AERIUS, AETHERION])


def _deck() -> list[DeckEntry]:
    # 3 + 3 + 2 catalogue cards in place of Test Wonder 0..3 (2 copies each): still 50 cards.
    deck = [e for e in small_deck() if e.card not in ("Test Wonder 0", "Test Wonder 1",
                                                       "Test Wonder 2", "Test Wonder 3")]
    return [*deck, DeckEntry("Agaric Supreme", 3), DeckEntry("Aerius of Thalwind", 3),
            DeckEntry("Aetherion of Boundless", 2)]


def _entry(engine) -> CardStatsEntered:
    prompt = engine.prompt
    c = engine.state.cards[prompt.card]
    return CardStatsEntered(prompt.seat, prompt.card, c.name, c.zone, STATS[c.name])


def _record(tmp_path, seed: int = 3, decisions: int = 400):
    store = FileStore(tmp_path)
    recorder = Recorder.open(store, _db(), opened(deck=_deck()), rng=random.Random(seed))
    bot, entries = RandomBot(random.Random(seed)), []
    for _ in range(decisions):
        engine = recorder.engine
        if engine.prompt is None:
            break
        if engine.prompt.kind == "stats":
            entries.append(_entry(engine))
            recorder.submit(entries[-1])
        else:
            recorder.submit(bot.decide(engine))
    return store, recorder, entries


def test_the_owner_enters_stats_the_first_time_it_sees_the_card_and_they_fold(tmp_path):
    store, recorder, entries = _record(tmp_path)
    assert entries, "a catalogue card was drawn and its stats entered"
    assert len({(e.seat, e.name) for e in entries}) == len(entries), \
        "each seat enters each name once (R34)"
    # Both decks hold both names: each seat was asked for its own copies, whatever the other
    # seat had entered (being asked or not says nothing about the other hand).
    assert {e.seat for e in entries} == {"A", "B"}
    first = entries[0]
    # The owner entered it while the card was in a zone the owner sees (the hand, here).
    assert first.zone == "hand" and first.seat == first.card[0]
    events = [s.event for s in store.read("m-test")]
    state = fold(events)
    assert state_hash(state) == state_hash(recorder.engine.state)  # fold == engine
    assert state.defined[first.name] == STATS[first.name]
    cards = MatchCards(Replay(list(store.read("m-test")), CardDB()).engine.db, state)
    card = cards[first.name]
    assert (card.cost, card.power, card.classes, card.keywords) == (
        STATS[first.name]["cost"], STATS[first.name]["power"],
        tuple(STATS[first.name]["classes"]), tuple(STATS[first.name]["keywords"]))
    assert (card.number, card.set, card.orbital, card.dbs) == ("004", "Existence", "Petraia",
                                                               11) or card.name != AGARIC.name


def test_the_file_verifies_from_itself_with_an_empty_pool(tmp_path):
    store, _, entries = _record(tmp_path)
    assert entries
    report = verify_file(tmp_path / "m-test.jsonl", pool=CardDB())
    assert report.ok, report.message
    # Replayed with no pool at all, the recorded entries re-derive the same states.
    replay = Replay(list(store.read("m-test")), CardDB())
    assert state_hash(replay.state_at(len(replay) - 1)) == state_hash(
        fold([s.event for s in store.read("m-test")]))


def test_a_played_entered_card_uses_its_entered_cost(tmp_path):
    store = FileStore(tmp_path)
    recorder = Recorder.open(store, _db(), opened(deck=_deck()), rng=random.Random(5))
    bot = RandomBot(random.Random(5))
    for _ in range(600):
        engine = recorder.engine
        if engine.prompt is None:
            pytest.fail("the match ended before an entered card was played")
        if engine.prompt.kind == "stats":
            recorder.submit(_entry(engine))
            continue
        if engine.prompt.kind == "turn":
            plays = [o for o in engine.legal_options() if isinstance(o, PlayDeclared)
                     and engine.state.cards[o.card].name in STATS]
            if plays:
                name = engine.state.cards[plays[0].card].name
                assert engine.play_cost(plays[0].seat, plays[0].card) >= 0
                assert engine.view.definition(plays[0].card).cost == STATS[name]["cost"]
                recorder.submit(plays[0])
                return
        recorder.submit(bot.decide(engine))
    pytest.fail("no entered card was ever playable")


@pytest.mark.parametrize("stats, why", [
    ({"cost": -1, "power": 2}, "cost must be a whole number from 0 to 30"),
    ({"cost": 31, "power": 2}, "cost must be a whole number from 0 to 30"),
    ({"cost": 2, "power": 100}, "power must be a whole number from 0 to 99"),
    ({"cost": 2}, "enter its printed power"),
    ({"cost": 2, "power": 3, "keywords": ["teleport"]}, "unknown keyword 'teleport'"),
    ({"cost": 2, "power": 3, "text": "x"}, "text can't be entered"),
    ({"cost": "2", "power": 3}, "cost must be a whole number"),
])
def test_bad_stats_are_refused_with_the_reason_and_nothing_changes(tmp_path, stats, why):
    store = FileStore(tmp_path)
    recorder = Recorder.open(store, _db(), opened(deck=_deck()), rng=random.Random(3))
    bot = RandomBot(random.Random(3))
    while recorder.engine.prompt.kind != "stats":
        recorder.submit(bot.decide(recorder.engine))
    engine = recorder.engine
    good = _entry(engine)
    length = recorder.length
    with pytest.raises(IllegalDecisionError, match=why):
        recorder.submit(CardStatsEntered(good.seat, good.card, good.name, good.zone, stats))
    assert recorder.length == length and good.name not in engine.state.defined
    # Another seat can't answer it; another card can't either.
    other = "B" if good.seat == "A" else "A"
    with pytest.raises(IllegalDecisionError, match="not"):
        recorder.submit(CardStatsEntered(other, good.card, good.name, good.zone, good.stats))
    recorder.submit(good)
    assert engine.state.defined[good.name] == good.stats


def test_the_opponent_never_sees_which_card_while_it_is_hidden(tmp_path):
    store, recorder, _entries = _record(tmp_path)
    events = [s.event for s in store.read("m-test")]
    for event in events:
        if not isinstance(event, CardStatsEntered):
            continue
        owner, opponent = event.seat, "B" if event.seat == "A" else "A"
        assert redact_event(event, owner) == event
        assert redact_event(event, "omniscient") == event
        for viewer in (opponent, "spectator"):
            seen = redact_event(event, viewer)
            if event.zone == "hand":
                assert (seen.card, seen.name, seen.stats) == ("?", "?", {})
    # The board shows an entered card's stats to everyone once it is in The World.
    state = recorder.engine.state
    db = recorder.engine.db
    for viewer in ("A", "B", "spectator"):
        shown = board(state, db, viewer)
        for realm in shown["realms"]:
            for side in realm["cards"].values():
                for card in side:
                    if card["name"] in state.defined and card["name"] in STATS:
                        assert card["cost"] == STATS[card["name"]]["cost"]
        for seat, p in shown["players"].items():
            if seat != viewer and viewer != "omniscient":
                assert p["hand"] is None


def test_a_catalogue_token_or_tracker_cant_be_entered_at_the_table():
    from replay.errors import CardDataError
    with pytest.raises(CardDataError, match="only a Wonder, Land, Item or Spell"):
        catalogue_entry("Some Token", "Token")


def test_matches_without_catalogue_cards_ask_nothing_new(tmp_path):
    store = FileStore(tmp_path)
    recorder = Recorder.open(store, small_db(), opened(), rng=random.Random(2))
    bot = RandomBot(random.Random(2))
    for _ in range(300):
        if recorder.engine.prompt is None:
            break
        assert recorder.engine.prompt.kind != "stats"
        recorder.submit(bot.decide(recorder.engine))


def test_a_judges_ruling_that_puts_a_catalogue_card_in_hand_asks_its_owner_first(tmp_path):
    from replay.wotf.events import ManualEffect, ManualOp

    _store, recorder, _entries = _record(tmp_path, decisions=12)
    engine = recorder.engine
    assert engine.prompt is not None and engine.prompt.kind != "stats"
    waiting = [cid for cid, c in engine.state.cards.items() if c.zone == "deck"
               and engine.db.has_stats_to_enter(c.name, c.owner)]
    assert waiting, "a catalogue card not seen yet is still in a deck"
    cid = waiting[0]
    before = engine.prompt
    recorder.manual(ManualEffect("judge", [ManualOp("move", card=cid, to_zone="hand")]))
    assert engine.prompt.kind == "stats" and engine.prompt.card == cid
    c = engine.state.cards[cid]
    recorder.submit(CardStatsEntered(c.owner, cid, c.name, "hand", STATS[c.name]))
    assert engine.prompt == before or engine.prompt.kind == "stats"
    # The file still re-derives with an empty pool.
    assert verify_file(tmp_path / "m-test.jsonl", pool=CardDB()).ok


def test_a_match_with_entered_cards_ingests_into_the_warehouse(tmp_path):
    import duckdb

    from ledger.warehouse import ingest
    from replay.games import game

    _store, _recorder, entries = _record(tmp_path / "store", decisions=150)
    assert entries
    warehouse = tmp_path / "w.duckdb"
    wotf = game("wotf")
    # Today's pool, which knows none of the catalogue cards the match entered at the table.
    report = ingest(tmp_path / "store", warehouse, wotf.card_facts(wotf.default_cards()))
    assert not report.problems, [p.line() for p in report.problems]
    with duckdb.connect(str(warehouse)) as con:
        assert con.execute("select count(*) from matches").fetchone()[0] == 1
