"""The ingest's lines path (``Store.read_lines`` + ``ledger.lines.MatchLines``: the chain
checked on raw bytes, envelopes decoded in one pass, payloads cut from the lines) gives rows
identical to the events path (``Store.read``: every line decoded and checked canonical, every
payload encoded again) -- on matches with take-backs of both games, the golden matches of old
schema versions and rulesets, and lines whose float fields hold integers; and a damaged line is
still reported by file and line."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from ledger.events import TakenBack
from ledger.filestore import FileStore
from ledger.lines import MatchLines
from ledger.registry import SCHEMA, facts_for
from ledger.rows import FileInfo
from ledger.warehouse import ingest
from tests.ledger.test_warehouse import facts, simulate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def with_take_back(store: FileStore, source: str, match_id: str, back: int, cut: int) -> None:
    """A copy of ``source`` under ``match_id`` where, after its first ``cut`` events, a judge
    took the match back to ``back`` and the rest was recorded again."""
    events = [s.event for s in store.read(source)]
    store.create(msgspec.structs.replace(events[0], match_id=match_id))
    store.append(match_id, events[1:cut], 1)
    store.append(match_id, [TakenBack(to_seq=back, reason="misplay")], cut)
    store.append(match_id, events[back + 1:], cut + 1)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> FileStore:
    root = tmp_path_factory.mktemp("lines")
    simulate(root, 3, 5, "w")
    store = FileStore(root)
    for path in sorted((FIXTURES / "matches").glob("*.jsonl")) + \
            sorted((FIXTURES / "sow" / "matches").glob("*.jsonl")):
        store.import_lines(path.read_bytes(), where=path.name)
    with_take_back(store, "w-0001", "w-tb", 40, 60)
    with_take_back(store, "sow-golden-1", "sow-tb", 12, 20)
    return store


def test_fixture_lines_hold_integers_in_float_fields(corpus):
    """The case the payload's ``.0`` rule is for is in the corpus (else the test proves less)."""
    data = corpus.export_lines("w-0001")
    assert b'"type":"ResourcesChanged"' in data and b'"energy":1,' in data


def test_lines_path_rows_equal_events_path_rows(corpus):
    games = set()
    for match_id in corpus.ids():
        name = f"{match_id}.jsonl"
        stored = list(corpus.read(match_id))
        game = stored[0].event.game
        games.add(game)
        rows_of = facts_for(game)
        assert rows_of is not None
        info = FileInfo(name, 1, 2)
        old = rows_of(stored, info, facts())
        new = rows_of(MatchLines(corpus.read_lines(match_id), name), info, facts())
        assert set(old) == set(new)
        for table in old:
            assert msgspec.json.encode(new[table]) == msgspec.json.encode(old[table]), \
                f"{name}: {table} differs"
        if match_id.endswith("-tb"):
            retracted = [r for r in new["events"] if r.retracted]
            assert retracted and new["matches"][0].takebacks == 1
    assert games == {"wotf", "sow"}
    old_versions = {(h.type, h.v) for h in MatchLines(corpus.read_lines("golden-12-0001")).heads()
                    if h.v < SCHEMA[h.type]}
    assert {("MatchOpened", 2), ("CardMoved", 1)} <= old_versions  # upcast on both paths


def test_a_damaged_line_is_reported_and_the_rest_ingested(corpus, tmp_path):
    root = tmp_path / "store"
    root.mkdir()
    for match_id in ("w-0001", "w-0002", "sow-tb"):
        (root / f"{match_id}.jsonl").write_bytes(corpus.export_lines(match_id))
    path = root / "w-0002.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[7] = lines[7].replace(b'"seat":"A"', b'"seat":"B"', 1)
    assert lines[7] != corpus.export_lines("w-0002").split(b"\n")[7]
    path.write_bytes(b"\n".join(lines))
    report = ingest(root, tmp_path / "w.duckdb", facts())
    assert (report.new, len(report.problems)) == (2, 1)
    problem = report.problems[0]
    assert (problem.file, problem.kind) == ("w-0002.jsonl", "corrupt")
    assert "w-0002.jsonl:8: seq 7: hash mismatch" in problem.message
