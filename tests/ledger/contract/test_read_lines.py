"""``Store.read_lines`` under the contract, for every backend unchanged: a match's stored lines
(whole batches, as ``export_lines`` gives them) with each line's seq, hash and chain link
checked on its bytes and nothing decoded (``ledger/lines.py``; the analytics ingest reads
matches so).  Damage is found as ``read`` finds it: the error names ``<match>.jsonl:<line>``.
"""

from __future__ import annotations

import pytest

from ledger.codec import GENESIS
from ledger.errors import IntegrityError, LedgerError, MatchNotFoundError
from tests.ledger.contract.matches import ended, notes, opened
from tests.ledger.contract.test_races import _tamper


def test_read_lines_gives_the_exported_lines_checked(store, reopen):
    store.create(opened())
    store.append("m-1", notes(3), 1)
    store.append("m-1", notes(2, "é∞\u2028") + ended(), 4)
    lines = reopen().read_lines("m-1")
    assert b"".join(line + b"\n" for line in lines) == store.export_lines("m-1")
    assert [line[-66:-2].decode() for line in lines] == [s.hash for s in store.read("m-1")]
    assert lines[0][-140:-76] == GENESIS.encode()  # seq 0 chains to the genesis hash


def test_read_lines_of_a_missing_match_is_its_own_error(store):
    with pytest.raises(MatchNotFoundError):
        store.read_lines("nope")


def test_read_lines_finds_an_altered_line(store, reopen):
    store.create(opened())
    store.append("m-1", notes(3), 1)
    _tamper(store, 2, b'"n1"', b'"n7"')
    with pytest.raises(IntegrityError, match=r"m-1\.jsonl:3: seq 2: hash mismatch"):
        reopen().read_lines("m-1")


def test_read_lines_finds_a_line_rehashed_off_the_chain(store, reopen):
    """A line edited and hashed again (its own hash is right) no longer chains on: the next
    line's ``prev`` is the old hash."""
    import hashlib

    store.create(opened())
    store.append("m-1", notes(3), 1)
    line = store.export_lines("m-1").split(b"\n")[1]
    edited = line[:-75].replace(b'"n0"', b'"n5"')
    forged = edited + b',"hash":"' + hashlib.sha256(edited + b"}").hexdigest().encode() + b'"}'
    _tamper(store, 1, line, forged)
    with pytest.raises(IntegrityError, match=r"m-1\.jsonl:3: seq 2: hash chain broken"):
        reopen().read_lines("m-1")


def test_read_lines_finds_a_removed_line(store, reopen):
    store.create(opened())
    for n, text in enumerate("xyz"):
        store.append("m-1", notes(1, text), n + 1)
    if hasattr(store, "pool"):
        with store.pool.connection() as conn:
            conn.execute("DELETE FROM wonders_events WHERE match_id = 'm-1' AND seq = 2")
    else:
        path = store.path("m-1")
        lines = path.read_bytes().split(b"\n")
        path.write_bytes(b"\n".join(lines[:2] + lines[3:]))
    with pytest.raises(LedgerError, match=r"m-1\.jsonl:3"):
        reopen().read_lines("m-1")
