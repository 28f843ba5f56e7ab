"""Rows revisions (docs/analytics.md, "Rows revision"): a warehouse whose matches were derived
by an older program's facts -- an older ``matches.rows_revision``, NULL, or no such column at
all -- is re-derived by the next ingest even though no match's head changed (it reported them
"unchanged" and kept the stale rows for ever); a match changed under an ingested seq is still
reported and keeps its rows; a match of a game not installed keeps its rows; ``--jobs 2`` and
the command line do the same."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import msgspec
import pytest

from ledger.codec import GENESIS, encode_line
from ledger.events import MatchEnded
from ledger.filestore import FileStore
from ledger.registry import rows_revision_for
from ledger.rows import all_tables
from ledger.warehouse import connect, ingest
from replay.games import game
from replay.simulate import simulate_matches

REPO = Path(__file__).resolve().parents[2]
MATCHES = 6  # 4 State of Wonder, 2 Wonders of The First


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A store of both games' matches."""
    root = tmp_path_factory.mktemp("revision") / "store"
    store = FileStore(root)
    for name, prefix, count in (("sow", "s", 4), ("wotf", "w", 2)):
        played = game(name)
        pool = played.default_cards()
        list(simulate_matches(store, pool, played.sample_decks(pool), count, seed=7,
                              prefix=prefix, game_name=name))
    return root


@pytest.fixture
def store(base, tmp_path):
    return Path(shutil.copytree(base, tmp_path / "store"))


def snapshot(db) -> dict[str, list]:
    """Every row of every table (the shared ones and each game's), sorted; of ``matches``
    without the rows' revision and the store's version (NULL when a match was read within a
    coarse clock's tick of its file's last write: two ingests a moment apart may differ)."""
    con = connect(db, read_only=True)
    try:
        return {table: con.execute("SELECT * EXCLUDE (rows_revision, store_identity) FROM "
                                   f"{table} ORDER BY ALL" if table == "matches" else
                                   f"SELECT * FROM {table} ORDER BY ALL").fetchall()
                for table in all_tables()}
    finally:
        con.close()


def fresh(store, tmp_path) -> dict[str, list]:
    db = tmp_path / "fresh.duckdb"
    assert ingest(store, db, {}).new == MATCHES
    return snapshot(db)


def as_an_older_program_left_it(db, revision: str) -> None:
    """The warehouse as a program older than its games' facts left it: ``events.seat`` only
    from a ``seat`` field (before it fell back to ``attacker``/``owner``/``controller``), and
    ``matches.rows_revision`` at ``revision`` (``"1"``, ``"NULL"``), or no such column."""
    con = duckdb.connect(str(db))
    try:
        con.execute("UPDATE events SET seat = NULL WHERE payload->>'seat' IS NULL")
        if revision == "no column":
            con.execute("ALTER TABLE matches DROP COLUMN rows_revision")
        else:
            con.execute(f"UPDATE matches SET rows_revision = {revision}")
    finally:
        con.close()


def stale_seats(db) -> int:
    con = connect(db, read_only=True)
    try:
        return con.execute("SELECT count(*) FROM events WHERE seat IS NULL AND "
                           "(payload->>'attacker' IS NOT NULL OR payload->>'owner' IS NOT NULL)"
                           ).fetchone()[0]
    finally:
        con.close()


def revisions(db) -> dict[str, int | None]:
    con = connect(db, read_only=True)
    try:
        return dict(con.execute("SELECT match_id, rows_revision FROM matches").fetchall())
    finally:
        con.close()


@pytest.mark.parametrize("revision", ["1", "NULL", "no column"])
def test_rows_of_an_older_revision_are_re_derived_by_the_next_ingest(store, tmp_path, revision):
    db = tmp_path / "w.duckdb"
    ingest(store, db, {})
    as_an_older_program_left_it(db, revision)
    assert stale_seats(db) > 0  # what the older program's rows got wrong
    progress = []
    report = ingest(store, db, {}, on_progress=lambda done, total: progress.append((done, total)))
    assert snapshot(db) == fresh(store, tmp_path)
    assert stale_seats(db) == 0
    assert (report.new, report.grown, report.rederived, report.unchanged, report.problems) == \
        (0, 0, MATCHES, 0, [])
    assert f"{MATCHES} re-derived (rows of an older version)" in report.summary()
    assert progress[-1] == (MATCHES, MATCHES)
    # (2) the next ingest right after has nothing to re-derive
    again = ingest(store, db, {})
    assert (again.rederived, again.unchanged, again.events) == (0, MATCHES, 0)
    assert "re-derived" not in again.summary()


def test_an_ingest_records_each_games_current_rows_revision(store, tmp_path):
    db = tmp_path / "w.duckdb"
    ingest(store, db, {})
    con = connect(db, read_only=True)
    try:
        recorded = dict(con.execute("SELECT DISTINCT game, rows_revision FROM matches").fetchall())
    finally:
        con.close()
    assert recorded == {"sow": rows_revision_for("sow"), "wotf": rows_revision_for("wotf")}
    assert all(isinstance(n, int) and n >= 2 for n in recorded.values())  # newer than NULL


def rewrite_the_end(path: Path) -> None:
    """Rewrite a match under an ingested seq: its ``MatchEnded`` says another reason, every
    line rehashed and rechained (each line checks; the last ingested hash no longer does)."""
    stored = list(FileStore(path.parent).read(path.stem))
    prev, lines = GENESIS, []
    for item in stored:
        event = item.event
        if isinstance(event, MatchEnded):
            event = msgspec.structs.replace(event, reason=f"{event.reason} (forged)")
        line, prev = encode_line(event, item.seq, item.at, item.batch, prev)
        lines.append(line)
    path.write_bytes(b"\n".join(lines) + b"\n")


def test_a_match_changed_under_an_ingested_seq_keeps_its_rows_of_an_older_revision(store,
                                                                                     tmp_path):
    db = tmp_path / "w.duckdb"
    ingest(store, db, {})
    as_an_older_program_left_it(db, "NULL")
    kept = {table: [r for r in rows if r[0] == "s-0002"] for table, rows in snapshot(db).items()}
    rewrite_the_end(store / "s-0002.jsonl")
    report = ingest(store, db, {})
    assert [(p.file, p.kind) for p in report.problems] == [("s-0002.jsonl", "changed")]
    assert "existing seq" in report.problems[0].message
    assert (report.rederived, report.unchanged) == (MATCHES - 1, 0)
    after = snapshot(db)
    assert {table: [r for r in rows if r[0] == "s-0002"] for table, rows in after.items()} == kept
    assert revisions(db)["s-0002"] is None
    assert "forged" not in str(after["matches"])


def test_a_match_of_a_game_not_installed_keeps_its_rows(store, tmp_path):
    db = tmp_path / "w.duckdb"
    ingest(store, db, {})
    as_an_older_program_left_it(db, "NULL")
    con = duckdb.connect(str(db))
    con.execute("UPDATE matches SET game = 'elsewhere' WHERE match_id = 'w-0001'")
    con.close()
    report = ingest(store, db, {})
    assert (report.rederived, report.unchanged, report.problems) == (MATCHES - 1, 1, [])
    assert revisions(db)["w-0001"] is None


def test_two_jobs_re_derive_the_same_tables(store, tmp_path, monkeypatch):
    import ledger.warehouse as warehouse

    db = tmp_path / "w.duckdb"
    ingest(store, db, {})
    as_an_older_program_left_it(db, "no column")
    monkeypatch.setattr(warehouse, "CHUNK", 2)
    monkeypatch.setattr(warehouse, "PARALLEL_FROM", 1)  # through the Dask cluster
    progress = []
    report = ingest(store, db, {}, jobs=2,
                    on_progress=lambda done, total: progress.append((done, total)))
    assert (report.rederived, report.unchanged, report.problems) == (MATCHES, 0, [])
    assert progress[-1] == (MATCHES, MATCHES)
    assert snapshot(db) == fresh(store, tmp_path)


def test_the_command_says_what_it_re_derived(store, tmp_path):
    db = tmp_path / "w.duckdb"
    ingest(store, db, {})
    as_an_older_program_left_it(db, "1")
    done = subprocess.run([sys.executable, "-m", "web.cli", "ingest", str(store), "--db", str(db)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"0 unchanged, {MATCHES} re-derived (rows of an older version)" in done.stdout
    assert stale_seats(db) == 0
