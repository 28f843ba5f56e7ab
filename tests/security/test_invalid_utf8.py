"""A byte that is not UTF-8 in one line of a match file.

msgspec raises ``UnicodeDecodeError`` (not its ``DecodeError``) for invalid UTF-8 inside a
string, and the codec used to let it through: ``wonders verify DIR`` stopped at the file with
a traceback and never verified the files after it, and ``replay`` printed a traceback.  Now
it is one FAIL line naming file, line and seq ("invalid UTF-8"), and verify carries on.  The
byte is changed in an envelope string (hash left broken), in an event's string (the line
re-hashed and the file rechained: only the UTF-8 check can catch it), and in a line of an
older schema version (re-hashed likewise).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ledger.forgeries import rechain

REPO = Path(__file__).resolve().parents[2]
MATCHES = REPO / "fixtures" / "matches"
CURRENT = "golden-s3-r8-132-0001.jsonl"
OLD = "golden-132-0001.jsonl"  # schema 2: its CardMoved lines are v1


def _wonders(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "web.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False)


def _lines(name: str) -> list[bytes]:
    return (MATCHES / name).read_bytes()[:-1].split(b"\n")


def _envelope_byte() -> tuple[str, bytes, int]:
    lines = _lines(CURRENT)
    cut = len(b'{"seq":1,"type":"')
    lines[1] = lines[1][:cut] + b"\xc0" + lines[1][cut + 1:]
    return CURRENT, b"\n".join(lines) + b"\n", 2


def _event_byte_rehashed() -> tuple[str, bytes, int]:
    lines = _lines(CURRENT)
    index = next(i for i, line in enumerate(lines) if b'"type":"CardMoved"' in line)
    lines[index] = lines[index].replace(b'"name":"', b'"name":"\xff', 1)
    return CURRENT, b"\n".join(rechain(lines, index)) + b"\n", index + 1


def _old_version_byte_rehashed() -> tuple[str, bytes, int]:
    lines = _lines(OLD)
    index = next(i for i, line in enumerate(lines)
                 if b'"type":"CardMoved"' in line and b'"v":1,' in line)
    lines[index] = lines[index].replace(b'"name":"', b'"name":"\xc0', 1)
    return OLD, b"\n".join(rechain(lines, index)) + b"\n", index + 1


@pytest.mark.parametrize("damage", [_envelope_byte, _event_byte_rehashed,
                                    _old_version_byte_rehashed])
def test_verify_reports_invalid_utf8_and_carries_on(tmp_path, damage):
    name, data, line = damage()
    store = tmp_path / "store"  # each file named as its match (else: misnamed)
    store.mkdir()
    (store / name).write_bytes(data)
    shutil.copy(MATCHES / "golden-s3-r8-12-0001.jsonl", store / "golden-s3-r8-12-0001.jsonl")
    done = _wonders("verify", str(store))
    out = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in out, out
    (fail,) = [text for text in out.splitlines() if text.startswith("FAIL")]
    assert f"{name}:{line}: seq {line - 1}:" in fail and "invalid UTF-8" in fail, out
    assert any(text.startswith("OK") and "golden-s3-r8-12-0001" in text
               for text in out.splitlines()), out  # the other file was verified too
    assert "1 passed, 1 failed" in out, out


def test_replay_reports_invalid_utf8_in_one_line(tmp_path):
    name, data, line = _event_byte_rehashed()
    path = tmp_path / name
    path.write_bytes(data)
    done = _wonders("replay", str(path))
    err = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in err, err
    assert f"{name}:{line}: seq {line - 1}:" in err and "invalid UTF-8" in err, err
