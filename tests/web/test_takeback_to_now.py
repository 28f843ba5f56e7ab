"""A take-back to the match's last seq would undo nothing: the recorder refuses it (422 naming
the rule, docs/api.md: ``to_seq`` is the end of an *earlier* batch) and writes nothing; a file
recorded before, holding such a take-back, still verifies and reads."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys

import pytest

from ledger.events import TakenBack
from ledger.filestore import FileStore
from replay.timeline import Timeline
from tests.security.live import ROOT
from tests.web.test_api import ORGANIZER, SEATS, Api, new_app
from tests.web.test_sow_api import sow_seats
from tests.web.test_takeback_to_start import _decision


def _played(tmp_path, game: str, decisions: int = 4):
    api = Api(new_app(tmp_path))
    body = {"seats": SEATS} if game == "wotf" else {"game": "sow", "seats": sow_seats()}
    status, created = api.call("POST", "/api/matches", ORGANIZER, body)
    assert status == 201, created
    mid, tokens = created["match_id"], created["tokens"]
    rng = random.Random(5)
    for _ in range(decisions):
        seat = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]["seat"]
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
        status, out = api.call("POST", f"/api/matches/{mid}/decisions", tokens[seat],
                               {"decision": _decision(prompt["prompt"], rng),
                                "expected_seq": prompt["length"]})
        assert status == 201, out
    return api, mid, tokens


def _length(api, mid, tokens) -> int:
    return api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["length"]


@pytest.mark.parametrize("game", ["wotf", "sow"])
def test_a_take_back_to_the_last_seq_is_refused_and_nothing_is_written(tmp_path, game):
    api, mid, tokens = _played(tmp_path, game)
    length = _length(api, mid, tokens)
    path = api.app.extensions["wonders"].store.path(mid)
    before = path.read_bytes()
    status, out = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                           {"to_seq": length - 1, "reason": "oops", "expected_seq": length})
    assert status == 422, out
    assert out["message"] == (f"seq {length - 1} is the match's last event: a take-back to it "
                              f"would undo nothing; take back to the end of an earlier batch")
    assert path.read_bytes() == before
    stored = list(FileStore.read_file(path))
    batch_ends = [a.seq for a, b in itertools.pairwise(stored) if a.batch != b.batch]
    status, out = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                           {"to_seq": batch_ends[-1], "expected_seq": length})
    assert status == 201, out  # an earlier batch's end is still taken back to


def test_an_old_file_with_a_take_back_to_its_last_seq_still_verifies_and_reads(tmp_path):
    api, mid, tokens = _played(tmp_path, "wotf")
    store = api.app.extensions["wonders"].store
    length = _length(api, mid, tokens)
    store.append(mid, [TakenBack(length - 1, "judge", "recorded before the rule")], length)
    path = store.path(mid)
    events = list(FileStore.read_file(path))
    assert isinstance(events[-1].event, TakenBack) and events[-1].event.to_seq == length - 1
    done = subprocess.run([sys.executable, "-m", "web.cli", "verify", str(path.parent)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    timeline = Timeline(events)
    assert timeline.state_at(length) == timeline.state_at(length - 1)
    status, _ = api.call("GET", f"/api/public/matches/{mid}/events?as=spectator")
    assert status == 200
