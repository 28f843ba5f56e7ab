"""A running ``wonders serve`` and a batch another process never finished.

The server opened the match (it created it and recorded decisions); then another process --
a second server on the store, a crashed tool -- dies while appending to the match file,
leaving half a line, a whole batch without its newline, or the first lines of a batch.  None of
it was ever acknowledged.  The running server must not count it: the seat's prompt shows the
acknowledged length, and the seat's decision at that length is recorded right after the last
acknowledged batch, chained to it (the file verifies), never onto the unfinished one.
(``tests/ledger/test_torn_after_open.py`` pins the same for a ``FileStore`` in process.)
"""

from __future__ import annotations

import random

import pytest

from ledger.filestore import FileStore
from ledger.integrity import INTACT, check_file
from tests.ledger.test_torn_after_open import KINDS, crash_while_writing, unfinished
from tests.web.test_api import ORGANIZER, SEATS, choose


@pytest.mark.parametrize("kind", KINDS)
def test_a_running_server_neither_counts_nor_chains_onto_an_unfinished_batch(live_api, kind):
    api = live_api
    status, created = api.call("POST", "/api/matches", ORGANIZER,
                               {"seats": SEATS, "match_id": f"torn-{kind}"})
    assert status == 201, created
    mid, tokens = created["match_id"], created["tokens"]
    rng = random.Random(7)
    for _ in range(3):  # the server appends to the match: it has it open
        seat = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]["seat"]
        pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
        status, data = api.decide(mid, tokens[seat], choose(pending["prompt"], rng),
                                  pending["length"])
        assert status == 201, data
    path = api.server.store / f"{mid}.jsonl"
    acked = list(FileStore.read_file(path))
    head = acked[-1]
    good = path.read_bytes()

    crash_while_writing(path, unfinished(head.seq, head.hash, kind))

    seat = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]["seat"]
    pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
    assert pending["length"] == len(acked), "the server counts a line nobody acknowledged"
    decision = choose(pending["prompt"], rng)
    status, data = api.decide(mid, tokens[seat], decision, pending["length"])
    assert status == 201, f"a retry at the acknowledged length was refused: {status} {data}"
    assert data["events"][0]["seq"] == len(acked)
    written = path.read_bytes()
    assert written.startswith(good) and b"ghost" not in written
    check = check_file(path)
    assert check.status == INTACT, check.message
    after = list(FileStore.read_file(path))
    assert after[len(acked)].prev == head.hash, "the decision is not chained to the acknowledged head"
    assert [s.seq for s in after] == list(range(len(after)))
