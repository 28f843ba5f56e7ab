"""A file store with a damaged match file among good ones: every listing-style reader names
the damaged one and still answers for the others (the viewer's listing and the warehouse's
ingest start from :meth:`~ledger.store.Store.heads`)."""

from __future__ import annotations

from ledger.errors import MalformedEventError
from ledger.filestore import FileStore
from ledger.store import Head
from tests.ledger.contract.matches import notes, opened


def test_heads_reports_a_damaged_match_as_its_error_beside_the_good_ones(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened("good"))
    store.append("good", notes(1), 1)
    (tmp_path / "bad.jsonl").write_bytes(b"this is not a match file\n")
    heads = store.heads()
    assert sorted(heads) == ["bad", "good"]
    assert isinstance(heads["good"], Head) and heads["good"].length == 2
    assert isinstance(heads["bad"], MalformedEventError)
    assert "bad.jsonl" in str(heads["bad"])
