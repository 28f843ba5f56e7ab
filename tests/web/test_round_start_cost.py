"""Starting a round: its cost in ``fsync`` calls, and a start killed at each of them.

A 300-player round (150 tables) took 5-15 s on the tournament day's disks: 1,201 ``fsync``
calls, eight per table (the create's pending mark and its directory, the tokens and their
directory, the match file and its directory, the first batch, the pending file's removal)
and one for the claim.  A round is now created as one creation
(:meth:`web.tokens.TokenBook.creating_many`, :meth:`ledger.store.Store.create_many`): one
``fsync`` per match file and a few for the whole round, whatever its size -- counted here,
not timed.  Durability is unchanged: the round's claim first, every match's tokens durable
before its file, every file and its name durable before the start answers.

A start killed (SIGKILL, the real ``wonders tournament pair``) at each of its ``fsync`` calls
leaves a store a server start sweeps clean (no match without its tokens, nothing moved
aside): every table has a readable match with its three tokens, or none, and a reissue of
each table without one creates it and shows its links.

PostgreSQL: a start took a connection per table and six pooled round trips per table; now one
connection holds the round's ids, its tokens are one transaction and its matches another --
counted, and a server killed after either commit leaves a store a start and a reissue finish.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import tomllib
from pathlib import Path

import psycopg
import pytest

from ledger.errors import ConflictError
from ledger.filestore import FileStore
from ledger.stores import open_store
from replay.games import game
from replay.resources import decks_dir
from web.tokens import ROLES, TokenBook, hash_token, token_book
from web.tournaments import Organizer

ROOT = Path(__file__).resolve().parents[2]
DECKS = ["solfera-blaze", "thalwind-sky", "petraia-stone", "boundless-drift",
         "heliosynth-forge", "umbrathene-shade", "thalwind-solfera", "petraia-umbrathene"]
PER_ROUND = 7  # the claim; the pending mark and its directory; the tokens and their
# directory; the match files' directory; the pending names' removal


def decklist(name: str) -> str:
    data = tomllib.loads((decks_dir() / f"{name}.toml").read_text(encoding="utf-8"))
    lines = [f"{n} {card}" for card, n in data["cards"].items()]
    lines += [f"{n}x {card}" for card, n in data.get("archive", {}).items()]
    return "\n".join(lines) + "\n"


def organizer(root: Path) -> Organizer:
    store = FileStore(root)
    return Organizer(store, token_book(store), game("wotf").default_cards())


def registered(root: Path, players: int, tid: str = "cup") -> Organizer:
    org = organizer(root)
    org.create("Cup", tid)
    for i in range(players):
        org.register(tid, f"P{i:03d}", decklist(DECKS[i % len(DECKS)]))
    return org


def registered_on(url: str, players: int, tid: str) -> Organizer:
    store = open_store(url)
    org = Organizer(store, token_book(store), game("wotf").default_cards())
    org.create("Cup", tid)
    for i in range(players):
        org.register(tid, f"P{i:03d}", decklist(DECKS[i % len(DECKS)]))
    return org


class Fsyncs:
    """``os.fsync`` calls, counted (from any thread), each still made."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.calls = 0
        self._lock = threading.Lock()
        real = os.fsync

        def counted(fd: int) -> None:
            with self._lock:
                self.calls += 1
            real(fd)

        monkeypatch.setattr(os, "fsync", counted)


def test_a_round_costs_one_fsync_per_match_and_a_few_for_the_round(tmp_path, monkeypatch):
    org = registered(tmp_path / "store", 40)
    fsyncs = Fsyncs(monkeypatch)
    listed: list[object] = []
    scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda *a: listed.append(a) or scandir(*a))
    _t, tables = org.start_round("cup")
    assert len(tables) == 20
    # 161 before (8 a table and the claim); now one a match file and PER_ROUND
    assert fsyncs.calls == len(tables) + PER_ROUND, fsyncs.calls
    assert listed == []  # nothing listed a directory (the store's matches) per table
    for table in tables:
        assert table.tokens is not None
        events = list(org.store.read(table.match_id))
        assert events[0].event.table == table.table and events[-1].batch == len(events) - 1
        for role in ROLES:
            assert org.tokens.role_of(table.match_id, table.tokens[role]) == role


def test_a_round_on_postgresql_holds_its_ids_on_one_connection_and_commits_twice(
        pg_url, monkeypatch):
    """PostgreSQL: a start opened a connection per table (its id's advisory lock) and took
    a pooled connection six times per table (the id checked twice, stale tokens dropped,
    the tokens, the match, its first batch): 10 and 74 for 10 tables.  Now one connection
    holds the round's ids and the pool is used a fixed number of times (the ids checked
    in one query, the tokens one transaction, the matches one)."""
    org = registered_on(pg_url, 20, "pgcup")
    store = org.store
    connects: list[object] = []
    connect = psycopg.connect
    monkeypatch.setattr(psycopg, "connect", lambda *a, **k: connects.append(
        threading.current_thread()) or connect(*a, **k))
    pooled: list[object] = []
    getconn = store.pool.getconn
    monkeypatch.setattr(store.pool, "getconn", lambda *a: pooled.append(a) or getconn(*a))
    _t, tables = org.start_round("pgcup")
    assert len(tables) == 10
    # 10 before: one per table (the store's notifier connects once, in its own thread)
    assert connects.count(threading.main_thread()) == 1, connects
    assert len(pooled) <= 8, len(pooled)  # 74 before: 6 a table and the round's reads
    for table in tables:
        assert table.tokens is not None
        assert len(list(store.read(table.match_id))) > 1
        for role in ROLES:
            assert org.tokens.role_of(table.match_id, table.tokens[role]) == role
    store.close()


def test_a_reissue_or_revoke_of_one_table_leaves_the_rounds_other_tokens_alone(tmp_path):
    org = registered(tmp_path / "store", 6)
    _t, (first, second, third) = org.start_round("cup")
    assert first.tokens and second.tokens and third.tokens
    _mid, new = org.reissue("cup", 1, first.table, "A")
    assert org.tokens.role_of(first.match_id, first.tokens["A"]) is None
    assert org.tokens.role_of(first.match_id, new["A"]) == "A"
    assert org.tokens.role_of(first.match_id, first.tokens["B"]) == "B"
    org.revoke("cup", 1, second.table, "judge")
    assert org.tokens.role_of(second.match_id, second.tokens["judge"]) is None
    assert org.tokens.role_of(second.match_id, second.tokens["A"]) == "A"
    for role in ROLES:  # the third table's tokens: untouched by its neighbours' changes
        assert org.tokens.role_of(third.match_id, third.tokens[role]) == role
    again = TokenBook(tmp_path / "store")  # another process reads the same files
    assert again.role_of(third.match_id, third.tokens["B"]) == "B"
    assert again.role_of(first.match_id, new["A"]) == "A"


def test_a_damaged_shared_token_file_is_left_in_place_and_a_reissue_mends_each_table(tmp_path):
    """A round's tables share one token file: damaged (not JSON), a server start moved every
    live table of the round to .orphans/ as if its create had died -- the whole round stopped.
    The sweep now leaves them in place and says so; a reissue of a table gives it tokens."""
    store_root = tmp_path / "store"
    org = registered(store_root, 6)
    _t, started = org.start_round("cup")
    shared = store_root / ".tokens" / f"{started[0].match_id}.json"
    shared.write_text("{garbage")  # one inode under every table's name: all three damaged
    swept = org.tokens.sweep(org.store)
    assert swept.orphans == [] and sorted(swept.unreadable) == sorted(s.match_id for s in started)
    assert "token file can't be read left in place" in swept.describe(store_root)
    assert all(org.store.exists(s.match_id) for s in started)
    assert not (store_root / ".orphans").exists()
    _mid, new = org.reissue("cup", 1, started[0].table, "all")
    for role in ROLES:
        assert org.tokens.role_of(started[0].match_id, new[role]) == role
    assert org.tokens.sweep(org.store).unreadable == [s.match_id for s in started[1:]]


def test_an_id_created_elsewhere_meanwhile_is_left_to_its_creator(tmp_path):
    org = registered(tmp_path / "store", 6)
    book = org.tokens
    assert isinstance(book, TokenBook)
    with book.creating("cup-r1-t02"):  # a reissue at another desk, creating table 2 now
        t, _number = org._claim("cup")
        tables = org._create_tables(t, 1)
    assert [tb.tokens is None for tb in tables] == [False, True, False]
    assert not org.store.exists("cup-r1-t02")  # that create (here: empty) was never ours
    for tb in tables[::2]:
        assert tb.tokens and org.tokens.role_of(tb.match_id, tb.tokens["judge"]) == "judge"


# -- a start killed at each of its fsync calls -----------------------------------------------

CHILD = """
import os, signal, sys
kill_at, calls, real = int(os.environ["KILL_AT"]), [0], os.fsync
def fsync(fd):
    calls[0] += 1
    if calls[0] == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    real(fd)
os.fsync = fsync
from web.cli import main
main(["tournament", "pair", sys.argv[2], "--store", sys.argv[1]])
"""
PG_CHILD = """
import os, signal, sys
from ledger.pgstore import PgStore
name = os.environ["KILL_AFTER"]
real = getattr(PgStore, name)
def killed(self, *args, **kwargs):
    real(self, *args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)  # committed, and the server dies
setattr(PgStore, name, killed)
from web.cli import main
main(["tournament", "pair", sys.argv[2], "--store", sys.argv[1]])
"""
PLAYERS = 6  # 3 tables: 3 + PER_ROUND fsyncs


def _start_killed_at(store: Path | str, kill_at: int | str,
                     tid: str = "cup") -> subprocess.CompletedProcess:
    """``wonders tournament pair`` SIGKILLed at its ``kill_at``-th ``fsync`` (0: never), or
    (PostgreSQL) right after the store's method named ``kill_at`` returned."""
    env = {**os.environ, "KILL_AT": str(kill_at), "KILL_AFTER": str(kill_at),
           "PYTHONPATH": str(ROOT)}
    child = PG_CHILD if isinstance(kill_at, str) else CHILD
    return subprocess.run([sys.executable, "-c", child, str(store), tid], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def _check_recoverable(org: Organizer, tid: str = "cup") -> int:
    """What a server start finds and makes of a store a start was killed in: swept (nothing
    moved aside), every table's match whole with its tokens or absent, then every absent one
    created by a reissue; returns how many were absent."""
    swept = org.tokens.sweep(org.store)
    assert swept.orphans == [], swept  # never a match file without its tokens
    t = org.load(tid)
    if not t.rounds or not t.rounds[-1].started:
        _t, tables = org.start_round(tid)  # killed before its claim: start again
        assert all(tb.tokens for tb in tables)
        return len(tables)
    missing = [tb for tb in t.rounds[-1].tables if not org.store.exists(tb.match_id or "")]
    for tb in t.rounds[-1].tables:
        if tb in missing:
            assert not org.tokens.has_tokens(tb.match_id or "")
            assert not org.tokens.is_pending(tb.match_id or "")
        else:
            assert org.tokens.has_tokens(tb.match_id or "")
            assert len(list(org.store.read(tb.match_id or ""))) > 1  # MatchOpened + set-up
    if missing:
        with pytest.raises(ConflictError, match=r"(has|have) no match yet"):
            org.start_round(tid)
    for tb in missing:
        match_id, tokens = org.reissue(tid, t.rounds[-1].number, tb.table, "all")
        assert set(tokens) == set(ROLES)
        assert org.tokens.is_role_hash(match_id, "A", hash_token(tokens["A"]))
        assert len(list(org.store.read(match_id))) > 1
    return len(missing)


def _swept_clean(store: Path) -> int:
    """:func:`_check_recoverable` on a file store, whose sweep leaves no temporary file."""
    org = organizer(store)
    try:
        return _check_recoverable(org)
    finally:
        assert list(store.glob("**/*.tmp")) == []  # a dead start's temporary files: swept


def test_a_start_killed_at_any_fsync_leaves_a_store_a_reissue_completes(tmp_path):
    prepared = tmp_path / "prepared"
    registered(prepared, PLAYERS)
    whole = tmp_path / "whole"
    shutil.copytree(prepared, whole)
    done = _start_killed_at(whole, 0)  # never killed: the count of a whole start
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("judge") >= PLAYERS // 2
    assert _swept_clean(whole) == 0
    total = PLAYERS // 2 + PER_ROUND
    recovered = []
    for kill_at in range(1, total + 1):
        store = tmp_path / f"killed-{kill_at}"
        shutil.copytree(prepared, store)
        killed = _start_killed_at(store, kill_at)
        assert killed.returncode == -signal.SIGKILL, (kill_at, killed.stderr[-2000:])
        recovered.append(_swept_clean(store))
    # killed before its pending names went: every table created again by a reissue (a
    # process killed at its claim's fsync had written it); at the last fsync, whose
    # directory held those names' removal: nothing to redo
    assert recovered == [PLAYERS // 2] * (total - 1) + [0], recovered


def test_a_start_on_postgresql_killed_after_each_commit_leaves_a_store_a_reissue_completes(
        pg_url):
    """PostgreSQL: a server killed after the round's tokens were committed (no match yet) or
    after its matches were (no links shown): a server start drops the tokens of matches never
    made, and every table ends with a readable match and its tokens."""
    for trial, (kill_after, missing) in enumerate([("put_tokens_many", PLAYERS // 2),
                                                   ("create_many", 0)]):
        tid = f"pg-kill-{trial}"
        org = registered_on(pg_url, PLAYERS, tid)
        killed = _start_killed_at(pg_url, kill_after, tid)
        assert killed.returncode == -signal.SIGKILL, (kill_after, killed.stderr[-2000:])
        if missing:
            assert len(org.store.tokens_without_match()) == missing  # what the kill left
        assert _check_recoverable(org, tid) == missing, kill_after
        assert org.store.tokens_without_match() == []
        org.store.close()
