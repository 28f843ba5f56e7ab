"""State of Wonder's documents say what the code does: every event type is in the guide
(docs/sow.md) and every written ruling (docs/rulings-sow.md) is cited where it is
implemented -- in the code or a conformance case."""

from __future__ import annotations

import re
from pathlib import Path

from ledger.registry import game_events

REPO = Path(__file__).resolve().parents[3]
GUIDE = (REPO / "docs" / "sow.md").read_text(encoding="utf-8")
RULINGS = (REPO / "docs" / "rulings-sow.md").read_text(encoding="utf-8")


def test_every_event_type_is_in_the_guide():
    missing = sorted(name for name in game_events("sow")
                     if f"`{name}`" not in GUIDE and f"`{name}(" not in GUIDE)
    assert not missing, f"docs/sow.md does not list {missing}"


def test_every_ruling_is_cited_where_it_is_implemented():
    rulings = re.findall(r"^## (R\d+) — ", RULINGS, flags=re.M)
    assert len(rulings) >= 15
    sources = [*(REPO / "replay" / "sow").glob("*.py"),
               *(REPO / "fixtures" / "sow" / "conformance").glob("*.toml")]
    text = "\n".join(path.read_text(encoding="utf-8") for path in sources)
    uncited = [r for r in rulings if not re.search(rf"\b{r}\b", text)]
    assert not uncited, f"rulings cited nowhere in replay/sow or its cases: {uncited}"
