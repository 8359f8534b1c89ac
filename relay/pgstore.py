"""The journal in PostgreSQL (psycopg 3 and a psycopg_pool pool): the same rows and contract as relay.store.

Chosen with ``lexio serve --db postgresql://user@host/dbname`` (or ``LEXIO_DB``); several relays may share one
database. Columns mirror the SQLite journal's (``public`` as 0/1, bodies as the same compact JSON text), so
``lexio export-journal`` copies rows as they are and both stores read back byte-identical events.

The schema is created and migrated by the relay itself at start-up: ``MIGRATIONS[i]`` takes the database from
version i to i + 1 in one transaction with its ``schema_version`` row, under an advisory lock so relays
starting together migrate once. A database with a newer version than this relay knows is refused.

Calls are synchronous and short, as with SQLite: one pooled connection, one transaction each. Errors: a
clash (table id or seq already taken) raises StoreError; the server unreachable or failing raises
JournalUnavailable. A connection broken by a server restart fails its call and is then replaced by the pool.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
import psycopg_pool
from psycopg import errors

from relay.journal import JournalUnavailable, redact_url
from relay.store import EventRow, RematchRow, StoreError, TableRow

# pg_advisory_xact_lock key held while migrating ("lexio" in ASCII).
MIGRATION_LOCK = 0x6C6578696F
# MIGRATIONS[0] is version 1: the journal's tables as in relay.store.SCHEMA.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE tables (
            id TEXT PRIMARY KEY,
            created_ms BIGINT NOT NULL,
            public INTEGER NOT NULL,
            status TEXT NOT NULL,
            updated_ms BIGINT NOT NULL
        )""",
        "CREATE INDEX tables_status ON tables(status)",
        """CREATE TABLE events (
            table_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            body TEXT NOT NULL,
            token_hash TEXT,
            PRIMARY KEY (table_id, seq)
        )""",
        """CREATE TABLE rematches (
            old_id TEXT PRIMARY KEY,
            new_id TEXT NOT NULL,
            by_seat INTEGER NOT NULL,
            link TEXT NOT NULL,
            bots TEXT NOT NULL,
            created_ms BIGINT NOT NULL
        )""",
        "CREATE INDEX rematches_new ON rematches(new_id)",
    ),
    # Version 2: who may write a table. Heartbeats and ownership use PostgreSQL's clock only, so the relays'
    # own clocks (which may disagree) never decide whether a node is dead.
    (
        """CREATE TABLE nodes (
            node_id TEXT PRIMARY KEY,
            started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )""",
        "ALTER TABLE tables ADD COLUMN owner TEXT",
        "ALTER TABLE tables ADD COLUMN owner_epoch BIGINT NOT NULL DEFAULT 0",
    ),
)
# A node whose heartbeat is older than this is dead: its tables may be claimed by another.
DEAD_AFTER_SECONDS = 3.0
# pg_advisory_lock(NODE_LOCK_SPACE, hashtext(node_id)) is held by each node on its heartbeat connection: a
# node killed outright (kill -9, lost host) drops its connection and so the lock at once, and claimers need
# not wait out DEAD_AFTER_SECONDS.
NODE_LOCK_SPACE = 0x6C78
# Until the relay claims tables itself (cluster mode), one relay at a time may serve a journal: it holds
# pg_advisory_lock(EXCLUSIVE_LOCK_SPACE, hashtext(current_schema())) on a connection of its own.
EXCLUSIVE_LOCK_SPACE = 0x6C79
_VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_version"
    " (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
)
_UNAVAILABLE = (psycopg.OperationalError, psycopg.InterfaceError, psycopg_pool.PoolTimeout)


class NotOwner(StoreError):
    """``code`` owned_elsewhere: a claim found the table held by another live node; stale_epoch: a fenced
    append or release came from a node that no longer owns the table (another claimed it since)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class JournalInUse(JournalUnavailable):
    """Another relay serves this journal (it holds the journal's exclusive lock)."""


class PostgresStore:
    def __init__(
        self,
        url: str,
        *,
        node_id: str | None = None,
        min_size: int = 1,
        max_size: int = 4,
        timeout: float = 5.0,
        migrations: Sequence[Sequence[str]] | None = None,
        exclusive: bool = False,
    ) -> None:
        """Connect (waiting up to ``timeout`` s for a first connection) and migrate the schema.

        Raises JournalUnavailable if the server cannot be reached, StoreError if the database's schema is
        newer than this relay's, psycopg.Error if a migration fails (nothing applied). ``node_id`` names this
        relay in ownership (default: a fresh id per start, so a restarted node never inherits a claim).
        ``exclusive`` (the relay): hold the journal's lock for as long as the store is open, waiting up to
        ``timeout`` for a relay killed a moment ago to let go of it; JournalInUse if another holds it."""
        self.url = url
        self.node_id = node_id or f"node-{uuid.uuid4().hex[:12]}"
        self._liveness: psycopg.Connection[tuple[Any, ...]] | None = None
        self._exclusive: psycopg.Connection[tuple[Any, ...]] | None = None
        self._timeout = timeout
        self._pool: psycopg_pool.ConnectionPool[psycopg.Connection[tuple[Any, ...]]] = (
            psycopg_pool.ConnectionPool(
                url,
                min_size=min_size,
                max_size=max_size,
                timeout=timeout,
                open=False,
                name="lexio-journal",
                kwargs={"application_name": "lexio-relay"},
            )
        )
        try:
            self._pool.open(wait=True, timeout=timeout)
        except _UNAVAILABLE as exc:
            self._pool.close()
            raise JournalUnavailable(f"cannot reach the journal at {redact_url(url)}: {exc}") from exc
        try:
            self.schema_version = self._migrate(MIGRATIONS if migrations is None else migrations)
            if exclusive:
                self._take_exclusive_lock()
        except BaseException:
            self.close()
            raise

    def _take_exclusive_lock(self) -> None:
        try:
            conn = psycopg.connect(
                self.url, autocommit=True, connect_timeout=max(1, int(self._timeout)),
                application_name="lexio-relay-lock",
            )  # fmt: skip
        except _UNAVAILABLE as exc:
            raise JournalUnavailable(f"cannot reach the journal at {redact_url(self.url)}: {exc}") from exc
        self._exclusive = conn
        give_up = time.monotonic() + self._timeout
        while True:
            row = conn.execute(
                "SELECT pg_try_advisory_lock(%s, hashtext(current_schema()))", (EXCLUSIVE_LOCK_SPACE,)
            ).fetchone()
            if row and row[0]:
                return
            if time.monotonic() >= give_up:
                raise JournalInUse(
                    f"another relay is serving the journal at {redact_url(self.url)}: one relay per "
                    "PostgreSQL journal (several relays need cluster mode, not built yet)"
                )
            time.sleep(0.1)

    @contextmanager
    def _transaction(self) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        """One pooled connection inside one transaction (committed on exit, rolled back on an error)."""
        try:
            with self._pool.connection() as conn, conn.transaction():
                yield conn
        except _UNAVAILABLE as exc:
            raise JournalUnavailable(f"journal at {redact_url(self.url)}: {exc}") from exc

    def _migrate(self, migrations: Sequence[Sequence[str]]) -> int:
        latest = len(migrations)
        with self._transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            conn.execute(_VERSION_TABLE)
            row = conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()
            current = int(row[0]) if row else 0
            if current > latest:
                raise StoreError(
                    f"the journal at {redact_url(self.url)} has schema version {current}; "
                    f"this relay knows up to {latest}"
                )
            for version in range(current + 1, latest + 1):
                for statement in migrations[version - 1]:
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (version,))
        return latest

    def close(self) -> None:
        for conn in (self._liveness, self._exclusive):
            if conn is not None:
                conn.close()
        self._liveness = self._exclusive = None
        self._pool.close()

    def checkpoint(self) -> None:
        """Nothing to do: PostgreSQL checkpoints by itself."""

    def create_table(
        self,
        table_id: str,
        *,
        created_ms: int,
        public: bool,
        status: str,
        events: Sequence[dict[str, Any]],
        rematch: RematchRow | None = None,
    ) -> None:
        """As relay.store.Store.create_table. Raises StoreError on a clash, JournalUnavailable."""
        try:
            with self._transaction() as conn, conn.cursor() as cur:
                cur.execute(
                    "INSERT INTO tables (id, created_ms, public, status, updated_ms)"
                    " VALUES (%s, %s, %s, %s, %s)",
                    (table_id, created_ms, int(public), status, created_ms),
                )
                cur.executemany(
                    "INSERT INTO events (table_id, seq, body, token_hash) VALUES (%s, %s, %s, NULL)",
                    [(table_id, i, _dumps(body)) for i, body in enumerate(events, start=1)],
                )
                if rematch is not None:
                    cur.execute(
                        "INSERT INTO rematches (old_id, new_id, by_seat, link, bots, created_ms)"
                        " VALUES (%s, %s, %s, %s, %s, %s)",
                        (
                            rematch.old_id,
                            rematch.new_id,
                            rematch.by_seat,
                            rematch.link,
                            json.dumps([list(b) for b in rematch.bots]),
                            rematch.created_ms,
                        ),
                    )
        except errors.UniqueViolation as exc:
            raise StoreError(f"table {table_id} already exists") from exc

    def append(
        self,
        table_id: str,
        first_seq: int,
        events: Sequence[tuple[dict[str, Any], str | None]],
        *,
        status: str | None,
        now_ms: int,
        epoch: int | None = None,
    ) -> None:
        """As relay.store.Store.append: returns once committed. With ``epoch`` (cluster mode) the table's
        row is locked and must still be owned by this node at that epoch, in the same transaction as the
        insert. Raises NotOwner stale_epoch (another node claimed it), StoreError if a seq is taken,
        JournalUnavailable; nothing is written in any of these cases."""
        try:
            with self._transaction() as conn, conn.cursor() as cur:
                if epoch is not None:
                    self._check_owner(cur, table_id, epoch)
                cur.executemany(
                    "INSERT INTO events (table_id, seq, body, token_hash) VALUES (%s, %s, %s, %s)",
                    [(table_id, first_seq + i, _dumps(body), th) for i, (body, th) in enumerate(events)],
                )
                if status is not None:
                    cur.execute(
                        "UPDATE tables SET status = %s, updated_ms = %s WHERE id = %s",
                        (status, now_ms, table_id),
                    )
        except errors.UniqueViolation as exc:
            raise StoreError(f"table {table_id}: seq {first_seq} already journaled") from exc

    # -- ownership (cluster mode): heartbeats, claims with an epoch, fenced writes ---------------------------
    def heartbeat(self) -> None:
        """Record that this node is alive (PostgreSQL's clock), on its own connection that holds the node's
        advisory lock (taken on the first call, and again after that connection was lost).
        Raises JournalUnavailable (the next call reconnects)."""
        try:
            if self._liveness is None or self._liveness.closed:
                self._liveness = psycopg.connect(
                    self.url, autocommit=True, connect_timeout=max(1, int(self._timeout)),
                    application_name="lexio-node",
                )  # fmt: skip
                self._liveness.execute(
                    "SELECT pg_advisory_lock(%s, hashtext(%s))", (NODE_LOCK_SPACE, self.node_id)
                )
            self._liveness.execute(_HEARTBEAT, (self.node_id,))
        except _UNAVAILABLE as exc:
            if self._liveness is not None:
                self._liveness.close()
                self._liveness = None
            raise JournalUnavailable(f"journal at {redact_url(self.url)}: heartbeat failed: {exc}") from exc

    def claim(self, table_id: str, *, dead_after: float = DEAD_AFTER_SECONDS) -> int:
        """Take ownership of ``table_id`` if it has no owner, is ours, or its owner is dead (heartbeat older
        than ``dead_after`` seconds, or its advisory lock released: its connection is gone); returns the
        epoch to pass to :meth:`append` (raised by one on every change of owner; kept when the table is
        already ours). Also renews this node's heartbeat.

        Raises NotOwner owned_elsewhere (a live node holds it), StoreError (no such table),
        JournalUnavailable."""
        self.heartbeat()
        with self._transaction() as conn:
            # Lock the row first, then judge its owner in a second statement: under READ COMMITTED that one
            # takes a fresh snapshot, so it sees the heartbeat committed with a rival claim this lock waited
            # for (judged in one statement, the re-checked row would meet a stale view of ``nodes``).
            row = conn.execute(
                "SELECT owner, owner_epoch FROM tables WHERE id = %s FOR UPDATE", (table_id,)
            ).fetchone()
            if row is None:
                raise StoreError(f"table {table_id}: no such table to claim")
            owner, epoch = row[0], int(row[1])
            if owner == self.node_id:
                return epoch
            if owner is not None:
                alive = conn.execute(_NODE_ALIVE, (owner, dead_after, NODE_LOCK_SPACE, owner)).fetchone()
                if alive and alive[0]:
                    raise NotOwner("owned_elsewhere", f"table {table_id} is owned by live node {owner}")
            conn.execute(
                "UPDATE tables SET owner = %s, owner_epoch = %s WHERE id = %s",
                (self.node_id, epoch + 1, table_id),
            )
            return epoch + 1

    def release(self, table_id: str, epoch: int) -> None:
        """Give the table up (drain), fenced like an append: another node may claim it at once.
        Raises NotOwner stale_epoch if it was no longer ours, JournalUnavailable."""
        with self._transaction() as conn, conn.cursor() as cur:
            self._check_owner(cur, table_id, epoch)
            cur.execute("UPDATE tables SET owner = NULL WHERE id = %s", (table_id,))

    def owner(self, table_id: str) -> tuple[str | None, int] | None:
        """(owning node or None, epoch) of a table, or None if there is no such table."""
        with self._transaction() as conn:
            row = conn.execute("SELECT owner, owner_epoch FROM tables WHERE id = %s", (table_id,)).fetchone()
        return (row[0], int(row[1])) if row else None

    def _check_owner(self, cur: psycopg.Cursor[tuple[Any, ...]], table_id: str, epoch: int) -> None:
        # FOR UPDATE: a claim by another node waits for this transaction, or this one sees its epoch.
        row = cur.execute(
            "SELECT owner, owner_epoch FROM tables WHERE id = %s FOR UPDATE", (table_id,)
        ).fetchone()
        if row is None or row[0] != self.node_id or int(row[1]) != epoch:
            held = f"owner {row[0]} at epoch {row[1]}" if row else "no such table"
            raise NotOwner(
                "stale_epoch",
                f"table {table_id}: node {self.node_id} at epoch {epoch} no longer owns it ({held})",
            )

    def table(self, table_id: str) -> TableRow | None:
        with self._transaction() as conn:
            row = conn.execute(_TABLE_SELECT + " WHERE id = %s", (table_id,)).fetchone()
        return _table_row(row) if row else None

    def tables(self, *, unfinished: bool) -> list[TableRow]:
        query = _TABLE_SELECT
        if unfinished:
            query += " WHERE status NOT IN ('ended', 'abandoned')"
        with self._transaction() as conn:
            rows = conn.execute(query + " ORDER BY created_ms, id").fetchall()
        return [_table_row(r) for r in rows]

    def set_status(self, table_id: str, status: str, now_ms: int) -> None:
        with self._transaction() as conn:
            conn.execute(
                "UPDATE tables SET status = %s, updated_ms = %s WHERE id = %s", (status, now_ms, table_id)
            )

    def rematch_of(self, old_id: str) -> RematchRow | None:
        """The new table proposed after ``old_id`` ended, if any."""
        with self._transaction() as conn:
            row = conn.execute(_REMATCH_SELECT + " WHERE old_id = %s", (old_id,)).fetchone()
        return _rematch_row(row) if row else None

    def rematch_into(self, new_id: str) -> RematchRow | None:
        """The link that created ``new_id`` as a rematch, if it was one."""
        with self._transaction() as conn:
            row = conn.execute(_REMATCH_SELECT + " WHERE new_id = %s", (new_id,)).fetchone()
        return _rematch_row(row) if row else None

    def events(self, table_id: str) -> list[EventRow]:
        """Every event of the table in seq order. Raises StoreError if the journal has a hole."""
        with self._transaction() as conn:
            rows = conn.execute(
                "SELECT seq, body, token_hash FROM events WHERE table_id = %s ORDER BY seq", (table_id,)
            ).fetchall()
        out = [EventRow(int(seq), json.loads(body), th) for seq, body, th in rows]
        for expected, row in enumerate(out, start=1):
            if row.seq != expected:
                raise StoreError(f"table {table_id}: journal has a hole at seq {expected}")
        return out


_HEARTBEAT = (
    "INSERT INTO nodes (node_id) VALUES (%s) ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = now()"
)
# A node is alive if its heartbeat is fresh and its advisory lock is held (granted) in this database.
_NODE_ALIVE = """
SELECT EXISTS (SELECT 1 FROM nodes WHERE node_id = %s AND heartbeat_at > now() - make_interval(secs => %s))
   AND EXISTS (
       SELECT 1 FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND objsubid = 2
         AND classid = %s::oid AND objid = hashtext(%s)::oid
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
   )
"""
_TABLE_SELECT = "SELECT id, created_ms, public, status, updated_ms FROM tables"
_REMATCH_SELECT = "SELECT old_id, new_id, by_seat, link, bots, created_ms FROM rematches"


def _table_row(row: tuple[Any, ...]) -> TableRow:
    return TableRow(
        id=row[0], created_ms=int(row[1]), public=bool(row[2]), status=row[3], updated_ms=int(row[4])
    )


def _rematch_row(row: tuple[Any, ...]) -> RematchRow:
    bots = tuple((str(b[0]), str(b[1])) for b in json.loads(row[4]))
    return RematchRow(row[0], row[1], int(row[2]), row[3], bots, int(row[5]))


def _dumps(body: dict[str, Any]) -> str:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)
