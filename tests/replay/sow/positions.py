"""Hand-built State of Wonder positions for tests: a state (or an engine at it) described as
a conformance case's ``[state]`` table, with the shipped pool (plus the case's "Case State")."""

from __future__ import annotations

from typing import Any

from replay.sow.cards import CardPool
from replay.sow.conformance import case_engine, case_pool
from replay.sow.engine import Engine
from replay.sow.state import SowState
from tests.replay.sow.helpers import pool


def position(state: dict[str, Any], name: str = "position") -> tuple[SowState, CardPool]:
    """The state ``state`` describes (keys as in a conformance case's ``[state]``)."""
    engine, cards = engine_at(state, name)
    return engine.state, cards


def engine_at(state: dict[str, Any], name: str = "position") -> tuple[Engine, CardPool]:
    """An engine at the position ``state`` describes, not started yet."""
    case = {"name": name, "rule": "", "state": state}
    cards = case_pool(case, pool())
    return case_engine(case, cards), cards
