"""Test support: a throw-away PostgreSQL server (Debian's postgresql package) on 127.0.0.1, in a temp dir.

initdb and the server refuse to run as root: as root (CI, this machine) they run as the ``postgres`` user
through ``runuser``, in a directory that user owns. The server listens on loopback only, on a free port,
with its socket in the same directory; ``make postgresql`` installs the package.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import psycopg

from relay.testing import free_port


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL binaries here, or the server would not start (the message says which and why)."""


def postgres_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if not found:
        raise PostgresUnavailable(
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl): run 'make postgresql' "
            "(as root: apt-get install postgresql)"
        )
    return Path(found[-1]).parent


class PostgresCluster:
    """``start()`` runs initdb and the server; ``new_database()`` gives a fresh, empty database's URL."""

    def __init__(self) -> None:
        self.bin = postgres_bin()
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="lexio-pg-"))
        self.data = self.dir / "data"
        self._as_pg: list[str] = []
        if os.geteuid() == 0:
            pg = pwd.getpwnam("postgres")
            os.chown(self.dir, pg.pw_uid, pg.pw_gid)
            self._as_pg = ["runuser", "-u", "postgres", "--"]
        self._names = itertools.count(1)

    def _run(self, *args: str) -> None:
        done = subprocess.run(
            [*self._as_pg, *args], capture_output=True, text=True, timeout=60, cwd=self.dir, check=False
        )
        if done.returncode != 0:
            log = self.dir / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise PostgresUnavailable(f"{args[0]} failed: {done.stdout}{done.stderr}{tail}")

    def start(self) -> None:
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
            "--no-instructions",
        )
        options = " ".join(
            [
                "-c listen_addresses=127.0.0.1",
                f"-p {self.port}",
                f"-c unix_socket_directories={self.dir}",
                # A test server: durability of the server itself is not what the tests check.
                "-c fsync=off",
                "-c full_page_writes=off",
                "-c max_connections=200",
            ]
        )
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "server.log"),
            "-w", "-t", "30", "-o", options, "start",
        )  # fmt: skip

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def new_database(self) -> str:
        """The URL of a fresh, empty journal: its own schema (first on the search path), which is as good as
        a database for isolation and takes milliseconds where CREATE DATABASE takes most of a second."""
        name = f"t{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{name}"')
        return self.url() + f"?options=-csearch_path%3D{name}"

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
