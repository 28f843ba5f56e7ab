"""The planted bugs of ``planted.py`` still apply to today's code: each bug's text occurs
exactly once in its file (a refactor that moves the code must move the bug with it, or
``python tests/mutation/planted.py`` stops at that bug instead of showing it caught)."""

import importlib.util
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _bugs() -> list[dict]:
    spec = importlib.util.spec_from_file_location("planted", HERE / "planted.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.BUGS


@pytest.mark.parametrize("bug", _bugs(), ids=lambda bug: bug["bug"])
def test_each_planted_bug_names_text_found_once_in_its_file(bug):
    text = (ROOT / bug["file"]).read_text()
    assert text.count(bug["old"]) == 1, f"bug {bug['bug']}: {bug['file']} no longer holds its text once"
    assert bug["old"] != bug["new"] and bug["tests"]
