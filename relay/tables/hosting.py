"""Where the tables are hosted: one relay on its own journal, or one node of several (cluster mode).

The tables' code asks its :class:`Hosting` rather than testing for cluster mode: :class:`SingleHost` (the
default: the SQLite or exclusive PostgreSQL journal, every table here) or :class:`ClusterHost` (tables
claimed from a shared PostgreSQL journal with fenced appends: relay/cluster/ownership.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar, TypeVarTuple

from relay.journal import Journal, JsonObject, JsonValue
from relay.journal.sqlite import FrameRow, RematchRow, Store
from relay.journal.tickcommit import TickCommit
from relay.tables.table import Table

if TYPE_CHECKING:
    from relay.cluster.ownership import Ownership
    from relay.tables.registry import Registry

T = TypeVar("T")
Ts = TypeVarTuple("Ts")
Rows = list[tuple[JsonObject, str | None]]


class Hosting(Protocol):
    """What the tables need from where they are hosted."""

    # Whether a table keeps its journal in memory (cluster mode: reading it back would be a PostgreSQL call
    # on the event loop, and the owner is the only writer) or only its fold (read back from SQLite).
    keeps_journal: bool

    async def append(
        self,
        table: Table,
        first_seq: int,
        rows: Rows,
        *,
        status: str | None,
        now_ms: int,
        frame: FrameRow | None,
    ) -> None:
        """Journal an action's events: committed when this returns, or raised with nothing written."""

    async def call(self, fn: Callable[[*Ts], T], *args: *Ts) -> T:
        """``fn(*args)``, a journal call: in place, or off the event loop where the journal is remote."""

    async def journal_table(
        self, table: Table, events: Sequence[JsonObject], link: RematchRow | None
    ) -> bool:
        """Journal a new table's first events (and the rematch ``link`` to it) in one transaction; returns
        whether this relay serves it from now on. Raises StoreError / sqlite3.Error, JournalUnavailable."""

    def let_go(self, table: Table, *, abandoned: int | None = None) -> None:
        """A table leaves this relay's memory; ``abandoned`` (ms): it was left empty and is over."""

    async def drain(self) -> None:
        """Before a shutdown: let what is in flight finish."""

    async def open_tables(self) -> list[Table]:
        """The public tables waiting for players, newest first."""

    async def live_tables(self) -> list[Table]:
        """The public games in progress (the lobby's games to watch), newest first."""

    def watchers_known(self, table: Table) -> bool:
        """Whether this relay counts ``table``'s watchers (it serves it; another node's are not known)."""

    async def read_table(self, table_id: str) -> Table | None:
        """A live table, or a finished one rebuilt from the journal (not kept)."""

    def health(self) -> Mapping[str, JsonValue]:
        """``/healthz``'s part: ``{"ok": bool, ...}``."""

    def journal_batches(self) -> tuple[int, int] | None:
        """The group commit's (transactions, appends) so far, where appends are batched; else None."""


class SingleHost:
    """One relay, its own journal: every table is here, every journal call is short and in place."""

    keeps_journal = False

    def __init__(self, store: Journal, registry: Registry) -> None:
        self.store = store
        self.registry = registry
        # SQLite: the appends of one turn of the event loop share a transaction (relay/journal/tickcommit.py).
        # An exclusive PostgreSQL journal commits each one in place.
        self.commits = TickCommit(store) if isinstance(store, Store) else None

    async def append(
        self,
        table: Table,
        first_seq: int,
        rows: Rows,
        *,
        status: str | None,
        now_ms: int,
        frame: FrameRow | None,
    ) -> None:
        if self.commits is not None:
            await self.commits.append(table.id, first_seq, rows, status=status, now_ms=now_ms, frame=frame)
        else:
            self.store.append(table.id, first_seq, rows, status=status, now_ms=now_ms, frame=frame)

    async def call(self, fn: Callable[[*Ts], T], *args: *Ts) -> T:
        return fn(*args)

    async def journal_table(
        self, table: Table, events: Sequence[JsonObject], link: RematchRow | None
    ) -> bool:
        self.store.create_table(
            table.id,
            created_ms=table.created_ms,
            public=table.public,
            status=table.status,
            events=events,
            rematch=link,
        )
        return True

    def let_go(self, table: Table, *, abandoned: int | None = None) -> None:
        if abandoned is not None:
            self.store.set_status(table.id, "abandoned", abandoned)

    async def drain(self) -> None:
        return None

    async def open_tables(self) -> list[Table]:
        return self.registry.open_tables()

    async def live_tables(self) -> list[Table]:
        return self.registry.live_tables()

    def watchers_known(self, table: Table) -> bool:
        return True

    async def read_table(self, table_id: str) -> Table | None:
        return self.registry.read_table(table_id)

    def health(self) -> Mapping[str, JsonValue]:
        return {"ok": True}

    def journal_batches(self) -> tuple[int, int] | None:
        return None


class ClusterHost:
    """One node of several: tables are claimed from the shared journal (relay/cluster/ownership.py)."""

    keeps_journal = True

    def __init__(self, ownership: Ownership) -> None:
        self.ownership = ownership

    async def append(
        self,
        table: Table,
        first_seq: int,
        rows: Rows,
        *,
        status: str | None,
        now_ms: int,
        frame: FrameRow | None,
    ) -> None:
        await self.ownership.append(table, first_seq, rows, status=status, now_ms=now_ms, frame=frame)

    async def call(self, fn: Callable[[*Ts], T], *args: *Ts) -> T:
        return await self.ownership.call(fn, *args)

    async def journal_table(
        self, table: Table, events: Sequence[JsonObject], link: RematchRow | None
    ) -> bool:
        await self.ownership.journal_table(table, events, link)
        return False  # journaled unclaimed: the node its first socket reaches claims it

    def let_go(self, table: Table, *, abandoned: int | None = None) -> None:
        self.ownership.let_go(table, abandoned=abandoned)

    async def drain(self) -> None:
        await self.ownership.drain()

    async def open_tables(self) -> list[Table]:
        return await self.ownership.open_tables()

    async def live_tables(self) -> list[Table]:
        return await self.ownership.live_tables()

    def watchers_known(self, table: Table) -> bool:
        return self.ownership.referee.tables.get(table.id) is table

    async def read_table(self, table_id: str) -> Table | None:
        return await self.ownership.read_table(table_id)

    def health(self) -> Mapping[str, JsonValue]:
        return self.ownership.health()

    def journal_batches(self) -> tuple[int, int] | None:
        commits = self.ownership.commits
        return commits.batches, commits.appends
