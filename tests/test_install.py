"""A non-editable ``pip install`` into a fresh venv works anywhere (issue 12, point 8).

The venv reuses the dependencies already installed (``--system-site-packages``) and the wheel is
built from a copy of the checkout (so the build leaves nothing in it), without network when the
running setuptools can build wheels (``.[test]`` asks for one that can).  Every command then runs
as a real subprocess, with the venv's ``wonders``, from a directory outside the checkout, so only
the installed package and its package data can be found.  About 15 s.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NOT_COPIED = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__",
                                    ".pytest_cache", ".hypothesis", ".benchmarks", ".venv",
                                    "wonders-data")
TIMEOUT = 120  # seconds for any one subprocess (the whole module takes about 15 s)


def _can_build_offline() -> bool:
    """setuptools ≥ 70.1 builds wheels by itself (before that it needs the ``wheel`` package)."""
    try:
        version = tuple(int(p) for p in metadata.version("setuptools").split(".")[:2])
    except (metadata.PackageNotFoundError, ValueError):
        return False
    return version >= (70, 1)


class Installed:
    def __init__(self, venv: Path, outside: Path):
        self.venv, self.outside = venv, outside
        self.bin = venv / "bin"
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("PYTHONPATH", "PYTHONHOME", "WONDERS_CARDS")}

    def run(self, *args, env: dict | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([str(a) for a in args], cwd=self.outside, capture_output=True,
                              text=True, timeout=TIMEOUT, env=dict(self.env, **(env or {})))

    def wonders(self, *args, env: dict | None = None) -> subprocess.CompletedProcess:
        return self.run(self.bin / "wonders", *args, env=env)

    def python(self, code: str) -> str:
        done = self.run(self.bin / "python", "-c", code)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()


def _see_the_running_environment(venv: Path) -> None:
    """Let the new venv import what the running one has installed (the pinned dependencies and
    setuptools), not only the base interpreter's packages: ``--system-site-packages`` of a venv
    made from a venv reaches the base interpreter's site-packages, which may lack them (Debian's
    or pyenv's Python with an old setuptools and no ``wheel``).  A path line in a ``.pth`` file
    is added to ``sys.path`` without running the ``.pth`` files there, so the running venv's
    editable install of this checkout stays invisible."""
    purelib = sysconfig.get_paths()["purelib"]
    (site,) = (venv / "lib").glob("python3*/site-packages")
    (site / "running-environment.pth").write_text(purelib + "\n")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    root = tmp_path_factory.mktemp("install")
    assert not root.resolve().is_relative_to(REPO)
    source, venv, outside = root / "source", root / "venv", root / "outside"
    shutil.copytree(REPO, source, ignore=NOT_COPIED)
    outside.mkdir()
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True, timeout=TIMEOUT)
    _see_the_running_environment(venv)
    build = ["--no-build-isolation"] if _can_build_offline() else []
    inst = Installed(venv, outside)
    done = inst.run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-deps",
                    *build, source, env={"PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    shutil.rmtree(source)  # nothing may be read from the sources now
    return inst


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_the_installed_package_is_the_venvs_not_the_checkout(installed):
    prefix = installed.venv.resolve()
    paths = installed.python(
        "import ledger, replay, web, wonders_fixtures\n"
        "from importlib import resources\n"
        "from replay import resources as r\n"
        "for p in (ledger.__file__, replay.__file__, web.__file__, wonders_fixtures.__file__,\n"
        "          resources.files('wonders_fixtures'), r.data_root(), r.cards_dir(),\n"
        "          r.decks_dir(), r.golden_dir(), r.conformance_dir()):\n"
        "    print(p)")
    for path in paths.splitlines():
        assert Path(path).resolve().is_relative_to(prefix), path
        assert not Path(path).resolve().is_relative_to(REPO), path
    assert installed.python("import sys; print(sys.prefix)") == str(installed.venv)


def test_demo_simulate_and_verify_run_from_the_installed_package(installed):
    demo = installed.wonders("demo", "--no-serve", "--dir", "demo", "--players", "2",
                             "--rounds", "1")
    assert demo.returncode == 0, demo.stderr
    assert "played 1 match: tournament demo-cup" in demo.stdout and "ingested into" in demo.stdout
    assert (installed.outside / "demo" / "warehouse.duckdb").is_file()

    sim = installed.wonders("simulate", "--matches", "2", "--seed", "3", "--out", "store")
    assert sim.returncode == 0, sim.stderr
    assert "wrote 2 match files" in sim.stdout
    verify = installed.wonders("verify", "store", "demo")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert verify.stdout.splitlines()[-1] == "3 passed, 0 failed"


def test_the_shipped_golden_matches_verify(installed):
    golden = Path(installed.python("from replay.resources import golden_dir; print(golden_dir())"))
    assert golden.resolve().is_relative_to(installed.venv.resolve())
    count = len(list(golden.glob("*.jsonl")))
    assert count == len(list((REPO / "fixtures" / "matches").glob("*.jsonl"))) > 0
    verify = installed.wonders("verify", golden)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert verify.stdout.splitlines()[-1] == f"{count} passed, 0 failed"


def test_the_shipped_pool_and_decks_validate(installed):
    done = installed.wonders("cards", "validate")
    assert done.returncode == 0, done.stderr
    count = int(re.match(r"(\d+) cards OK$", done.stdout.splitlines()[0]).group(1))
    assert count > 0
    # "deck Solfera Blaze (solfera-blaze) OK": a shipped deck by its title and its id
    decks = [line for line in done.stdout.splitlines()
             if re.match(r"deck (.+ \([a-z0-9-]+\)|'.+') OK$", line)]
    assert len(decks) == len(list((REPO / "fixtures" / "decks").glob("*.toml")))
    # State of Wonder's cards and decks ship as package data too.
    done = installed.wonders("cards", "validate", "--game", "sow")
    assert done.returncode == 0, done.stderr
    assert int(re.match(r"(\d+) cards OK$", done.stdout.splitlines()[0]).group(1)) >= 40
    # "deck Solfera Blaze (solfera-blaze) OK": a shipped deck by its title and its id
    decks = [line for line in done.stdout.splitlines()
             if re.match(r"deck (.+ \([a-z0-9-]+\)|'.+') OK$", line)]
    assert len(decks) == len(list((REPO / "fixtures" / "sow" / "decks").glob("*.toml"))) >= 3


def test_the_card_catalogue_ships_and_a_tournament_runs_from_the_install(installed, tmp_path):
    count = installed.python("from web.tournaments import shipped_catalogue\n"
                             "print(len(shipped_catalogue()))")
    assert count == "478"
    store = tmp_path / "store"
    done = installed.wonders("tournament", "create", "Install Cup", "--store", store)
    assert done.returncode == 0 and "install-cup" in done.stdout, done.stderr
    done = installed.wonders("tournament", "standings", "install-cup", "--store", store)
    assert done.returncode == 0, done.stderr


def test_the_shipped_conformance_cases_run(installed):
    done = installed.wonders("conformance", "--quiet")
    assert done.returncode == 0, done.stdout[-3000:]
    passed = int(re.match(r"(\d+) passed, 0 failed$", done.stdout.splitlines()[-1]).group(1))
    assert passed >= 80
    done = installed.wonders("conformance", "--quiet", "--game", "sow")
    assert done.returncode == 0, done.stdout[-3000:]
    passed = int(re.match(r"(\d+) passed, 0 failed$", done.stdout.splitlines()[-1]).group(1))
    assert passed >= 60


def test_an_empty_card_pool_is_one_line_error(installed):
    empty = installed.outside / "empty-pool"
    empty.mkdir()
    no_cards = installed.outside / "no-cards"
    no_cards.mkdir()
    (no_cards / "nothing.toml").write_text("# a card file without cards\n")
    for pool in (empty, no_cards):
        for args, env in ((["cards", "validate", "--cards", pool], None),
                          (["cards", "validate"], {"WONDERS_CARDS": str(pool)}),
                          (["verify", "--cards", pool, "store-that-is-not-there"], None)):
            done = installed.wonders(*args, env=env)
            assert done.returncode != 0, (args, env, done.stdout)
            assert "cards OK" not in done.stdout
            lines = _lines(done.stderr)
            assert len(lines) == 1 and lines[0].startswith("error: "), (args, env, done.stderr)
            assert str(pool) in lines[0] and "empty" in lines[0], lines[0]
