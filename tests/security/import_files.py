"""Helpers of the import attacks (``test_import_*.py``): match files of one line, the raw
HTTP call they are sent with, and what a store holds of a match afterwards.  Their server is
the ``import_server`` fixture (``tests/security/conftest.py``)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

from ledger.codec import GENESIS, encode_line
from ledger.events import MatchOpened, SeatInfo
from replay.recorder import complete_opened
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks

ORGANIZER = "import-limits-test-organizer-token-0123456789"


def call(base, method, path, token=None, raw=None, timeout=60):
    headers = {"Content-Type": "application/x-ndjson"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, method=method, data=raw, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def match_file(match_id: str, seats: list[SeatInfo]) -> bytes:
    """A schema-3 match file of one line, ``MatchOpened`` with the seats' decks and the
    definitions of their cards (an intact file: canonical line, hash chain, card digest)."""
    opened = complete_opened(MatchOpened(match_id=match_id, ruleset="1.3.2", seats=seats),
                             default_cards())
    line, _ = encode_line(opened, 0, "2026-03-01T10:00:00.000Z", 0, GENESIS)
    return line + b"\n"


def legal_seats() -> list[SeatInfo]:
    a, b = load_decks(None, default_cards())[:2]
    return [SeatInfo("A", "Eve", a.name, a.entries(), a.archive_entries()),
            SeatInfo("B", "Mal", b.name, b.entries(), b.archive_entries())]


def stored(store: Path, match_id: str) -> list[Path]:
    """Whatever the store holds of a match: its file, its tokens."""
    return [p for p in (store / f"{match_id}.jsonl", store / ".tokens" / f"{match_id}.json")
            if p.exists()]
