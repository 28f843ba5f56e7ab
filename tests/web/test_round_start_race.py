"""Two desks on two servers starting the same round at the same moment.

Each start created the round's matches before appending ``RoundStarted``: the one that
appended second was refused (409) after creating every match, and the other took the tables as
"created earlier" and showed no tokens -- live tables nobody had links for.  A start now claims
the round first (its pairing and ``RoundStarted`` in one append) and only the claimant creates
the matches: exactly one start answers 201 with every table's tokens, the other is refused in
one line before creating anything.  Raced many times on two real server processes over a
PostgreSQL store and over a file store.  A start that stopped between its claim and its
matches: a later start says so, and a reissue creates the missing match and shows its links.
"""

from __future__ import annotations

import threading

from ledger.filestore import FileStore
from ledger.tournament import tournament_book
from tests.security.live import LiveApi, LiveServer
from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import DECKS, NAMES, call, decklist

TRIALS = 10
RACED = "was started at the same moment by another desk"
UNFINISHED = "was started by another desk (just now, or a start that stopped half-way)"


def _tournament(desk, tid: str, players: int = 4) -> None:
    assert call(desk, "POST", "/api/tournaments", {"name": tid, "tournament_id": tid})[0] == 201
    for player, deck in list(zip(NAMES, DECKS, strict=True))[:players]:
        status, data = call(desk, "POST", f"/api/tournaments/{tid}/players",
                            {"player": player, "decklist": decklist(deck)})
        assert status == 201, data


def _race(desks, tid: str) -> list[tuple[int, dict]]:
    go = threading.Barrier(2)
    answers: list = [None, None]

    def start(i: int) -> None:
        go.wait(timeout=10)
        answers[i] = call(desks[i], "POST", f"/api/tournaments/{tid}/rounds")

    threads = [threading.Thread(target=start, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def _check(desks, tid: str, answers) -> bool:
    """Exactly one start won and showed every table's tokens; the other was refused in one
    line (raced) or found the round already under way.  True if they raced."""
    t = call(desks[0], "GET", f"/api/tournaments/{tid}")[1]
    live = {tb["match_id"] for tb in t["rounds"][0]["tables"]}
    shown = {table["match_id"] for status, data in answers if status == 201
             for table in data["tables"] if table["tokens"]}
    assert shown == live, f"live tables whose tokens nobody was shown: {live - shown}"
    won = [data for status, data in answers if status == 201]
    lost = [(status, data["message"]) for status, data in answers if status != 201]
    assert len(won) == 1 and len(lost) == 1, answers
    status, message = lost[0]
    assert (status == 409 and (RACED in message or UNFINISHED in message)) or \
        (status == 422 and "round 1 is not over" in message), lost
    assert "\n" not in message
    return status == 409


def _race_many(store) -> None:
    servers = [LiveServer(store), LiveServer(store)]
    try:
        desks = [LiveApi(server) for server in servers]
        raced = 0
        for trial in range(TRIALS):
            tid = f"race-{trial}"
            _tournament(desks[trial % 2], tid)
            raced += _check(desks, tid, _race(desks, tid))
        assert raced, "the two starts never raced"
    finally:
        for server in servers:
            server.stop()


def test_two_servers_starting_a_round_at_once_on_postgresql(pg_url):
    _race_many(pg_url)


def test_two_servers_starting_a_round_at_once_on_a_file_store(tmp_path):
    _race_many(tmp_path / "store")


def test_a_start_that_stopped_after_its_claim_is_finished_by_a_reissue(tmp_path):
    api = Api(new_app(tmp_path))
    _tournament(api, "halfway")
    book = tournament_book(FileStore(tmp_path / "store"))
    length = len(book.events("halfway"))
    book.append("halfway", length, [  # what a start killed right after its claim leaves
        {"type": "RoundPaired", "round": 1, "bye": None,
         "tables": [{"table": 1, "a": "Ann", "b": "Bob"}, {"table": 2, "a": "Cleo", "b": "Dev"}]},
        {"type": "RoundStarted", "round": 1,
         "matches": {"1": "halfway-r1-t01", "2": "halfway-r1-t02"}}])
    status, data = call(api, "POST", "/api/tournaments/halfway/rounds")
    assert status == 409 and UNFINISHED in data["message"] and "tables 1, 2" in data["message"]
    status, data = call(api, "POST", "/api/tournaments/halfway/revoke",
                        {"round": 1, "table": 1, "role": "A"})
    assert status == 422 and "reissue its tokens to create it" in data["message"], data
    status, data = call(api, "POST", "/api/tournaments/halfway/reissue",
                        {"round": 1, "table": 1, "role": "judge"})
    assert status == 201 and set(data["tokens"]) == {"A", "B", "judge"}, data
    state = api.call("GET", "/api/matches/halfway-r1-t01/state", data["tokens"]["A"])
    assert state[0] == 200, state
    status, data = call(api, "POST", "/api/tournaments/halfway/rounds")
    assert status == 409 and "table 2 has no match yet" in data["message"], data
