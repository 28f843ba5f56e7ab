"""The Wonders engine as components (Build item 2): no mixins, state in the state, one bus,
effects as a tagged union.  Behaviour is covered by the rest of ``tests/replay``; these pin
the structure."""

from __future__ import annotations

import inspect
from typing import get_args

import pytest

from ledger.events import DeckEntry, MatchOpened, SeatInfo
from replay.errors import CardDataError
from replay.wotf import abilities
from replay.wotf.bus import Bus, Occurrence
from replay.wotf.cards import default_cards, parse_card
from replay.wotf.engine import Engine
from replay.wotf.events import Answered, CoinFlipped
from replay.wotf.evolve import fold
from replay.wotf.ops import OPS
from replay.wotf.state import ENGINE_FIELDS, GameState, canonical, clone, state_hash
from replay.wotf.table import Rules, Table

DB = default_cards()


def _opened(schema: int = 3) -> MatchOpened:
    names = sorted(c.name for c in DB if not c.token and c.type == "wonder")[:10]
    deck = [DeckEntry(name, 3) for name in names]
    return MatchOpened(match_id="m", ruleset="1.3.2", schema_version=schema, seats=[
        SeatInfo("A", "a", deck=deck), SeatInfo("B", "b", deck=deck)])


# -- components -------------------------------------------------------------------------------


def test_the_engine_is_a_facade_not_a_mixin_object():
    assert Engine.__bases__ == (object,)


def test_the_engine_implements_the_rules_table():
    engine = Engine.for_match(_opened(), DB)
    rules_words = {name for name, _ in inspect.getmembers(Rules) if not name.startswith("_")}
    table_words = {name for name, _ in inspect.getmembers(Table) if not name.startswith("_")}
    assert table_words <= rules_words
    missing = [name for name in sorted(rules_words) if not hasattr(engine, name)]
    assert not missing


# -- state -------------------------------------------------------------------------------------


def test_the_setup_shuffle_reads_its_deck_lists_from_the_state():
    engine = Engine.for_match(_opened(), DB)
    assert set(engine.state.deck_lists) == {"A", "B"}
    # A match resumed from its state alone (no MatchOpened at hand) still orders names.
    resumed = Engine(DB, clone(engine.state))
    resumed.start()
    while resumed.prompt is not None and resumed.prompt.choose is None:
        resumed.decide(_first_answer(resumed))  # the coin flip, who goes first, the side
    assert resumed.prompt is not None and resumed.prompt.chance == "DeckOrdered"


def _first_answer(engine: Engine):
    prompt = engine.prompt
    assert prompt is not None
    if prompt.kind == "chance":
        return CoinFlipped(prompt.options[0])
    return Answered(prompt.seat, prompt.kind, prompt.options[0])


def test_empty_engine_fields_leave_the_hash_as_it_was():
    state = fold([_opened(schema=2)])
    assert all(not getattr(state, name) for name in ENGINE_FIELDS)
    encoded = canonical(state)
    assert b"deck_lists" not in encoded
    assert b'"counts":{}' in encoded  # every field that was there before is still encoded
    with_lists = fold([_opened(schema=3)])
    assert b"deck_lists" in canonical(with_lists)
    assert state_hash(with_lists) != state_hash(GameState())


# -- the event bus ----------------------------------------------------------------------------


def test_the_bus_runs_handlers_in_registration_order():
    bus = Bus()
    seen: list[str] = []
    bus.on("arrives", lambda o: seen.append("first") or [])
    bus.on("arrives", lambda o: seen.append("second") or [])
    assert bus.run(Occurrence("arrives", "x")) == []
    assert bus.run(Occurrence("dies", "x")) == []
    assert seen == ["first", "second"]


# -- effects as a tagged union ----------------------------------------------------------------


def test_every_effect_name_has_one_model_and_one_procedure():
    tags = [tag for model in abilities.OP_MODELS
            for tag in get_args(model.model_fields["do"].annotation)]
    assert len(tags) == len(set(tags))
    assert set(tags) == set(get_args(abilities.OpName))
    static_only = set(get_args(abilities.StaticOnly.model_fields["do"].annotation))
    assert set(OPS) == set(tags) - static_only


def _card(effect: dict) -> dict:
    return {"name": "Test Card", "type": "spell", "cost": 1, "orbital": "Petraia",
            "abilities": [{"when": "play", "effects": [effect]}]}


def test_an_effect_is_validated_as_its_own_kind():
    card = parse_card(_card({"do": "draw", "amount": 2}), "test.toml")
    assert type(card.abilities[0].effects[0]) is abilities.Draw


def test_a_parameter_another_kind_of_effect_has_is_refused_naming_card_ability_and_field():
    with pytest.raises(CardDataError) as info:
        parse_card(_card({"do": "draw", "target": {"pick": "this"}}), "cards/test.toml: card 'Test Card'")
    message = str(info.value)
    assert "cards/test.toml" in message and "abilities.0.effects.0.draw.target" in message


def test_an_unknown_effect_is_refused():
    with pytest.raises(CardDataError) as info:
        parse_card(_card({"do": "explode"}), "cards/test.toml")
    assert "abilities.0.effects.0" in str(info.value)
