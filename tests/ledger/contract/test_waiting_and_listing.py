"""The store protocol's shared methods, on every backend: ``wait`` (what the recording
service's long polls block on), ``heads`` (what the viewer's listing and the warehouse's ingest
start from) and the refusal of an unknown ``list`` filter.

``wait`` is inherited by the file store (it sleeps and looks again) and overridden by
PostgreSQL (woken by ``NOTIFY``); both must say ``True`` exactly when the match has *more*
than ``length`` events.
"""

from __future__ import annotations

import threading
import time

import pytest

from ledger.errors import LedgerError, MalformedEventError, MatchNotFoundError
from ledger.events import MatchEnded
from ledger.store import Outcome
from tests.ledger.contract.matches import ended, notes, opened


def test_wait_answers_at_once_when_the_match_is_already_longer(store):
    store.create(opened("w-1"))
    store.append("w-1", notes(2), 1)
    started = time.monotonic()
    assert store.wait("w-1", 2, timeout=5) is True
    assert store.wait("w-1", 0, timeout=5) is True
    assert time.monotonic() - started < 2  # neither call slept its timeout


def test_wait_says_false_when_the_match_has_exactly_the_length_waited_past(store):
    store.create(opened("w-1"))
    store.append("w-1", notes(2), 1)  # 3 events
    started = time.monotonic()
    assert store.wait("w-1", 3, timeout=0.3) is False
    assert time.monotonic() - started >= 0.25  # it waited before saying no
    assert store.wait("w-1", 4, timeout=0.1) is False


def test_wait_sees_an_append_made_while_it_waits(store, reopen):
    store.create(opened("w-1"))
    store.create(opened("w-2"))
    writer = reopen()
    timer = threading.Timer(0.2, lambda: writer.append("w-1", notes(1), 1))
    timer.start()
    try:
        assert store.wait("w-1", 1, timeout=1.5) is True
    finally:
        timer.join()
    assert store.wait("w-2", 1, timeout=0.1) is False  # the other match did not grow


def test_wait_on_a_missing_or_invalid_match_is_its_error(store):
    with pytest.raises(MatchNotFoundError, match="'nope'"):
        store.wait("nope", 0, timeout=0.1)
    with pytest.raises(MalformedEventError, match="not valid"):
        store.wait("../x", 0, timeout=0.1)


def test_heads_gives_every_match_its_head_by_id(store):
    store.create(opened("h-1"))
    store.create(opened("h-2"))
    store.append("h-2", notes(3), 1)
    heads = store.heads()
    assert sorted(heads) == ["h-1", "h-2"]
    assert heads["h-1"] == store.head("h-1") and heads["h-1"].length == 1
    assert heads["h-2"] == store.head("h-2") and heads["h-2"].length == 4


def test_an_unknown_list_filter_is_named_in_the_error(store):
    store.create(opened("l-1"))
    with pytest.raises(TypeError) as raised:
        store.list(size=3, colour="red", round=1)
    assert str(raised.value) == "unknown filter(s): colour, size"


def test_outcomes_say_which_matches_ended_and_who_won_in_one_answer(store, reopen):
    """What a tournament's results and standings ask of the store for every table it started
    (``web.tournaments.Organizer.results``); PostgreSQL answers it in one query -- it asked one
    query per table, 5.3 s for 160 tables under a tournament day's load (2026-11-27 07:04)."""
    for match_id in ("o-won", "o-draw", "o-live"):
        store.create(opened(match_id))
    store.append("o-won", ended("B"), 1)
    store.append("o-draw", [MatchEnded(winner=None, reason="draw")], 1)
    store.append("o-live", notes(2), 1)
    other = reopen()  # another process's store: nothing remembered
    got = other.outcomes(["o-live", "o-won", "o-missing", "o-draw"])
    assert got == {"o-won": Outcome(True, "B"), "o-draw": Outcome(True, None),
                   "o-live": Outcome(False, None)}
    assert other.outcomes([]) == {}
    store.append("o-live", ended("A"), 3)
    assert other.outcomes(["o-live"]) == {"o-live": Outcome(True, "A")}


def _damage_first_line(store, target: str, match_id: str) -> None:
    """Alter a character of the match's first line (its MatchOpened) where the backend keeps
    it, so its hash no longer checks."""
    if target.startswith("postgresql://"):
        import psycopg
        with psycopg.connect(target, autocommit=True) as conn:
            line = bytes(conn.execute("SELECT line FROM wonders_events WHERE match_id = %s "
                                      "AND seq = 0", [match_id]).fetchone()[0])
            conn.execute("UPDATE wonders_events SET line = %s WHERE match_id = %s AND seq = 0",
                         [line.replace(b'"A"', b'"B"', 1), match_id])
        return
    path = store.path(match_id)
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"A"', b'"B"', 1))


def test_a_listing_names_an_unreadable_match_and_lists_the_others(store, target):
    for match_id in ("l-1", "l-2", "l-3"):
        store.create(opened(match_id))
    _damage_first_line(store, target, "l-2")
    unreadable: list = []
    listed = store.list(unreadable)
    assert [info.match_id for info in listed] == ["l-1", "l-3"]
    assert [(match_id, exc.line) for match_id, exc in unreadable] == [("l-2", 1)]
    with pytest.raises(LedgerError):  # asked without: the error, as before
        store.list()
