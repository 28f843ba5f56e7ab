"""The seat not to act reads "Waiting for Bob (what for)" on /play (docs/organizer.md, *At the
table*): the what-for is words from the page's ``WHAT_FOR``, never the prompt's kind, an id.
Every kind either engine asks a seat (``Prompt(seat, "kind", …)`` in replay/) has its words;
without them a player read "Waiting for Bob (first)", "(side)", "(may)", "(stone)"."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def asked_kinds() -> dict[str, str]:
    """Each prompt kind the engines construct, with one place that asks it."""
    kinds: dict[str, str] = {}
    for path in sorted((ROOT / "replay").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "Prompt" and len(node.args) >= 2
                    and isinstance(node.args[1], ast.Constant)
                    and isinstance(node.args[1].value, str)):
                kinds.setdefault(node.args[1].value, f"{path.relative_to(ROOT)}:{node.lineno}")
    kinds.pop("chance", None)  # chance is drawn by the server, never waited for at a table
    return kinds


def page_words() -> dict[str, str]:
    script = (ROOT / "web" / "static" / "play.js").read_text(encoding="utf-8")
    found = re.search(r"const WHAT_FOR = \{(.*?)\n\};", script, re.S)
    assert found, "play.js has no WHAT_FOR"
    return dict(re.findall(r'(\w+): "([^"]+)"', found.group(1)))


def test_every_kind_a_seat_is_asked_has_words_on_the_page():
    kinds, words = asked_kinds(), page_words()
    assert {"turn", "first", "side", "mulligan", "attackers"} <= kinds.keys()  # the scan works
    missing = {kind: where for kind, where in kinds.items() if kind not in words}
    assert not missing, f"/play would show these prompt kinds as ids: {missing}"
    assert all(word and "_" not in word for word in words.values())
