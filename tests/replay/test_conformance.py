"""The conformance runner and the conformance suite (specs/conformance.md)."""

import subprocess
import sys
from pathlib import Path

import pytest

from replay.wotf.conformance import find_cases, run_file, run_paths

REPO = Path(__file__).resolve().parents[2]
OURS = REPO / "fixtures" / "conformance"
SHARED = REPO.parent / "shared" / "conformance"


def _needs_shared() -> None:
    """Skip, saying so, in a clone with nothing beside it."""
    if not SHARED.is_dir():
        pytest.skip(f"../shared is absent ({SHARED}): this test runs its conformance examples")


def test_the_shared_examples_pass_unchanged():
    _needs_shared()
    results = list(run_paths([SHARED]))
    assert len(results) == 3
    assert all(r.passed for r in results), [r.line() for r in results if not r.passed]


def test_the_project_suite_passes_and_is_large_enough():
    results = list(run_paths([OURS]))
    failures = [r.line() for r in results if not r.passed]
    assert not failures, "\n".join(failures)
    assert len(results) >= 80


def test_every_case_cites_a_rule_and_both_rulesets_are_covered():
    import tomllib
    rules = set()
    for path in find_cases([OURS]):
        data = tomllib.loads(path.read_text())
        assert data.get("source"), f"{path.name} cites no rule"
        rules.add(data.get("rules", "1.3.2"))
    assert rules == {"1.3.2", "1.2"}


def _case(tmp_path, text):
    path = tmp_path / "case.toml"
    path.write_text(text)
    return path


BASE = '''
name = "tiny"
source = "404.1"
[cards."Hill Brute"]
type = "wonder"
power = 3
[state]
round = 1
[state.A]
deck = ["Hill Brute", "Hill Brute", "Hill Brute"]
[state.B]
deck = ["Hill Brute", "Hill Brute", "Hill Brute"]
[[steps]]
player = "A"
action = "draw"
'''


def test_unknown_keys_are_a_failure_with_a_reason(tmp_path):
    result = run_file(_case(tmp_path, BASE + "\n[expect]\nturn = \"B\"\nhand_size = 3\n"))
    assert not result.passed and "unknown key(s) hand_size" in result.reason
    result = run_file(_case(tmp_path, BASE.replace('action = "draw"', 'acton = "draw"')))
    assert not result.passed and "unknown key(s) acton" in result.reason


def test_a_wrong_expectation_says_what_was_expected_and_what_is_held(tmp_path):
    result = run_file(_case(tmp_path, BASE + "\n[expect.A]\nactions = 3\n"))
    assert result.line() == "FAIL tiny: A.actions: expected 3, got 2"


def test_bad_toml_and_unknown_cards_fail_without_crashing(tmp_path):
    assert "cannot read case" in run_file(_case(tmp_path, "name = [")).reason
    brutes = 'deck = ["Hill Brute", "Hill Brute", "Hill Brute"]\n[state.B]'
    result = run_file(_case(tmp_path, BASE.replace(brutes, 'deck = ["Nobody"]\n[state.B]')))
    assert not result.passed and "unknown card 'Nobody'" in result.reason


def test_cli_prints_one_line_per_case_and_the_closing_line(tmp_path):
    _needs_shared()
    _case(tmp_path, BASE + "\n[expect.A]\nactions = 3\n")
    done = subprocess.run([sys.executable, "-m", "web.cli", "conformance", str(SHARED), str(tmp_path)],
                          cwd=REPO, capture_output=True, text=True)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 1
    assert lines[-1] == "3 passed, 1 failed"
    assert sum(line.startswith(("PASS ", "FAIL ")) for line in lines) == 4
