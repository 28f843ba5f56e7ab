"""Plant each bug an audit planted, one at a time, and check that the tests named for it fail.

Run as ``python tests/mutation/planted.py`` (pytest does not collect it: the file does not
match ``test_*.py``).  For each bug: the repository's files (``git ls-files``, tracked and
untracked-but-not-ignored, as they are in the working tree) are copied to a temporary
directory, the bug is applied there as an exact text substitution (the text must occur exactly
once, or the script stops with an error), and the named tests run there with
``python -m pytest`` and ``PYTHONPATH`` set to the copy -- checked first: the copy's own
``ledger``, ``replay`` and ``web`` are imported, not the editable install.  Before any bug is
planted, the same tests run on the unchanged copy and must pass (so a failure is the bug's).

Prints one JSON object: per bug, the substitution, the tests run, whether they failed (they
must), and pytest's last line.  Exit status 0 only if every planted bug was caught.

``--bug ID`` (repeatable) plants only those bugs; ``--keep`` leaves the copies in place.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BUGS = [
    {
        "bug": "1",
        "title": "the reply to POST /decisions is built from the omniscient view, not the seat's",
        "file": "web/api/seat.py",
        "old": "expected_seq)\n        narrator = Narrator(table, seat)\n",
        "new": 'expected_seq)\n        narrator = Narrator(table, "omniscient")\n',
        "tests": ["tests/web/test_api_hidden_info.py"],
    },
    {
        "bug": "2",
        "title": "a batch another process left unfinished after this store opened the match is "
                 "taken as part of the log (the check of the file's end removed)",
        "file": "ledger/filestore.py",
        "old": '        env = _parse_envelope(last[:-1], entry.path, "last line", fd, '
               'size - len(last)) \\\n            if last.endswith(b"\\n") else None\n'
               '        if env is None or env.seq != env.batch:\n',
        "new": '        env = _parse_envelope(last.rstrip(b"\\n"), entry.path, "last line", fd, '
               'size - len(last))\n        if False:\n',
        "tests": ["tests/ledger/test_torn_after_open.py",
                  "tests/security/test_torn_tail_under_a_server.py"],
    },
    {
        "bug": "3",
        "title": "the protector check runs for whoever wins the battle (a winning defender's "
                 "protector stops its own seizure)",
        "file": "replay/wotf/battle.py",
        "old": "        if winner == attacker:\n            # Protector",
        "new": "        if True:\n            # Protector",
        "tests": ["tests/replay/test_audit_gaps.py"],
    },
    {
        "bug": "4",
        "title": "the stones of a banished realm are counted",
        "file": "replay/wotf/queries.py",
        "old": "            if not r.banished:\n                count += r.stones.count(seat)",
        "new": "            if True:\n                count += r.stones.count(seat)",
        "tests": ["tests/replay/test_audit_gaps.py"],
    },
    {
        "bug": "5a",
        "title": "standings give a drawn match 3 points",
        "file": "ledger/stats.py",
        "old": "WHEN gw = gl THEN 1",
        "new": "WHEN gw = gl THEN 3",
        "tests": ["tests/ledger/test_stats_crosscheck.py"],
    },
    {
        "bug": "5b",
        "title": "--min-games drops the cards played in exactly the minimum number of games",
        "file": "ledger/stats.py",
        "old": "FROM g GROUP BY card HAVING count(*) >= $min_games",
        "new": "FROM g GROUP BY card HAVING count(*) > $min_games",
        "tests": ["tests/ledger/test_stats_crosscheck.py"],
    },
    {
        "bug": "5c",
        "title": "--min-games drops the DBS buckets with exactly the minimum number of games",
        "file": "ledger/stats.py",
        "old": "GROUP BY 1 HAVING count(*) >= $min_games ORDER BY 1",
        "new": "GROUP BY 1 HAVING count(*) > $min_games ORDER BY 1",
        "tests": ["tests/ledger/test_stats_crosscheck.py"],
    },
    {
        "bug": "5d",
        "title": "--min-games drops the match-ups with exactly the minimum number of games",
        "file": "ledger/stats.py",
        "old": "GROUP BY ALL HAVING count(*) >= $min_games ORDER BY 1, 2",
        "new": "GROUP BY ALL HAVING count(*) > $min_games ORDER BY 1, 2",
        "tests": ["tests/ledger/test_stats_crosscheck.py"],
    },
    {
        "bug": "6",
        "title": "the time of a line is written to the second, not to the millisecond",
        "file": "ledger/codec.py",
        "old": 'isoformat(timespec="milliseconds")',
        "new": 'isoformat(timespec="seconds")',
        "tests": ["tests/ledger/test_format_doc.py"],
    },
]

PYTEST = [sys.executable, "-m", "pytest", "-q", "-o", "addopts=", "-p", "no:cacheprovider"]


def repo_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, check=True, capture_output=True).stdout
    return sorted({name for name in out.decode().split("\0") if name and (ROOT / name).is_file()})


def copy_repo(files: list[str], into: Path) -> Path:
    for name in files:
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    return into


def environment(copy: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTEST_ADDOPTS", None)
    return env


def check_imports(copy: Path) -> dict[str, str]:
    """Where the copy's Python finds the packages: it must be the copy."""
    probe = ("import json, ledger, replay, web, replay.resources as r; "
             "print(json.dumps({m.__name__: m.__file__ for m in (ledger, replay, web)} | "
             "{'fixtures': str(r.data_root())}))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=copy, env=environment(copy),
                          capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    outside = {k: v for k, v in found.items() if not Path(v).resolve().is_relative_to(copy.resolve())}
    if outside:
        raise SystemExit(f"planted.py: the copy imports from outside itself: {outside}")
    return found


def plant(copy: Path, bug: dict) -> None:
    path = copy / bug["file"]
    text = path.read_text(encoding="utf-8")
    count = text.count(bug["old"])
    if count != 1:
        raise SystemExit(f"planted.py: bug {bug['bug']}: the text to replace occurs {count} times "
                         f"in {bug['file']} (expected exactly once): {bug['old']!r}")
    path.write_text(text.replace(bug["old"], bug["new"]), encoding="utf-8")


def run_tests(copy: Path, tests: list[str]) -> dict:
    started = time.monotonic()
    done = subprocess.run([*PYTEST, *tests], cwd=copy, env=environment(copy),
                          capture_output=True, text=True, timeout=900)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    failed = [line.split(" ", 1)[1].split(" - ")[0] for line in lines if line.startswith("FAILED ")]
    return {"returncode": done.returncode, "failed": done.returncode != 0,
            "failing_tests": failed, "summary": lines[-1] if lines else done.stderr[-400:],
            "seconds": round(time.monotonic() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bug", action="append", help="plant only this bug (repeatable)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copies")
    args = parser.parse_args(argv)
    bugs = [b for b in BUGS if not args.bug or b["bug"] in args.bug]
    if not bugs:
        raise SystemExit(f"planted.py: no such bug {args.bug} (have {[b['bug'] for b in BUGS]})")
    files = repo_files()
    work = Path(tempfile.mkdtemp(prefix="planted-"))
    report: dict = {"repository": str(ROOT), "files_copied": len(files), "bugs": []}
    try:
        clean = copy_repo(files, work / "clean")
        report["imports"] = check_imports(clean)
        tests = sorted({t for b in bugs for t in b["tests"]})
        baseline = run_tests(clean, tests)
        report["baseline"] = {"tests": tests, "passed": not baseline["failed"], **{
            k: baseline[k] for k in ("summary", "seconds", "failing_tests")}}
        for bug in bugs:
            copy = work / f"bug-{bug['bug']}"
            shutil.copytree(clean, copy)
            plant(copy, bug)
            check_imports(copy)
            result = run_tests(copy, bug["tests"])
            report["bugs"].append({
                "bug": bug["bug"], "title": bug["title"],
                "substitution": {"file": bug["file"], "old": bug["old"], "new": bug["new"]},
                "tests": bug["tests"], **result})
    finally:
        if args.keep:
            report["copies"] = str(work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    caught = all(b["failed"] for b in report["bugs"])
    report["all_caught"] = caught and report["baseline"]["passed"]
    print(json.dumps(report, indent=2))
    return 0 if report["all_caught"] else 1


if __name__ == "__main__":
    sys.exit(main())
