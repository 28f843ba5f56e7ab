"""No file of the project keeps a merge's conflict markers: docs/testing.md carried a whole
``<<<<<<< HEAD`` … ``>>>>>>> sow`` block for a stop (both sides' text, the markers between)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREES = ("ledger", "replay", "web", "tests", "bench", "docs", "fixtures", ".ci")
SUFFIXES = {".py", ".md", ".toml", ".html", ".js", ".css", ".json", ".txt", ".cfg", ""}


def _files():
    yield from (ROOT / name for name in ("README.md", "pyproject.toml", "setup.py"))
    for tree in TREES:
        for path in (ROOT / tree).rglob("*"):
            if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts:
                yield path


def test_no_file_keeps_conflict_markers():
    found = []
    for path in _files():
        if not path.exists():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(),
                                 start=1):
            if line.startswith(("<<<<<<< ", ">>>>>>> ")):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line[:40]}")
    assert not found, "merge conflict markers left in:\n" + "\n".join(found)
