"""docs/format.md stays true.

* every event type has a row in the summary table (with its kind, schema version and fields as
  ``ledger.events`` declares them) and a section of its own; every upcaster is listed;
* the complete example is a real schema-3 match file: intact (``ledger.integrity.check_file``),
  re-derived by the rules engine from the cards it records (with an empty card pool), its
  fold equals the engine's state at every seq, and recording its decisions again today writes
  exactly its bytes;
* the "checking a hash by hand" snippet runs on it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ledger.codec import GENESIS, decode_line, encode_line, format_time, now_iso
from ledger.events import SCHEMA, JudgeNote, MatchOpened, SeatInfo, kind_of
from ledger.filestore import FileStore
from ledger.integrity import INTACT, check_file
from ledger.registry import game_events
from ledger.upcast import _REGISTRY as UPCASTERS
from replay.recorder import Recorder
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


def test_the_example_is_what_the_recorder_and_file_store_write_today(checked, tmp_path):
    """Its decisions recorded again through the recorder into a file store, chance answered
    as recorded and the clock giving each batch its recorded time: the same bytes."""
    events = [stored.event for stored in checked.events]
    chance = [e for e in events if kind_of(type(e).__name__) == "chance"]
    fed = [e for e in events[1:] if kind_of(type(e).__name__) in ("decision", "admin")
           and not getattr(e, "auto", False)]
    times = iter(dict.fromkeys(stored.at for stored in checked.events))

    class Replayed(Recorder):
        def _answer_chance(self):  # the recorded chance events, in order
            out = []
            while self.engine.prompt is not None and self.engine.prompt.kind == "chance":
                out += self.engine.decide(chance.pop(0))
            return out

    recorder = Replayed.open(FileStore(tmp_path), CardDB(), events[0], clock=lambda: next(times))
    for decision in fed:
        recorder.submit(decision)
    assert (tmp_path / "m-0001.jsonl").read_bytes() == example_bytes()


def test_the_hash_by_hand_snippet_runs_on_the_example(example, monkeypatch):
    snippet = TEXT.split("## Checking a hash by hand")[1].split("```python\n")[1].split("```")[0]
    monkeypatch.chdir(example.parent)
    exec(compile(snippet, "docs/format.md", "exec"), {})  # exec: runs the doc's own snippet


# -- the example re-encodes, byte for byte ----------------------------------------------------

#: ``at`` as the table of "A line" documents it: ISO 8601 UTC with milliseconds.
AT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def test_the_documented_time_format_is_what_the_ledger_writes():
    documented = re.search(r"^\| `at` \| .*?\(`([^`]+)`\)", TEXT, re.MULTILINE)
    assert documented, "the `at` row of the line table gives no example"
    example = documented.group(1)
    assert AT.fullmatch(example), example
    moment = datetime.fromisoformat(example)
    assert moment.microsecond == 946_000
    assert format_time(moment) == example
    # milliseconds are written even when they are zero, and sub-milliseconds are cut
    assert format_time(datetime(2026, 4, 21, 19, 35, 23, tzinfo=UTC)) == "2026-04-21T19:35:23.000Z"
    assert format_time(datetime(2026, 4, 21, 19, 35, 23, 946_999, tzinfo=UTC)) == example
    assert AT.fullmatch(now_iso()), now_iso()


def test_every_line_of_the_example_re_encodes_byte_for_byte_from_its_event_and_time():
    """Decode each documented line, parse its ``at`` into a time, and encode the event again
    at that time (``format_time``, what a writer uses): the very same bytes and hash.

    The one documented tolerance (an integer where encoding the decoded event writes the same
    number as a float, ``1`` for ``1.0``: the engine records whole numbers as integers, and
    number fields decode as floats) is allowed, and only it: such a line must equal the
    re-encoding with those ``.0`` cut."""
    prev, exact = GENESIS, 0
    lines = example_bytes().splitlines()
    for number, line in enumerate(lines, start=1):
        stored = decode_line(line, f"docs/format.md example line {number}", prev)
        at = format_time(datetime.fromisoformat(stored.at))
        again, digest = encode_line(stored.event, stored.seq, at, stored.batch, stored.prev)
        if again == line:
            assert digest == stored.hash
            exact += 1
        else:
            cut = again.rfind(b',"hash":"')
            tolerated = (again[:cut].replace(b".0,", b",").replace(b".0}", b"}")
                         .replace(b".0]", b"]") + b',"hash":"%s"}' % stored.hash.encode())
            assert tolerated == line, (
                f"line {number} (seq {stored.seq}) re-encodes differently:\n"
                f"  doc   {line[-260:]!r}\n  again {again[-260:]!r}")
        prev = stored.hash
    assert exact >= len(lines) // 2, f"only {exact} of {len(lines)} lines re-encode exactly"


def test_a_store_writes_the_documented_time_format(tmp_path):
    store = FileStore(tmp_path)
    store.create(MatchOpened(match_id="m-at", ruleset="1.3.2",
                             seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")]))
    store.append("m-at", [JudgeNote("judge", "a note")], 1)
    for line in (tmp_path / "m-at.jsonl").read_bytes().splitlines():
        at = re.search(rb',"at":"([^"]*)",', line).group(1).decode()
        assert AT.fullmatch(at), f"written time {at!r} is not ISO 8601 UTC with milliseconds"
