"""A role that may read the store's tables but not create tables in their schema.

Opening a store ran ``CREATE TABLE IF NOT EXISTS`` every time, so such a role couldn't even
``wonders verify`` ("permission denied for schema …").  Nothing is created now when every
table exists; when one is missing and the role may not create it, one line says so.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest

from ledger.errors import StoreUnavailableError
from ledger.stores import open_store

ROOT = Path(__file__).resolve().parents[2]


def _reader(postgres_cluster, url: str) -> str:
    """A new role with USAGE on the URL's schema and SELECT on its tables; its URL."""
    schema = url.split("search_path%3D")[1]
    role = f"r{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_cluster.url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}")
    return url.replace("postgresql://postgres@", f"postgresql://{role}@")


def wonders(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "web.cli", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=300)


def test_a_reading_role_verifies_and_copies_out(postgres_cluster, pg_url, tmp_path):
    made = wonders("simulate", "--matches", "2", "--seed", "7", "--out", pg_url)
    assert made.returncode == 0, made.stderr
    reader = _reader(postgres_cluster, pg_url)
    done = wonders("verify", reader)
    assert done.returncode == 0, done.stderr
    copied = wonders("copy", reader, str(tmp_path / "out"))
    assert copied.returncode == 0, copied.stderr
    assert len(list((tmp_path / "out").glob("*.jsonl"))) == 2


def test_a_role_that_may_not_create_the_tables_is_told_in_one_line(postgres_cluster, pg_url):
    reader = _reader(postgres_cluster, pg_url)  # a fresh schema: no tables yet
    with pytest.raises(StoreUnavailableError) as refused:
        open_store(reader)
    message = str(refused.value)
    assert message.endswith("the store's tables don't exist yet and this role may not create "
                            "them: run once with a role that may (CREATE on the schema)"), message
