"""Build hook beside pyproject.toml (which holds everything else): with ``WONDERS_COMPILE=1``
the Wonders engine's hot modules (``COMPILED`` in ``replay/native.py``) are compiled with
mypyc; ``replay/native.py`` says what that changes and what it doesn't, ``docs/deploy.md``
when to use it.  Needs mypy (mypyc comes with it; the version pinned in
requirements-lint.lock) and a C compiler.  Without the variable the package is plain Python.
"""

import ast
import os
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent


def compiled_paths() -> list[str]:
    """``replay.native.COMPILED`` as source paths, read from the file (the package's
    dependencies need not be installed to build it)."""
    tree = ast.parse((HERE / "replay" / "native.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "COMPILED" for target in node.targets):
            return [name.replace(".", "/") + ".py" for name in ast.literal_eval(node.value)]
    raise SystemExit("setup.py: replay/native.py has no COMPILED")


def ext_modules() -> list:
    if os.environ.get("WONDERS_COMPILE") != "1":
        return []
    from mypyc.build import mypycify  # only the compiled build needs it

    return mypycify(compiled_paths(), opt_level="3")


setup(ext_modules=ext_modules())
