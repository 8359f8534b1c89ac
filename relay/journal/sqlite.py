"""The journal: every table's events in SQLite (WAL), committed before anyone is told.

One row per engine event (``engine.event_to_dict`` as JSON) keyed by (table, seq); a ``SeatJoined`` row also
holds the sha256 of that seat's secret token, so a restart restores who may act for which seat. The
``tables`` row is an index (public flag, status) updated in the same transaction as the events. A
``rematches`` row links a finished table to the one proposed for the same players (written with that new
table, in its creating transaction), with the computer players to seat there.

Durability: WAL with ``synchronous=NORMAL`` survives a killed process (kill -9) without losing a committed
transaction; only an OS crash or power cut can lose the last commits (use ``synchronous_full=True`` for that).
Calls are synchronous and short (one small transaction); the relay makes them from its event loop.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # base.py imports this module's rows
    from relay.journal.base import JsonObject

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created_ms INTEGER NOT NULL,
    public INTEGER NOT NULL,
    status TEXT NOT NULL,
    updated_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tables_status ON tables(status);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    token_hash TEXT,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rematches (
    old_id TEXT PRIMARY KEY,
    new_id TEXT NOT NULL,
    by_seat INTEGER NOT NULL,
    link TEXT NOT NULL,
    bots TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS rematches_new ON rematches(new_id);
CREATE TABLE IF NOT EXISTS chat (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    channel TEXT NOT NULL,
    seat INTEGER,
    name TEXT,
    body TEXT NOT NULL,
    at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_table ON chat(table_id, channel, id);
CREATE TABLE IF NOT EXISTS frames (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    who TEXT NOT NULL,
    frame_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    answer TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS analyses (
    table_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    claimed_ms INTEGER NOT NULL,
    PRIMARY KEY (table_id, seat)
) WITHOUT ROWID;
"""

# Versioned schema. SCHEMA above is version 1, the baseline: written IF NOT EXISTS and run at every open, so a
# journal made before versions were recorded adopts it as is, and a purely additive table may still join it.
# Any other change is a new entry here: MIGRATIONS[i] takes the journal from version i + 1 to i + 2, once,
# in one transaction with its schema_version row. relay/journal/postgres.py keeps the same numbering for
# PostgreSQL.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # Version 2: the account a chat line came from (relay/tables/chat.py: hidden from those who block it).
    ("ALTER TABLE chat ADD COLUMN account TEXT",),
)
_VERSION_TABLE = "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_ms INTEGER)"


class StoreError(RuntimeError):
    """The journal is inconsistent (e.g. a seq already taken): the table must not go on."""


@dataclass(frozen=True)
class TableRow:
    id: str
    created_ms: int
    public: bool
    status: str
    updated_ms: int


@dataclass(frozen=True)
class RematchRow:
    """``old_id`` ended; ``new_id`` was proposed by seat ``by_seat`` of it. ``bots``: (name, level) of the old
    table's computer players, seated at the new table right after its first arrival."""

    old_id: str
    new_id: str
    by_seat: int
    link: str
    bots: tuple[tuple[str, str], ...]
    created_ms: int


@dataclass(frozen=True)
class EventRow:
    seq: int
    body: JsonObject
    token_hash: str | None


@dataclass(frozen=True, slots=True)
class AppendRow:
    """One action's append to one table (:meth:`Store.append`'s arguments): its events ``first_seq..`` as
    (body, token hash), the table's new status (None: unchanged) and the client ``frame`` they answer."""

    table_id: str
    first_seq: int
    events: Sequence[tuple[JsonObject, str | None]]
    status: str | None
    now_ms: int
    frame: FrameRow | None = None


@dataclass(frozen=True)
class FrameRow:
    """The client frame an action came from (relay/tables/resend.py): committed with the action's first event
    ``seq``. ``who``: the seat's token hash; ``digest``: the frame's content, so that a resend is recognised
    only when both its id and its content match. ``answer``: what the client was told (the ack or
    rejected frame without its ``id`` and ``now``), told again to a resend."""

    seq: int
    who: str
    frame_id: str
    digest: str
    answer: JsonObject


@dataclass(frozen=True)
class ChatRow:
    id: int
    channel: str
    seat: int | None
    name: str | None
    text: str
    at_ms: int
    account: str | None = None  # the signed-in author's account; None: a guest (never sent to browsers)


class Store:
    def __init__(self, path: Path | str, *, synchronous_full: bool = False) -> None:
        """Open (creating if needed) the journal. Raises sqlite3.Error / OSError if the file is unusable."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._path = str(path)
        self._db = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={'FULL' if synchronous_full else 'NORMAL'}")
        # Checkpoints (the only fsyncs in NORMAL mode) would otherwise run inside a commit on the event loop
        # and stall every table for as long as the disk takes: :meth:`checkpoint` runs them off the loop.
        self._db.execute("PRAGMA wal_autocheckpoint=0")
        self._db.execute("PRAGMA journal_size_limit=67108864")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)
        self.schema_version = _migrate(self._db)
        self._checkpointer: sqlite3.Connection | None = None
        self._checkpoint_lock = threading.Lock()

    def close(self) -> None:
        # The lock waits out a checkpoint still running in its worker thread.
        with self._checkpoint_lock:
            if self._checkpointer is not None:
                self._checkpointer.close()
                self._checkpointer = None
        self._db.close()

    def checkpoint(self) -> None:
        """Copy committed WAL pages into the database file (PASSIVE: never blocks the writer).

        Meant for a worker thread (its own connection; sqlite releases the GIL). Raises sqlite3.Error.
        """
        with self._checkpoint_lock:
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(
                    self._path, isolation_level=None, check_same_thread=False
                )
            self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

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
        """Insert a table and its first events (seq 1..n) in one transaction, with the ``rematch`` link that
        makes it the new table of a finished one (if given).

        Raises StoreError on a clash (that table id, or a second rematch of the same old table), sqlite3.Error
        on I/O failure (disk full, locked): nothing written.
        """
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT INTO tables (id, created_ms, public, status, updated_ms) VALUES (?, ?, ?, ?, ?)",
                (table_id, created_ms, int(public), status, created_ms),
            )
            self._db.executemany(
                "INSERT INTO events (table_id, seq, body, token_hash) VALUES (?, ?, ?, NULL)",
                [(table_id, i, _dumps(body)) for i, body in enumerate(events, start=1)],
            )
            if rematch is not None:
                self._db.execute(
                    "INSERT INTO rematches (old_id, new_id, by_seat, link, bots, created_ms)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        rematch.old_id,
                        rematch.new_id,
                        rematch.by_seat,
                        rematch.link,
                        json.dumps([list(b) for b in rematch.bots]),
                        rematch.created_ms,
                    ),
                )
            self._db.execute("COMMIT")
        except sqlite3.IntegrityError as exc:
            self._rollback()
            raise StoreError(f"table {table_id} already exists") from exc
        except BaseException:
            # Too big, locked, I/O error...: a transaction left open would make every later BEGIN fail.
            self._rollback()
            raise

    def append(
        self,
        table_id: str,
        first_seq: int,
        events: Sequence[tuple[JsonObject, str | None]],
        *,
        status: str | None,
        now_ms: int,
        frame: FrameRow | None = None,
    ) -> None:
        """Commit events ``first_seq..`` (body, token hash) and the table's new status (None: unchanged),
        with the client ``frame`` they answer (if any).

        Returns only once the transaction is committed. Raises StoreError if a seq is already taken (the
        caller's state is stale), sqlite3.Error on I/O failure; in both cases nothing is written.
        """
        self.append_many((AppendRow(table_id, first_seq, events, status, now_ms, frame),))

    def append_many(self, items: Sequence[AppendRow]) -> None:
        """Commit the appends of several tables (:meth:`append`'s arguments each) in one transaction: all of
        them or none (relay/journal/tickcommit.py gathers them). Returns only once it is committed.

        Raises StoreError if a seq is already taken, sqlite3.Error on I/O failure; nothing written then.
        """
        events = [
            (it.table_id, it.first_seq + i, _dumps(body), th)
            for it in items
            for i, (body, th) in enumerate(it.events)
        ]
        frames = [
            (it.table_id, f.seq, f.who, f.frame_id, f.digest, _dumps(f.answer))
            for it in items
            if (f := it.frame) is not None
        ]
        statuses = [(it.status, it.now_ms, it.table_id) for it in items if it.status is not None]
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO events (table_id, seq, body, token_hash) VALUES (?, ?, ?, ?)", events)
            if frames:
                db.executemany(
                    "INSERT INTO frames (table_id, seq, who, frame_id, digest, answer)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    frames,
                )
            if statuses:
                db.executemany("UPDATE tables SET status = ?, updated_ms = ? WHERE id = ?", statuses)
            db.execute("COMMIT")
        except sqlite3.IntegrityError as exc:
            self._rollback()
            first = items[0] if len(items) == 1 else None
            what = (
                f"table {first.table_id}: seq {first.first_seq}"
                if first is not None
                else f"{len(items)} appends: a seq"
            )
            raise StoreError(f"{what} already journaled") from exc
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        # After some errors (SQLITE_FULL, IOERR) SQLite has already rolled back: ROLLBACK would then fail.
        try:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def table(self, table_id: str) -> TableRow | None:
        row = self._db.execute(
            "SELECT id, created_ms, public, status, updated_ms FROM tables WHERE id = ?", (table_id,)
        ).fetchone()
        return _table_row(row) if row else None

    def tables(self, *, unfinished: bool) -> list[TableRow]:
        query = "SELECT id, created_ms, public, status, updated_ms FROM tables"
        if unfinished:
            query += " WHERE status NOT IN ('ended', 'abandoned')"
        return [_table_row(r) for r in self._db.execute(query + " ORDER BY created_ms")]

    def set_status(self, table_id: str, status: str, now_ms: int) -> None:
        self._db.execute(
            "UPDATE tables SET status = ?, updated_ms = ? WHERE id = ?", (status, now_ms, table_id)
        )

    def rematch_of(self, old_id: str) -> RematchRow | None:
        """The new table proposed after ``old_id`` ended, if any."""
        row = self._db.execute(_REMATCH_SELECT + " WHERE old_id = ?", (old_id,)).fetchone()
        return _rematch_row(row) if row else None

    def rematch_into(self, new_id: str) -> RematchRow | None:
        """The link that created ``new_id`` as a rematch, if it was one."""
        row = self._db.execute(_REMATCH_SELECT + " WHERE new_id = ?", (new_id,)).fetchone()
        return _rematch_row(row) if row else None

    # -- post-game analysis (relay/tables/analysis.py): one per seat, so the claim outlives the table's memory
    def claim_analysis(self, table_id: str, seat: int, now_ms: int) -> bool:
        """Record that ``seat`` of ``table_id`` is served its analysis; False if it already was."""
        cur = self._db.execute(
            "INSERT OR IGNORE INTO analyses (table_id, seat, claimed_ms) VALUES (?, ?, ?)",
            (table_id, seat, now_ms),
        )
        return cur.rowcount == 1

    def release_analysis(self, table_id: str, seat: int) -> None:
        """Undo :meth:`claim_analysis` (the analysis failed and was not served)."""
        self._db.execute("DELETE FROM analyses WHERE table_id = ? AND seat = ?", (table_id, seat))

    # -- table chat (relay/tables/chat.py): beside the journal, never in it (a message changes no game state)
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
        """Keep one chat message; returns its id (increasing). Raises sqlite3.Error on I/O failure."""
        cur = self._db.execute(
            "INSERT INTO chat (table_id, channel, seat, name, body, at_ms, account)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (table_id, channel, seat, name, text, at_ms, account),
        )
        return int(cur.lastrowid or 0)

    def chat(self, table_id: str, channel: str, limit: int) -> list[ChatRow]:
        """The last ``limit`` messages of a table's channel, oldest first."""
        rows = self._db.execute(
            "SELECT id, channel, seat, name, body, at_ms, account FROM chat"
            " WHERE table_id = ? AND channel = ? ORDER BY id DESC LIMIT ?",
            (table_id, channel, limit),
        ).fetchall()
        return [ChatRow(int(r[0]), r[1], r[2], r[3], r[4], int(r[5]), r[6]) for r in reversed(rows)]

    def frames(self, table_id: str) -> list[FrameRow]:
        """The client frames the table's actions came from, in seq order."""
        rows = self._db.execute(
            "SELECT seq, who, frame_id, digest, answer FROM frames WHERE table_id = ? ORDER BY seq",
            (table_id,),
        ).fetchall()
        return [FrameRow(int(r[0]), r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    def events(self, table_id: str) -> list[EventRow]:
        rows = self._db.execute(
            "SELECT seq, body, token_hash FROM events WHERE table_id = ? ORDER BY seq", (table_id,)
        ).fetchall()
        out = [EventRow(seq, json.loads(body), th) for seq, body, th in rows]
        for expected, row in enumerate(out, start=1):
            if row.seq != expected:
                raise StoreError(f"table {table_id}: journal has a hole at seq {expected}")
        return out


def _migrate(db: sqlite3.Connection, migrations: Sequence[Sequence[str]] | None = None) -> int:
    """Bring the journal to the newest schema version; returns it. Raises StoreError if the file was written
    by a newer relay (its schema is unknown here), sqlite3.Error if a migration fails (nothing applied)."""
    steps = MIGRATIONS if migrations is None else migrations
    latest = 1 + len(steps)
    db.execute(_VERSION_TABLE)
    try:
        db.execute("BEGIN IMMEDIATE")
        current = int(db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()[0])
        if current > latest:
            raise StoreError(f"the journal has schema version {current}; this relay knows up to {latest}")
        for version in range(current + 1, latest + 1):
            for statement in steps[version - 2] if version >= 2 else ():
                db.execute(statement)
            db.execute(
                "INSERT INTO schema_version (version, applied_ms) VALUES (?, ?)",
                (version, int(time.time() * 1000)),
            )
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return latest


def _table_row(row: tuple[str, int, int, str, int]) -> TableRow:
    return TableRow(id=row[0], created_ms=row[1], public=bool(row[2]), status=row[3], updated_ms=row[4])


_REMATCH_SELECT = "SELECT old_id, new_id, by_seat, link, bots, created_ms FROM rematches"


def _rematch_row(row: tuple[str, str, int, str, str, int]) -> RematchRow:
    bots = tuple((str(b[0]), str(b[1])) for b in json.loads(row[4]))
    return RematchRow(row[0], row[1], int(row[2]), row[3], bots, int(row[5]))


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
# The C encoder that ``_ENCODER.encode`` builds anew for every call (with a circular-reference check the
# relay's plain trees never need), built once: a third cheaper on each row and frame. None without the
# C accelerator (then the encoder itself).
_C_ENCODER: Callable[[object, int], tuple[str, ...]] | None = (
    None
    if getattr(json.encoder, "c_make_encoder", None) is None
    else json.encoder.c_make_encoder(  # type: ignore[attr-defined]
        None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",", False, False, True
    )
)


def compact_json(value: object) -> str:
    """``json.dumps(value, separators=(",", ":"), ensure_ascii=False)`` for the JSON-ready values the relay
    writes (no circular structure): one encoder for every row and frame, not one per call."""
    if _C_ENCODER is None:  # pragma: no cover - CPython has the accelerator
        return _ENCODER.encode(value)
    return "".join(_C_ENCODER(value, 0))


_dumps = compact_json
