"""Two processes using a fresh PostgreSQL database for tournaments at the same moment.

The tournament table was created by the first tournament request of each server, outside the
advisory lock the store takes for its own tables: two at once collided in PostgreSQL's
catalogue (``pg_type_typname_nsp_index``), and that duplicate key was reported as a seq
conflict ("another writer stored that seq first").  The table is now the store's own, created
with the others under the lock; and only a seq's key is read as a conflict.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from ledger.errors import StoreUnavailableError
from ledger.stores import open_store
from ledger.tournament import tournament_book

ROOT = Path(__file__).resolve().parents[2]
TRIALS = 4

# open the store at T, create a tournament at T + 1.5 s
SCRIPT = """
import sys, time
from ledger.stores import open_store
from ledger.tournament import tournament_book
url, at, tid = sys.argv[1], float(sys.argv[2]), sys.argv[3]
time.sleep(max(0, at - time.time()))
store = open_store(url)
time.sleep(max(0, at + 1.5 - time.time()))
book = tournament_book(store)
book.append(tid, 0, [{"type": "TournamentCreated", "tournament_id": tid, "name": tid,
                      "game": "wotf", "ruleset": None}])
print(book.ids())
"""


def _both(url: str) -> list[subprocess.CompletedProcess]:
    at = time.time() + 2.0
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT, url, str(at), tid], cwd=ROOT,
                              text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for tid in ("cup-one", "cup-two")]
    return [subprocess.CompletedProcess(p.args, p.wait(60), *p.communicate()) for p in procs]


def test_two_processes_create_the_first_tournaments_of_a_fresh_database(postgres_cluster):
    for _trial in range(TRIALS):
        url = postgres_cluster.schema_url()
        for done in _both(url):
            assert done.returncode == 0, done.stderr.strip().splitlines()[-1:]
        store = open_store(url)
        try:
            assert tournament_book(store).ids() == ["cup-one", "cup-two"]
        finally:
            store.close()


def test_a_duplicate_key_that_is_no_seq_is_not_called_a_conflict(pg_url):
    store = open_store(pg_url)
    try:
        with store._tx() as conn:
            conn.execute("CREATE TABLE other_keys (k text PRIMARY KEY)")
            conn.execute("INSERT INTO other_keys VALUES ('x')")
        with pytest.raises(StoreUnavailableError) as refused, store._tx() as conn:
            conn.execute("INSERT INTO other_keys VALUES ('x')")
        message = str(refused.value)
        assert "other_keys_pkey" in message and "seq" not in message, message
    finally:
        store.close()
