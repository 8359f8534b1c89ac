"""One SQL dialect for the accounts over SQLite and PostgreSQL.

The accounts' queries are written once, with ``?`` placeholders and the SQL both databases share
(``INSERT ... ON CONFLICT``, ``RETURNING``, ``BIGINT``, text columns for binary values as base64url).
:class:`SqliteDb` runs them on its own connection to the journal's file (WAL: the journal's writer and this
one take turns); :class:`PostgresDb` translates the placeholders and runs them on a small pool.

The accounts keep their own schema versions (``accounts_schema``), apart from the journal's, so that either
side can move on its own.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from relay.journal.base import JournalUnavailable, redact_url

if TYPE_CHECKING:
    import psycopg

Row = tuple[Any, ...]
Params = Sequence[object]


class Tx(Protocol):
    """A transaction: statements run in it are committed together when it ends without an error."""

    def rows(self, sql: str, params: Params = ()) -> list[Row]: ...

    def run(self, sql: str, params: Params = ()) -> int:
        """Runs a statement; returns how many rows it changed."""
        ...


class Db(Protocol):
    kind: str

    def transaction(self) -> AbstractContextManager[Tx]:
        """A context manager yielding a :class:`Tx`. Raises JournalUnavailable (PostgreSQL unreachable),
        sqlite3.Error (SQLite)."""
        ...

    def close(self) -> None: ...


SCHEMA: tuple[tuple[str, ...], ...] = (
    # Version 1: accounts, their passkeys, sessions, recovery codes, ceremonies in progress, claimed seats.
    (
        """CREATE TABLE accounts (
            id TEXT PRIMARY KEY,
            nickname TEXT NOT NULL,
            folded TEXT NOT NULL UNIQUE,
            user_handle TEXT NOT NULL UNIQUE,
            recovery_salt TEXT NOT NULL,
            created_ms BIGINT NOT NULL
        )""",
        """CREATE TABLE credentials (
            id TEXT PRIMARY KEY,
            account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            public_key TEXT NOT NULL,
            sign_count BIGINT NOT NULL,
            transports TEXT NOT NULL,
            name TEXT NOT NULL,
            created_ms BIGINT NOT NULL,
            used_ms BIGINT
        )""",
        "CREATE INDEX credentials_account ON credentials(account_id)",
        """CREATE TABLE sessions (
            hash TEXT PRIMARY KEY,
            account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            created_ms BIGINT NOT NULL,
            seen_ms BIGINT NOT NULL,
            expires_ms BIGINT NOT NULL,
            agent TEXT NOT NULL
        )""",
        "CREATE INDEX sessions_account ON sessions(account_id)",
        """CREATE TABLE recovery_codes (
            hash TEXT PRIMARY KEY,
            account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            used_ms BIGINT
        )""",
        """CREATE TABLE challenges (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            challenge TEXT NOT NULL,
            account_id TEXT,
            nickname TEXT,
            user_handle TEXT,
            expires_ms BIGINT NOT NULL
        )""",
        """CREATE TABLE seat_accounts (
            table_id TEXT NOT NULL,
            seat INTEGER NOT NULL,
            account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            claimed_ms BIGINT NOT NULL,
            PRIMARY KEY (table_id, seat)
        )""",
        "CREATE INDEX seat_accounts_account ON seat_accounts(account_id)",
    ),
    # Version 2: the history, one row per seat of every finished game (relay/accounts/history.py).
    (
        """CREATE TABLE game_players (
            table_id TEXT NOT NULL,
            seat INTEGER NOT NULL,
            name TEXT NOT NULL,
            bot TEXT,
            score INTEGER NOT NULL,
            rank INTEGER NOT NULL,
            won INTEGER NOT NULL,
            bingos INTEGER NOT NULL,
            best_word TEXT,
            best_score INTEGER,
            moves INTEGER NOT NULL,
            ended_ms BIGINT NOT NULL,
            variant TEXT NOT NULL,
            PRIMARY KEY (table_id, seat)
        )""",
        "CREATE INDEX game_players_ended ON game_players(ended_ms)",
    ),
    # Version 3: the seats of deleted accounts (relay/accounts/erasure.py). A table of its own rather than a
    # column of game_players: it marks games not finished yet too, and survives the history being rebuilt
    # from the journal (which is never rewritten and still holds the name played under).
    (
        """CREATE TABLE deleted_seats (
            table_id TEXT NOT NULL,
            seat INTEGER NOT NULL,
            deleted_ms BIGINT NOT NULL,
            PRIMARY KEY (table_id, seat)
        )""",
    ),
    # Version 4: moderation (relay/accounts/moderation.py): who blocks whom, players' reports, hosts' bans.
    (
        """CREATE TABLE blocks (
            blocker_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            blocked_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            created_ms BIGINT NOT NULL,
            PRIMARY KEY (blocker_id, blocked_id)
        )""",
        "CREATE INDEX blocks_blocked ON blocks(blocked_id)",
        """CREATE TABLE reports (
            id TEXT PRIMARY KEY,
            created_ms BIGINT NOT NULL,
            reporter_id TEXT,
            table_id TEXT NOT NULL,
            seat INTEGER NOT NULL,
            name TEXT NOT NULL,
            account_id TEXT,
            address TEXT,
            reason TEXT NOT NULL,
            note TEXT NOT NULL,
            excerpt TEXT NOT NULL,
            closed_ms BIGINT
        )""",
        "CREATE INDEX reports_reporter ON reports(reporter_id, created_ms)",
        """CREATE TABLE bans (
            id TEXT PRIMARY KEY,
            account_id TEXT,
            address TEXT,
            reason TEXT NOT NULL,
            created_ms BIGINT NOT NULL,
            until_ms BIGINT NOT NULL,
            lifted_ms BIGINT
        )""",
        "CREATE INDEX bans_account ON bans(account_id)",
        "CREATE INDEX bans_address ON bans(address)",
    ),
    # Version 5: ratings (relay/accounts/ratings.py): one per account and speed class, and each rated seat's
    # number before and after its game in the history (the chart and the end screen read them there).
    (
        """CREATE TABLE ratings (
            account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            speed TEXT NOT NULL,
            mu DOUBLE PRECISION NOT NULL,
            sigma DOUBLE PRECISION NOT NULL,
            played_ms BIGINT,
            games INTEGER NOT NULL,
            PRIMARY KEY (account_id, speed)
        )""",
        "CREATE INDEX ratings_speed ON ratings(speed, played_ms)",
        "ALTER TABLE game_players ADD COLUMN speed TEXT",
        "ALTER TABLE game_players ADD COLUMN rating_before INTEGER",
        "ALTER TABLE game_players ADD COLUMN rating_after INTEGER",
        "ALTER TABLE game_players ADD COLUMN provisional INTEGER",
    ),
    # Version 6: "play now" (relay/ratings/queue.py): one seek per account, the offers the pairing made and
    # who confirmed them; in the database so that a seek is paired once across a cluster. A seek belongs to
    # one socket (``socket``) of one relay (``node``), which refreshes ``seen_ms`` while the socket lives;
    # ``rating`` is the number it is paired on, ``label`` the one shown. An offer keeps its seats' names and
    # shown ratings, counts its confirmations (``confirmed`` of ``seats``: the last one creates the table),
    # and stays once its table exists: only its accounts may sit there (relay/accounts/ratings.py).
    (
        """CREATE TABLE seeks (
            account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
            socket TEXT NOT NULL UNIQUE,
            node TEXT NOT NULL,
            speed TEXT NOT NULL,
            size TEXT NOT NULL,
            rating INTEGER NOT NULL,
            label TEXT NOT NULL,
            enqueued_ms BIGINT NOT NULL,
            seen_ms BIGINT NOT NULL,
            offer_id TEXT
        )""",
        "CREATE INDEX seeks_speed ON seeks(speed, enqueued_ms)",
        "CREATE INDEX seeks_node ON seeks(node)",
        "CREATE INDEX seeks_offer ON seeks(offer_id)",
        """CREATE TABLE offers (
            id TEXT PRIMARY KEY,
            speed TEXT NOT NULL,
            seats INTEGER NOT NULL,
            confirmed INTEGER NOT NULL,
            created_ms BIGINT NOT NULL,
            deadline_ms BIGINT NOT NULL,
            table_id TEXT
        )""",
        """CREATE TABLE offer_seats (
            offer_id TEXT NOT NULL REFERENCES offers(id) ON DELETE CASCADE,
            account_id TEXT NOT NULL,
            seat INTEGER NOT NULL,
            nickname TEXT NOT NULL,
            label TEXT NOT NULL,
            confirmed_ms BIGINT,
            PRIMARY KEY (offer_id, account_id)
        )""",
        "CREATE INDEX offers_table ON offers(table_id)",
    ),
    # Version 7: Web Push (relay/push/). The relay's one VAPID key pair (``push_vapid``, a single row: every
    # relay sharing the database signs with it); each account's push subscriptions, with the session that
    # made them (signing that session out removes them); the 80 % reminders still to send (``push_pending``,
    # one per seat whose turn runs) and the ledger of those sent (``push_sent``), so that each is sent once
    # across relays.
    (
        """CREATE TABLE push_vapid (
            id INTEGER PRIMARY KEY,
            private_key TEXT NOT NULL,
            public_key TEXT NOT NULL,
            created_ms BIGINT NOT NULL
        )""",
        """CREATE TABLE push_subscriptions (
            endpoint TEXT PRIMARY KEY,
            account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            p256dh TEXT NOT NULL,
            auth TEXT NOT NULL,
            session_hash TEXT,
            created_ms BIGINT NOT NULL
        )""",
        "CREATE INDEX push_subscriptions_account ON push_subscriptions(account_id)",
        "CREATE INDEX push_subscriptions_session ON push_subscriptions(session_hash)",
        """CREATE TABLE push_pending (
            table_id TEXT NOT NULL,
            seat INTEGER NOT NULL,
            account_id TEXT NOT NULL,
            deadline_ms BIGINT NOT NULL,
            due_ms BIGINT NOT NULL,
            PRIMARY KEY (table_id, seat)
        )""",
        "CREATE INDEX push_pending_due ON push_pending(due_ms)",
        "CREATE INDEX push_pending_account ON push_pending(account_id)",
        """CREATE TABLE push_sent (
            table_id TEXT NOT NULL,
            seat INTEGER NOT NULL,
            deadline_ms BIGINT NOT NULL,
            kind TEXT NOT NULL,
            sent_ms BIGINT NOT NULL,
            PRIMARY KEY (table_id, seat, deadline_ms, kind)
        )""",
        "CREATE INDEX push_sent_deadline ON push_sent(deadline_ms)",
    ),
)


def migrate(db: Db, schema: Sequence[Sequence[str]] = SCHEMA) -> int:
    """Brings the accounts' tables to the newest version; returns it. Raises AccountSchemaError if the
    database was written by a newer relay."""
    with db.transaction() as tx:
        if db.kind == "postgresql":
            tx.run("SELECT pg_advisory_xact_lock(7341)")  # two relays starting at once migrate once
        tx.run("CREATE TABLE IF NOT EXISTS accounts_schema (version INTEGER PRIMARY KEY, applied_ms BIGINT)")
        current = int(tx.rows("SELECT COALESCE(MAX(version), 0) FROM accounts_schema")[0][0])
        if current > len(schema):
            raise AccountSchemaError(
                f"the accounts' schema is version {current}; this relay knows {len(schema)}"
            )
        for version in range(current + 1, len(schema) + 1):
            for statement in schema[version - 1]:
                tx.run(statement)
            tx.run("INSERT INTO accounts_schema (version, applied_ms) VALUES (?, ?)", (version, _now_ms()))
    return len(schema)


class AccountSchemaError(RuntimeError):
    """The database's accounts schema is newer than this relay's."""


class _SqliteTx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def rows(self, sql: str, params: Params = ()) -> list[Row]:
        return list(self.conn.execute(sql, tuple(params)).fetchall())

    def run(self, sql: str, params: Params = ()) -> int:
        return self.conn.execute(sql, tuple(params)).rowcount


class SqliteDb:
    """The accounts in the journal's SQLite file, on a connection of their own (calls are short: the relay
    makes them on its event loop, as the journal's)."""

    kind = "sqlite"

    def __init__(self, path: Path | str) -> None:
        """Raises sqlite3.Error / OSError if the file is unusable."""
        self._conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA busy_timeout=5000")  # the journal's writer may hold the lock a moment
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._conn.execute(
            "PRAGMA wal_autocheckpoint=0"
        )  # the relay checkpoints off the loop (journal.sqlite)
        self._lock = threading.Lock()

    @contextmanager
    def transaction(self) -> Iterator[_SqliteTx]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield _SqliteTx(self._conn)
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def close(self) -> None:
        self._conn.close()


class _PostgresTx:
    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def rows(self, sql: str, params: Params = ()) -> list[Row]:
        return list(self.conn.execute(_pg(sql), tuple(params)).fetchall())

    def run(self, sql: str, params: Params = ()) -> int:
        return self.conn.execute(_pg(sql), tuple(params)).rowcount


class PostgresDb:
    """The accounts in the journal's PostgreSQL database: every relay of a cluster sees the same rows."""

    kind = "postgresql"

    def __init__(self, url: str, *, timeout: float = 5.0) -> None:
        """Raises JournalUnavailable if the server cannot be reached."""
        from psycopg_pool import ConnectionPool

        self.url = url
        try:
            self._pool = ConnectionPool(url, min_size=1, max_size=4, timeout=timeout, open=True)
            self._pool.wait(timeout)
        except Exception as exc:
            raise JournalUnavailable(f"accounts at {redact_url(url)}: {exc}") from exc

    @contextmanager
    def transaction(self) -> Iterator[_PostgresTx]:
        import psycopg

        try:
            with self._pool.connection() as conn, conn.transaction():
                yield _PostgresTx(conn)
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            raise JournalUnavailable(f"accounts at {redact_url(self.url)}: {exc}") from exc

    def close(self) -> None:
        self._pool.close()


def _pg(sql: str) -> str:
    # The accounts' SQL has no literal '?' nor '%': placeholders are the only ones.
    return sql.replace("?", "%s")


def _now_ms() -> int:
    return int(time.time() * 1000)


def open_accounts_db(journal_url: str | None, sqlite_path: Path) -> Db:
    """The accounts beside the journal: in its PostgreSQL database if it has one, else in its SQLite file;
    migrated. Raises JournalUnavailable, sqlite3.Error, AccountSchemaError."""
    db: Db = PostgresDb(journal_url) if journal_url is not None else SqliteDb(sqlite_path)
    try:
        migrate(db)
    except BaseException:
        db.close()
        raise
    return db
