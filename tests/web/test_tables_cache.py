"""The per-process table cache under the API (web/api/tables.py): a match this process creates
is continued from the recorder that wrote it (no re-derivation), a match it did not create is
re-derived once on first use, and after its own append a table still sees what another
process appended right after; a process that only reads a match another records verifies
each new event once (its re-derivation extended), not the whole match at each length."""

from __future__ import annotations

import random

import pytest

from tests.web.test_api import Api, choose, new_app
from web.api import tables


@pytest.fixture
def rederived(monkeypatch):
    """How many times a table re-derived a match through today's engine."""
    calls: list[int] = []
    real = tables.rederive

    def counting(events, db, *args):
        calls.append(len(events))
        return real(events, db, *args)
    monkeypatch.setattr(tables, "rederive", counting)
    return calls


def _turn(api, mid, tokens, rng):
    """One decision by the seat the prompt addresses; returns the new length."""
    judge = api.state(mid, tokens["judge"])
    seat = judge["prompt"]["seat"]
    state = api.state(mid, tokens[seat])
    status, data = api.decide(mid, tokens[seat], choose(state["prompt"], rng), state["length"])
    assert status == 201, data
    return data["seq"]


def test_a_created_match_is_continued_without_re_deriving_it(tmp_path, rederived):
    api = Api(new_app(tmp_path))
    mid, tokens = api.create()
    rng = random.Random(4)
    for _ in range(5):
        _turn(api, mid, tokens, rng)
    assert rederived == []  # the create's recorder went on


def test_a_match_this_process_did_not_create_is_re_derived_once_on_first_use(tmp_path, rederived):
    first = Api(new_app(tmp_path))
    mid, tokens = first.create()
    length = _turn(first, mid, tokens, random.Random(5))
    second = Api(new_app(tmp_path))  # another process over the same store
    _turn(second, mid, tokens, random.Random(6))
    _turn(second, mid, tokens, random.Random(7))
    assert rederived == [length]  # verified once, on the first use


def test_after_its_own_append_a_table_folds_what_another_process_appended_next(tmp_path):
    one, two = Api(new_app(tmp_path)), Api(new_app(tmp_path))
    mid, tokens = one.create()
    rng = random.Random(8)
    _turn(one, mid, tokens, rng)
    for _ in range(3):  # each server appends right after the other's append
        mine = _turn(one, mid, tokens, rng)
        theirs = _turn(two, mid, tokens, rng)
        assert theirs > mine
        assert one.state(mid, tokens["judge"]) == two.state(mid, tokens["judge"])
    stale = one.decide(mid, tokens["A"], {"type": "Conceded"}, mine)
    assert stale[0] == 409  # a decision at a length already passed is refused


def test_a_reader_of_a_match_another_process_records_extends_its_re_derivation(
        tmp_path, rederived, monkeypatch):
    """Another worker's follower or polled board: each new length is verified by extending
    the re-derivation it made first (the divergence mark every view carries), never again
    from the start; and when it then writes, that re-derivation's engine goes on."""
    extended: list[int] = []
    real = tables.rederive_more

    def counting(replay, events):
        extended.append(len(events))
        return real(replay, events)
    monkeypatch.setattr(tables, "rederive_more", counting)
    writer, reader = Api(new_app(tmp_path)), Api(new_app(tmp_path))
    mid, tokens = writer.create()
    rng = random.Random(9)
    lengths = [_turn(writer, mid, tokens, rng)]
    assert reader.state(mid, tokens["judge"])["divergence"] is None
    for _ in range(4):
        lengths.append(_turn(writer, mid, tokens, rng))
        state = reader.state(mid, tokens["judge"])
        assert state["length"] == lengths[-1] and state["divergence"] is None
    assert rederived == [lengths[0]]  # once, on first use
    assert sum(extended) == lengths[-1] - lengths[0] and len(extended) == 4
    _turn(reader, mid, tokens, rng)  # now it writes: from that engine, no re-derivation
    assert rederived == [lengths[0]]
    assert writer.state(mid, tokens["judge"]) == reader.state(mid, tokens["judge"])
