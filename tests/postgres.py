"""A throwaway PostgreSQL cluster for the tests that need one (session-scoped fixtures).

``postgres_cluster`` starts one with :func:`ledger.pgcluster.start_cluster` (Debian's
``initdb`` and ``pg_ctl`` into a temporary directory, a unix socket only; as root it runs as
the ``postgres`` user) and stops and removes it at the end of the session.  ``pg_url`` gives
each test a schema of its own in that cluster (a URL whose ``search_path`` is that schema), so
tests never see each other's matches.

Without PostgreSQL the tests that use these fixtures skip with one line saying how to get it;
with ``WONDERS_REQUIRE_POSTGRES=1`` (``.ci/run`` sets it) they fail instead.
"""

from __future__ import annotations

import os

import pytest

from ledger.pgcluster import HOW, Cluster, ClusterUnavailable, start_cluster

__all__ = ["HOW", "Cluster", "pg_url", "postgres_cluster"]


def _missing(why: str) -> None:
    if os.environ.get("WONDERS_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"WONDERS_REQUIRE_POSTGRES=1 but {why}", pytrace=False)
    pytest.skip(why)


@pytest.fixture(scope="session")
def postgres_cluster():
    """A running throwaway cluster (session-scoped; stopped and removed at the end)."""
    try:
        cluster = start_cluster()
    except ClusterUnavailable as exc:
        _missing(str(exc))
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(postgres_cluster) -> str:
    """A ``postgresql://`` URL of an empty store of this test's own."""
    return postgres_cluster.schema_url()
