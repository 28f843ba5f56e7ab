"""A throwaway PostgreSQL cluster: Debian's ``initdb`` + ``pg_ctl`` into a temporary directory.

For the tests (``tests/postgres.py``) and the benchmarks (``bench/store_bench.py``), which need
a real server of their own and must never touch one they did not start.  The cluster listens
only on a unix socket inside its directory; as root it runs as the ``postgres`` user
(PostgreSQL refuses to run as root).  :func:`start_cluster` raises
:class:`ClusterUnavailable` with one line saying why when there is no PostgreSQL to start.
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

__all__ = ["HOW", "Cluster", "ClusterUnavailable", "bin_dir", "start_cluster"]

HOW = ("PostgreSQL is not installed: `apt-get install postgresql` (Debian) and the PostgreSQL "
       "tests start a throwaway cluster themselves")
_schemas = itertools.count(1)


class ClusterUnavailable(Exception):
    """No throwaway cluster could be started (the message says why, in one line)."""


def bin_dir() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>/bin`` (or ``initdb``'s directory on PATH)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


class Cluster:
    """One cluster in ``base`` (data, socket directory and log inside it)."""

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
            raise ClusterUnavailable(f"initdb failed: {done.stderr.strip()[-500:]}")
        self.serve()

    def serve(self) -> None:
        """Start the server on the initialised data directory (again, after :meth:`halt`)."""
        options = f"-c listen_addresses='' -k {self.sock} -p 5432 -c max_connections=200"
        done = self.run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log),
                        "-w", "-t", "60", "start")
        if done.returncode:
            log = self.log.read_text() if self.log.exists() else ""
            raise ClusterUnavailable(f"pg_ctl start failed: {done.stderr.strip()[-300:]} "
                                     f"{log[-500:]}")

    def halt(self, mode: str = "immediate") -> None:
        """Stop the server, keeping its data (a restart's first half: :meth:`serve`)."""
        self.run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def stop(self) -> None:
        """Stop the server and remove its directory."""
        try:
            self.run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.base, ignore_errors=True)

    def schema_url(self) -> str:
        """A fresh schema; the URL that makes it the store's ``search_path``."""
        import psycopg

        name = f"t{os.getpid()}_{next(_schemas)}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        return f"{self.url}&options={quote(f'-csearch_path={name}')}"


def start_cluster() -> Cluster:
    """A running throwaway cluster (stop it with :meth:`Cluster.stop`), or
    :class:`ClusterUnavailable` saying why there is none."""
    bindir = bin_dir()
    if bindir is None:
        raise ClusterUnavailable(HOW)
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        raise ClusterUnavailable("psycopg is not installed: pip install -e '.[postgres]'") \
            from None
    as_postgres = os.geteuid() == 0
    base = Path(tempfile.mkdtemp(prefix="wonders-pg-"))
    (base / "sock").mkdir()
    if as_postgres:
        shutil.chown(base, "postgres")
        shutil.chown(base / "sock", "postgres")
    cluster = Cluster(base, bindir, as_postgres)
    try:
        cluster.start()
    except (ClusterUnavailable, OSError, subprocess.SubprocessError) as exc:
        shutil.rmtree(base, ignore_errors=True)
        raise ClusterUnavailable(f"a throwaway PostgreSQL cluster did not start ({exc})") \
            from None
    return cluster
