"""Recorded matches are shown as recorded (issue 12, point 4), over real files and Flask's client.

A *divergent* file here is a real simulated (or API-recorded) match with one outcome event
rewritten and the hash chain recomputed: the file is intact, only today's engine disagrees
(``replay.replayer.Replay`` raises ``Divergence`` at that seq).  Every read -- the viewer, the
API's state / events / prompt / follow, the download, the import and ``wonders replay`` --
folds the recorded events and shows such a match with a divergence mark; only writes are
refused.  The boards shown are ``replay.wotf.evolve.fold`` of the recorded events.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from ledger.codec import GENESIS, encode_line
from ledger.filestore import FileStore
from replay.replayer import Divergence, Replay
from replay.simulate import simulate_matches
from replay.wotf.cards import default_cards, match_cards
from replay.wotf.decks import load_decks
from replay.wotf.events import ResourcesChanged
from replay.wotf.evolve import fold
from replay.wotf.perspective import PERSPECTIVES, board
from tests.web.test_api import ORGANIZER, Api, choose, new_app
from web.app import create_app
from web.config import Settings

REPO = Path(__file__).resolve().parents[2]
CLEAN, DIVERGED = "m-0001", "m-0002"


def rewritten(stored: list, index: int, event) -> bytes:
    """The file with event ``index`` replaced and the hash chain recomputed (a careful forger,
    or an engine fix: the chain is intact and only the engine notices)."""
    lines, prev = [], GENESIS
    for i, s in enumerate(stored):
        line, prev = encode_line(event if i == index else s.event, s.seq, s.at, s.batch, prev)
        lines.append(line)
    return b"\n".join(lines) + b"\n"


def diverge(path: Path, after: int = 0) -> int:
    """Rewrite the first ``ResourcesChanged`` with an energy total after seq ``after``; returns
    its seq, where today's engine now disagrees with the file."""
    stored = list(FileStore.read_file(path))
    index = next(i for i, s in enumerate(stored) if i > after
                 and isinstance(s.event, ResourcesChanged) and s.event.energy is not None)
    old = stored[index].event
    path.write_bytes(rewritten(stored, index, msgspec.structs.replace(old, energy=old.energy + 7)))
    return index


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("recorded") / "store"
    db = default_cards()
    list(simulate_matches(FileStore(root), db, load_decks(None, db), 2, seed=5))
    seq = diverge(root / f"{DIVERGED}.jsonl", after=20)
    with pytest.raises(Divergence) as caught:  # the premise: only the engine notices
        Replay(list(FileStore.read_file(root / f"{DIVERGED}.jsonl")), db)
    assert caught.value.seq == seq
    Replay(list(FileStore.read_file(root / f"{CLEAN}.jsonl")), db)
    return root


@pytest.fixture(scope="module")
def where(store) -> int:
    """The seq at which today's engine disagrees with the divergent file."""
    try:
        Replay(list(FileStore.read_file(store / f"{DIVERGED}.jsonl")), default_cards())
    except Divergence as exc:
        return exc.seq
    raise AssertionError("the file does not diverge")


@pytest.fixture
def api(store):
    return Api(create_app(Settings(store=store, organizer_token=ORGANIZER, secret_key="s" * 32)))


def recorded(store, match_id):
    return [s.event for s in FileStore.read_file(store / f"{match_id}.jsonl")]


def folded_board(events, seq, perspective):
    """The board the record says: the fold of the events up to ``seq``."""
    return json.loads(json.dumps(board(fold(events[:seq + 1]),
                                       match_cards(events[0], default_cards()), perspective)))


# -- the viewer ----------------------------------------------------------------------------------


def test_the_viewer_shows_a_divergent_match_with_a_banner_at_its_seq(api, where):
    response = api.client.get(f"/matches/{DIVERGED}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert f'id="divergence" role="alert" data-seq="{where}"' in html
    assert f"event #{where}</a>" in html and "recorded ResourcesChanged" in html
    assert "http://" not in html and "https://" not in html  # no external resources
    timeline = api.client.get(f"/matches/{DIVERGED}/timeline?as=omniscient").get_json()
    assert timeline["divergence"]["seq"] == where
    assert len(timeline["events"]) == timeline["last"] + 1


def test_the_viewer_marks_no_divergence_where_the_engine_agrees(api):
    html = api.client.get(f"/matches/{CLEAN}").get_data(as_text=True)
    assert 'id="divergence"' not in html
    assert api.client.get(f"/matches/{CLEAN}/step?seq=5").get_json()["divergence"] is None
    assert api.client.get(f"/matches/{CLEAN}/timeline").get_json()["divergence"] is None


@pytest.mark.parametrize("perspective", PERSPECTIVES)
def test_each_viewer_step_is_the_fold_of_the_record_even_past_the_divergence(api, store, where,
                                                                             perspective):
    events = recorded(store, DIVERGED)
    seqs = [0, 10, where - 1, where, where + 1, len(events) - 1]
    seqs += random.Random(perspective).sample(range(len(events)), 6)
    for seq in seqs:
        response = api.client.get(f"/matches/{DIVERGED}/step?seq={seq}&as={perspective}")
        assert response.status_code == 200, response.data[:300]
        step = response.get_json()
        assert step["divergence"]["seq"] == where
        assert step["board"] == folded_board(events, seq, perspective), seq
    at = api.client.get(f"/matches/{DIVERGED}/step?seq={where}&as={perspective}").get_json()
    energy = events[where].energy
    assert at["board"]["players"][events[where].seat]["energy"] == energy  # as recorded


# -- the API: state, events, match, follow --------------------------------------------------------


@pytest.mark.parametrize("perspective", PERSPECTIVES)
def test_the_public_state_of_a_divergent_match_is_the_fold_with_the_mark(api, store, where,
                                                                         perspective):
    status, data = api.call("GET", f"/api/public/matches/{DIVERGED}/state?as={perspective}")
    assert status == 200, data
    events = recorded(store, DIVERGED)
    assert data["seq"] == len(events) - 1 and not data["live"] and data["prompt"] is None
    assert data["divergence"]["seq"] == where
    assert "recorded ResourcesChanged" in data["divergence"]["message"]
    assert data["board"] == folded_board(events, data["seq"], perspective)
    status, clean = api.call("GET", f"/api/public/matches/{CLEAN}/state?as={perspective}")
    assert status == 200 and clean["divergence"] is None
    assert clean["board"] == folded_board(recorded(store, CLEAN), clean["seq"], perspective)


def test_the_events_and_the_match_of_a_divergent_match_carry_the_mark(api, store, where):
    status, data = api.call("GET", f"/api/public/matches/{DIVERGED}/events?as=omniscient")
    assert status == 200, data
    events = recorded(store, DIVERGED)
    assert [e["seq"] for e in data["events"]] == list(range(len(events)))
    assert data["events"][where]["event"]["energy"] == events[where].energy  # as recorded
    assert data["divergence"]["seq"] == where
    status, match = api.call("GET", f"/api/matches/{DIVERGED}")
    assert status == 200 and match["divergence"]["seq"] == where
    status, match = api.call("GET", f"/api/matches/{CLEAN}")
    assert status == 200 and match["divergence"] is None
    status, data = api.call("GET", f"/api/public/matches/{CLEAN}/events")
    assert status == 200 and data["divergence"] is None


def test_follow_of_a_divergent_match_sends_the_mark_then_every_event(store, where):
    app = create_app(Settings(store=store, organizer_token=ORGANIZER, secret_key="s" * 32,
                              follow_timeout=1, follow_poll=0.05))
    text = app.test_client().get(f"/api/matches/{DIVERGED}/follow?from=0").get_data(as_text=True)
    first = next(m for m in text.split("\n\n") if not m.startswith(":"))  # (comments aside)
    assert first.startswith("event: divergence\n")
    assert json.loads(first.split("data: ", 1)[1])["seq"] == where
    assert f"id: {where}\n" in text and text.rstrip().endswith("event: end\ndata: {}")


def test_the_openapi_document_describes_the_divergence_field(api):
    doc = api.client.get("/api/openapi.json").get_json()
    schemas = doc["components"]["schemas"]
    assert set(schemas["DivergenceOut"]["properties"]) == {"seq", "message"}
    for model in ("StateOut", "EventsOut", "PendingOut", "MatchSummary", "ImportedWithTokens"):
        assert "divergence" in schemas[model]["properties"], model


# -- download and import ---------------------------------------------------------------------------


def test_a_divergent_match_downloads_as_recorded_with_the_mark(api, store, where):
    response = api.client.get(f"/api/public/matches/{DIVERGED}/file")
    assert response.status_code == 200
    assert response.data == (store / f"{DIVERGED}.jsonl").read_bytes()
    assert response.headers["X-Wonders-Divergence-Seq"] == str(where)
    assert "recorded ResourcesChanged" in response.headers["X-Wonders-Divergence"]
    clean = api.client.get(f"/api/public/matches/{CLEAN}/file")
    assert clean.status_code == 200 and "X-Wonders-Divergence-Seq" not in clean.headers


def test_a_divergent_file_is_imported_and_shown_with_the_mark(store, tmp_path, where):
    target = Api(new_app(tmp_path))
    data = (store / f"{DIVERGED}.jsonl").read_bytes()
    status, out = target.call("POST", "/api/import", ORGANIZER, raw=data,
                              headers={"Content-Type": "application/x-ndjson"})
    assert status == 201, out
    assert out["match_id"] == DIVERGED and out["divergence"]["seq"] == where
    assert (out["length"] == len(recorded(store, DIVERGED)) and "wins" in out["result"]) \
        or "draw" in out["result"]
    assert (tmp_path / "store" / f"{DIVERGED}.jsonl").read_bytes() == data
    status, state = target.call("GET", f"/api/matches/{DIVERGED}/state", out["tokens"]["judge"])
    assert status == 200 and state["divergence"]["seq"] == where
    status, out = target.call("POST", "/api/import", ORGANIZER,
                              raw=(store / f"{CLEAN}.jsonl").read_bytes())
    assert status == 201 and out["divergence"] is None


# -- wonders replay ---------------------------------------------------------------------------------


def wonders(*args):
    return subprocess.run([sys.executable, "-m", "web.cli", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))


def test_wonders_replay_shows_a_divergent_file_as_recorded(store, where):
    path = store / f"{DIVERGED}.jsonl"
    events = recorded(store, DIVERGED)
    before = wonders("replay", path, "--at", 10)
    assert before.returncode == 0, before.stderr
    assert before.stdout.startswith(f"{DIVERGED} @ seq 10:") and before.stderr == ""
    for seq in (where, len(events) - 1):
        done = wonders("replay", path, "--at", seq, "--json")
        assert done.returncode == 0, done.stderr
        warning = done.stderr.strip().splitlines()
        assert len(warning) == 1 and warning[0].startswith("warning: ")
        assert f"seq {where}" in warning[0] and "shown as recorded" in warning[0]
        shown = json.loads(done.stdout)
        assert shown.pop("seq") == seq
        shown.pop("event")
        assert shown == folded_board(events, seq, "omniscient")
    clean = wonders("replay", store / f"{CLEAN}.jsonl")
    assert clean.returncode == 0 and clean.stderr == ""


# -- a live table the engine disagrees with -----------------------------------------------------------


def _record_some(api, mid, tokens, decisions=12):
    rng = random.Random(4)
    for _ in range(decisions):
        pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]
        prompt = pending["prompt"]
        status, data = api.decide(mid, tokens[prompt["seat"]], choose(prompt, rng),
                                  pending["length"])
        assert status == 201, data


def test_a_live_table_the_engine_disagrees_with_serves_reads_and_refuses_writes(tmp_path):
    first = Api(new_app(tmp_path, spectator_delay=0))
    mid, tokens = first.create()
    _record_some(first, mid, tokens)
    path = tmp_path / "store" / f"{mid}.jsonl"
    where = diverge(path)
    before = path.read_bytes()
    api = Api(new_app(tmp_path, spectator_delay=0))  # the service restarted with another engine
    events = [s.event for s in FileStore.read_file(path)]

    judge = api.state(mid, tokens["judge"])
    assert judge["live"] and judge["prompt"] is None
    assert judge["divergence"]["seq"] == where
    assert "recorded ResourcesChanged" in judge["divergence"]["message"]
    assert judge["board"] == folded_board(events, len(events) - 1, "omniscient")
    for seat, other in (("A", "B"), ("B", "A")):  # hidden information stays hidden
        view = api.state(mid, tokens[seat])
        assert view["board"] == folded_board(events, len(events) - 1, seat)
        assert view["board"]["players"][other]["hand"] is None
        assert view["divergence"]["seq"] == where
        assert "ResourcesChanged" not in view["divergence"]["message"]  # details: the judge's
        status, pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])
        assert status == 200 and pending["prompt"] is None
        assert pending["divergence"]["seq"] == where
        status, listed = api.call("GET", f"/api/matches/{mid}/events", tokens[seat])
        assert status == 200 and len(listed["events"]) == len(events)
        assert listed["divergence"]["seq"] == where
    status, public = api.call("GET", f"/api/public/matches/{mid}/state")
    assert status == 200 and public["divergence"]["seq"] == where
    assert api.client.get(f"/matches/{mid}").status_code == 200

    status, data = api.decide(mid, tokens["A"], {"type": "Passed"}, len(events))
    assert status == 409 and data["error"] == "diverged", data
    message = data["message"]
    assert "\n" not in message and f"seq {where}" in message
    assert "engine disagrees with the record" in message and "not continued" in message
    status, data = api.call("POST", f"/api/matches/{mid}/notes", tokens["judge"],
                            {"text": "looking into it"})
    assert status == 409 and data["error"] == "diverged"
    status, data = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                            {"to_seq": 0})
    assert status == 409 and data["error"] == "diverged"
    assert path.read_bytes() == before  # nothing was written
    assert api.state(mid, tokens["judge"])["length"] == len(events)
