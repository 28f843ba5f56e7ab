"""The mutation score per module, from a finished (or partial) ``mutmut run``.

Run from the directory ``mutmut run`` ran in (it reads ``mutants/**/*.py.meta``)::

    python tests/mutation/score.py [--json] [--survivors]

For every module in ``[tool.mutmut] only_mutate`` it prints the mutants mutmut made, how many
it has checked, and of those: killed, survived, timed out, without tests, and the mutants
accepted as equivalent (``tests/mutation/equivalent.toml``: module -> mutant -> why; an
equivalent mutant changes no behaviour a test could see, and each entry says why).  The score
is killed / (checked - equivalent), timeouts counted as killed (the mutant made the tests hang).
``--survivors`` lists every surviving mutant that is not accepted as equivalent, with
``mutmut show <name>`` to see its diff.  ``--sample`` scores only each module's seeded random
sample (``tests/mutation/sample.py``, same ``--n`` and ``--seed``) and adds the 95% Wilson
interval of the module's score that the sample gives.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections import Counter
from math import sqrt
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample import SEED, SIZE, sample

HERE = Path(__file__).resolve().parent
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
          36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout",
          37: "caught by type check", None: "not checked"}


def equivalents() -> dict[str, dict[str, str]]:
    path = HERE / "equivalent.toml"
    return tomllib.loads(path.read_text()) if path.exists() else {}


def wilson(killed: int, scored: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``killed / scored`` (``scored`` > 0)."""
    p = killed / scored
    centre = (p + z * z / (2 * scored)) / (1 + z * z / scored)
    half = z * sqrt(p * (1 - p) / scored + z * z / (4 * scored * scored)) / (1 + z * z / scored)
    return round(centre - half, 3), round(centre + half, 3)


def module_scores(root: Path, size: int | None = None, seed: int = SEED) -> list[dict]:
    """One row per mutated module, from mutmut's meta files under ``root/mutants`` (with
    ``size``: over each module's seeded sample of that many mutants only)."""
    accepted = equivalents()
    rows = []
    for meta in sorted((root / "mutants").rglob("*.py.meta")):
        module = str(meta.relative_to(root / "mutants"))[: -len(".meta")]
        if module.startswith("tests/"):
            continue
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        if size is not None:
            codes = {name: codes[name] for name in sample(list(codes), size, seed)}
        statuses = {name: STATUS.get(code, "suspicious") for name, code in codes.items()}
        count = Counter(statuses.values())
        # Only a mutant that was checked and not killed counts as equivalent (one not checked
        # yet is not in `checked`; a killed one is an entry gone stale, counted as killed).
        equivalent = {name for name in accepted.get(module, {})
                      if statuses.get(name) in ("survived", "no tests", "suspicious")}
        checked = len(codes) - count["not checked"]
        killed = count["killed"] + count["timeout"] + count["caught by type check"]
        survivors = sorted(n for n, s in statuses.items()
                           if s in ("survived", "no tests", "suspicious") and n not in equivalent)
        scored = checked - len(equivalent)
        rows.append({
            "module": module, "mutants": len(codes), "checked": checked, "killed": killed,
            "survived": count["survived"], "no_tests": count["no tests"],
            "timeout": count["timeout"], "equivalent": len(equivalent),
            "score": round(killed / scored, 3) if scored > 0 else None,
            "survivors": survivors,
            "interval": wilson(killed, scored) if scored > 0 else None,
        })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument("--survivors", action="store_true", help="list surviving mutants")
    parser.add_argument("--sample", action="store_true",
                        help="score each module's seeded random sample only (sample.py)")
    parser.add_argument("--n", type=int, default=SIZE, help=f"the sample's size ({SIZE})")
    parser.add_argument("--seed", type=int, default=SEED, help=f"the sample's seed ({SEED})")
    parser.add_argument("--root", type=Path, default=Path.cwd(),
                        help="where mutmut ran (default: here)")
    args = parser.parse_args()
    if not (args.root / "mutants").is_dir():
        sys.exit(f"no mutants/ under {args.root}: run `mutmut run` there first")
    rows = module_scores(args.root, args.n if args.sample else None, args.seed)
    if args.json:
        print(json.dumps({r["module"]: {k: v for k, v in r.items()
                                        if k != "module" and (args.survivors or k != "survivors")}
                          for r in rows}))
        return
    print(f"{'module':34} {'mutants':>7} {'checked':>7} {'killed':>6} {'survived':>8} "
          f"{'no tests':>8} {'equiv':>5} {'score':>6}" + ("  95% interval" if args.sample else ""))
    for r in rows:
        score = "-" if r["score"] is None else f"{r['score']:.1%}"
        print(f"{r['module']:34} {r['mutants']:7} {r['checked']:7} {r['killed']:6} "
              f"{r['survived']:8} {r['no_tests']:8} {r['equivalent']:5} {score:>6}"
              + (f"  {r['interval'][0]:.1%}-{r['interval'][1]:.1%}"
                 if args.sample and r["interval"] else ""))
        if args.survivors:
            for name in r["survivors"]:
                print(f"    survived: mutmut show {name}")


if __name__ == "__main__":
    main()
