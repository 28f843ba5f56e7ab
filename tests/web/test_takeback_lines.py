"""Take-backs followed through every reader, through a real server: the events that count are
the line the board's fold stands on (docs/format.md, *TakenBack*: "from here on, the state is
the state after event ``to_seq``"), whatever reads them -- the events' ``undone_by`` (``/play``,
the viewer), the warehouse (``retracted``, ``plays``), the viewer's jump index.

* A take-back to a batch end that an earlier take-back undid returns to that line: the board
  has its events again, so they are not undone and not retracted, and the line the take-back
  leaves is (the readers used to keep the earlier take-back's verdict: the board showed a card
  in play that the event list struck through and the warehouse did not count).
* After a take-back the viewer's turns go on from the turn of ``to_seq`` (they used to go on
  counting the undone turns: "round 1, turn 10" in a round whose third turn it was), and the
  jump index leaves out the undone turns, as the warehouse's ``turn`` column does; ``wonders
  replay --round R --turn N`` goes to the turn that stands, not an undone one of that number.
* State of Wonder's warehouse marks a take-back that stands as not retracted (it marked every
  take-back retracted; Wonders' did not).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import duckdb

from tests.security.live import ROOT, LiveApi, LiveServer
from tests.web.test_takeback_to_start import _create, _decision, _length


def _decide(api: LiveApi, mid: str, tokens: dict, rng: random.Random) -> int:
    """One decision by the seat to act (a play where one is offered); the end of its batch."""
    pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]
    prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[pending["seat"]])[1]
    plays = [o["decision"] for o in prompt["prompt"].get("options") or ()
             if o["decision"]["type"] in ("PlayDeclared", "PlayChosen")]
    decision = plays[0] if plays else _decision(prompt["prompt"], rng)
    status, data = api.decide(mid, tokens[pending["seat"]], decision, prompt["length"])
    assert status == 201, data
    return _length(api, mid, tokens) - 1


def _events(api: LiveApi, mid: str, tokens: dict) -> list[dict]:
    return api.call("GET", f"/api/matches/{mid}/events?limit=2000", tokens["judge"])[1]["events"]


def _take_back(api: LiveApi, mid: str, tokens: dict, to_seq: int) -> int:
    length = _length(api, mid, tokens)
    status, data = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                            {"to_seq": to_seq, "reason": "test", "expected_seq": length})
    assert status == 201, data
    return length  # the take-back's seq


def _played(events: list[dict], first: int, last: int) -> list[int]:
    return [e["seq"] for e in events[first:last + 1] if e["event"]["type"] == "CardPlayed"]


def _ingest(store, db) -> duckdb.DuckDBPyConnection:
    done = subprocess.run([sys.executable, "-m", "web.cli", "ingest", str(store), "--db", str(db)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return duckdb.connect(str(db), read_only=True)


def test_a_take_back_to_an_undone_batch_end_counts_that_line_again_in_every_reader(tmp_path):
    store = tmp_path / "store"
    server = LiveServer(store, spectator_delay=0)
    try:
        api = LiveApi(server)
        mid, tokens = _create(api, "wotf")
        rng = random.Random(3)
        for _ in range(200):  # into round 1's turns
            if any(e["event"]["type"] == "TurnsBegan" for e in _events(api, mid, tokens)):
                break
            _decide(api, mid, tokens, rng)
        start = _length(api, mid, tokens) - 1  # a batch end: a seat's turn prompt
        ends = []
        while not ends or not _played(_events(api, mid, tokens), start, ends[-1]):
            ends.append(_decide(api, mid, tokens, rng))  # until something was played
            assert len(ends) < 60
        redo = ends[-1]  # the end of the batch with a play
        ends.append(_decide(api, mid, tokens, rng))
        first = _take_back(api, mid, tokens, start)  # undoes start+1 .. first-1
        _decide(api, mid, tokens, rng)
        second = _take_back(api, mid, tokens, redo)  # back to the undone line's play
        _decide(api, mid, tokens, rng)
        events = _events(api, mid, tokens)
        timeline = api.call("GET", f"/matches/{mid}/timeline?as=spectator")[1]
    finally:
        server.stop()
    undone = {**{seq: first for seq in range(redo + 1, first)},
              **{seq: second for seq in range(first, second)}}
    assert {e["seq"]: e["undone_by"] for e in events if e["undone_by"] is not None} == undone
    assert {e["seq"]: e["undone_by"] for e in timeline["events"]
            if e["undone_by"] is not None} == undone
    redone = _played(events, start, redo)
    assert redone  # the play the board shows again
    con = _ingest(store, tmp_path / "w.duckdb")
    retracted = {seq for (seq,) in con.execute("SELECT seq FROM events WHERE retracted")
                 .fetchall()}
    assert retracted == set(undone)
    plays = {seq for (seq,) in con.execute("SELECT seq FROM plays").fetchall()}
    standing = [e for e in events if e["seq"] not in undone]
    assert plays == {e["seq"] for e in standing if e["event"]["type"] == "CardPlayed"}
    assert set(redone) <= plays


def test_turns_after_a_take_back_go_on_from_the_turn_it_returns_to(tmp_path):
    store = tmp_path / "store"
    server = LiveServer(store, spectator_delay=0)
    try:
        api = LiveApi(server)
        mid, tokens = _create(api, "wotf")
        rng = random.Random(4)
        ends = []
        while not any(e["event"]["type"] == "TurnsBegan" for e in _events(api, mid, tokens)):
            ends.append(_decide(api, mid, tokens, rng))
            assert len(ends) < 200
        ends = [_decide(api, mid, tokens, rng) for _ in range(6)]
        back = _take_back(api, mid, tokens, ends[1])  # after the round's second turn
        for _ in range(3):
            _decide(api, mid, tokens, rng)
        timeline = api.call("GET", f"/matches/{mid}/timeline?as=spectator")[1]
    finally:
        server.stop()
    undone = {e["seq"] for e in timeline["events"] if e["undone_by"] is not None}
    turns = timeline["turns"]
    assert not {t["seq"] for t in turns} & undone  # a jump goes to a turn that stands
    after = [t for t in turns if t["seq"] > back]
    before = [t for t in turns if t["seq"] <= ends[1] and t["round"] == after[0]["round"]]
    assert [t["turn"] for t in after] == \
        list(range(len(before) + 1, len(before) + 1 + len(after))), turns
    con = _ingest(store, tmp_path / "w.duckdb")
    counted = dict(con.execute("SELECT seq, turn FROM events").fetchall())
    assert all(counted[t["seq"]] == t["turn"] for t in turns), (turns, counted)
    rounds = {seq: r for seq, r in con.execute("SELECT seq, round FROM events").fetchall()}
    assert all(rounds[e["seq"]] == e["round"] for e in timeline["events"])
    again = after[0]  # a turn whose number an undone turn had too: the CLI goes to this one
    done = subprocess.run([sys.executable, "-m", "web.cli", "replay", str(store / f"{mid}.jsonl"),
                           "--round", str(again["round"]), "--turn", str(again["turn"]), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["seq"] == again["seq"]


def test_a_state_of_wonder_take_back_that_stands_is_not_retracted(tmp_path):
    store = tmp_path / "store"
    server = LiveServer(store, spectator_delay=0)
    try:
        api = LiveApi(server)
        mid, tokens = _create(api, "sow")
        rng = random.Random(5)
        ends = [_decide(api, mid, tokens, rng) for _ in range(4)]
        back = _take_back(api, mid, tokens, ends[1])
        _decide(api, mid, tokens, rng)
    finally:
        server.stop()
    con = _ingest(store, tmp_path / "w.duckdb")
    retracted = {seq for (seq,) in con.execute("SELECT seq FROM events WHERE retracted")
                 .fetchall()}
    assert retracted == set(range(ends[1] + 1, back))
