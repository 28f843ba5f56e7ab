"""The rules engine's optional compiled build: which modules run compiled, and a guard against
running compiled code that no longer matches its source.

``WONDERS_COMPILE=1 pip install --no-deps --no-build-isolation -e .`` (the dependencies and
mypy installed first: ``docs/deploy.md``) compiles the Wonders engine's hot modules with mypyc
(:data:`COMPILED`, which ``setup.py`` reads).  The
compiled modules are the same source, so a match derives the same events either way
(``tests/replay/test_native.py`` runs the golden matches, the engine's tests and a simulated
corpus byte for byte through a compiled build); a default install is plain Python.

An extension module sits beside its ``.py`` and Python imports it first.  In a source checkout
built in place, editing the ``.py`` afterwards would leave the old compiled code running, so
:func:`check_build` refuses a package whose compiled module is older than its source.

Two rules keep the compiled build the same program as the source:

* an amount that may be an int is annotated ``int | float``, never ``float`` -- compiled code
  turns an int passed as ``float`` into a float (``3`` becomes ``3.0``, and a recorded event
  would encode differently);
* a class that empties its own ``__dict__`` (``Engine.close``) stays in a plain module:
  compiled classes have none.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from pathlib import Path

from replay.errors import StaleBuildError

#: The modules the compiled build compiles: where re-deriving a match spends its time
#: (bench/replay_bench.py); not ``replay.wotf.engine`` (the second rule above).  A literal:
#: ``setup.py`` reads it without importing the package.
COMPILED = ("replay.wotf.actions", "replay.wotf.battle", "replay.wotf.bus", "replay.wotf.effects",
            "replay.wotf.evolve", "replay.wotf.match", "replay.wotf.movement", "replay.wotf.moves",
            "replay.wotf.queries", "replay.wotf.scripts", "replay.wotf.selectors",
            "replay.wotf.statics")

#: Seconds a compiled module may be older than its source before it is refused: installing
#: a wheel writes both files within moments, in either order; an edit comes later.
TOLERANCE_S = 2.0

_SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def compiled_modules(package: str = "replay.wotf") -> list[str]:
    """The imported modules of ``package`` that were loaded from compiled extension files."""
    prefix = package + "."
    return sorted(name for name, module in list(sys.modules.items())
                  if name.startswith(prefix) and is_compiled(module))


def is_compiled(module: object) -> bool:
    """Whether a module was loaded from a compiled extension file."""
    return str(getattr(module, "__file__", "") or "").endswith(_SUFFIXES)


def check_build(directory: str | os.PathLike) -> None:
    """Refuse a package directory whose compiled module is older than its source
    (:class:`~replay.errors.StaleBuildError`, naming the files and how to rebuild)."""
    root = Path(directory)
    stale = []
    for extension in _extensions(root):
        source = root / (extension.name.split(".", 1)[0] + ".py")
        if source.exists() and source.stat().st_mtime > extension.stat().st_mtime + TOLERANCE_S:
            stale.append(source.name)
    if stale:
        raise StaleBuildError(
            f"{root}: {', '.join(sorted(stale))} changed after it was compiled, and Python would "
            f"run the old compiled code; rebuild (WONDERS_COMPILE=1 pip install --no-deps "
            f"--no-build-isolation -e .) or remove the compiled files ({root}/*.so) to run the "
            f"source")


def _extensions(root: Path) -> list[Path]:
    try:
        names = os.listdir(root)
    except OSError:
        return []
    return [root / name for name in names if name.endswith(_SUFFIXES)]
