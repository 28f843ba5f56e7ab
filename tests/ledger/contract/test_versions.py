"""A match's version (:meth:`ledger.store.Store.versions`), on every backend: what identifies
its stored data as it is now, so that what a caller kept of a match under it (a tournament's
ended result, the warehouse's rows) is read again when the data changed -- by an append, or by
an edit in place of *any* line whatever the head still says (a file edited by hand;
PostgreSQL: an ``UPDATE`` or ``DELETE`` of a row of ``wonders_events`` by someone with access
to the database, or of the match's row).

Versions are compared with :func:`ledger.store.same_version` (``None`` vouches for nothing:
a file changed within a coarse file-system clock's tick of the look, ``tests/ledger/
test_filestore_coarse_clock.py``); the looks here are ``settled()`` ones (see conftest).
"""

from __future__ import annotations

from ledger.store import same_version
from tests.ledger.contract.matches import ended, notes, opened


def _sql(target: str, statement: str, args: list) -> None:
    import psycopg

    with psycopg.connect(target, autocommit=True) as conn:
        conn.execute(statement, args)


def _edit_line(store, target: str, match_id: str, seq: int, old: bytes, new: bytes) -> None:
    """Replace ``old`` by ``new`` (the same length) in the line of ``seq``, in place, where the
    backend keeps it: the match's head (length, last hash, size) as it was."""
    assert len(old) == len(new)
    if target.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(target, autocommit=True) as conn:
            line = bytes(conn.execute("SELECT line FROM wonders_events WHERE match_id = %s "
                                      "AND seq = %s", [match_id, seq]).fetchone()[0])
            assert old in line
            conn.execute("UPDATE wonders_events SET line = %s WHERE match_id = %s AND seq = %s",
                         [line.replace(old, new, 1), match_id, seq])
        return
    path = store.path(match_id)
    lines = path.read_bytes().split(b"\n")
    assert old in lines[seq]
    lines[seq] = lines[seq].replace(old, new, 1)
    with open(path, "r+b") as handle:  # in place: the same inode, the same size
        handle.write(b"\n".join(lines))


def _drop_line(store, target: str, match_id: str, seq: int) -> None:
    if target.startswith("postgresql://"):
        _sql(target, "DELETE FROM wonders_events WHERE match_id = %s AND seq = %s",
             [match_id, seq])
        return
    path = store.path(match_id)
    lines = path.read_bytes().split(b"\n")
    del lines[seq]
    with open(path, "r+b") as handle:
        handle.write(b"\n".join(lines))
        handle.truncate()


def test_versions_of_some_matches_or_of_every_one(store, settled):
    store.create(opened("v-1"))
    store.create(opened("v-2"))
    other = settled()
    some = other.versions(["v-1", "v-2", "v-missing"])
    assert sorted(some) == ["v-1", "v-2"]  # a match the store does not have: left out
    assert all(isinstance(version, str) for version in some.values())
    assert other.versions() == some and other.versions([]) == {}
    assert settled().versions(["v-2"]) == {"v-2": some["v-2"]}  # another look, the same


def test_a_version_stays_while_nothing_is_written(store, settled):
    """Reading, a head, a summary, a listing or outcomes write nothing: the version stays,
    and vouches for the data (:func:`same_version`)."""
    store.create(opened("v-1"))
    store.append("v-1", notes(2) + ended("A"), 1)
    first = settled().versions(["v-1"])["v-1"]
    list(store.read("v-1")), store.head("v-1"), store.info("v-1"), store.list()
    store.outcomes(["v-1"]), store.export_lines("v-1")
    assert same_version(first, settled().versions(["v-1"])["v-1"])


def test_a_version_moves_with_an_append_and_with_an_edit_of_any_line(store, target, settled):
    for match_id in ("v-1", "v-2", "v-3"):
        store.create(opened(match_id))
        store.append(match_id, notes(3), 1)
    other = settled()
    first = other.versions()
    store.append("v-1", notes(1), 4)
    heads = {m: store.head(m) for m in ("v-2", "v-3")}
    _edit_line(store, target, "v-2", 1, b'"n0"', b'"m0"')  # an earlier line, the same size
    _drop_line(store, target, "v-3", 2)  # a line in the middle removed
    again = settled().versions()
    for match_id in ("v-1", "v-2", "v-3"):
        assert not same_version(first[match_id], again[match_id]), match_id
    assert store.head("v-2") == heads["v-2"]  # the head never saw it: only the version did
    assert settled().versions() == again  # and the new versions stay while nothing is written


def test_a_version_moves_with_an_edit_of_what_the_summary_reads(store, target, settled):
    """What a tournament keeps under a version -- an ended match's result -- is read from the
    match's summary: a file's last line; PostgreSQL's match row (``UPDATE … SET winner``)."""
    store.create(opened("v-1"))
    store.append("v-1", ended("A"), 1)
    first = settled().versions(["v-1"])["v-1"]
    if target.startswith("postgresql://"):
        _sql(target, "UPDATE wonders_matches SET winner = 'B' WHERE match_id = %s", ["v-1"])
    else:
        _edit_line(store, target, "v-1", 1, b'"winner":"A"', b'"winner":"B"')
    assert not same_version(first, settled().versions(["v-1"])["v-1"])
