"""Every shipped State of Wonder conformance case passes (one test id per case)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from replay.sow.conformance import cases_dir, main, run_case
from tests.replay.sow.helpers import pool

CASES = sorted(cases_dir().glob("*.toml"))


def test_there_are_at_least_sixty_cases() -> None:
    assert len(CASES) >= 60


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path) -> None:
    result = run_case(path, pool())
    assert result.passed, result.reason


RULES = Path(__file__).resolve().parents[4] / "shared" / "rules" / "004_bd89c5725df21031.txt"


def test_every_case_quotes_the_rules_text() -> None:
    if not RULES.exists():
        pytest.skip(f"../shared is absent ({RULES}): checking the quotes needs rules text 004")
    text = RULES.read_text(encoding="utf-8")
    wrong = [f"{path.name}: {quoted!r}" for path in CASES
             if (quoted := tomllib.loads(path.read_text(encoding="utf-8"))["rule"].rstrip("."))
             not in text]
    assert not wrong, "rules that are not a sentence of 004:\n" + "\n".join(wrong)


def test_a_broken_case_fails_with_a_reason(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\nrule = "x"\nbogus = 1\n')
    result = run_case(bad, pool())
    assert not result.passed and "unknown key" in result.reason
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('name = "wrong"\nrule = "x"\n[state.A]\ngold = 1\n[[state.cards]]\n'
                     'id = "a1"\ncard = "Militia"\n[expect]\nturn = "B"\n')
    result = run_case(wrong, pool())
    assert not result.passed and "expected turn" in result.reason


def test_the_runner_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(CASES[0])]) == 0
    assert capsys.readouterr().out.strip().endswith("1 passed, 0 failed")
