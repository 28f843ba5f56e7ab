"""Incremental ingest and a match's last line edited in place (same size, its ``hash`` field
left as it was: a hand edit flipping the winner): the match is read again and reported
``corrupt`` by name, its ingested rows kept, the rest loaded -- in a directory store and a
PostgreSQL store, in this process, through a store object already used (its cache of lines
it verified is not trusted) and on the workers of an existing Dask cluster.  An earlier line
edited in place is found too: in a directory store by the file's version (its inode and ctime
moved), in PostgreSQL by the match's (a trigger counts an UPDATE or DELETE of its rows).  A
re-ingest with nothing changed still opens each match file once (its head) and reads none --
once the files are older than a coarse file-system clock's tick (:func:`settled`: a store
whose clock is past it); a file read sooner is read once more (``rechecked``)."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from ledger.filestore import FileStore
from ledger.fileversion import GRANULARITY_NS
from ledger.stores import open_store
from ledger.warehouse import connect, ingest
from tests.ledger.test_warehouse import facts, simulate

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    root = tmp_path_factory.mktemp("inplace")
    simulate(root, 5, 31, "p")
    return root


@pytest.fixture
def store(base, tmp_path):
    target = tmp_path / "store"
    shutil.copytree(base, target)
    return target


def settled(root: Path) -> FileStore:
    """The store at ``root`` as seen from past a coarse file-system clock's tick (its wall
    clock :data:`GRANULARITY_NS` and a second ahead): every file written so far is settled, so
    its version is one to keep (:mod:`ledger.fileversion`).  The writes and reads are real."""
    return FileStore(root, now_ns=lambda: time.time_ns() + GRANULARITY_NS + 1_000_000_000)


def flipped(line: bytes) -> bytes:
    """The ``MatchEnded`` line with its winner and stones swapped: the same bytes long, the
    envelope (seq, batch, prev, hash) as it was -- so length, last hash and size too."""
    assert b'"type":"MatchEnded","winner":"A"' in line
    head, rest = line.split(b'"stones":{"A":', 1)
    a, rest = rest.split(b',"B":', 1)
    b, rest = rest.split(b"}", 1)
    out = (head.replace(b'"winner":"A"', b'"winner":"B"') + b'"stones":{"A":' + b + b',"B":'
           + a + b"}" + rest)
    assert len(out) == len(line) and out != line
    return out


def edit_last_line(path: Path) -> bytes:
    """Flip the winner in the file's last line in place (same inode, same size), its
    modification time put back; the original bytes."""
    data = path.read_bytes()
    stat = path.stat()
    lines = data.split(b"\n")
    lines[-2] = flipped(lines[-2])
    with open(path, "r+b") as handle:  # in place, as an editor saving over the file
        handle.write(b"\n".join(lines))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    return data


def edit_a_middle_line(path: Path) -> None:
    """Change one digit of the time of a line in the middle of the file, in place, its
    modification time put back: the head (length, last hash, size, last line) as it was."""
    data = bytearray(path.read_bytes())
    stat = path.stat()
    middle = data.index(b'"at":"', len(data) // 2) + len(b'"at":"2026-01-01T00:00:00.00')
    data[middle:middle + 1] = b"1" if data[middle:middle + 1] != b"1" else b"2"
    with open(path, "r+b") as handle:
        handle.write(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def winners(db) -> dict:
    con = connect(db, read_only=True)
    try:
        return dict(con.execute("SELECT match_id, winner_seat FROM matches").fetchall())
    finally:
        con.close()


def a_winner_a(store: Path) -> str:
    """A match of the store whose last line is A's win (the one to flip)."""
    for path in sorted(store.glob("*.jsonl")):
        if b'"type":"MatchEnded","winner":"A"' in path.read_bytes().split(b"\n")[-2]:
            return path.stem
    pytest.skip("no match won by A in the simulated store")


def test_a_last_line_edited_in_place_is_reported_and_its_rows_kept(store, tmp_path):
    db = tmp_path / "w.duckdb"
    assert ingest(store, db, facts()).new == 5
    victim = a_winner_a(store)
    before = winners(db)
    original = edit_last_line(store / f"{victim}.jsonl")
    report = ingest(store, db, facts())
    assert [(p.file, p.kind) for p in report.problems] == [(f"{victim}.jsonl", "corrupt")]
    assert f"{victim}.jsonl" in report.problems[0].message  # the file and line, as verify
    assert (report.unchanged, report.events) == (4, 0)
    assert winners(db) == before  # the ingested rows kept, nothing merged
    # Still reported at the next run (the warehouse remembers the line it ingested) ...
    again = ingest(store, db, facts())
    assert [(p.file, p.kind) for p in again.problems] == [(f"{victim}.jsonl", "corrupt")]
    # ... and, the file put back as it was, unchanged again.
    (store / f"{victim}.jsonl").write_bytes(original)
    back = ingest(store, db, facts())
    assert (back.problems, back.unchanged, back.events) == ([], 5, 0)


def test_the_command_names_the_edited_file_and_exits_1(store, tmp_path):
    db = tmp_path / "w.duckdb"

    def run():
        return subprocess.run([sys.executable, "-m", "web.cli", "ingest", str(store), "--db",
                               str(db)], cwd=REPO, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300)

    assert run().returncode == 0
    victim = a_winner_a(store)
    edit_last_line(store / f"{victim}.jsonl")
    done = run()
    assert done.returncode == 1, done.stderr
    assert f"not ingested: {victim}.jsonl: corrupt: " in done.stderr
    assert "4 unchanged" in done.stdout + done.stderr


def test_a_store_object_that_read_the_file_before_still_finds_the_edit(store, tmp_path):
    """A long-lived caller's store has read the file's head and verified its lines once: its
    head is read again (the file's ctime moved, though its size and mtime are as they were),
    and the ingest checks every line it reads again (an edit in place leaves the end of the
    line -- its hash -- where it was, which is all that store's cache of verified lines looks
    at)."""
    db = tmp_path / "w.duckdb"
    files = FileStore(store)
    ingest(files, db, facts())
    victim = a_winner_a(store)
    edit_last_line(store / f"{victim}.jsonl")
    report = ingest(files, db, facts())
    assert [(p.file, p.kind) for p in report.problems] == [(f"{victim}.jsonl", "corrupt")]


class Opens:
    """Counts the match files this process opens (an audit hook: every ``open``)."""

    active: "Opens | None" = None

    def __init__(self, root: Path):
        self.root, self.counts = str(root), {}

    def __enter__(self):
        Opens.active = self
        return self

    def __exit__(self, *exc):
        Opens.active = None

    @staticmethod
    def hook(event, args):
        counter = Opens.active
        if counter is not None and event == "open" and isinstance(args[0], str) \
                and args[0].startswith(counter.root) and args[0].endswith(".jsonl"):
            name = os.path.basename(args[0])
            counter.counts[name] = counter.counts.get(name, 0) + 1


sys.addaudithook(Opens.hook)


def test_a_run_with_nothing_changed_opens_each_file_once_and_reads_none(store, tmp_path):
    db = tmp_path / "w.duckdb"
    ingest(settled(store), db, facts())
    with Opens(store) as quiet:
        report = ingest(settled(store), db, facts())
    assert (report.unchanged, report.rechecked, report.events, report.problems) == (5, 0, 0, [])
    assert quiet.counts == {path.name: 1 for path in store.glob("*.jsonl")}  # the head only
    victim = a_winner_a(store)
    edit_last_line(store / f"{victim}.jsonl")
    with Opens(store) as edited:
        ingest(settled(store), db, facts())
    assert read(edited) == {f"{victim}.jsonl"}


def test_files_ingested_within_a_clock_tick_of_their_last_write_are_read_once_more(
        store, tmp_path):
    """An ingest right after the files were written (here: the real clock) records no version
    of them (a coarse file-system clock could hide a same-size edit in that tick): the next
    ingest reads each once more, says so (``rechecked``), finds them unchanged and records
    their versions; the one after reads none."""
    db = tmp_path / "w.duckdb"
    assert ingest(store, db, facts()).new == 5
    with Opens(store) as second:
        report = ingest(settled(store), db, facts())
    assert (report.unchanged, report.rechecked, report.events, report.problems) == (5, 5, 0, [])
    assert "5 read again to check them" in report.summary()
    assert read(second) == {path.name for path in store.glob("*.jsonl")}
    with Opens(store) as third:
        report = ingest(settled(store), db, facts())
    assert (report.unchanged, report.rechecked) == (5, 0) and read(third) == set()


def test_a_warehouse_with_versions_an_older_program_recorded_reads_none(store, tmp_path):
    """The file store's version is the ``<inode>:<ctime ns>`` the earlier program recorded
    as ``store_identity``: a warehouse it made is not read again wholesale."""
    db = tmp_path / "w.duckdb"
    ingest(store, db, facts())
    con = duckdb.connect(str(db))
    for path in store.glob("*.jsonl"):  # what the earlier program wrote, whenever it read
        found = path.stat()
        con.execute("UPDATE matches SET store_identity = ? WHERE file = ?",
                    [f"{found.st_ino}:{found.st_ctime_ns}", path.name])
    con.close()
    with Opens(store) as opens:
        report = ingest(settled(store), db, facts())
    assert (report.unchanged, report.rechecked, report.problems) == (5, 0, [])
    assert read(opens) == set()


def read(opens: Opens) -> set[str]:
    """The files opened more than once: for their head, and read."""
    assert set(opens.counts.values()) <= {1, 2, 3}  # head; read (and its head after)
    return {name for name, count in opens.counts.items() if count > 1}


def test_a_warehouse_without_the_last_lines_reads_each_match_once(store, tmp_path):
    """A warehouse an older version made has no ingested last line to compare: its next
    ingest reads every match once (an edit made before it is found) and remembers them."""
    db = tmp_path / "w.duckdb"
    ingest(store, db, facts())
    con = duckdb.connect(str(db))
    con.execute("ALTER TABLE matches DROP COLUMN last_line_sha256")
    con.execute("ALTER TABLE matches DROP COLUMN store_identity")
    con.close()
    victim = a_winner_a(store)
    edit_last_line(store / f"{victim}.jsonl")
    with Opens(store) as first:
        report = ingest(settled(store), db, facts())
    assert [(p.file, p.kind) for p in report.problems] == [(f"{victim}.jsonl", "corrupt")]
    assert read(first) == {path.name for path in store.glob("*.jsonl")}
    with Opens(store) as second:
        ingest(settled(store), db, facts())
    assert read(second) == {f"{victim}.jsonl"}


def test_an_earlier_line_edited_in_place_is_reported(store, tmp_path):
    """The file's identity (inode, ctime) moved though its head did not: it is read again,
    every line checked."""
    db = tmp_path / "w.duckdb"
    ingest(settled(store), db, facts())
    edit_a_middle_line(store / "p-0003.jsonl")
    with Opens(store) as opens:
        report = ingest(settled(store), db, facts())
    assert [(p.file, p.kind) for p in report.problems] == [("p-0003.jsonl", "corrupt")]
    assert read(opens) == {"p-0003.jsonl"}


def test_a_copied_store_is_read_once_again_then_not(store, tmp_path):
    """Every file of a copy is another file (another inode): the first ingest of the copy
    reads each match once, finds them as ingested, and the next reads none."""
    db = tmp_path / "w.duckdb"
    ingest(settled(store), db, facts())
    moved = tmp_path / "moved"
    shutil.copytree(store, moved, copy_function=shutil.copy2)  # the same times
    shutil.rmtree(store)
    moved.rename(store)
    with Opens(store) as first:
        report = ingest(settled(store), db, facts())
    assert (report.unchanged, report.events, report.problems) == (5, 0, [])
    assert read(first) == {path.name for path in store.glob("*.jsonl")}
    with Opens(store) as second:
        ingest(settled(store), db, facts())
    assert read(second) == set()


def import_all(pg, store: Path) -> None:
    """Every match file of ``store`` into the PostgreSQL store ``pg``, as ``wonders copy``."""
    for path in sorted(store.glob("*.jsonl")):
        pg.import_lines(path.read_bytes(), path.name)


@pytest.fixture
def pg(store, pg_url):
    """The store's matches in PostgreSQL (:func:`import_all`), the store open for the test's
    edits by hand."""
    opened = open_store(pg_url)
    try:
        import_all(opened, store)
        yield opened
    finally:
        opened.close()


def test_a_postgresql_row_of_the_last_line_edited_is_reported(store, tmp_path, pg_url, pg):
    db = tmp_path / "pg.duckdb"
    assert ingest(pg_url, db, facts()).new == 5
    victim = a_winner_a(store)
    before = winners(db)
    last = (store / f"{victim}.jsonl").read_bytes().split(b"\n")[-2]
    with pg._conn() as conn:  # an UPDATE by hand: the match's row (its head) untouched
        conn.execute("UPDATE wonders_events SET line = %s WHERE match_id = %s AND seq = "
                     "(SELECT max(seq) FROM wonders_events WHERE match_id = %s)",
                     [flipped(last), victim, victim])
    report = ingest(pg_url, db, facts())
    assert [(p.file, p.kind) for p in report.problems] == [(f"{victim}.jsonl", "corrupt")]
    assert (report.unchanged, report.events) == (4, 0)
    assert winners(db) == before
    with pg._conn() as conn:
        conn.execute("UPDATE wonders_events SET line = %s WHERE match_id = %s AND seq = "
                     "(SELECT max(seq) FROM wonders_events WHERE match_id = %s)",
                     [last, victim, victim])
    back = ingest(pg_url, db, facts())
    assert (back.problems, back.unchanged, back.events) == ([], 5, 0)


def test_workers_of_an_existing_cluster_that_read_the_files_before_find_the_edits(
        store, tmp_path):
    """The decision is taken once, in the ingest's process; the workers of an existing
    cluster (which outlive an ingest, and keep their store open) read every line again."""
    from tests.dask_cluster import address

    db = tmp_path / "w.duckdb"
    first = ingest(store, db, facts(), scheduler=address())
    assert first.new == 5
    edited = [path.stem for path in sorted(store.glob("*.jsonl"))
              if b'"winner":"A"' in path.read_bytes().split(b"\n")[-2]]
    for match_id in edited:
        edit_last_line(store / f"{match_id}.jsonl")
    report = ingest(store, db, facts(), scheduler=address())
    assert sorted((p.file, p.kind) for p in report.problems) == [
        (f"{m}.jsonl", "corrupt") for m in edited]


def test_a_local_cluster_of_workers_finds_the_edit(store, tmp_path, monkeypatch):
    """``--jobs 2``: the same decision, the matches read by forked worker processes."""
    import ledger.warehouse as warehouse

    monkeypatch.setattr(warehouse, "PARALLEL_FROM", 1)  # a cluster even for 5 matches
    db = tmp_path / "w.duckdb"
    assert ingest(store, db, facts(), jobs=2).new == 5
    victim = a_winner_a(store)
    edit_last_line(store / f"{victim}.jsonl")
    report = ingest(store, db, facts(), jobs=2)
    assert [(p.file, p.kind) for p in report.problems] == [(f"{victim}.jsonl", "corrupt")]
    assert (report.unchanged, report.events) == (4, 0)


def test_a_postgresql_row_of_an_earlier_line_edited_or_deleted_is_reported(store, tmp_path,
                                                                          pg_url, pg):
    """An ``UPDATE`` of an earlier event's row (someone with access to the database editing
    the log), its match's head as it was: the match's version moves (the events table's
    trigger counts the change on the match's row), so the ingest reads it again and reports
    the broken chain by name; a ``DELETE`` of a row too."""
    db = tmp_path / "pg.duckdb"
    assert ingest(pg_url, db, facts()).new == 5
    with pg._conn() as conn:  # the time of seq 3, one digit changed: the same length
        line = bytes(conn.execute("SELECT line FROM wonders_events WHERE match_id = "
                                  "'p-0003' AND seq = 3").fetchone()[0])
        at = line.index(b'"at":"') + len(b'"at":"2026-01-01T00:00:00.00')
        edited = line[:at] + (b"1" if line[at:at + 1] != b"1" else b"2") + line[at + 1:]
        conn.execute("UPDATE wonders_events SET line = %s WHERE match_id = 'p-0003' AND "
                     "seq = 3", [edited])
        conn.execute("DELETE FROM wonders_events WHERE match_id = 'p-0001' AND seq = 2")
    report = ingest(pg_url, db, facts())
    assert sorted((p.file, p.kind) for p in report.problems) == [
        ("p-0001.jsonl", "corrupt"), ("p-0003.jsonl", "corrupt")]
    assert "p-0003.jsonl:4" in dict((p.file, p.message) for p in report.problems)[
        "p-0003.jsonl"]
    assert (report.unchanged, report.events) == (3, 0)
    again = ingest(pg_url, db, facts())  # still reported (the match's version still moved)
    assert sorted(p.file for p in again.problems) == ["p-0001.jsonl", "p-0003.jsonl"]


def test_a_warehouse_of_a_postgresql_store_made_before_versions_reads_each_match_once(
        store, tmp_path, pg_url):
    """A warehouse an earlier program made of a PostgreSQL store recorded ``''`` for every
    match's version (PostgreSQL had none): the first ingest after the database gained its
    edit count reads each match once more and says so (an edit made before then is found
    this way), records their versions, and the next reads none."""
    from tests.ledger.test_pg_versions import as_made_before

    opened = open_store(pg_url)
    try:
        import_all(opened, store)
    finally:
        opened.close()
    as_made_before(pg_url)
    db = tmp_path / "pg.duckdb"
    assert ingest(pg_url, db, facts()).new == 5  # (it adds the count back when it opens)
    con = duckdb.connect(str(db))
    con.execute("UPDATE matches SET store_identity = ''")  # what the earlier program wrote
    con.close()
    report = ingest(pg_url, db, facts())
    assert (report.unchanged, report.rechecked, report.events, report.problems) == (5, 5, 0, [])
    assert "5 read again to check them" in report.summary()
    again = ingest(pg_url, db, facts())
    assert (again.unchanged, again.rechecked, again.problems) == (5, 0, [])
