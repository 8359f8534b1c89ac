"""Test support: a throw-away PostgreSQL server (Debian's postgresql package) on 127.0.0.1, in a temp dir.

The server itself is harness.services.PostgresServer (``make cluster`` runs the same one): as root, initdb and
the server run as the ``postgres`` user through ``runuser``; it listens on loopback only, on a free port.
``make postgresql`` installs the package.
"""

from __future__ import annotations

import shutil

from harness.services import PostgresServer, ServiceUnavailable, postgres_bin

PostgresUnavailable = ServiceUnavailable


class PostgresCluster(PostgresServer):
    """``start()`` runs initdb and the server; ``new_database()`` gives a fresh, empty database's URL;
    ``stop()`` ends it and removes its directory."""

    def stop(self, timeout: float = 10.0) -> None:
        try:
            super().stop(timeout)
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


__all__ = ["PostgresCluster", "PostgresUnavailable", "postgres_bin"]
