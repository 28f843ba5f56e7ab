"""docs/format.md stays true: its example file reads back through the store's checks."""

from pathlib import Path

from ledger import FileStore
from ledger.events import EVENT_TYPES

DOC = Path(__file__).resolve().parents[2] / "docs" / "format.md"


def test_the_documented_example_is_a_valid_match_file(tmp_path):
    text = DOC.read_text()
    example = text.split("## A complete example")[1].split("```")[1].strip()
    path = tmp_path / "m-0001.jsonl"
    path.write_text(example + "\n")
    events = list(FileStore.read_file(path))
    assert events[0].event.match_id == "m-0001" and len(events) == 10


def test_every_event_type_is_documented():
    text = DOC.read_text()
    assert all(f"| `{name}` |" in text for name in EVENT_TYPES)
