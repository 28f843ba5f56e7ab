"""A live follow stream's messages, made without the answer model, are those the model makes;
and the events a stream sends come from the table that just read or wrote them
(:meth:`web.api.tables.Table.recent`) exactly as the store holds them.

* ``event_fields`` (written by the stream as it is) equals ``EventOut(...).model_dump()`` for
  every event of a match with take-backs and a judge's reveal, from every perspective.
* ``Table.recent`` gives the stored events of a range -- seq, envelope and event as the file
  has them -- whether the table wrote them or another process did (it read them to fold
  them), and ``None`` for what it no longer holds (a stream catching up reads the store).
* A stream from seq 0 sends exactly the file's events (its start from the store, the rest
  from the table) while the match grows, with the same bytes as the model's messages.
* A stream on a file store shares a head read less than half a poll old, and reads the head
  again once it is older (another process's appends are then folded).
"""

from __future__ import annotations

import json
import random

from tests.web.test_api import Api, choose, new_app
from web.api import follow, tables
from web.api.common import event_fields, event_out
from web.api.tables import TAIL
from web.narration import Narrator


def _record(api, mid, tokens, rng, decisions):
    """``decisions`` decisions, with a judge's take-back after every ninth and a reveal."""
    for n in range(decisions):
        judge = api.state(mid, tokens["judge"])
        if not judge["live"]:
            return
        length = judge["length"]
        if n % 9 == 8:
            status, data = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                                    {"to_seq": length - 1, "expected_seq": length})
            # (to the end of the last batch: nothing undone but the take-back is recorded)
            assert status in (201, 422), data
            continue
        if n == 4 and judge["board"]["players"]["B"]["hand"]:
            card = judge["board"]["players"]["B"]["hand"][0]["id"]
            status, data = api.call("POST", f"/api/matches/{mid}/manual", tokens["judge"],
                                    {"ops": [{"op": "reveal", "card": card, "seat": "A"}],
                                     "expected_seq": length})
            assert status == 201, data
            continue
        seat = judge["prompt"]["seat"]
        state = api.state(mid, tokens[seat])
        status, data = api.decide(mid, tokens[seat], choose(state["prompt"], rng), state["length"])
        assert status == 201, data


def _table(api, mid):
    svc = api.app.extensions["wonders"]
    return svc.tables.using(mid, lambda table: table)


def test_the_streams_fields_are_the_models_dump_for_every_event_and_perspective(tmp_path):
    api = Api(new_app(tmp_path))
    mid, tokens = api.create()
    _record(api, mid, tokens, random.Random(3), 40)
    # an earlier point taken back to: events undone (struck through, undone_by)
    length = api.state(mid, tokens["judge"])["length"]
    status, data = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                            {"to_seq": 1, "expected_seq": length})
    assert status == 201, data
    stored = list(api.app.extensions["wonders"].store.read(mid))
    table = _table(api, mid)
    undone = 0
    for perspective in ("omniscient", "A", "B", "spectator"):
        for last in (len(stored) - 1, len(stored) // 2):
            narrator = Narrator(table, perspective, last)
            for s in stored[:last + 1]:
                fields = event_fields(narrator, s)
                assert fields == event_out(narrator, s).model_dump()
                assert json.dumps(fields) == json.dumps(event_out(narrator, s).model_dump())
                undone += fields["undone_by"] is not None
    assert undone > 0


def test_recent_events_are_the_stored_ones_written_here_or_read_from_another_process(tmp_path):
    writer, reader = Api(new_app(tmp_path)), Api(new_app(tmp_path))
    mid, tokens = writer.create()
    rng = random.Random(8)
    reader.state(mid, tokens["judge"])  # the reader's table, made now
    stored: list = []
    for _ in range(40):
        if len(stored) > 2 * TAIL:
            break
        _record(writer, mid, tokens, rng, 5)
        reader.state(mid, tokens["judge"])  # it folds what the writer appended
        stored = list(writer.app.extensions["wonders"].store.read(mid))
        for api in (writer, reader):
            table = _table(api, mid)
            assert table.length == len(stored)
            for first in range(max(0, len(stored) - TAIL), len(stored)):
                for last in {first, len(stored) - 1}:
                    assert table.recent(first, last) == stored[first:last + 1]
            assert table.recent(len(stored) - 1, len(stored)) is None  # past the end
    table = _table(reader, mid)
    assert len(stored) > 2 * TAIL and table.recent(0, 3) is None  # no longer held: the store


def test_a_stream_from_the_start_sends_the_files_events_with_the_models_bytes(tmp_path,
                                                                           monkeypatch):
    api = Api(new_app(tmp_path, follow_poll=0.01))
    mid, tokens = api.create()
    rng = random.Random(11)
    for _ in range(40):  # more than the table holds: the start is read from the store
        if api.state(mid, tokens["judge"])["length"] > 2 * TAIL:
            break
        _record(api, mid, tokens, rng, 5)
    read, taken = [], []
    grow, recent = follow.Feed._grow, tables.Table.recent
    monkeypatch.setattr(follow.Feed, "_grow", lambda feed: read.append(1) or grow(feed))

    def counted(table, first, last):
        found = recent(table, first, last)
        taken.append(found is not None)
        return found
    monkeypatch.setattr(tables.Table, "recent", counted)
    response = api.client.get(f"/api/matches/{mid}/follow?timeout=1",
                              headers={"Authorization": f"Bearer {tokens['judge']}"},
                              buffered=False)
    body = response.response
    messages: list[str] = []
    buffer = ""
    grown = False
    for chunk in body:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            message, buffer = buffer.split("\n\n", 1)
            messages.append(message + "\n\n")
        if not grown and len(messages) >= 5:
            _record(api, mid, tokens, rng, 12)  # the match grows while it is followed
            grown = True
    response.close()
    stored = list(api.app.extensions["wonders"].store.read(mid))
    narrator = Narrator(_table(api, mid), "omniscient")
    want = [f"id: {s.seq}\nevent: event\ndata: {json.dumps(event_out(narrator, s).model_dump())}\n\n"
            for s in stored]
    events = [m for m in messages if "\nevent: event\n" in m]
    assert grown and len(stored) > 2 * TAIL
    assert events == want
    assert read and any(taken)  # the start from the store, what came next from the table


def test_a_recent_head_read_stands_for_a_stream_and_an_older_one_is_read_again(tmp_path,
                                                                             monkeypatch):
    """``Tables.using(..., fresh_within=s)`` (a stream on a file store: half its poll) reads
    the store's head only when the last read is ``s`` old: another process's appends are
    folded at the next look after that; every other use reads the head."""
    api, other = Api(new_app(tmp_path)), Api(new_app(tmp_path))
    mid, tokens = api.create()
    svc = api.app.extensions["wonders"]
    reads: list[str] = []
    head = svc.store.head  # this process's store only (the other has its own)
    monkeypatch.setattr(svc.store, "head", lambda match_id: reads.append(match_id) or head(match_id))
    before = svc.tables.using(mid, lambda table: table.length)
    assert len(reads) == 1
    _record(other, mid, tokens, random.Random(2), 3)  # another process appends
    grown = len(list(svc.store.read(mid)))
    assert grown > before
    assert svc.tables.using(mid, lambda table: table.length, fresh_within=60) == before
    assert len(reads) == 1  # the recent read stood: nothing read, nothing new folded
    assert svc.tables.using(mid, lambda table: table.length, fresh_within=0) == grown
    assert svc.tables.using(mid, lambda table: table.length) == grown and len(reads) == 3
