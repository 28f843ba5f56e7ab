"""The web is generic over games (DESIGN.md sections 1 and 10): no module under ``web/``
imports a game's internals (``replay.wotf``, ``replay.sow``); every game-specific call goes
through the match's game (:func:`replay.games.game_of`)."""

from __future__ import annotations

import ast
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "web"
GAMES = ("replay.wotf", "replay.sow")


def imported(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def test_no_web_module_imports_a_game():
    modules = sorted(WEB.rglob("*.py"))  # the CLI (web/cli*.py) included
    assert len(modules) > 15
    offending = []
    for path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, name in imported(tree):
            if any(name == g or name.startswith(g + ".") for g in GAMES):
                offending.append(f"{path.relative_to(WEB.parent)}:{line} imports {name}")
    assert not offending, "\n".join(offending)


def test_the_check_sees_an_import_of_a_game():
    tree = ast.parse("from replay.wotf.cards import CardDB\nimport replay.sow.events\n"
                     "from replay import wotf\n")
    names = [name for _, name in imported(tree)]
    assert "replay.wotf.cards" in names and "replay.sow.events" in names and "replay.wotf" in names
