"""docs/format.md stays true.

* every event type has a row in the summary table (with its kind, schema version and fields as
  ``ledger.events`` declares them) and a section of its own; every upcaster is listed;
* the complete example is a real schema-3 match file: intact (``ledger.integrity.check_file``),
  re-derived by the rules engine from the cards it records (with an empty card pool), and its
  fold equals the engine's state at every seq;
* the "checking a hash by hand" snippet runs on it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ledger.events import SCHEMA, MatchOpened, kind_of
from ledger.integrity import INTACT, check_file
from ledger.registry import game_events
from ledger.upcast import _REGISTRY as UPCASTERS
from replay.replayer import Replay
from replay.timeline import Timeline
from replay.wotf.cards import CardDB, definitions_digest
from replay.wotf.evolve import evolve, fold, initial_state
from replay.wotf.state import state_hash

#: docs/format.md documents the core events and those of Wonders of The First (State of
#: Wonder's are documented in docs/sow.md).
EVENT_TYPES = {**game_events(""), **game_events("wotf")}

DOC = Path(__file__).resolve().parents[2] / "docs" / "format.md"
TEXT = DOC.read_text(encoding="utf-8")
ROW = re.compile(r"^\| `(\w+)` \| (\w+) \| (\d+) \| ([^|]*) \|", re.MULTILINE)


def example_bytes() -> bytes:
    """The complete example: the first code block after its heading, exactly."""
    found = re.search(r"^## A complete example\n.*?^```\n(.*?\n)```$", TEXT, re.DOTALL | re.MULTILINE)
    assert found, "docs/format.md has no code block under '## A complete example'"
    return found.group(1).encode("utf-8")


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("format-doc") / "m-0001.jsonl"
    path.write_bytes(example_bytes())
    return path


@pytest.fixture(scope="module")
def checked(example):
    check = check_file(example)
    assert check.status == INTACT, check.message
    return check


# -- the event reference ----------------------------------------------------------------------


def test_every_event_type_has_a_row_with_its_kind_version_and_fields():
    rows = {name: (kind, int(v), fields) for name, kind, v, fields in ROW.findall(TEXT)}
    missing = sorted(set(EVENT_TYPES) - set(rows))
    assert not missing, f"event types missing from the summary table: {missing}"
    for name, cls in EVENT_TYPES.items():
        kind, version, fields = rows[name]
        assert kind == kind_of(name), f"{name}: documented as {kind}, is {kind_of(name)}"
        assert version == SCHEMA[name], f"{name}: documented as v{version}, is v{SCHEMA[name]}"
        documented = re.findall(r"`(\w+)`", fields)
        assert documented == list(cls.__struct_fields__), (
            f"{name}: documented fields {documented}, declared {list(cls.__struct_fields__)}")


def test_every_event_type_has_a_section():
    missing = [name for name in EVENT_TYPES if f"\n#### {name}\n" not in TEXT]
    assert not missing, f"event types without a section: {missing}"


def test_every_upcaster_is_listed():
    for event_type, version in UPCASTERS:
        assert f"| `{event_type}` | {version} → {version + 1} |" in TEXT, (
            f"the upcaster {event_type} v{version} → v{version + 1} is not in the table")


# -- the complete example ---------------------------------------------------------------------


def test_the_example_is_an_intact_schema_3_file(checked):
    events = [stored.event for stored in checked.events]
    opened = events[0]
    assert isinstance(opened, MatchOpened) and opened.match_id == "m-0001"
    assert opened.schema_version == 3
    assert opened.cards and opened.cards_digest == definitions_digest(opened.cards)
    assert type(events[-1]).__name__ == "MatchEnded", "the example is a complete match"
    lines = example_bytes().splitlines()
    stale = [(n, line[:60]) for n, line in enumerate(lines)
             if re.search(rb',"v":(\d+),"at":', line).group(1) != b"%d" % SCHEMA[
                 type(events[n]).__name__]]
    assert not stale, f"example lines at an older schema version (regenerate the example): {stale}"


def test_the_example_re_derives_from_its_own_cards_and_folds_to_the_engines_state(checked):
    # An empty pool: a schema-3 file carries every card it needs.
    replay = Replay(checked.events, CardDB())
    events = replay.events
    assert len(replay) == len(events) == checked.length
    final = replay.engine.state
    assert final.over and final.winner == "A" and final.reason == "concession"
    assert state_hash(fold(events)) == state_hash(final)
    assert state_hash(Timeline(events).state) == state_hash(final)
    state = initial_state(events[0])
    for seq, event in enumerate(events):
        if seq:
            evolve(state, event)
        assert state_hash(state) == state_hash(replay.state_at(seq)), (
            f"seq {seq} ({type(event).__name__}): the fold differs from the engine's state")


def test_the_hash_by_hand_snippet_runs_on_the_example(example, monkeypatch):
    snippet = TEXT.split("## Checking a hash by hand")[1].split("```python\n")[1].split("```")[0]
    monkeypatch.chdir(example.parent)
    exec(compile(snippet, "docs/format.md", "exec"), {})  # exec: runs the doc's own snippet
