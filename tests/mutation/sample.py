"""A seeded random sample of one module's mutants, for a mutation score in bounded time.

The ~5,000 mutants of the modules under ``[tool.mutmut] only_mutate`` take most of a day on
two cores.  A random sample of each module's mutants estimates that module's score without
bias (a run stopped early does not: mutmut runs the fastest mutants first), and the same seed
gives the same sample before and after the tests are raised.  Run from the directory
``mutmut run`` ran in, once the mutants exist (``mutmut run`` makes them all first)::

    mutmut run $(python tests/mutation/sample.py replay/wotf/battle.py)
    python tests/mutation/score.py --sample

``--n`` (default :data:`SIZE`) mutants of each named module, chosen with ``--seed``
(default :data:`SEED`) from its mutants in name order; ``score.py --sample`` scores only
them and prints a 95% Wilson interval for the module's score.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

SIZE = 60
SEED = 20261126


def mutant_names(root: Path, module: str) -> list[str]:
    """Every mutant mutmut made of ``module`` (a path such as ``replay/wotf/battle.py``)."""
    meta = root / "mutants" / f"{module}.meta"
    if not meta.exists():
        raise FileNotFoundError(f"{meta}: no mutants of {module} (run `mutmut run` first)")
    return sorted(json.loads(meta.read_text())["exit_code_by_key"])


def sample(names: list[str], size: int = SIZE, seed: int = SEED) -> list[str]:
    """``size`` of ``names`` (all of them if there are fewer), the same for the same seed."""
    if len(names) <= size:
        return list(names)
    return sorted(random.Random(seed).sample(sorted(names), size))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="+", help="paths such as replay/wotf/battle.py")
    parser.add_argument("--n", type=int, default=SIZE, help=f"mutants per module ({SIZE})")
    parser.add_argument("--seed", type=int, default=SEED, help=f"the sample's seed ({SEED})")
    parser.add_argument("--root", type=Path, default=Path.cwd(),
                        help="where mutmut ran (default: here)")
    args = parser.parse_args()
    for module in args.modules:
        try:
            names = mutant_names(args.root, module)
        except FileNotFoundError as exc:
            sys.exit(str(exc))
        print("\n".join(sample(names, args.n, args.seed)))


if __name__ == "__main__":
    main()
