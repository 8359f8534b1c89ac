"""The journal interface: what the Referee needs from wherever the tables' events are kept.

Two implementations: :class:`relay.store.Store` (SQLite, the default: one file, no service) and
:class:`relay.pgstore.PostgresStore` (PostgreSQL, for several relays sharing one journal).
:func:`open_journal` picks one from the relay's settings: a ``postgresql://`` URL selects PostgreSQL,
anything else is a SQLite file.

Both keep the same contract: a call returns once its transaction is committed (or raised, writing nothing);
a seq or table id taken twice raises :class:`relay.store.StoreError`; a journal that cannot be reached or
written raises ``sqlite3.Error`` (SQLite) or :class:`JournalUnavailable` (PostgreSQL).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

from relay.store import ChatRow, EventRow, FrameRow, RematchRow, Store, TableRow

if TYPE_CHECKING:
    from relay.config import Config

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


class JournalUnavailable(RuntimeError):
    """The journal's server cannot be reached or refused a write for a reason other than a clash (connection
    lost, pool exhausted, disk full): nothing was written, the caller may retry later."""


@runtime_checkable
class Journal(Protocol):
    """The store methods the Referee calls (see relay.store.Store for each one's full contract)."""

    # The schema version the journal was brought to when opened (see relay.store.MIGRATIONS).
    schema_version: int

    def close(self) -> None: ...

    def checkpoint(self) -> None:
        """Housekeeping the relay runs off the event loop once a second (SQLite: WAL checkpoint)."""

    def create_table(
        self,
        table_id: str,
        *,
        created_ms: int,
        public: bool,
        status: str,
        events: Sequence[dict[str, Any]],
        rematch: RematchRow | None = None,
    ) -> None: ...

    def append(
        self,
        table_id: str,
        first_seq: int,
        events: Sequence[tuple[dict[str, Any], str | None]],
        *,
        status: str | None,
        now_ms: int,
        frame: FrameRow | None = None,
    ) -> None: ...

    def frames(self, table_id: str) -> list[FrameRow]: ...

    def table(self, table_id: str) -> TableRow | None: ...

    def tables(self, *, unfinished: bool) -> list[TableRow]: ...

    def set_status(self, table_id: str, status: str, now_ms: int) -> None: ...

    def rematch_of(self, old_id: str) -> RematchRow | None: ...

    def rematch_into(self, new_id: str) -> RematchRow | None: ...

    def events(self, table_id: str) -> list[EventRow]: ...

    def claim_analysis(self, table_id: str, seat: int, now_ms: int) -> bool:
        """Record ``seat``'s one post-game analysis; False if it already had it."""
        ...

    def release_analysis(self, table_id: str, seat: int) -> None: ...

    def add_chat(
        self, table_id: str, channel: str, seat: int | None, name: str | None, text: str, at_ms: int
    ) -> int: ...

    def chat(self, table_id: str, channel: str, limit: int) -> list[ChatRow]: ...


def is_postgres_url(target: str) -> bool:
    """Whether ``--db`` names a PostgreSQL journal rather than a SQLite file."""
    return target.startswith(POSTGRES_SCHEMES)


def redact_url(url: str) -> str:
    """``url`` without its password, for logs and error messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)


def open_journal(config: Config) -> Journal:
    """The journal the settings name: ``config.journal_url`` (PostgreSQL) if set, else the SQLite file
    ``config.db``. Raises sqlite3.Error / OSError (SQLite), JournalUnavailable (PostgreSQL unreachable, or
    relay.pgstore.JournalInUse: another relay serves it) or StoreError (a schema newer than this relay)."""
    if config.journal_url is not None:
        from relay.pgstore import PostgresStore  # psycopg is only needed by hosts that use it

        if config.cluster:
            # Cluster mode: tables are claimed one by one with an epoch (relay/ownership.py), never the
            # whole journal; a fresh node id at each start, so a restarted node inherits no claim.
            name = config.node_name or f"{config.host}:{config.port}"
            return PostgresStore(config.journal_url, node_id=f"{name}/{uuid.uuid4().hex[:8]}", max_size=8)
        return PostgresStore(config.journal_url, exclusive=True)
    return Store(config.db, synchronous_full=config.db_synchronous_full)
