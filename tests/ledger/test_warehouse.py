"""The warehouse's ingest: incremental runs give the same tables as a fresh one, a grown live
match replaces its rows, a match rewritten under an ingested seq and a corrupt or misnamed
file are reported by name while the rest is ingested; the documented DuckDB queries (match
files read directly, the Parquet export) run and agree with the warehouse."""

import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from ledger.codec import GENESIS, encode_line
from ledger.filestore import FileStore
from ledger.parquet import export_parquet
from ledger.rows import TABLES
from ledger.warehouse import WarehouseError, connect, ingest
from replay.recorder import Recorder
from replay.simulate import SimClock, _opened, entrants, simulate_matches
from replay.wotf.bots import BOTS
from replay.wotf.cards import default_cards
from replay.wotf.deckfacts import CardFact
from replay.wotf.decks import load_decks
from replay.wotf.events import CardPlayed

DOCS = Path(__file__).resolve().parents[2] / "docs" / "analytics.md"


def facts():
    return {c.name: CardFact(c.orbital, c.dbs) for c in default_cards()}


def simulate(root, count, seed, prefix, ruleset="1.3.2"):
    db = default_cards()
    list(simulate_matches(FileStore(root), db, load_decks(None, db), count, seed, ruleset,
                          ("greedy", "random"), prefix))


def snapshot(db_path):
    """Every row of every table, sorted, with the file's modification time and the store's
    version left out: facts of the moment a match was read, not rows derived from it (a
    version taken within a coarse clock's tick of a file's last write is NULL, so two ingests
    of the same files a moment apart may record it differently: ledger.fileversion)."""
    con = connect(db_path, read_only=True)
    try:
        out = {}
        for table in TABLES:
            columns = [d[0] for d in con.execute(f"SELECT * FROM {table} LIMIT 0").description]
            kept = ", ".join(f'"{c}"' for c in columns if c not in ("file_mtime_ns", "store_identity"))
            out[table] = con.execute(f"SELECT {kept} FROM {table} ORDER BY ALL").fetchall()
        return out
    finally:
        con.close()


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    root = tmp_path_factory.mktemp("base")
    simulate(root, 12, 21, "a")
    return root


def copy_store(base, tmp_path, name="store"):
    target = tmp_path / name
    shutil.copytree(base, target)
    return target


def test_incremental_after_appending_matches_equals_a_fresh_ingest(base, tmp_path):
    store = copy_store(base, tmp_path)
    first = ingest(store, tmp_path / "inc.duckdb", facts())
    assert (first.new, first.grown, first.unchanged, first.problems) == (12, 0, 0, [])
    simulate(store, 7, 22, "b", "1.2")
    second = ingest(store, tmp_path / "inc.duckdb", facts())
    assert (second.new, second.grown, second.unchanged, second.problems) == (7, 0, 12, [])
    fresh = ingest(store, tmp_path / "fresh.duckdb", facts())
    assert fresh.new == 19
    assert snapshot(tmp_path / "inc.duckdb") == snapshot(tmp_path / "fresh.duckdb")


def test_a_run_with_nothing_new_reads_nothing(base, tmp_path):
    store = copy_store(base, tmp_path)
    ingest(store, tmp_path / "w.duckdb", facts())
    before = snapshot(tmp_path / "w.duckdb")
    again = ingest(store, tmp_path / "w.duckdb", facts())
    assert (again.new, again.grown, again.unchanged, again.events) == (0, 0, 12, 0)
    assert snapshot(tmp_path / "w.duckdb") == before


def test_a_grown_live_match_replaces_its_rows(tmp_path):
    store_dir = tmp_path / "live"
    store = FileStore(store_dir)
    db = default_cards()
    decks = load_decks(None, db)
    a, b = entrants(decks, ["greedy"], 2, random.Random(5))
    recorder = Recorder.open(store, db, _opened("live-1", a, b, "1.3.2"), rng=random.Random(5),
                             clock=SimClock(5))
    bots = {"A": BOTS["greedy"](random.Random(6)), "B": BOTS["greedy"](random.Random(7))}
    for _ in range(25):
        recorder.submit(bots[recorder.engine.prompt.seat].decide(recorder.engine))
    first = ingest(store_dir, tmp_path / "w.duckdb", facts())
    assert first.new == 1
    con = connect(tmp_path / "w.duckdb", read_only=True)
    assert con.execute("SELECT ended, winner_seat FROM matches").fetchone() == (False, None)
    con.close()
    while recorder.engine.prompt is not None:
        recorder.submit(bots[recorder.engine.prompt.seat].decide(recorder.engine))
    second = ingest(store_dir, tmp_path / "w.duckdb", facts())
    assert (second.new, second.grown, second.problems) == (0, 1, [])
    ingest(store_dir, tmp_path / "fresh.duckdb", facts())
    assert snapshot(tmp_path / "w.duckdb") == snapshot(tmp_path / "fresh.duckdb")
    con = connect(tmp_path / "w.duckdb", read_only=True)
    assert con.execute("SELECT ended FROM matches").fetchone() == (True,)
    con.close()


def rewrite(path: Path, change) -> None:
    """Re-encode a match file with ``change(seq, event)`` applied and a valid new hash chain."""
    stored = list(FileStore.read_file(path))
    prev, lines = GENESIS, []
    for item in stored:
        line, prev = encode_line(change(item.seq, item.event), item.seq, item.at, item.batch, prev)
        lines.append(line)
    path.write_bytes(b"\n".join(lines) + b"\n")


def test_a_match_rewritten_under_an_ingested_seq_is_reported_not_merged(base, tmp_path):
    store = copy_store(base, tmp_path)
    ingest(store, tmp_path / "w.duckdb", facts())
    before = snapshot(tmp_path / "w.duckdb")
    victim = store / "a-0003.jsonl"

    def change(seq, event):
        if isinstance(event, CardPlayed) and seq > 40:
            return CardPlayed(event.seat, event.card, event.name + " (forged)", event.realm,
                              event.energy_paid, event.action_spent)
        return event

    rewrite(victim, change)
    simulate(store, 2, 23, "c")
    report = ingest(store, tmp_path / "w.duckdb", facts())
    assert report.new == 2
    assert [(p.file, p.kind) for p in report.problems] == [("a-0003.jsonl", "changed")]
    assert "existing seq" in report.problems[0].message
    after = snapshot(tmp_path / "w.duckdb")
    con = connect(tmp_path / "w.duckdb", read_only=True)
    forged = con.execute("SELECT count(*) FROM plays WHERE card LIKE '%(forged)'").fetchone()[0]
    con.close()
    assert forged == 0
    for table in TABLES:
        assert [r for r in after[table] if r[0] in {"a-0003"}] == \
            [r for r in before[table] if r[0] in {"a-0003"}]


def test_a_truncated_match_is_reported_as_changed(base, tmp_path):
    store = copy_store(base, tmp_path)
    ingest(store, tmp_path / "w.duckdb", facts())
    victim = store / "a-0005.jsonl"
    lines = victim.read_bytes().splitlines(keepends=True)
    cut = max(i for i, line in enumerate(lines[:-1]) if re.search(rb'"seq":(\d+),', line)
              and b'"batch":%s,' % re.search(rb'"seq":(\d+),', line).group(1) in line)
    victim.write_bytes(b"".join(lines[:cut + 1]))
    report = ingest(store, tmp_path / "w.duckdb", facts())
    assert [(p.file, p.kind) for p in report.problems] == [("a-0005.jsonl", "changed")]


def test_a_corrupt_file_is_reported_by_name_and_the_rest_ingested(base, tmp_path):
    store = copy_store(base, tmp_path)
    victim = store / "a-0007.jsonl"
    data = bytearray(victim.read_bytes())
    spot = data.index(b'"type":"BattleResolved"')
    data[spot + 30: spot + 31] = b"9" if data[spot + 30:spot + 31] != b"9" else b"8"
    victim.write_bytes(bytes(data))
    (store / "not-a-match.jsonl").write_text("hello\n")
    report = ingest(store, tmp_path / "w.duckdb", facts())
    assert sorted((p.file, p.kind) for p in report.problems) == [
        ("a-0007.jsonl", "corrupt"), ("not-a-match.jsonl", "corrupt")]
    assert "a-0007.jsonl:" in report.problems[0].message or "a-0007" in report.problems[1].message
    assert report.new == 11
    con = connect(tmp_path / "w.duckdb", read_only=True)
    ids = [r[0] for r in con.execute("SELECT match_id FROM matches ORDER BY 1").fetchall()]
    con.close()
    assert "a-0007" not in ids and len(ids) == 11


def test_a_misnamed_file_is_reported(base, tmp_path):
    store = copy_store(base, tmp_path)
    (store / "a-0001.jsonl").rename(store / "renamed.jsonl")
    report = ingest(store, tmp_path / "w.duckdb", facts())
    assert [(p.file, p.kind) for p in report.problems] == [("renamed.jsonl", "misnamed")]
    assert report.new == 11


def test_a_missing_store_is_an_error(tmp_path):
    with pytest.raises(WarehouseError, match="not a store directory"):
        ingest(tmp_path / "nope", tmp_path / "w.duckdb", facts())


def test_parallel_ingest_equals_in_process_ingest(tmp_path, monkeypatch):
    import ledger.warehouse as warehouse

    root = tmp_path / "store"
    simulate(root, 9, 31, "p")
    monkeypatch.setattr(warehouse, "CHUNK", 2)
    monkeypatch.setattr(warehouse, "PARALLEL_FROM", 1)
    parallel = ingest(root, tmp_path / "par.duckdb", facts(), jobs=2)
    serial = ingest(root, tmp_path / "ser.duckdb", facts(), jobs=1)
    assert parallel.new == serial.new == 9
    assert snapshot(tmp_path / "par.duckdb") == snapshot(tmp_path / "ser.duckdb")


def documented_query(marker: str) -> str:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(f"<!-- {marker}")
    block = text[start:].split("```sql\n", 1)[1].split("```", 1)[0]
    return block


def test_the_documented_json_lines_query_reads_a_store_directly(base, tmp_path):
    ingest(base, tmp_path / "w.duckdb", facts())
    query = documented_query("jsonl-query").replace("STORE", str(base))
    direct = duckdb.connect().execute(query).fetchall()
    con = connect(tmp_path / "w.duckdb", read_only=True)
    warehouse = con.execute("SELECT match_id, winner_seat, reason, stones_a, stones_b "
                            "FROM matches ORDER BY match_id").fetchall()
    con.close()
    assert len(direct) == 12
    assert [(m, w, r, s["A"], s["B"]) for m, w, r, s in direct] == warehouse


def test_the_parquet_export_is_partitioned_and_the_documented_query_runs(base, tmp_path):
    store = copy_store(base, tmp_path)
    simulate(store, 5, 41, "r", "1.2")
    ingest(store, tmp_path / "w.duckdb", facts())
    out = tmp_path / "parquet"
    written = export_parquet(tmp_path / "w.duckdb", out)
    assert written["matches"] == 17 and written["events"] > 17 * 100
    assert (out / "matches" / "game=wotf" / "ruleset=1.2"
            / "tournament_id=__HIVE_DEFAULT_PARTITION__").is_dir()
    assert (out / "events" / "game=wotf" / "ruleset=1.3.2").is_dir()
    query = documented_query("parquet-query").replace("DIR", str(out))
    from_parquet = duckdb.connect().execute(query).fetchall()
    con = connect(tmp_path / "w.duckdb", read_only=True)
    from_warehouse = con.execute(
        "SELECT m.ruleset, count(*), avg((p.result = 'win')::INTEGER) FROM players p "
        "JOIN matches m USING (match_id) WHERE m.ended AND p.went_first "
        "GROUP BY m.ruleset ORDER BY m.ruleset").fetchall()
    con.close()
    assert from_parquet == from_warehouse and len(from_parquet) == 2
    with pytest.raises(WarehouseError, match="already holds a dataset"):
        export_parquet(tmp_path / "w.duckdb", out)
    assert export_parquet(tmp_path / "w.duckdb", out, overwrite=True) == written


def test_a_killed_ingest_leaves_no_stage_directory_behind_the_next_run(base, tmp_path):
    """An ingest killed while staging (its process dies: no ``finally``) left its stage
    directory of Parquet beside the warehouse for good; the next ingest of that warehouse
    removes it (and no other warehouse's) and loads everything once."""
    import os

    store = copy_store(base, tmp_path)
    db = tmp_path / "w.duckdb"
    faults = tmp_path / "faults"
    faults.mkdir()
    env = {**os.environ, "WONDERS_TEST_FAULTS": f"crash-once:{faults}"}
    died = subprocess.run([sys.executable, "-c", "import sys; from ledger.warehouse import "
                           "ingest; ingest(sys.argv[1], sys.argv[2], {})", str(store), str(db)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert died.returncode == 3, died.stderr  # the injected crash: the process died staging
    assert len(list(tmp_path.glob(".wonders-ingest-*"))) == 1  # what the crash left
    other = tmp_path / ".wonders-ingest-other.duckdb-abcd1234"  # another warehouse's stage
    other.mkdir()
    report = ingest(store, db, facts())
    assert report.new == 12 and not report.problems
    assert [p.name for p in tmp_path.glob(".wonders-ingest-*")] == [other.name]
    assert snapshot(db)["matches"] == snapshot_of_fresh(store, tmp_path)["matches"]


def snapshot_of_fresh(store, tmp_path):
    fresh = tmp_path / "fresh" / "w.duckdb"
    fresh.parent.mkdir()
    ingest(store, fresh, facts())
    return snapshot(fresh)


def test_a_match_removed_from_the_store_is_named_not_silently_counted(base, tmp_path):
    """A match file deleted from the store after its ingest keeps its rows (every statistic
    still counts it): the summary says so and names it (it said '11 match files … 11
    unchanged' while the warehouse held 12)."""
    store = copy_store(base, tmp_path)
    db = tmp_path / "w.duckdb"
    ingest(store, db, facts())
    (store / "a-0005.jsonl").unlink()
    report = ingest(store, db, facts())
    assert report.absent == ["a-0005.jsonl"] and report.unchanged == 11
    assert "1 ingested match not in this store, still counted" in report.summary()
    assert "a-0005.jsonl" in report.summary()
    assert len(snapshot(db)["matches"]) == 12
    assert ingest(store, tmp_path / "fresh.duckdb", facts()).absent == []
    for gone in sorted(store.glob("*.jsonl"))[1:]:
        gone.unlink()
    one = ingest(store, db, facts()).summary()  # it read '1 match files: …'
    assert one.startswith("1 match file: 0 new") and "11 ingested matches not in this" in one


def _read_in_another_process(db) -> subprocess.CompletedProcess:
    """``wonders stats`` reading the warehouse from another process, as the /stats page does."""
    return subprocess.run([sys.executable, "-c", "import sys; from ledger.warehouse import "
                           "connect; con = connect(sys.argv[1], read_only=True); "
                           "print(con.execute('SELECT count(*) FROM matches').fetchone()[0])",
                           str(db)], capture_output=True, text=True, timeout=120)


def test_the_warehouse_can_be_read_while_an_ingest_stages(base, tmp_path):
    """An ingest holds the warehouse file only to read what it has and to load, not while its
    workers read the store: the /stats page and ``wonders stats`` read it meanwhile (they
    failed for the whole run: 'Could not set lock on file', a 400 on /stats).  A second
    ingest of the same warehouse still can't run beside it (one clear line)."""
    store = copy_store(base, tmp_path)
    db = tmp_path / "w.duckdb"
    ingest(store, db, facts(), on_progress=None)  # 12 matches in
    simulate(store, 3, 22, "b")  # 3 new ones to stage
    seen: list = []

    def during(done, total):
        if not seen:  # once, while staging (before the load)
            seen.append(_read_in_another_process(db))
            seen.append(subprocess.run([sys.executable, "-c", "import sys; from ledger.warehouse"
                                        " import ingest; ingest(sys.argv[1], sys.argv[2], {})",
                                        str(store), str(db)],
                                       capture_output=True, text=True, timeout=120))

    report = ingest(store, db, facts(), on_progress=during)
    reader, second = seen
    assert (reader.returncode, reader.stdout.strip()) == (0, "12"), reader.stderr
    assert second.returncode != 0
    assert "another `wonders ingest` of this warehouse is running" in second.stderr
    assert report.new == 3 and len(snapshot(db)["matches"]) == 15


def test_a_match_file_that_cannot_be_read_is_unreadable_not_corrupt(base, tmp_path):
    """A match file the file system refuses to read (its permissions) was reported as
    "corrupt: [Errno 13] Permission denied: '…'": the file is fine, the access is not."""
    store = copy_store(base, tmp_path)
    victim = sorted(store.glob("*.jsonl"))[0]
    victim.chmod(0)
    try:
        victim.read_bytes()
    except PermissionError:
        pass
    else:
        pytest.skip("this process reads a file of mode 000 anyway (root): run as another user")
    report = ingest(store, tmp_path / "w.duckdb", facts())
    assert [p.line() for p in report.problems] == [
        f"{victim.name}: unreadable: cannot be read (Permission denied)"]
