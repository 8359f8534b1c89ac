"""The journal in PostgreSQL (psycopg 3 and a psycopg_pool pool): the same rows and contract as
relay.journal.sqlite.

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
from typing import TYPE_CHECKING, TypeAlias

import psycopg
import psycopg_pool
from psycopg import errors
from psycopg.rows import TupleRow

from relay.journal.base import JournalUnavailable, JsonObject, redact_url
from relay.journal.sqlite import ChatRow, EventRow, FrameRow, RematchRow, StoreError, TableRow

if TYPE_CHECKING:
    from relay.journal.groupcommit import Append

# pg_advisory_xact_lock key held while migrating ("lexio" in ASCII).
MIGRATION_LOCK = 0x6C6578696F
# relay/journal/groupcommit.py's batch (append_many) as one statement, so it is one transaction in autocommit
# mode:
# one round trip and one parameter (a JSON document), where BEGIN, four statements and COMMIT in a pipeline
# cost the relay about four times the CPU (bench/cluster.py with three relays gets batches of one or two).
# The statements are append_many's own, in its order, each with its own snapshot (PL/pgSQL under READ
# COMMITTED): lock the tables' rows in id order and return them, then write each append's rows only where
# its table is still ``node``'s at that append's epoch. A unique violation aborts the whole statement.
_APPEND_MANY_FUNCTION = """
CREATE OR REPLACE FUNCTION lexio_append_many(p_doc TEXT, p_node TEXT)
RETURNS TABLE (locked_id TEXT, locked_owner TEXT, locked_epoch BIGINT) LANGUAGE plpgsql AS $fn$
DECLARE
    batch JSONB := p_doc::jsonb;
BEGIN
    RETURN QUERY SELECT t.id, t.owner, t.owner_epoch::BIGINT FROM tables t
        WHERE t.id IN (SELECT jsonb_array_elements_text(batch -> 'ids')) ORDER BY t.id FOR UPDATE;
    INSERT INTO events (table_id, seq, body, token_hash)
        SELECT e.t, e.s, e.b, e.h
        FROM jsonb_to_recordset(batch -> 'events') AS e(t TEXT, s INTEGER, b TEXT, h TEXT, ep BIGINT)
        JOIN tables x ON x.id = e.t AND x.owner = p_node AND x.owner_epoch = e.ep;
    INSERT INTO frames (table_id, seq, who, frame_id, digest, answer)
        SELECT f.t, f.s, f.w, f.i, f.g, f.a
        FROM jsonb_to_recordset(batch -> 'frames')
            AS f(t TEXT, s INTEGER, w TEXT, i TEXT, g TEXT, a TEXT, ep BIGINT)
        JOIN tables x ON x.id = f.t AND x.owner = p_node AND x.owner_epoch = f.ep;
    UPDATE tables x SET status = v.st, updated_ms = v.ms
        FROM jsonb_to_recordset(batch -> 'changes') AS v(id TEXT, st TEXT, ms BIGINT, ep BIGINT)
        WHERE x.id = v.id AND x.owner = p_node AND x.owner_epoch = v.ep;
END
$fn$"""

# Each table's turn time from its first event (TableCreated): for tables journaled before version 8, and
# for those copied from SQLite (relay/journal/export.py), whose journal has no such column.
FILL_TURN_SECONDS = """UPDATE tables t SET turn_seconds = COALESCE((e.body::jsonb ->> 'turn_seconds')::int, 0)
    FROM events e WHERE e.table_id = t.id AND e.seq = 1"""

# MIGRATIONS[0] is version 1: the journal's tables as in relay.journal.sqlite.SCHEMA.
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
    # Version 3: table chat (relay/tables/chat.py), beside the journal as in SQLite.
    (
        """CREATE TABLE chat (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            table_id TEXT NOT NULL,
            channel TEXT NOT NULL,
            seat INTEGER,
            name TEXT,
            body TEXT NOT NULL,
            at_ms BIGINT NOT NULL
        )""",
        "CREATE INDEX chat_table ON chat(table_id, channel, id)",
    ),
    # Version 4: the client frame each action answered (relay/tables/resend.py: a resend is applied once).
    (
        """CREATE TABLE frames (
            table_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            who TEXT NOT NULL,
            frame_id TEXT NOT NULL,
            digest TEXT NOT NULL,
            answer TEXT NOT NULL,
            PRIMARY KEY (table_id, seq)
        )""",
    ),
    # Version 5: each seat's one post-game analysis (relay/tables/analysis.py), claimed durably.
    (
        """CREATE TABLE analyses (
            table_id TEXT NOT NULL,
            seat INTEGER NOT NULL,
            claimed_ms BIGINT NOT NULL,
            PRIMARY KEY (table_id, seat)
        )""",
    ),
    # Version 6: the group commit's batch as one statement (append_many): one round trip, no BEGIN/COMMIT.
    (_APPEND_MANY_FUNCTION,),
    # Version 7: the account a chat line came from (relay/tables/chat.py: hidden from those who block it).
    ("ALTER TABLE chat ADD COLUMN account TEXT",),
    # Version 8: each table's turn time, so that a relay finds the correspondence games nobody serves (a
    # drained or dead owner) and adopts them before their deadline (relay/cluster/adoption.py). Existing
    # tables read theirs from their first event.
    (
        "ALTER TABLE tables ADD COLUMN turn_seconds INTEGER NOT NULL DEFAULT 0",
        FILL_TURN_SECONDS,
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
UNAVAILABLE = (psycopg.OperationalError, psycopg.InterfaceError, psycopg_pool.PoolTimeout)


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
        self._liveness: psycopg.Connection[TupleRow] | None = None
        self._exclusive: psycopg.Connection[TupleRow] | None = None
        self.timeout = timeout  # seconds to wait for a connection (psycopg's connect_timeout, the pool's)
        self._pool = _open_pool(url, min_size, max_size, timeout)
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
                self.url, autocommit=True, connect_timeout=max(1, int(self.timeout)),
                application_name="lexio-relay-lock",
            )  # fmt: skip
        except UNAVAILABLE as exc:
            raise JournalUnavailable(f"cannot reach the journal at {redact_url(self.url)}: {exc}") from exc
        self._exclusive = conn
        give_up = time.monotonic() + self.timeout
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
    def _transaction(self) -> Iterator[psycopg.Connection[TupleRow]]:
        """One pooled connection inside one transaction (committed on exit, rolled back on an error)."""
        try:
            with self._pool.connection() as conn, conn.transaction():
                yield conn
        except UNAVAILABLE as exc:
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
        events: Sequence[JsonObject],
        rematch: RematchRow | None = None,
    ) -> None:
        """As relay.journal.sqlite.Store.create_table. Raises StoreError on a clash, JournalUnavailable."""
        try:
            with self._transaction() as conn, conn.cursor() as cur:
                secs = events[0].get("turn_seconds") if events else None  # the TableCreated event
                turn_seconds = secs if isinstance(secs, int) else 0
                cur.execute(
                    "INSERT INTO tables (id, created_ms, public, status, updated_ms, turn_seconds)"
                    " VALUES (%s, %s, %s, %s, %s, %s)",
                    (table_id, created_ms, int(public), status, created_ms, turn_seconds),
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
        events: Sequence[tuple[JsonObject, str | None]],
        *,
        status: str | None,
        now_ms: int,
        epoch: int | None = None,
        frame: FrameRow | None = None,
    ) -> None:
        """As relay.journal.sqlite.Store.append: returns once committed. With ``epoch`` (cluster mode) the
        table's
        row is locked and must still be owned by this node at that epoch, in the same transaction as the
        insert. Raises NotOwner stale_epoch (another node claimed it), StoreError if a seq is taken,
        JournalUnavailable; nothing is written in any of these cases."""
        try:
            with self._transaction() as conn, conn.cursor() as cur:
                if epoch is not None:
                    _check_owner(cur, self.node_id, table_id, epoch)
                cur.executemany(
                    "INSERT INTO events (table_id, seq, body, token_hash) VALUES (%s, %s, %s, %s)",
                    [(table_id, first_seq + i, _dumps(body), th) for i, (body, th) in enumerate(events)],
                )
                if frame is not None:
                    cur.execute(
                        "INSERT INTO frames (table_id, seq, who, frame_id, digest, answer)"
                        " VALUES (%s, %s, %s, %s, %s, %s)",
                        (table_id, frame.seq, frame.who, frame.frame_id, frame.digest, _dumps(frame.answer)),
                    )
                if status is not None:
                    cur.execute(
                        "UPDATE tables SET status = %s, updated_ms = %s WHERE id = %s",
                        (status, now_ms, table_id),
                    )
        except errors.UniqueViolation as exc:
            raise StoreError(f"table {table_id}: seq {first_seq} already journaled") from exc

    def append_many(self, items: Sequence[Append]) -> list[StoreError | None]:
        """Several tables' appends (relay/journal/groupcommit.py) in one transaction, each fenced at its own
        epoch
        as :meth:`append` fences one: the tables' rows are locked (in id order) in that transaction, and each
        append's rows are written only if its table is still this node's at its epoch. Returns, per item,
        None (committed) or the NotOwner stale_epoch that refused it (nothing of it written); the others
        commit. Raises StoreError if a seq is taken (nothing written, none of them), JournalUnavailable.
        At most one append per table.

        One statement in autocommit mode, so one transaction and one round trip: the schema's
        ``lexio_append_many`` (version 6) given the batch as one JSON document."""
        doc = batch_document(items)
        try:
            with self._pool.connection() as conn:
                conn.autocommit = True
                try:
                    rows = conn.execute(APPEND_MANY, (doc, self.node_id)).fetchall()
                finally:
                    if not conn.closed:
                        conn.autocommit = False
        except errors.UniqueViolation as exc:
            raise batch_clash(items, exc) from exc
        except UNAVAILABLE as exc:
            raise JournalUnavailable(f"journal at {redact_url(self.url)}: {exc}") from exc
        return batch_outcomes(items, rows, self.node_id)

    # -- ownership (cluster mode): heartbeats, claims with an epoch, fenced writes ---------------------------
    def heartbeat(self) -> int:
        """Record that this node is alive (PostgreSQL's clock), on its own connection that holds the node's
        advisory lock (taken on the first call, and again after that connection was lost). Returns
        PostgreSQL's clock (ms since the epoch) as of the heartbeat. Raises JournalUnavailable (the next call
        reconnects)."""
        try:
            if self._liveness is None or self._liveness.closed:
                self._liveness = psycopg.connect(
                    self.url, autocommit=True, connect_timeout=max(1, int(self.timeout)),
                    application_name="lexio-node",
                )  # fmt: skip
                self._liveness.execute(
                    "SELECT pg_advisory_lock(%s, hashtext(%s))", (NODE_LOCK_SPACE, self.node_id)
                )
            row = self._liveness.execute(_HEARTBEAT, (self.node_id,)).fetchone()
            return int(row[0]) if row else 0
        except UNAVAILABLE as exc:
            if self._liveness is not None:
                self._liveness.close()
                self._liveness = None
            raise JournalUnavailable(f"journal at {redact_url(self.url)}: heartbeat failed: {exc}") from exc

    def claim(self, table_id: str, *, dead_after: float = DEAD_AFTER_SECONDS, renew: bool = True) -> int:
        """Take ownership of ``table_id`` if it has no owner, is ours, or its owner is dead (heartbeat older
        than ``dead_after`` seconds, or its advisory lock released: its connection is gone); returns the
        epoch to pass to :meth:`append` (raised by one on every change of owner; kept when the table is
        already ours). Also renews this node's heartbeat, unless ``renew`` is False (the relay: its heartbeat
        thread alone uses the heartbeat connection).

        Raises NotOwner owned_elsewhere (a live node holds it), StoreError (no such table),
        JournalUnavailable."""
        if renew:
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
            _check_owner(cur, self.node_id, table_id, epoch)
            cur.execute("UPDATE tables SET owner = NULL WHERE id = %s", (table_id,))

    def release_all(self) -> int:
        """Give up every table this node owns (drain), in one transaction; returns how many. A table is ours
        only at the epoch of our own claim (a claim by another changes the owner), so the owner alone fences
        it. Raises JournalUnavailable."""
        with self._transaction() as conn:
            cur = conn.execute("UPDATE tables SET owner = NULL WHERE owner = %s", (self.node_id,))
            return cur.rowcount

    def forget_node(self) -> None:
        """Drop this node's heartbeat row (a clean stop: it is dead at once). Raises JournalUnavailable."""
        with self._transaction() as conn:
            conn.execute("DELETE FROM nodes WHERE node_id = %s", (self.node_id,))

    def open_tables(self, *, created_since_ms: int, limit: int = 100) -> list[TableRow]:
        """Public tables waiting for players that some node serves now (owned by a live node), or created
        since ``created_since_ms`` (not claimed yet: their creator is on the way), newest first."""
        with self._transaction() as conn:
            rows = conn.execute(_OPEN_TABLES, (created_since_ms, DEAD_AFTER_SECONDS, limit)).fetchall()
        return [_table_row(r) for r in rows]

    def live_tables(self, *, limit: int = 20) -> list[TableRow]:
        """Public games in progress that a live node serves, last played first (the lobby's games to
        watch, issue 27)."""
        with self._transaction() as conn:
            rows = conn.execute(_LIVE_TABLES, (DEAD_AFTER_SECONDS, limit)).fetchall()
        return [_table_row(r) for r in rows]

    def unserved_tables(self, *, min_turn_seconds: int, limit: int = 200) -> list[str]:
        """Games in progress whose turns last ``min_turn_seconds`` or more (correspondence: a day) that no
        live node owns: released by a drain, or left by a dead node. Least recently played first. Raises
        JournalUnavailable."""
        with self._transaction() as conn:
            rows = conn.execute(_UNSERVED, (min_turn_seconds, DEAD_AFTER_SECONDS, limit)).fetchall()
        return [str(r[0]) for r in rows]

    def owner(self, table_id: str) -> tuple[str | None, int] | None:
        """(owning node or None, epoch) of a table, or None if there is no such table."""
        with self._transaction() as conn:
            row = conn.execute("SELECT owner, owner_epoch FROM tables WHERE id = %s", (table_id,)).fetchone()
        return (row[0], int(row[1])) if row else None

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

    # -- post-game analysis (relay/tables/analysis.py)
    def claim_analysis(self, table_id: str, seat: int, now_ms: int) -> bool:
        """Record that ``seat`` of ``table_id`` is served its analysis; False if it already was."""
        with self._transaction() as conn:
            cur = conn.execute(
                "INSERT INTO analyses (table_id, seat, claimed_ms) VALUES (%s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                (table_id, seat, now_ms),
            )
            return cur.rowcount == 1

    def release_analysis(self, table_id: str, seat: int) -> None:
        """Undo :meth:`claim_analysis` (the analysis failed and was not served)."""
        with self._transaction() as conn:
            conn.execute("DELETE FROM analyses WHERE table_id = %s AND seat = %s", (table_id, seat))

    # -- table chat (relay/tables/chat.py): beside the journal, never in it
    def add_chat(
        self,
        table_id: str,
        channel: str,
        seat: int | None,
        name: str | None,
        text: str,
        at_ms: int,
        account: str | None = None,
    ) -> int:
        """Keep one chat message; returns its id (increasing). Raises JournalUnavailable."""
        with self._transaction() as conn:
            row = conn.execute(
                "INSERT INTO chat (table_id, channel, seat, name, body, at_ms, account)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
                (table_id, channel, seat, name, text, at_ms, account),
            ).fetchone()
        return int(row[0]) if row else 0

    def chat(self, table_id: str, channel: str, limit: int) -> list[ChatRow]:
        """The last ``limit`` messages of a table's channel, oldest first."""
        with self._transaction() as conn:
            rows = conn.execute(
                "SELECT id, channel, seat, name, body, at_ms, account FROM chat"
                " WHERE table_id = %s AND channel = %s ORDER BY id DESC LIMIT %s",
                (table_id, channel, limit),
            ).fetchall()
        return [ChatRow(int(r[0]), r[1], r[2], r[3], r[4], int(r[5]), r[6]) for r in reversed(rows)]

    def frames(self, table_id: str) -> list[FrameRow]:
        """The client frames the table's actions came from, in seq order."""
        with self._transaction() as conn:
            rows = conn.execute(
                "SELECT seq, who, frame_id, digest, answer FROM frames WHERE table_id = %s ORDER BY seq",
                (table_id,),
            ).fetchall()
        return [FrameRow(int(r[0]), r[1], r[2], r[3], json.loads(r[4])) for r in rows]

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


# The group commit's one statement (PostgresStore.append_many, _APPEND_MANY_FUNCTION).
APPEND_MANY = "SELECT locked_id, locked_owner, locked_epoch FROM lexio_append_many(%s, %s)"
_HEARTBEAT = (
    "INSERT INTO nodes (node_id) VALUES (%s) ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = now()"
    " RETURNING (extract(epoch FROM clock_timestamp()) * 1000)::bigint"
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
_OPEN_TABLES = """
SELECT t.id, t.created_ms, t.public, t.status, t.updated_ms FROM tables t
WHERE t.public = 1 AND t.status IN ('empty', 'waiting')
  AND (t.created_ms >= %s OR EXISTS (
      SELECT 1 FROM nodes n WHERE n.node_id = t.owner AND n.heartbeat_at > now() - make_interval(secs => %s)))
ORDER BY t.created_ms DESC LIMIT %s
"""
_LIVE_TABLES = """
SELECT t.id, t.created_ms, t.public, t.status, t.updated_ms FROM tables t
WHERE t.public = 1 AND t.status = 'playing'
  AND EXISTS (
      SELECT 1 FROM nodes n WHERE n.node_id = t.owner AND n.heartbeat_at > now() - make_interval(secs => %s))
ORDER BY t.updated_ms DESC LIMIT %s
"""
_UNSERVED = """
SELECT t.id FROM tables t
WHERE t.status = 'playing' AND t.turn_seconds >= %s
  AND NOT EXISTS (
      SELECT 1 FROM nodes n WHERE n.node_id = t.owner AND n.heartbeat_at > now() - make_interval(secs => %s))
ORDER BY t.updated_ms, t.id LIMIT %s
"""
_REMATCH_SELECT = "SELECT old_id, new_id, by_seat, link, bots, created_ms FROM rematches"


Pool: TypeAlias = psycopg_pool.ConnectionPool[psycopg.Connection[TupleRow]]


def _check_owner(cur: psycopg.Cursor[TupleRow], node_id: str, table_id: str, epoch: int) -> None:
    # FOR UPDATE: a claim by another node waits for this transaction, or this one sees its epoch.
    row = cur.execute(
        "SELECT owner, owner_epoch FROM tables WHERE id = %s FOR UPDATE", (table_id,)
    ).fetchone()
    if row is None or row[0] != node_id or int(row[1]) != epoch:
        held = f"owner {row[0]} at epoch {row[1]}" if row else "no such table"
        raise NotOwner(
            "stale_epoch",
            f"table {table_id}: node {node_id} at epoch {epoch} no longer owns it ({held})",
        )


def _open_pool(url: str, min_size: int, max_size: int, timeout: float) -> Pool:
    """The journal's connection pool, opened: waits up to ``timeout`` s for a first connection. Raises
    JournalUnavailable if the server cannot be reached."""
    pool: Pool = psycopg_pool.ConnectionPool(
        url,
        min_size=min_size,
        max_size=max_size,
        timeout=timeout,
        open=False,
        name="lexio-journal",
        kwargs={"application_name": "lexio-relay"},
    )
    try:
        pool.open(wait=True, timeout=timeout)
    except UNAVAILABLE as exc:
        pool.close()
        raise JournalUnavailable(f"cannot reach the journal at {redact_url(url)}: {exc}") from exc
    return pool


def _table_row(row: tuple[str, int, int, str, int]) -> TableRow:
    return TableRow(
        id=row[0], created_ms=int(row[1]), public=bool(row[2]), status=row[3], updated_ms=int(row[4])
    )


def _rematch_row(row: tuple[str, str, int, str, str, int]) -> RematchRow:
    bots = tuple((str(b[0]), str(b[1])) for b in json.loads(row[4]))
    return RematchRow(row[0], row[1], int(row[2]), row[3], bots, int(row[5]))


def _dumps(body: object) -> str:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def batch_document(items: Sequence[Append]) -> str:
    """``lexio_append_many``'s JSON document for a batch of appends (at most one per table)."""
    return _dumps(
        {
            "ids": sorted({it.table_id for it in items}),
            "events": [
                {"t": it.table_id, "s": it.first_seq + i, "b": _dumps(body), "h": th, "ep": it.epoch}
                for it in items
                for i, (body, th) in enumerate(it.events)
            ],
            "frames": [
                {
                    "t": it.table_id,
                    "s": f.seq,
                    "w": f.who,
                    "i": f.frame_id,
                    "g": f.digest,
                    "a": _dumps(f.answer),
                    "ep": it.epoch,
                }
                for it in items
                if (f := it.frame) is not None
            ],
            "changes": [
                {"id": it.table_id, "st": it.status, "ms": it.now_ms, "ep": it.epoch}
                for it in items
                if it.status is not None
            ],
        }
    )


def batch_outcomes(
    items: Sequence[Append], rows: Sequence[tuple[str, str | None, int]], node: str
) -> list[StoreError | None]:
    """Per append of a committed batch: None (written) or NotOwner stale_epoch (its table's row, as
    ``lexio_append_many`` locked and returned it, is not ``node``'s at its epoch: nothing of it written)."""
    held = {r[0]: (r[1], int(r[2])) for r in rows}
    out: list[StoreError | None] = []
    for it in items:
        row = held.get(it.table_id)
        if row == (node, it.epoch):
            out.append(None)
            continue
        where = f"owner {row[0]} at epoch {row[1]}" if row else "no such table"
        message = f"table {it.table_id}: node {node} at epoch {it.epoch} no longer owns it ({where})"
        out.append(NotOwner("stale_epoch", message))
    return out


def batch_clash(items: Sequence[Append], exc: Exception) -> StoreError:
    return StoreError(f"a seq of {len(items)} grouped appends is already journaled: {exc}")
