"""The journal's contract: the interface both stores keep, its errors and the URL helpers.

Its own module so that the stores (relay/journal/sqlite.py, postgres.py) and the settings import it without
importing :func:`relay.journal.open_journal`, which imports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeAlias, runtime_checkable
from urllib.parse import urlsplit

from relay.journal.sqlite import ChatRow, EventRow, FrameRow, RematchRow, TableRow

POSTGRES_SCHEMES = ("postgresql://", "postgres://")

# What ``json.loads`` returns and ``json.dumps`` takes: the journal's bodies (events, answered frames) are
# JSON objects, written and read back as compact JSON text.
JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
JsonObject: TypeAlias = dict[str, JsonValue]


class JournalUnavailable(RuntimeError):
    """The journal's server cannot be reached or refused a write for a reason other than a clash (connection
    lost, pool exhausted, disk full): nothing was written, the caller may retry later."""


@runtime_checkable
class Journal(Protocol):
    """The store methods the Referee calls (see relay.journal.sqlite.Store for each one's full contract)."""

    # The schema version the journal was brought to when opened (see relay.journal.sqlite.MIGRATIONS).
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
        events: Sequence[JsonObject],
        rematch: RematchRow | None = None,
    ) -> None: ...

    def append(
        self,
        table_id: str,
        first_seq: int,
        events: Sequence[tuple[JsonObject, str | None]],
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
        self,
        table_id: str,
        channel: str,
        seat: int | None,
        name: str | None,
        text: str,
        at_ms: int,
        account: str | None = None,
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
