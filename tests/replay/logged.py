"""Run a conformance case and keep what a case's expectations can't see: the events each
decision recorded and the prompts the seats were shown.

A conformance case (``fixtures/conformance``, ``replay.wotf.conformance``) checks the state
after its last step.  The log is the truth, though (DESIGN.md section 2): the reasons events
record, the order they come in, and the words and options of each prompt are what a replay,
the narration and a seat's page show.  :func:`run` plays a case step by step and returns,
per step, the prompt that was pending and the events the step's decision recorded.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledger.events import Event
from replay.wotf import conformance as C
from replay.wotf.api import prompt_view
from replay.wotf.cards import default_cards
from replay.wotf.engine import Engine

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "conformance"


@dataclass
class Step:
    """One step of a case: the prompt shown before it and the events its decision recorded."""

    prompt: dict[str, Any] | None
    events: list[Event]


@dataclass
class Played:
    engine: Engine
    steps: list[Step]
    start: list[Event]

    @property
    def prompt(self) -> dict[str, Any] | None:
        """The prompt pending after the last step, as the omniscient view shows it."""
        return shown(self.engine)


def shown(engine: Engine, view: str = "omniscient") -> dict[str, Any] | None:
    return prompt_view(engine, view, lambda cid: cid)


def case(name: str) -> dict[str, Any]:
    """A case of ``fixtures/conformance`` by its file name (without ``.toml``)."""
    return tomllib.loads((CASES / f"{name}.toml").read_text(encoding="utf-8"))


def run(data: dict[str, Any] | str, steps: int | None = None,
        revision: int | None = None) -> Played:
    """Play case ``data`` (a table or TOML text) up to ``steps`` steps (all by default)."""
    if isinstance(data, str):
        data = tomllib.loads(data)
    db = C._case_cards(data.get("cards", {}), default_cards())
    state = C.build_state(data.get("state", {}), data.get("rules", "1.3.2"), db)
    state.revision = revision or data.get("revision", C.RULES_REVISION)
    engine = Engine(db, state)
    log: list[Event] = []
    engine.on_emit = log.append
    engine.start()
    start, played = list(log), []
    for index, step in enumerate(data.get("steps", [])[:steps], start=1):
        prompt = shown(engine)
        log.clear()
        C._run_step(engine, step, index)
        played.append(Step(prompt, list(log)))
    return Played(engine, played, start)
