"""The ability language: coverage by conformance cases and docs, validation, manual
resolution recorded and replayed, printed and story tokens, and random play with the whole
card pool (docs/abilities.md)."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.events import DeckEntry, MatchOpened, SeatInfo
from ledger.filestore import FileStore
from replay.errors import CardDataError, IllegalDecisionError
from replay.recorder import Recorder
from replay.replayer import Replay
from replay.wotf.abilities import all_constructs, constructs_of
from replay.wotf.bots import RandomBot, answer_chance
from replay.wotf.cards import default_cards, load_card_file, load_cards
from replay.wotf.conformance import build_state
from replay.wotf.engine import Engine
from replay.wotf.events import ManualOp, ManualResolved, PlayDeclared
from replay.wotf.state import state_hash

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "abilities.md"
CASES = ROOT / "fixtures" / "conformance"


def _case_card_names(data: dict) -> set[str]:
    state = data.get("state", {})
    names = {w["card"] for w in state.get("world", [])}
    for seat in ("A", "B"):
        for zone in ("hand", "deck", "abyss", "banishment"):
            for entry in state.get(seat, {}).get(zone, []):
                names.add(entry if isinstance(entry, str) else entry["card"])
    return names - set(data.get("cards", {}))


def test_every_construct_appears_in_a_conformance_case():
    db = default_cards()
    used: set[str] = set()
    for path in CASES.rglob("*.toml"):
        for name in _case_card_names(tomllib.loads(path.read_text())):
            for ability in db[name].abilities:
                used |= constructs_of(ability)
    assert sorted(all_constructs() - used) == []


def test_every_construct_is_documented():
    text = DOC.read_text()
    missing = [name for name in sorted(all_constructs()) if f"`{name}`" not in text]
    assert missing == []


def test_there_are_at_least_150_conformance_cases():
    shared = ROOT.parent / "shared" / "conformance"
    if not shared.is_dir():
        pytest.skip(f"../shared is absent ({shared}): the count includes its conformance cases")
    total = len(list(CASES.rglob("*.toml"))) + len(list(shared.glob("*.toml")))
    assert total >= 150


QUOTED = {
    "Chained Crow", "Gem Primordial", "Syl Scaleweaver", "Orionis Skydreamer", "Rootling Terror",
    'Seraphina "The Serpent" Blackthorn', "Swamp Sovereign", "Vobb Stalker", "Glemmer Bandit",
    "Stealthy Spriggan", "Cairnvox Soulforger", "Pastel Bloom Drake", "Power of Bloodlines",
    "Rage of the Ancients", "Path of Light", "Glacium Keep", "Ayu Goss",
    "Wretched Mirror of Requiem", "Staff of the Eldritch Tribesmen", "Sirius Aetherblade",
    "The Windreaver", "Whisperleaf Cloak", "Autumn, Essence Animated", "Cursed Passages of Haem",
    "Feline Entity of Dreams", "Aetherion of Boundless", "Eye of the Maelstrom",
    "Strange Mutated Mass", "The Mount of Helios", "Corruption Warp",
    "Skraal, Ruler of the Three Lakes",
}


def test_every_card_the_rules_quote_is_scripted():
    db = default_cards()
    quoted = load_card_file(ROOT / "fixtures" / "cards" / "quoted.toml")
    assert {c.name for c in quoted} >= QUOTED
    for card in quoted:
        assert card.official is False  # stats chosen here are marked as not official
        assert (card.abilities or card.keywords) and not card.has_unscripted_text, card.name
        assert db[card.name] == card


def test_each_orbital_has_twelve_scripted_cards_of_every_type():
    db = default_cards()
    for orbital in ("Petraia", "Thalwind", "Solfera", "Umbrathene", "Heliosynth", "Boundless"):
        scripted = [c for c in db if c.orbital == orbital and c.abilities and c.set == "Scripted"]
        assert len(scripted) >= 12, orbital
        assert {c.type for c in scripted} == {"wonder", "land", "item", "spell"}, orbital
        assert any("Equipment" in c.classes for c in scripted), orbital


# -- a card written only from the docs ----------------------------------------------------------

NEW_CARD = '''
[[card]]
name = "Tidecaller Oracle"
type = "wonder"
classes = ["Merfolk", "Oracle"]
cost = 3
power = 2
orbital = "Thalwind"
text = "On Arrival: draw a card for each stone you control. Guardian."
keywords = ["guardian"]

[[card.abilities]]
when = "arrival"
text = "On Arrival: draw a card for each stone you control."
effects = [{ do = "draw", amount = { per = "stones" } }]

[[card.abilities]]
when = "static"
condition = { hoard = 2 }
text = "Hoard 2: other Wonders you control here get +1."
effects = [{ do = "power", amount = 1, target = { pick = "all", what = "wonder", side = "yours", where = "here", other = true } }]
'''


def test_a_card_written_from_the_docs_loads_and_plays(tmp_path):
    path = tmp_path / "new.toml"
    path.write_text(NEW_CARD)
    db = default_cards().with_cards(load_card_file(path))
    state = build_state({
        "round": 3, "turn": "A", "stones": {"1": "A", "2": "A"},
        "A": {"energy": 5, "hand": [{"id": "oracle", "card": "Tidecaller Oracle"}],
              "deck": ["Sky Roc"] * 5},
        "B": {"deck": ["Sky Roc"] * 5},
        "world": [{"id": "roc", "card": "Sky Roc", "controller": "A", "realm": 2}],
    }, "1.3.2", db)
    engine = Engine(db, state)
    engine.start()
    engine.decide(PlayDeclared("A", "oracle", 2))
    assert len(engine.state.players["A"].hand) == 2  # two stones, two cards
    assert engine.view.power("roc") == 4  # Sky Roc 3 + 1 from the Oracle (hoard 2)


def test_an_invalid_ability_names_the_file_the_card_and_the_field(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[[card]]\nname = "Broken"\ntype = "wonder"\npower = 1\n'
                    '[[card.abilities]]\nwhen = "arrival"\neffects = [{ do = "explode" }]\n')
    with pytest.raises(CardDataError) as err:
        load_cards([path])
    message = str(err.value)
    assert "bad.toml" in message and "Broken" in message and "abilities.0.effects.0.do" in message


def test_an_activated_ability_needs_a_cost(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[[card]]\nname = "Free Lunch"\ntype = "item"\n'
                    '[[card.abilities]]\nwhen = "activated"\neffects = [{ do = "draw" }]\n')
    with pytest.raises(CardDataError, match="needs a cost"):
        load_cards([path])


def test_a_voluntary_loop_runs_exactly_the_stated_count():
    from replay.wotf.conformance import _run_step
    data = tomllib.loads((CASES / "abilities" / "ab-voluntary-loop-stated-count.toml").read_text())
    from replay.wotf.conformance import _case_cards
    db = _case_cards(data["cards"], default_cards())
    engine = Engine(db, build_state(data["state"], "1.3.2", db))
    engine.start()
    for index, step in enumerate(data["steps"], start=1):
        _run_step(engine, step, index)
    tokens = [c for c in engine.state.cards.values() if c.token and c.zone == "world"]
    assert len(tokens) == 1 + 2 + 3  # the Wolf, two answered "yes", three stated


# -- manual resolution ---------------------------------------------------------------------------


def _manual_state(db):
    return build_state({
        "round": 4, "turn": "A",
        "A": {"energy": 6, "hand": [{"id": "oracle", "card": "Oracle of Whispers"}],
              "deck": ["Sky Roc"] * 5},
        "B": {"deck": ["Sky Roc"] * 5},
        "world": [{"id": "roc", "card": "Sky Roc", "controller": "B", "realm": 2}],
    }, "1.3.2", db)


def test_a_manual_answer_is_validated_and_applied_as_given():
    db = default_cards()
    engine = Engine(db, _manual_state(db))
    engine.start()
    engine.decide(PlayDeclared("A", "oracle", 2))
    assert engine.prompt.kind == "manual" and engine.prompt.card == "oracle"
    before = state_hash(engine.state)
    bad = ManualResolved("A", "oracle", [ManualOp("counter", card="nobody", counter="+1", value=1)])
    with pytest.raises(IllegalDecisionError, match="no card 'nobody'"):
        engine.decide(bad)
    with pytest.raises(IllegalDecisionError, match="not active"):
        engine.decide(ManualResolved("A", "oracle", [ManualOp("move", card="roc", to_zone="world",
                                                              realm=6)]))
    assert state_hash(engine.state) == before and engine.prompt.kind == "manual"
    ops = [ManualOp("counter", card="roc", counter="-1", value=1),
           ManualOp("power", card="oracle", value=2, duration="round"),
           ManualOp("token", seat="A", name="Dream", realm=2),
           ManualOp("resource", seat="B", resource="energy", value=0)]
    engine.decide(ManualResolved("A", "oracle", ops))
    assert engine.view.power("roc") == 2 and engine.view.power("oracle") == 4
    assert any(c.zone == "world" and c.token and c.controller == "A" for c in engine.state.cards.values())


def test_a_recorded_manual_resolution_replays_exactly(tmp_path):
    db = default_cards()
    deck = [DeckEntry("Oracle of Whispers", 2), DeckEntry("Sky Roc", 48)]
    opened = MatchOpened(match_id="m-manual", ruleset="1.3.2",
                         seats=[SeatInfo("A", "Ann", deck=deck), SeatInfo("B", "Bob", deck=deck)])
    store = FileStore(tmp_path)
    rng = random.Random(5)
    recorder = Recorder.open(store, db, opened, rng=rng)
    bot, manual = RandomBot(rng), 0
    while recorder.engine.prompt is not None:
        prompt = recorder.engine.prompt
        if prompt.kind == "manual":
            manual += 1
            decision = ManualResolved(prompt.seat, prompt.card, [
                ManualOp("counter", card=prompt.card, counter="+1", value=1)])
        else:
            decision = bot.decide(recorder.engine)
        recorder.submit(decision)
    assert manual >= 1
    replay = Replay(list(store.read("m-manual")), db)
    assert state_hash(replay.engine.state) == state_hash(recorder.engine.state)


# -- printed and story tokens ----------------------------------------------------------------------


def test_a_story_token_can_come_from_the_archive_and_never_returns():
    db = default_cards()
    state = build_state({
        "round": 3, "turn": "A",
        "A": {"energy": 5, "hand": [{"id": "keeper", "card": "Story Keeper"}], "deck": ["Sky Roc"] * 5},
        "B": {"deck": ["Sky Roc"] * 5},
    }, "1.3.2", db)
    from replay.wotf.state import CardState
    state.cards["A-T1"] = CardState("A-T1", "Keeper's Companion", "A", "archive", token=True)
    state.players["A"].archive.append("A-T1")
    engine = Engine(db, state)
    engine.start()
    engine.decide(PlayDeclared("A", "keeper", 2))
    assert engine.prompt.kind == "target" and engine.prompt.options == ["A-T1", "stand-in"]
    from replay.wotf.events import Answered
    engine.decide(Answered("A", "target", "A-T1"))
    token = engine.state.cards["A-T1"]
    assert token.zone == "world" and token.realm == 2 and engine.view.has("A-T1", "flying")
    assert engine.state.players["A"].archive == []


# -- random play with the whole pool -----------------------------------------------------------------

POOL = [c.name for c in default_cards() if not c.token and c.tier != "legendary"
        and not c.has_unscripted_text]
LEGENDS = [c.name for c in default_cards() if c.tier == "legendary" and not c.token]


def _deck(rng: random.Random) -> list[DeckEntry]:
    names = rng.sample(POOL, 16) + rng.sample(LEGENDS, 2)
    entries = [DeckEntry(n, 3) for n in names[:16]] + [DeckEntry(n, 1) for n in names[16:]]
    return entries


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), ruleset=st.sampled_from(["1.3.2", "1.2"]))
def test_random_play_with_the_full_pool_ends_and_verifies(tmp_path_factory, seed, ruleset):
    rng = random.Random(seed)
    db = default_cards()
    opened = MatchOpened(match_id="m-pool", ruleset=ruleset,
                         seats=[SeatInfo("A", "Ann", deck=_deck(rng)), SeatInfo("B", "Bob", deck=_deck(rng))])
    store = FileStore(tmp_path_factory.mktemp("pool"))
    recorder = Recorder.open(store, db, opened, rng=rng)
    bot, steps = RandomBot(rng), 0
    while recorder.engine.prompt is not None:
        assert steps < 5000, "the match did not end: a hang"
        prompt = recorder.engine.prompt
        chance = prompt.kind == "chance"
        recorder.submit(answer_chance(prompt, rng) if chance else bot.decide(recorder.engine))
        steps += 1
    assert recorder.engine.state.over
    replay = Replay(list(store.read("m-pool")), db)  # verifies every decision and outcome
    assert state_hash(replay.engine.state) == state_hash(recorder.engine.state)


def _autumn_puts_a_card_face_down() -> tuple[Engine, list]:
    """Autumn distributes A's one Wonder in the Abyss (card "dead") face down into realm 2."""
    from replay.wotf.events import ActivationDeclared, Answered
    db = default_cards()
    engine = Engine(db, build_state({
        "round": 3, "turn": "A",
        "A": {"actions": 0, "abyss": [{"id": "dead", "card": "Sky Roc"}], "deck": ["Sky Roc"] * 4},
        "B": {"deck": ["Sky Roc"] * 4},
        "world": [{"id": "autumn", "card": "Autumn, Essence Animated", "controller": "A", "realm": 1}],
    }, "1.3.2", db))
    engine.start()
    engine.decide(ActivationDeclared("A", "autumn", 0))
    return engine, engine.decide(Answered("A", "realm", 2))


def test_face_down_cards_are_hidden_from_everyone_but_the_omniscient_view():
    from replay.wotf.events import CardMoved
    from replay.wotf.perspective import board, redact_event
    engine, events = _autumn_puts_a_card_face_down()
    db = engine.db
    moved = [e for e in events if isinstance(e, CardMoved) and e.card == "dead"]
    for seat in ("A", "B", "spectator"):
        realm2 = board(engine.state, db, seat)["realms"][1]["cards"]["A"]
        assert realm2 == [{"id": "?", "name": "face-down card", "type": None, "cost": None,
                           "orbital": None, "face_down": True}]
        assert redact_event(moved[0], seat).name == "?"
    assert board(engine.state, db, "omniscient")["realms"][1]["cards"]["A"][0]["name"] == "Sky Roc"


def test_manual_operations_into_a_hidden_zone_hide_the_card():
    from replay.wotf.events import ManualEffect
    from replay.wotf.perspective import redact_event
    effect = ManualEffect("judge", [ManualOp("move", card="A7", to_zone="hand"),
                                    ManualOp("move", card="B3", to_zone="deck"),
                                    ManualOp("counter", card="B9", counter="+1", value=1)])
    for perspective, hand_card in (("omniscient", "A7"), ("A", "A7"), ("B", "?"), ("spectator", "?")):
        ops = redact_event(effect, perspective).ops
        assert ops[0].card == hand_card
        assert ops[1].card == ("B3" if perspective == "omniscient" else "?")
        assert ops[2].card == "B9"  # a counter on a card in The World is public
    answer = ManualResolved("A", "A1", [ManualOp("move", card="A8", to_zone="hand")])
    assert redact_event(answer, "B").ops[0].card == "?"


def test_printed_tokens_must_meet_the_minimum_requirements():
    """203 example (Power of Bloodlines): a sacrificed Angel makes 1-power Undead Angel tokens;
    a printed Undead Wolf Angel qualifies, an Undead Bat does not."""
    from replay.wotf.events import Answered
    from replay.wotf.state import CardState
    db = default_cards().with_cards(load_card_file(ROOT / "fixtures" / "cards" / "rulings.toml"))
    state = build_state({
        "round": 3, "turn": "A",
        "A": {"energy": 5, "hand": [{"id": "pob", "card": "Power of Bloodlines"}],
              "deck": ["Sky Roc"] * 5},
        "B": {"deck": ["Sky Roc"] * 5},
        "world": [{"id": "angel", "card": "Celestial Herald", "controller": "A", "realm": 1}],
    }, "1.3.2", db)
    for n, name in enumerate(("Undead Wolf Angel", "Undead Bat"), start=1):
        state.cards[f"A-T{n}"] = CardState(f"A-T{n}", name, "A", "archive", token=True)
        state.players["A"].archive.append(f"A-T{n}")
    engine = Engine(db, state)
    engine.start()
    out = engine.decide(PlayDeclared("A", "pob", None))
    # the only Wonder to sacrifice is sacrificed without asking (revision 5)
    assert Answered("A", "target", ["angel"], auto=True) in out
    assert engine.prompt.options == ["A-T1", "stand-in"]  # the Bat lacks the class Angel
    engine.decide(Answered("A", "target", "A-T1"))
    engine.decide(Answered("A", "realm", 2))
    assert engine.state.cards["A-T1"].zone == "world" and engine.view.has("A-T1", "flying")
    assert engine.prompt.kind == "realm"  # no printed token left that qualifies: a stand-in
    assert "A-T1" not in engine.state.players["A"].archive


def test_narration_names_cards_but_not_face_down_ones():
    from replay.wotf.events import CardMoved, CounterChanged, EffectApplied
    from replay.wotf.narrate import narrate
    from replay.wotf.perspective import card_names
    from replay.wotf.state import CardState, GameState
    state = GameState(cards={"B11": CardState("B11", "Crypt Witch", "B", "world"),
                             "A3": CardState("A3", "Sky Roc", "A", "world")})
    events = [CardMoved("A3", "Sky Roc", "A", "abyss", "world", "distributed face down")]
    assert narrate(EffectApplied("B11", "power+", 2, "round"),
                   names=card_names(state, "B", events)) == "Crypt Witch gets +2 this round"
    # a card the reader may not name is "a hidden card", never its id (issue 18)
    assert narrate(EffectApplied("B11", "grant:flying", 0, "ever"), names={}) == \
        "a hidden card gets flying"
    spectator = card_names(state, "spectator", events)
    assert narrate(CounterChanged("A3", "+1", 1, 1), names=spectator) == \
        "a hidden card gets 1 +1 counter"
    omniscient = card_names(state, "omniscient", events)
    assert narrate(CounterChanged("A3", "+1", 1, 1), names=omniscient) == "Sky Roc gets 1 +1 counter"


def test_events_naming_a_card_still_face_down_hide_its_id():
    from replay.wotf.events import Answered, CardTapped, ManualEffect
    from replay.wotf.perspective import face_down_ids, redact_event
    engine, _ = _autumn_puts_a_card_face_down()
    hidden = face_down_ids(engine.state)
    assert hidden == {"dead"}
    ruling = ManualEffect("judge", [ManualOp("tap", card="dead", value=True)])
    for event in (ruling, CardTapped("dead", True), Answered("B", "target", "dead")):
        seen = redact_event(event, "spectator", hidden)
        assert "dead" not in str(seen) and "dead" in str(redact_event(event, "omniscient", hidden))
