"""Forged lines of an older schema version, re-hashed and rechained.

A line of the current version must be exactly the canonical encoding of its event; a line of
an older version (``CardMoved`` v1, ``MatchOpened`` v2 in a schema-2 file) was only checked to
re-encode to itself with the envelope keys in place, so an unknown key (a hidden payload),
event keys reordered or a key missing passed ``wonders verify`` as intact.  Each must fail,
naming file, line and seq (docs/format.md, "Canonical bytes").
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from tests.ledger.forgeries import rechain

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "fixtures" / "matches" / "golden-132-0001.jsonl"  # schema 2


def _card_moved_v1(lines: list[bytes]) -> int:
    return next(i for i, line in enumerate(lines)
                if b'"type":"CardMoved"' in line and b'"v":1,' in line)


def _unknown_key(lines: list[bytes]) -> tuple[int, str]:
    i = _card_moved_v1(lines)
    lines[i] = lines[i].replace(b',"v":1,', b',"evil":"hidden payload","v":1,', 1)
    return i, "unknown key 'evil'"


def _reordered(lines: list[bytes]) -> tuple[int, str]:
    i = _card_moved_v1(lines)
    lines[i] = re.sub(rb'("card":"[^"]*"),("name":"[^"]*")', rb"\2,\1", lines[i], count=1)
    return i, "keys out of order"


def _missing(lines: list[bytes]) -> tuple[int, str]:
    i = _card_moved_v1(lines)
    assert b',"from_realm":null' in lines[i]
    lines[i] = lines[i].replace(b',"from_realm":null', b"", 1)
    return i, "missing key 'from_realm'"


def _unknown_key_inside(lines: list[bytes]) -> tuple[int, str]:
    """MatchOpened v2: a seat gains a key (the top-level keys are all in place)."""
    raw = msgspec.json.decode(lines[0])
    assert raw["v"] == 2
    raw["seats"][0]["evil"] = "hidden payload"
    lines[0] = msgspec.json.encode(raw)
    return 0, "'seats' is not the canonical encoding of its value"


@pytest.mark.parametrize("forge", [_unknown_key, _reordered, _missing, _unknown_key_inside])
def test_verify_fails_on_a_forged_line_of_an_older_schema(tmp_path, forge):
    lines = GOLDEN.read_bytes()[:-1].split(b"\n")
    index, words = forge(lines)
    path = tmp_path / GOLDEN.name
    path.write_bytes(b"\n".join(rechain(lines, index)) + b"\n")
    done = subprocess.run([sys.executable, "-m", "web.cli", "verify", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False)
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    (fail,) = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert f"{path.name}:{index + 1}: seq {index}: not a canonical line: {words}" in fail, out
