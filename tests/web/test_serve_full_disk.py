"""``wonders serve`` when its store directory runs out of room (a full disk): a real server in
a subprocess whose file size is capped (``RLIMIT_FSIZE``: past the cap a ``write`` fails with
EFBIG after a short write, as it fails with ENOSPC on a full disk).

Before: the decision that met the full disk got 500 "internal error (OSError); see the server
log" and the log a traceback.  Now: 503 ``unavailable`` naming the cause and no server path,
one line in the log, and every decision acknowledged before is in the file, which verifies.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

from tests.web.live_http import call as _call

ROOT = Path(__file__).parents[2]
ORGANIZER = "full-disk-organizer-token-0123456789abc"
CAP = 40_000  # bytes: a match file passes it after a few dozen decisions


def _capped() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (CAP, CAP))


def _decision(prompt: dict) -> dict:
    if prompt["options"]:
        return prompt["options"][0]["decision"]
    choose = prompt.get("choose") or {}
    answer = dict(prompt.get("answer") or {"type": "Answered", "kind": prompt["kind"]})
    answer["pick"] = [c if isinstance(c, str) else c.get("card", c.get("id"))
                      for c in choose.get("of", [])][:choose.get("min", 0)]
    return answer


def test_a_decision_on_a_full_disk_is_503_in_one_line_and_nothing_acknowledged_is_lost(tmp_path):
    store = tmp_path / "store"
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--store", str(store),
                             "--port", "0", "--threads", "2"], cwd=ROOT, text=True,
                            env=dict(os.environ, WONDERS_ORGANIZER_TOKEN=ORGANIZER),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_capped)
    try:
        line = proc.stdout.readline()
        assert "serving" in line, line + proc.stderr.read()
        base = line.split(" on ")[1].split()[0]
        status, created = _call(base, "POST", "/api/matches", ORGANIZER, {
            "seats": [{"player": "Ann", "preset": "solfera-blaze"},
                      {"player": "Bob", "preset": "thalwind-sky"}], "previous_loser": "B"})
        assert status == 201, created
        match_id, tokens = created["match_id"], created["tokens"]
        acknowledged = 1
        for _ in range(300):
            _status, pending = _call(base, "GET", f"/api/matches/{match_id}/prompt", tokens["judge"])
            seat = pending["prompt"]["seat"]
            _status, asked = _call(base, "GET", f"/api/matches/{match_id}/prompt", tokens[seat])
            status, answer = _call(base, "POST", f"/api/matches/{match_id}/decisions", tokens[seat],
                                   {"expected_seq": pending["length"],
                                    "decision": _decision(asked["prompt"])})
            if status != 201:
                break
            acknowledged = answer["seq"]  # Recorded: the new length
        assert status == 503 and answer["error"] == "unavailable", (status, answer)
        assert "File too large" in answer["message"] and str(tmp_path) not in answer["message"]
        status, state = _call(base, "GET", f"/api/matches/{match_id}/state", tokens["judge"])
        assert status == 200 and state["length"] == pending["length"]
    finally:
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=30)
    assert "Traceback" not in err, err[-2000:]
    logged = [line for line in err.splitlines() if line.strip()]
    assert len(logged) == 1 and "File too large" in logged[0] and match_id in logged[0], logged
    verify = subprocess.run([sys.executable, "-m", "web.cli", "verify", str(store)], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert f"{pending['length']} events, in progress" in verify.stdout
    assert pending["length"] >= acknowledged > 1
