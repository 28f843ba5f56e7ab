"""The optional compiled build of the Wonders engine (``replay/native.py``, ``setup.py``).

The last test builds it for real: a copy of this checkout compiled in place with
``WONDERS_COMPILE=1 python setup.py build_ext --inplace`` (mypyc and the C compiler, about a
minute and a half), then, in subprocesses on that copy, the engine's tests and golden matches,
and a simulated corpus that must come out byte for byte as the plain source writes it.  It needs
mypy and a C compiler: without them it skips with a line saying so, and with
``WONDERS_REQUIRE_MYPYC=1`` (``.ci/run`` sets it) it fails instead.
"""

from __future__ import annotations

import ast
import os
import runpy
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from replay.errors import StaleBuildError
from replay.native import COMPILED, TOLERANCE_S, check_build, compiled_modules

ROOT = Path(__file__).resolve().parents[2]
SUFFIX = ".cpython-311-x86_64-linux-gnu.so"  # any extension suffix will do for the guard
#: The engine's tests run again on the compiled copy (test_derivation_caches patches engine
#: internals, which compiled code doesn't see; it runs on the source only).
COMPILED_TESTS = ["tests/replay/test_golden.py", "tests/replay/test_engine.py",
                  "tests/replay/test_engine_components.py", "tests/replay/test_conformance.py",
                  "tests/replay/test_replayer.py", "tests/replay/test_verify.py",
                  "tests/replay/test_properties.py", "tests/replay/test_rules_details.py",
                  "tests/replay/test_abilities.py", "tests/replay/test_revisions.py",
                  "tests/replay/test_snapshots.py", "tests/replay/test_state_gc.py",
                  "tests/replay/test_queries_statics.py", "tests/replay/test_battle_log.py"]


def _fake_build(tmp_path: Path, source_age: float, extension_age: float) -> Path:
    """A package directory with ``queries.py`` and a compiled ``queries`` file, each last
    changed ``age`` seconds ago."""
    package = tmp_path / "pkg"
    package.mkdir()
    source, extension = package / "queries.py", package / f"queries{SUFFIX}"
    source.write_text("X = 1\n")
    extension.write_bytes(b"\x7fELF")
    now = source.stat().st_mtime
    os.utime(source, (now - source_age, now - source_age))
    os.utime(extension, (now - extension_age, now - extension_age))
    return package


def test_a_compiled_module_older_than_its_source_is_refused(tmp_path):
    package = _fake_build(tmp_path, source_age=10, extension_age=60)
    with pytest.raises(StaleBuildError, match=r"queries\.py changed after it was compiled"):
        check_build(package)


@pytest.mark.parametrize("extension_age", [0, TOLERANCE_S / 2])
def test_a_compiled_module_as_new_as_its_source_is_used(tmp_path, extension_age):
    # A wheel writes both files within moments, in either order.
    check_build(_fake_build(tmp_path, source_age=TOLERANCE_S / 2, extension_age=extension_age))


def test_importing_the_game_with_a_stale_build_says_so_in_one_line(tmp_path):
    """In a real process: the guard runs before Python would load the stale file."""
    copy = tmp_path / "checkout"
    for package in ("ledger", "replay"):
        shutil.copytree(ROOT / package, copy / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    stale = copy / "replay" / "wotf" / f"queries{SUFFIX}"
    stale.write_bytes(b"\x7fELF")
    source_time = (copy / "replay" / "wotf" / "queries.py").stat().st_mtime
    os.utime(stale, (source_time - 60, source_time - 60))
    run = subprocess.run([sys.executable, "-c", "import replay.wotf"], cwd=copy,
                         env={**os.environ, "PYTHONPATH": str(copy)}, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("replay.errors.StaleBuildError: ") and "queries.py changed" in last


def test_no_compiled_module_annotates_an_amount_as_float():
    """Compiled code turns an int passed where ``float`` is annotated into a float (3 becomes
    3.0), which would change what a match derives and records: amounts are ``int | float``."""
    found = []
    for name in COMPILED:
        path = ROOT / (name.replace(".", "/") + ".py")
        for node in ast.walk(ast.parse(path.read_text())):
            annotations = []
            if isinstance(node, ast.AnnAssign):
                annotations.append(node.annotation)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                annotations += [a.annotation for a in node.args.args + node.args.kwonlyargs
                                + node.args.posonlyargs if a.annotation is not None]
                if node.returns is not None:
                    annotations.append(node.returns)
            for annotation in annotations:
                text = ast.unparse(annotation)
                if "float" in text and "int | float" not in text:
                    found.append(f"{path.name}:{annotation.lineno}: {text}")
    assert not found, "amounts annotated float in compiled modules: " + "; ".join(found)


def test_setup_compiles_exactly_the_listed_modules(monkeypatch):
    """``setup.py`` reads ``COMPILED`` from the file; each entry is a module of the engine, and
    without ``WONDERS_COMPILE=1`` nothing is compiled."""
    import setuptools

    calls = []
    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: calls.append(kwargs))
    monkeypatch.delenv("WONDERS_COMPILE", raising=False)
    scope = runpy.run_path(str(ROOT / "setup.py"))
    assert calls == [{"ext_modules": []}]
    paths = scope["compiled_paths"]()
    assert paths == [name.replace(".", "/") + ".py" for name in COMPILED]
    assert all((ROOT / path).is_file() for path in paths)
    assert "replay/wotf/engine.py" not in paths  # Engine.close empties its __dict__


def test_a_plain_install_runs_the_source():
    import replay.wotf.queries  # noqa: F401 - the engine loaded

    if any(ROOT.joinpath("replay", "wotf").glob("*.so")):
        pytest.skip("this checkout is built with WONDERS_COMPILE=1 (compiled modules present)")
    assert compiled_modules() == []


def _compiler_missing() -> str | None:
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypy is not installed (pip install -r requirements-lint.lock gives mypyc)"
    if shutil.which(os.environ.get("CC", "cc")) is None:
        return "no C compiler (apt-get install -y gcc)"
    return None


SIMULATE = textwrap.dedent("""
    import sys
    from pathlib import Path
    from ledger.filestore import FileStore
    from replay.simulate import simulate_matches
    from replay.wotf.cards import default_cards
    from replay.wotf.decks import load_decks
    db = default_cards()
    for ruleset in ("1.3.2", "1.2"):
        store = FileStore(Path(sys.argv[1]) / ruleset)
        for _ in simulate_matches(store, db, load_decks(None, db), 6, 19, ruleset,
                                  bots=("greedy", "random"), prefix="n"):
            pass
    from replay.native import compiled_modules
    import replay.wotf.game  # every engine module imported
    print(",".join(compiled_modules()))
""")


def test_the_compiled_build_derives_what_the_source_does(tmp_path):
    why = _compiler_missing()
    if why is not None:
        if os.environ.get("WONDERS_REQUIRE_MYPYC") == "1":
            pytest.fail(f"WONDERS_REQUIRE_MYPYC=1 but {why}", pytrace=False)
        pytest.skip(f"the compiled build is not tested: {why}")
    # Two copies of this checkout's sources (never its own compiled files, if it has any):
    # one compiled, one left plain.
    copy, plain = tmp_path / "checkout", tmp_path / "plain"
    for target in (copy, plain):
        shutil.copytree(ROOT, target, ignore=shutil.ignore_patterns(
            ".git", ".venv", "__pycache__", "*.so", "build", ".mypy_cache", ".pytest_cache",
            ".hypothesis", ".ruff_cache", "wonders-data", "mutants"))
    if (ROOT.parent / "shared").is_dir():  # the conformance examples beside the checkout
        (tmp_path / "shared").symlink_to(ROOT.parent / "shared")
    env = {**os.environ, "PYTHONPATH": str(copy), "WONDERS_COMPILE": "1"}

    built = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                           cwd=copy, env=env, capture_output=True, text=True, timeout=1200)
    assert built.returncode == 0, built.stderr[-3000:]

    # The same corpus, simulated by the compiled engine and by the plain source.
    run = subprocess.run([sys.executable, "-c", SIMULATE, str(tmp_path / "compiled")], cwd=copy,
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == ",".join(COMPILED)  # every listed module ran compiled
    here = subprocess.run([sys.executable, "-c", SIMULATE, str(tmp_path / "source")], cwd=plain,
                          env={**os.environ, "PYTHONPATH": str(plain)}, capture_output=True,
                          text=True, timeout=600)
    assert here.returncode == 0, here.stderr[-3000:]
    assert here.stdout.strip() == ""  # ...and here none did
    compiled = sorted(p.relative_to(tmp_path / "compiled") for p in (tmp_path / "compiled").rglob("*.jsonl"))
    source = sorted(p.relative_to(tmp_path / "source") for p in (tmp_path / "source").rglob("*.jsonl"))
    assert compiled == source and len(compiled) == 12
    for name in compiled:
        assert (tmp_path / "compiled" / name).read_bytes() == (tmp_path / "source" / name).read_bytes(), name

    # The engine's tests and the golden matches, on the compiled engine.
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "-o", "addopts=", "-x", *COMPILED_TESTS], cwd=copy, env=env, capture_output=True,
                           text=True, timeout=1200)
    assert tests.returncode == 0, tests.stdout[-4000:]
