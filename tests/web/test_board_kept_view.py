"""The head's board, drawn through the engine the server holds (web/api/boards.py), is the
board of the match file folded afresh -- on the writing server and on another one reading the
same store (which extends its own re-derivation), after decisions, a judge's take-backs
(the recorder's engine replaced) and a judge's reveal and moves (``known``).

Two real ``wonders serve`` processes on one file store; after every write each server is asked
for the state of every role (seat A, seat B, the judge, and the public with no delay) and its
``board`` must equal the fold of the file as it is then (:class:`replay.timeline.Timeline`,
drawn by ``Game.board`` with a fresh view and ``Game.known``)."""

from __future__ import annotations

import random

import pytest

from ledger.filestore import FileStore
from replay.games import game_of
from replay.timeline import Timeline
from replay.wotf.cards import default_cards
from tests.web.live_http import call as _call
from tests.web.serve_process import serving
from tests.web.test_api import choose
from tests.web.test_api_serve import ORGANIZER

POOL = default_cards()


@pytest.fixture
def servers(tmp_path):
    with serving(tmp_path / "store", ORGANIZER, 2, WONDERS_SPECTATOR_DELAY="0") as started:
        yield [base for base, _line in started], tmp_path / "store"


def expected_boards(path) -> dict[str, dict]:
    """Every perspective's board of the file folded afresh (a fresh view), with what the
    perspective knows (``known``) as the state answer shows it."""
    stored = list(FileStore.read_file(path))
    timeline = Timeline(stored)
    game = game_of(timeline.opened)
    cards = game.match_cards(timeline.opened, POOL)
    out = {}
    for perspective in ("A", "B", "omniscient", "spectator"):
        picture = game.board(timeline.state, cards, perspective)
        if perspective != "omniscient":
            known = game.known(timeline.state, cards, perspective, timeline.events)
            if any(known.values()):
                picture = {**picture, "known": known}
        out[perspective] = picture
    return out


def assert_boards_as_folded(bases, path, mid, tokens, where: str) -> None:
    want = expected_boards(path)
    for base in bases:
        for role, perspective in (("A", "A"), ("B", "B"), ("judge", "omniscient")):
            status, got = _call(base, "GET", f"/api/matches/{mid}/state", tokens[role])
            assert status == 200, got
            assert got["board"] == want[perspective], f"{where}: {perspective} on {base}"
        status, got = _call(base, "GET", f"/api/public/matches/{mid}/state")
        assert status == 200, got
        assert got["board"] == want["spectator"], f"{where}: the public on {base}"


def test_head_boards_equal_the_fold_after_decisions_take_backs_and_rulings(servers):
    (one, two), store = servers
    rng = random.Random(5)
    status, created = _call(one, "POST", "/api/matches", ORGANIZER, {
        "seats": [{"player": "Ann", "preset": "solfera-blaze"},
                  {"player": "Bob", "preset": "thalwind-sky"}], "previous_loser": "B"})
    assert status == 201, created
    mid, tokens = created["match_id"], created["tokens"]
    path = store / f"{mid}.jsonl"
    ends: list[int] = []  # the last seq of each batch: where a take-back may return
    took_back = ruled = 0
    for step in range(60):
        # writes alternate between the servers: each is the writer, then the reader
        base = (one, two)[step % 2]
        status, state = _call(base, "GET", f"/api/matches/{mid}/state", tokens["judge"])
        if not state["live"]:
            break
        length = state["length"]
        ends.append(length - 1)
        if step % 9 == 8 and len(ends) > 3:  # the judge takes back two or three batches
            to = ends[-rng.randint(3, min(4, len(ends)))]
            status, body = _call(base, "POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                                 {"to_seq": to, "expected_seq": length})
            assert status == 201, body
            took_back += 1
        elif step % 13 == 6:  # a ruling: B's first hand card revealed to A, then tapped
            status, judged = _call(base, "GET", f"/api/matches/{mid}/state", tokens["judge"])
            hand = judged["board"]["players"]["B"]["hand"]
            ops = [{"op": "reveal", "card": hand[0]["id"], "seat": "A"}] if hand else []
            world = [c for realm in judged["board"]["realms"] for c in realm["cards"]["A"]]
            if world:
                ops.append({"op": "tap", "card": world[0]["id"], "value": 0 if world[0]["tapped"] else 1})
            if ops:
                status, body = _call(base, "POST", f"/api/matches/{mid}/manual", tokens["judge"],
                                     {"ops": ops, "note": "test ruling", "expected_seq": length})
                assert status == 201, body
                ruled += 1
        else:
            seat = state["prompt"]["seat"]
            status, prompt = _call(base, "GET", f"/api/matches/{mid}/prompt", tokens[seat])
            status, body = _call(base, "POST", f"/api/matches/{mid}/decisions", tokens[seat],
                                 {"expected_seq": length, "decision": choose(prompt["prompt"], rng)})
            assert status == 201, body
        assert_boards_as_folded((one, two), path, mid, tokens, f"step {step}")
    assert took_back >= 3 and ruled >= 2, (took_back, ruled)
    known = expected_boards(path)["A"].get("known")
    print(f"checked {step + 1} writes ({took_back} take-backs, {ruled} rulings); A knows {known}")


def test_only_a_game_that_draws_through_an_engine_is_drawn_so():
    from replay.games import game
    from web.api.boards import head_engine
    assert callable(game("wotf").head_board) and callable(game("wotf").head_known)
    assert getattr(game("sow"), "head_board", None) is None  # its View keeps nothing

    sow = game("sow")

    class Table:  # a State of Wonder table at its head: drawn through Game.board, no engine
        game, length, timeline = sow, 5, None
    assert head_engine(Table(), 4) is None  # type: ignore[arg-type]
