"""The protocol's default :meth:`ledger.store.Store.versions` (a backend without versions, such
as the in-memory :class:`ledger.buffered.MatchBuffer`): no version to vouch for any match, and,
as every backend's, a match the store does not have left out (a caller tells "not created yet"
by its absence)."""

from __future__ import annotations

from ledger.buffered import MatchBuffer
from tests.ledger.contract.matches import notes, opened


def test_a_backend_without_versions_vouches_for_nothing_and_leaves_out_what_it_lacks():
    buffer = MatchBuffer()
    buffer.create(opened("m-1"))
    buffer.append("m-1", notes(2), 1)
    assert buffer.versions() == {"m-1": None}
    assert buffer.versions(["m-1", "m-2"]) == {"m-1": None}  # m-2: not in this store
    assert buffer.versions([]) == {}
