"""A throwaway PostgreSQL cluster for the tests that need one (session-scoped fixtures).

``postgres_cluster`` runs Debian's ``initdb`` and ``pg_ctl`` (``/usr/lib/postgresql/*/bin``)
into a temporary directory, listening only on a unix socket in that directory, and stops and
removes it at the end of the session.  PostgreSQL refuses to run as root: as root the cluster
runs as the ``postgres`` user (``runuser -u postgres --``), in a directory it owns.
``pg_url`` gives each test a schema of its own in that cluster (a URL whose
``search_path`` is that schema), so tests never see each other's matches.

Without PostgreSQL the tests that use these fixtures skip with one line saying how to get it;
with ``WONDERS_REQUIRE_POSTGRES=1`` (``.ci/run`` sets it) they fail instead.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest

HOW = ("PostgreSQL is not installed: `apt-get install postgresql` (Debian) and the PostgreSQL "
       "tests start a throwaway cluster themselves")
_schemas = itertools.count(1)


def _bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def _missing(why: str) -> None:
    if os.environ.get("WONDERS_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"WONDERS_REQUIRE_POSTGRES=1 but {why}", pytrace=False)
    pytest.skip(why)


class Cluster:
    def __init__(self, base: Path, bindir: Path, as_postgres: bool):
        self.base, self.bindir, self.as_postgres = base, bindir, as_postgres
        self.data, self.sock, self.log = base / "data", base / "sock", base / "log"
        self.url = f"postgresql://postgres@/postgres?host={quote(str(self.sock))}"

    def run(self, *args: str) -> subprocess.CompletedProcess:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    def start(self) -> None:
        done = self.run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust",
                        "-E", "UTF8", "--locale=C", "--no-sync")
        if done.returncode:
            raise RuntimeError(f"initdb failed: {done.stderr.strip()[-500:]}")
        options = f"-c listen_addresses='' -k {self.sock} -p 5432 -c max_connections=200"
        done = self.run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log),
                        "-w", "-t", "60", "start")
        if done.returncode:
            log = self.log.read_text() if self.log.exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip()[-300:]} {log[-500:]}")

    def stop(self) -> None:
        self.run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def schema_url(self) -> str:
        """A fresh schema; the URL that makes it the store's ``search_path``."""
        import psycopg

        name = f"t{os.getpid()}_{next(_schemas)}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        return f"{self.url}&options={quote(f'-csearch_path={name}')}"


@pytest.fixture(scope="session")
def postgres_cluster():
    """A running throwaway cluster (session-scoped; stopped and removed at the end)."""
    bindir = _bin_dir()
    if bindir is None:
        _missing(HOW)
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        _missing("psycopg is not installed: pip install -e '.[postgres]'")
    as_postgres = os.geteuid() == 0
    base = Path(tempfile.mkdtemp(prefix="wonders-pg-"))
    (base / "sock").mkdir()
    if as_postgres:
        shutil.chown(base, "postgres")
        shutil.chown(base / "sock", "postgres")
    cluster = Cluster(base, bindir, as_postgres)
    try:
        cluster.start()
    except (RuntimeError, OSError) as exc:
        shutil.rmtree(base, ignore_errors=True)
        _missing(f"a throwaway PostgreSQL cluster did not start ({exc})")
    try:
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def pg_url(postgres_cluster) -> str:
    """A ``postgresql://`` URL of an empty store of this test's own."""
    return postgres_cluster.schema_url()
