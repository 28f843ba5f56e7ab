"""``wonders serve``: a real waitress server in a subprocess; two servers on one store; racing
writers to one match get exactly one success and 409s, and the file still verifies."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.wotf.cards import default_cards
from tests.web.live_http import call as _call
from tests.web.serve_process import serving

ROOT = Path(__file__).parents[2]
ORGANIZER = "serve-test-organizer-token-0123456789"


@pytest.fixture
def two_servers(tmp_path):
    with serving(tmp_path / "store", ORGANIZER, 2) as started:
        yield [base for base, _line in started], tmp_path / "store"


def test_racing_writers_on_two_servers_get_one_success_and_409s(two_servers):
    (one, two), store = two_servers
    status, created = _call(one, "POST", "/api/matches", ORGANIZER, {
        "seats": [{"player": "Ann", "preset": "solfera-blaze"},
                  {"player": "Bob", "preset": "thalwind-sky"}], "previous_loser": "B"})
    assert status == 201
    mid, tokens = created["match_id"], created["tokens"]
    for round_ in range(4):  # each time, 8 clients on 2 servers send the same seat's decision
        status, pending = _call(two, "GET", f"/api/matches/{mid}/prompt", tokens["judge"])
        seat = pending["prompt"]["seat"]
        status, prompt = _call(one, "GET", f"/api/matches/{mid}/prompt", tokens[seat])
        option = prompt["prompt"]["options"][0]["decision"] if prompt["prompt"]["options"] else \
            {"type": "Answered", "kind": prompt["prompt"]["kind"], "pick": []}
        results = []

        def send(base, results=results, seat=seat, pending=pending, option=option):
            results.append(_call(base, "POST", f"/api/matches/{mid}/decisions", tokens[seat],
                                 {"expected_seq": pending["length"], "decision": option})[0])
        threads = [threading.Thread(target=send, args=((one, two)[i % 2],)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results) == [201] + [409] * 7, (round_, results)
    views = [_call(base, "GET", f"/api/matches/{mid}/state", tokens["judge"])[1] for base in (one, two)]
    assert views[0] == views[1]
    replay = Replay(list(FileStore.read_file(store / f"{mid}.jsonl")), default_cards())
    assert len(replay) == views[0]["length"]


def test_serve_refuses_a_bad_setting_in_one_line(tmp_path):
    env = dict(os.environ, WONDERS_SPECTATOR_DELAY="-3")
    done = subprocess.run([sys.executable, "-m", "web.cli", "serve", "--store", str(tmp_path)],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert done.stderr.strip().startswith("error: WONDERS_SPECTATOR_DELAY:")
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
