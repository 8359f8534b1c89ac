"""The journal interface: what the Referee needs from wherever the tables' events are kept.

Two implementations: :class:`relay.journal.sqlite.Store` (SQLite, the default: one file, no service) and
:class:`relay.journal.postgres.PostgresStore` (PostgreSQL, for several relays sharing one journal).
:func:`open_journal` picks one from the relay's settings: a ``postgresql://`` URL selects PostgreSQL,
anything else is a SQLite file.

Both keep the same contract: a call returns once its transaction is committed (or raised, writing nothing);
a seq or table id taken twice raises :class:`relay.journal.sqlite.StoreError`; a journal that cannot be
reached or written raises ``sqlite3.Error`` (SQLite) or :class:`JournalUnavailable` (PostgreSQL).
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from relay.journal.base import (
    POSTGRES_SCHEMES,
    Journal,
    JournalUnavailable,
    JsonObject,
    JsonValue,
    is_postgres_url,
    redact_url,
)
from relay.journal.sqlite import ChatRow, EventRow, FrameRow, RematchRow, Store, TableRow

if TYPE_CHECKING:
    from relay.config import Config

__all__ = [
    "POSTGRES_SCHEMES",
    "ChatRow",
    "EventRow",
    "FrameRow",
    "Journal",
    "JournalUnavailable",
    "JsonObject",
    "JsonValue",
    "RematchRow",
    "Store",
    "TableRow",
    "is_postgres_url",
    "open_journal",
    "redact_url",
]


def open_journal(config: Config) -> Journal:
    """The journal the settings name: ``config.journal_url`` (PostgreSQL) if set, else the SQLite file
    ``config.db``. Raises sqlite3.Error / OSError (SQLite), JournalUnavailable (PostgreSQL unreachable, or
    relay.journal.postgres.JournalInUse: another relay serves it) or StoreError (a schema newer than this
    relay)."""
    if config.journal_url is not None:
        from relay.journal.postgres import PostgresStore  # psycopg is only needed by hosts that use it

        if config.cluster:
            # Cluster mode: tables are claimed one by one with an epoch (relay/cluster/ownership.py), never
            # the whole journal; a fresh node id at each start, so a restarted node inherits no claim.
            name = config.node_name or f"{config.host}:{config.port}"
            return PostgresStore(config.journal_url, node_id=f"{name}/{uuid.uuid4().hex[:8]}", max_size=8)
        return PostgresStore(config.journal_url, exclusive=True)
    return Store(config.db, synchronous_full=config.db_synchronous_full)
