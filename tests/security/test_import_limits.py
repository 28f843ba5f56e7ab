"""Finding 6 of issue 13: imports skipped the deck rules (rule 303).

A 1.7 KB match file whose decks held ``count: 1000000`` copies of a card imported (201), and
then every viewer, state or verify request folded a million cards (8–14 s, ~600 MB each);
negative counts were accepted too.  Against a real ``wonders serve`` on loopback, an import is
now checked like a create -- the deck rules against the cards the file records, counts bounded
-- before anything is stored: such a file gets a quick 422 naming the deck, and the store holds
no match file and no tokens afterwards.  A real simulated match file still imports.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from ledger.events import DeckEntry, SeatInfo
from ledger.filestore import FileStore
from replay.simulate import simulate_matches
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from tests.security.import_files import ORGANIZER, call, legal_seats, match_file, stored

ROOT = Path(__file__).resolve().parents[2]
#: A refusal must not fold the decks: folding a million cards took 8–14 s and ~600 MB; the
#: server's peak resident memory may grow by no more than this while it refuses.
CHEAP_KB = 64 * 1024


def _peak_kb(server) -> int:
    """The server process's peak resident memory so far (``VmHWM``), in KiB."""
    status = Path(f"/proc/{server.proc.pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")))


def refused(server, data: bytes, match_id: str, *words: str) -> dict:
    base, store = server.base, server.store
    peak = _peak_kb(server)
    status, out = call(base, "POST", "/api/import", ORGANIZER, data)
    assert status == 422 and out["error"] == "illegal", (status, out)
    for word in words:
        assert word in out["message"], out
    assert _peak_kb(server) - peak < CHEAP_KB, "the refusal folded the decks"
    assert stored(store, match_id) == []
    status, _ = call(base, "GET", f"/api/matches/{match_id}")
    assert status == 404
    return out


def test_a_million_copies_are_refused_at_once_and_nothing_is_stored(import_server):
    db = default_cards()
    names = sorted(c.name for c in db if not c.token)
    data = match_file("million-1", [SeatInfo("A", "Eve", "all in", [DeckEntry(names[0], 1_000_000)]),
                                    SeatInfo("B", "Mal", "all in", [DeckEntry(names[1], 1_000_000)])])
    assert len(data) < 2048  # the attack of the finding: a file under 2 KB
    out = refused(import_server, data, "million-1", "seat A", "1000000 copies", "303")
    assert "/" not in out["message"].replace("1–50", "")  # no server path in the message


@pytest.mark.parametrize("table", ["deck", "archive"])
def test_negative_counts_are_refused_and_nothing_is_stored(import_server, table):
    seats = legal_seats()
    a = seats[0]
    entries = list(getattr(a, table))
    if not entries:
        pytest.skip(f"the first fixture deck has no {table}")
    # one entry negative, another raised so that the total stays what the rules count
    first, second = entries[0], entries[1]
    entries[0] = DeckEntry(first.card, -3)
    entries[1] = DeckEntry(second.card, second.count + first.count + 3)
    seats[0] = msgspec.structs.replace(a, **{table: entries})
    match_id = f"negative-{table}"
    refused(import_server, match_file(match_id, seats), match_id, "seat A", "-3 copies")


def test_a_card_listed_twice_is_refused(import_server):
    seats = legal_seats()
    a = seats[0]
    deck = list(a.deck)
    first = deck[0]
    deck[0] = DeckEntry(first.card, 1)
    deck.append(DeckEntry(first.card, 1))  # the same 50 cards, one card in two entries
    if first.count == 1:
        deck.pop(1)
    seats[0] = msgspec.structs.replace(a, deck=deck)
    refused(import_server, match_file("twice-1", seats), "twice-1", "listed twice")


def test_a_simulated_match_imports_and_is_served(import_server, tmp_path):
    base, store = import_server.base, import_server.store
    source = FileStore(tmp_path / "source")
    db = default_cards()
    (opened,) = simulate_matches(source, db, load_decks(None, db), 1, seed=21, prefix="sim")
    data = source.path(opened.match_id).read_bytes()
    status, out = call(base, "POST", "/api/import", ORGANIZER, data)
    assert status == 201, out
    assert out["match_id"] == opened.match_id and out["divergence"] is None
    assert (store / f"{opened.match_id}.jsonl").read_bytes() == data
    status, summary = call(base, "GET", f"/api/matches/{opened.match_id}")
    assert status == 200 and summary["ended"] and summary["length"] == out["length"]
    status, view = call(base, "GET", f"/api/matches/{opened.match_id}/state",
                        out["tokens"]["judge"])
    assert status == 200 and view["length"] == out["length"]
    status, again = call(base, "POST", "/api/import", ORGANIZER, data)
    assert status == 409, again
