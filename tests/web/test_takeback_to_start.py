"""A judge's take-back to the start (the set-up: the coin flip and the shuffles come next) through
a real server, for both games.  The recorder draws that chance afresh, in the take-back's own
batch, as after any write: the match goes on at a seat's prompt, also after a restart, the file
verifies, and its fold (the boards) is the engine's state.  State of Wonder's set-up places
each seat's State first (events of its own): seq 0 is before them, so a take-back to seq 0 is
refused, naming the end of the set-up to take back to.

A file that an older recorder left at the set-up's chance prompt (``TakenBack`` with nothing
after it) is still read -- every role's prompt and state answer, naming the chance prompt (a
seat is offered nothing) -- and the judge's next take-back to the start gets it going again.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from ledger.events import TakenBack
from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.timeline import Timeline
from tests.security.live import ROOT, LiveApi, LiveServer
from tests.web.test_api import ORGANIZER, SEATS, choose
from tests.web.test_sow_api import sow_seats


def _create(api: LiveApi, game: str) -> tuple[str, dict]:
    body = {"game": "sow", "seats": sow_seats()} if game == "sow" else {"seats": SEATS}
    status, data = api.call("POST", "/api/matches", ORGANIZER, body)
    assert status == 201, data
    return data["match_id"], data["tokens"]


def _length(api: LiveApi, mid: str, tokens: dict) -> int:
    return api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["length"]


def _decide(api: LiveApi, mid: str, tokens: dict, rng: random.Random, count: int) -> None:
    for _ in range(count):
        pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]
        assert pending["seat"] in ("A", "B"), pending
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[pending["seat"]])[1]
        status, data = api.decide(mid, tokens[pending["seat"]], _decision(prompt["prompt"], rng),
                                  prompt["length"])
        assert status == 201, data


def _decision(prompt: dict, rng: random.Random) -> dict:
    """One of the options, or a pick sent in the ``answer`` body a game's prompt names."""
    spec = prompt.get("choose")
    if spec is not None and "answer" in prompt:
        return {**prompt["answer"], "pick": rng.sample(spec["of"], rng.randint(spec["min"],
                                                                                spec["max"]))}
    return choose(prompt, rng)


def _take_back_to_start(api: LiveApi, mid: str, tokens: dict) -> list[dict]:
    """To seq 0; in State of Wonder, whose set-up places each seat's State (events of its
    own, before any chance), to the set-up's end, which the refusal of seq 0 names."""
    def take_back(to_seq: int):
        return api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                        {"to_seq": to_seq, "expected_seq": _length(api, mid, tokens)})
    status, data = take_back(0)
    if status == 422 and "before the set-up's own events" in data["message"]:
        set_up_end = int(data["message"].split("take back to seq ")[1].split(",")[0])
        assert 0 < set_up_end < 10, data
        status, data = take_back(set_up_end)
    assert status == 201, data
    return data["events"]


def _fold_is_the_engines(store, mid: str) -> bool:
    """The record's fold (what boards show) and the engine's state agree at the end."""
    stored = list(FileStore(store).read(mid))
    replay, timeline = Replay(stored, None), Timeline(stored)
    return replay.game.freeze(replay.engine.state) == replay.game.freeze(timeline.state)


def _verify(store) -> str:
    done = subprocess.run([sys.executable, "-m", "web.cli", "verify", str(store)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("game", ["wotf", "sow"])
def test_a_take_back_to_the_start_draws_the_set_ups_chance_and_play_goes_on(tmp_path, game):
    store = tmp_path / "store"
    server = LiveServer(store, spectator_delay=0)
    try:
        api = LiveApi(server)
        mid, tokens = _create(api, game)
        rng = random.Random(1)
        _decide(api, mid, tokens, rng, 4)
        events = _take_back_to_start(api, mid, tokens)
        kinds = [e["event"]["type"] for e in events]
        assert kinds[0] == "TakenBack" and len(kinds) > 1, kinds  # chance drawn in the batch
        _decide(api, mid, tokens, rng, 3)
    finally:
        server.stop()
    server = LiveServer(store, spectator_delay=0)  # the restarted server resumes it
    try:
        _decide(LiveApi(server), mid, tokens, rng, 3)
    finally:
        server.stop()
    assert Replay(list(FileStore(store).read(mid)), None).engine.prompt.seat in ("A", "B")
    assert _fold_is_the_engines(store, mid)
    assert _verify(store).endswith("1 passed, 0 failed\n")


@pytest.mark.parametrize("game", ["wotf", "sow"])
def test_a_match_left_at_the_set_ups_chance_prompt_is_read_and_the_judge_restarts_it(tmp_path,
                                                                                      game):
    store = tmp_path / "store"
    server = LiveServer(store, spectator_delay=0)
    try:
        api = LiveApi(server)
        mid, tokens = _create(api, game)
        _decide(api, mid, tokens, random.Random(2), 2)
        files = FileStore(store)  # what an older recorder wrote: the take-back and nothing else
        files.append(mid, [TakenBack(0, "judge", "")], len(list(files.read(mid))))
        for who in ("judge", "A", "B"):
            for what in ("prompt", "state"):
                status, data = api.call("GET", f"/api/matches/{mid}/{what}", tokens[who])
                assert status == 200, (who, what, data)
                prompt = data["prompt"]
                assert prompt["seat"] == "chance" and not prompt["yours"], prompt
                assert who == "judge" or not prompt.get("options"), prompt
        status, data = api.call("GET", f"/api/public/matches/{mid}/state")
        assert status == 200, data
        _take_back_to_start(api, mid, tokens)
        _decide(api, mid, tokens, random.Random(3), 3)
    finally:
        server.stop()
    assert _fold_is_the_engines(store, mid)
    assert _verify(store).endswith("1 passed, 0 failed\n")
