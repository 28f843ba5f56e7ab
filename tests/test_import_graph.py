"""The import graph of the whole project: no cycles, and the layers import downwards only.

Every module of ``ledger``, ``replay`` and ``web`` is parsed with :mod:`ast`; every import
counts -- at module level, inside functions, and under ``if TYPE_CHECKING:`` (an import for
typing only is still a dependency: it is how the engine's old mixins came to form a cycle).

* no cycles anywhere;
* ``ledger`` imports nothing from ``replay`` or ``web``, and ``replay`` nothing from ``web``;
* a game's package (``replay/<game>/``) is imported only by itself: everything generic works
  through the game protocol (:mod:`replay.game`).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("ledger", "replay", "web")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[_module_name(path)] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The project module an imported name refers to (its longest known prefix)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return None


def _imports(module: str, path: Path) -> set[str]:
    """The project modules ``module`` imports, wherever in the file the import is."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from a.b import c``: the module a.b.c if there is one, else (a name) a.b
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name)
            if target is not None and target != module:
                found.add(target)
    return found


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _games() -> list[str]:
    return sorted(m for m, p in MODULES.items()
                  if p.name == "__init__.py" and m.count(".") == 1 and m.startswith("replay.")
                  and f"{m}.game" in MODULES)


def test_the_graph_sees_every_package():
    assert {"ledger", "replay", "web"} <= {m.split(".")[0] for m in MODULES}
    assert "replay.wotf.engine" in GRAPH and "replay.wotf" in _games()


def test_no_import_cycles():
    cycles = _cycles(GRAPH)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def _wrong_way(lower: str, higher: tuple[str, ...]) -> list[str]:
    return [f"{m} imports {t}" for m, targets in GRAPH.items() for t in sorted(targets)
            if m.split(".")[0] == lower and t.split(".")[0] in higher]


def test_replay_imports_nothing_from_web():
    wrong = _wrong_way("replay", ("web",))
    assert not wrong, "\n".join(wrong)


def test_ledger_imports_nothing_from_replay_or_web():
    wrong = _wrong_way("ledger", ("replay", "web"))
    assert not wrong, "\n".join(wrong)


def test_only_a_game_imports_its_own_package():
    wrong = [f"{m} imports {t}" for game in _games() for m, targets in GRAPH.items()
             for t in sorted(targets)
             if (t == game or t.startswith(game + ".")) and not (m == game or m.startswith(game + "."))]
    assert not wrong, "\n".join(wrong)
