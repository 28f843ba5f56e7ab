"""``GAME``: State of Wonder through the game protocol (replay/game.py) -- found by name,
events registered without clashes, self-contained records, API decisions, narration, facts."""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec
import pytest

from ledger.codec import Stored
from ledger.events import Conceded, Event, MatchEnded, MatchOpened, TakenBack
from ledger.registry import EVENT_TYPES, GAME_OF, load_games
from replay.errors import CardDataError
from replay.games import game
from replay.replayer import Cursor
from replay.sow import GAME
from replay.sow.events import EVENTS, MainPassed, Picked, PlayChosen, TurnBegan
from replay.sow.evolve import evolve, initial_state
from replay.sow.simulate import open_match
from replay.timeline import Timeline
from tests.replay.sow.helpers import deck_pair, played, pool

SOW = Path(__file__).resolve().parents[3] / "replay" / "sow"


def test_found_by_name_and_events_registered() -> None:
    assert game("sow") is GAME
    load_games()
    for cls in EVENTS:
        assert EVENT_TYPES[cls.__name__] is cls and GAME_OF[cls.__name__] == "sow"


def test_no_import_of_the_other_games_internals() -> None:
    for path in SOW.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.startswith("replay.wotf") for n in names), path.name


def test_complete_opened_embeds_the_cards_and_a_digest() -> None:
    opened = open_match("m", deck_pair(3), pool())
    assert opened.game == "sow" and opened.rules_revision == GAME.rules_revision
    assert opened.engine_version == GAME.engine_version and len(opened.cards_digest) == 64
    names = {d["name"] for d in opened.cards}
    assert names == {e.card for info in opened.seats for e in info.deck}
    cards = GAME.match_cards(opened, pool())
    assert sorted(cards.names()) == sorted(names)
    tampered = msgspec.structs.replace(opened, cards=[{**opened.cards[0], "cost": 99},
                                                      *opened.cards[1:]])
    with pytest.raises(CardDataError, match="altered"):
        GAME.match_cards(tampered, pool())


def test_unknown_cards_are_refused_when_opening() -> None:
    from ledger.events import DeckEntry, MatchOpened, SeatInfo
    opened = MatchOpened("m", "004", [SeatInfo("A", "a", "", [DeckEntry("Nope")])], game="sow")
    with pytest.raises(CardDataError, match="Nope"):
        GAME.complete_opened(opened, pool())


def test_api_decisions() -> None:
    assert GAME.decision("A", {"type": "PlayChosen", "card": "A3"}) == PlayChosen("A", "A3")
    assert GAME.decision("B", {"type": "MainPassed"}) == MainPassed("B")
    assert GAME.decision("A", {"type": "Picked", "kind": "attackers", "pick": ["A1"]}) == \
        Picked("A", "attackers", ["A1"])
    for body, message in (({"card": "A3"}, "'type'"), ({"type": "CardPutIntoPlay"}, "unknown decision"),
                          ({"type": "PlayChosen"}, "malformed PlayChosen"),
                          ({"type": "PlayChosen", "card": 3}, "malformed")):
        with pytest.raises(ValueError, match=message):
            GAME.decision("A", body)
    with pytest.raises(ValueError, match="seat"):
        GAME.decision("C", {"type": "MainPassed"})
    assert GAME.decision("B", {"type": "Conceded", "reason": "late"}) == Conceded("B", "late")


def test_every_event_type_has_a_narration() -> None:
    from replay.sow.narrate import LINES, REASONED
    assert set(EVENTS) <= set(LINES) | set(REASONED)


def test_rules_object_follows_the_protocol() -> None:
    opened, events = played(9)
    rules = GAME.rules(opened, pool())
    out = rules.start()
    assert out == events[:len(out)] and rules.prompt is not None
    assert rules.check(MainPassed("A")) is not None  # a chance prompt is pending


def test_every_event_narrates_in_names() -> None:
    opened, events = played(10)
    state = initial_state(opened)
    for event in events:
        evolve(state, event)
        line = GAME.narrate(event, None, GAME.card_names(state, "omniscient"))
        assert line and line.strip() == line
        for cid in ("A-S", "B-W", "A1", "B12"):
            assert cid not in line.split(), line
    assert GAME.is_turn_event(next(e for e in events if type(e).__name__ == "TurnBegan"))


def stored_of(opened: MatchOpened, events: list[Event]) -> list[Stored]:
    return [Stored(n, "2026-01-01T00:00:00Z", n, "", "", e)
            for n, e in enumerate([opened, *events])]


def test_facts() -> None:
    opened, events = played(11, ("greedy", "greedy"))
    facts = GAME.facts(stored_of(opened, events))
    ended = events[-1]
    assert isinstance(ended, MatchEnded)
    (match,) = facts["matches"]
    assert match.game == "sow" and match.winner_seat == ended.winner and match.reason == ended.reason
    assert match.rounds_played == max(e.number for e in events if isinstance(e, TurnBegan))
    rows = facts["card_games"]
    assert {(r.seat, r.card) for r in rows} == {(i.seat, e.card) for i in opened.seats for e in i.deck}
    results = {p.seat: p.result for p in facts["players"]}
    assert all(results[r.seat] == ("win" if r.seat == ended.winner else "loss") for r in rows)
    assert any(r.played for r in rows) and any(not r.played for r in rows)
    states = {info.seat: info.deck[0].card for info in opened.seats}
    assert all(r.played and r.first_round_played == 0 for r in rows if states[r.seat] == r.card)
    assert set(facts) == {"matches", "players", "deck_cards", "events", "card_games",
                          "sow_sieges", "sow_battles"}
    assert len(facts["sow_sieges"]) == sum(type(e).__name__ == "PlayerBesieged" for e in events)
    assert len(facts["events"]) == len(events) + 1


def test_facts_after_a_take_back() -> None:
    opened, events = played(12)
    cut = 40
    stored = [*stored_of(opened, events[:cut]), Stored(cut + 1, "", cut + 1, "", "", TakenBack(10))]
    facts = GAME.facts(stored)
    assert facts["matches"][0].reason is None and facts["matches"][0].rounds_played <= 1


def test_the_siege_step_a_state_falls_in_is_a_battle_row() -> None:
    """docs/analytics.md: ``sow_battles`` has one row per pitched battle or siege step fought.
    The step in which a State is destroyed ends the match before any ``BattleClosed``: it was
    fought, and is the match's last row (seed 1's greedy match ends so)."""
    opened, events = played(1, ("greedy", "greedy"))
    assert events[-1].reason == "state_destroyed"
    names = [type(e).__name__ for e in events]
    steps = [i for i, n in enumerate(names) if n in ("AttackersDeclared", "SiegeStepBegan")]
    assert "BattleClosed" not in names[steps[-1]:]  # the last step never closed
    rows = GAME.facts(stored_of(opened, events))["sow_battles"]
    assert len(rows) == len(steps)
    assert rows[-1].seq == steps[-1] + 1 and rows[-1].step == "siege"  # seq 0 is MatchOpened


def test_a_turn_is_the_one_that_stands_after_a_take_back() -> None:
    """docs/format.md, *TakenBack*: from a take-back on, the state is the state after its
    ``to_seq``, so the turns it undid are not the match's turns.  ``wonders replay --turn N``
    (``Cursor.seek_turn``) went to the first turn numbered N, an undone one, and reached turns
    the match no longer has (a take-back from turn 9 to before turn 4, played on to turn 7:
    ``--turn 5`` showed the undone turn 5, ``--turn 9`` a turn that did not stand)."""
    opened, events = played(12)
    begun = [n + 1 for n, e in enumerate(events) if isinstance(e, TurnBegan)]  # seqs
    assert len(begun) >= 9
    before_4, at_9 = begun[3] - 1, begun[8]
    redo = events[before_4:begun[6]]  # the same events again: turns 4, 5 and 6's start...
    line = [*events[:at_9], TakenBack(before_4), *redo]
    timeline = Timeline(stored_of(opened, line), every=5)
    cursor = Cursor(timeline, len(timeline) - 1)
    again = at_9 + 1  # the take-back's seq, then the turns played again
    assert cursor.seek_turn(5).seq == again + (begun[4] - before_4)
    assert cursor.seek_turn(3).seq == begun[2]
    with pytest.raises(IndexError, match=r"no turn 9 \(the match has 7\)"):
        cursor.seek_turn(9)
