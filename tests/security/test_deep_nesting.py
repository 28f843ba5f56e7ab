"""A match file whose line nests arrays or objects thousands deep (a few hundred kilobytes of
``[``) made the import answer 500 (``internal error (RecursionError)``) and ``wonders verify``
end in a traceback: the JSON decoders of the line check raise ``RecursionError`` past their
depth, which the codec did not count as "not JSON".  Such a line is now one more line that is
not a ledger line: the import gets one line of refusal (and stores nothing), verify names the
file and line and carries on with the next file.  A JSON request body nested as deep was
already a 400; it is kept here beside them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.live import LiveApi, LiveServer
from tests.web.test_api import ORGANIZER

ROOT = Path(__file__).resolve().parents[2]
DEPTH = 100_000
#: A top-level array, and an array inside a line that starts like an event.
DEEP_LINES = {
    "array": b"[" * DEPTH + b"]" * DEPTH + b"\n",
    "inside an event": (b'{"seq":0,"type":"MatchOpened","seats":' + b"[" * DEPTH + b"]" * DEPTH
                        + b"}\n"),
    "objects": b'{"a":' * DEPTH + b"1" + b"}" * DEPTH + b"\n",
}


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    store = tmp_path_factory.mktemp("deep") / "store"
    server = LiveServer(store, threads=2)
    yield LiveApi(server)
    server.stop()


@pytest.mark.parametrize("kind", sorted(DEEP_LINES))
def test_an_import_of_a_deeply_nested_line_is_refused_in_one_line(api, kind):
    status, out = api.call("POST", "/api/import", ORGANIZER, raw=DEEP_LINES[kind],
                           headers={"Content-Type": "application/x-ndjson"})
    assert status in (400, 422), (status, out)
    assert "upload:1" in out["message"] and "\n" not in out["message"], out
    assert not list(api.server.store.glob("*.jsonl"))  # nothing stored


def test_a_deeply_nested_request_body_is_a_400(api):
    mid, tokens = api.create()
    depth = 30_000  # under the body limit (64 KiB)
    raw = b'{"expected_seq":2,"decision":' + b"[" * depth + b"]" * depth + b"}"
    status, out = api.call("POST", f"/api/matches/{mid}/decisions", tokens["B"], raw=raw)
    assert status == 400 and out["error"] == "malformed", (status, out)


def test_verify_names_the_deeply_nested_line_and_carries_on(tmp_path):
    paths = []
    for n, line in enumerate(DEEP_LINES.values()):
        path = tmp_path / f"deep{n}.jsonl"
        path.write_bytes(line)
        paths.append(str(path))
    done = subprocess.run([sys.executable, "-m", "web.cli", "verify", *paths], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done
    assert "Traceback" not in done.stdout + done.stderr, done.stderr[-2000:]
    for path in paths:
        assert f"FAIL {path}:1: " in done.stdout, done.stdout
    assert f"0 passed, {len(paths)} failed" in done.stdout + done.stderr
