"""The referee's state: its tables, their folds and clocks (the layer every other one builds on)."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import engine
from relay.botdriver import BotDriver
from relay.config import Config
from relay.journal import Journal
from relay.metrics import Metrics
from relay.referee.table import (
    _SYSTEM_RANDOM,
    FULL_STATE_CACHE,
    Clock,
    Table,
    elide_journal,
    wall_clock_ms,
)
from relay.store import StoreError

if TYPE_CHECKING:
    from relay.ownership import Ownership


class RefereeBase:
    """What every part of the referee reads: its configuration, journal and tables, a table's fold (with
    its journal read back) and its clock."""

    def __init__(
        self,
        config: Config,
        store: Journal,
        lexicon: engine.Lexicon,
        *,
        now_ms: Clock = wall_clock_ms,
        metrics: Metrics | None = None,
        bot_driver: BotDriver | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.lexicon = lexicon
        self.now_ms = now_ms
        self.metrics = metrics or Metrics()
        self.bot_driver = bot_driver
        self.tables: dict[str, Table] = {}
        self.sockets = 0
        self._sweeper: asyncio.Task[None] | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self._last_gc = 0
        self._closed = False
        self.started = time.monotonic()
        # The last full states read back from SQLite (table id -> (its fold, full state)): snapshots asked
        # again and again, and bots, are served from memory; bounded, least recently used out.
        self._full: OrderedDict[str, tuple[Any, Any]] = OrderedDict()
        # Cluster mode (relay/ownership.py): tables are claimed lazily and every append is fenced.
        self.cluster: Ownership | None = None

    def _rng(self, table_id: str) -> random.Random:
        if self.config.test_seed is not None:
            return random.Random(f"{self.config.test_seed}:{table_id}")
        return _SYSTEM_RANDOM

    def _fold(self, state: Any) -> Any:
        # In cluster mode a table keeps its journal in memory: reading it back would be a PostgreSQL call
        # on the event loop (snapshots), and the table's owner is the only writer anyway.
        return state if self.cluster is not None else elide_journal(state)

    def full_state(self, table: Table) -> Any:
        """``table.state`` with its journal (elided in memory, see :func:`elide_journal`) read back from
        SQLite: what ``engine.view`` and the game record need. Raises StoreError / sqlite3.Error."""
        if self.cluster is not None:
            return table.state  # never elided in cluster mode (see _fold)
        version = int(table.state.version)
        cached = self._full.get(table.id)
        if cached is not None and cached[0] is table.state:  # the fold it was read for is still current
            self._full.move_to_end(table.id)
            return cached[1]
        rows = self.store.events(table.id)
        if len(rows) < version:
            raise StoreError(f"table {table.id}: the journal has {len(rows)} events, the table {version}")
        events = tuple(engine.event_from_dict(row.body) for row in rows[:version])
        state = dataclasses.replace(table.state, events=events)
        self._full[table.id] = (table.state, state)
        if len(self._full) > FULL_STATE_CACHE:
            self._full.popitem(last=False)
        return state

    # -- clocks ----------------------------------------------------------------------------------------------
    def clock(self, table: Table) -> dict[str, Any]:
        st = table.state
        if st.status != "playing" or st.turn is None:
            return {"turn": None, "deadline_ms": None, "grace_deadline_ms": None}
        deadline = int(st.turn_started_ms) + int(st.turn_seconds) * 1000
        grace: int | None = None
        away = table.away_since.get(st.turn)
        if away is not None and not table.is_bot(st.turn):
            grace = max(away, int(st.turn_started_ms)) + int(self.config.grace_seconds * 1000)
        return {"turn": st.turn, "deadline_ms": deadline, "grace_deadline_ms": grace}

    def _due(self, table: Table, now: int) -> bool:
        c = self.clock(table)
        if c["turn"] is None:
            return False
        effective = (
            c["deadline_ms"]
            if c["grace_deadline_ms"] is None
            else min(c["deadline_ms"], c["grace_deadline_ms"])
        )
        return bool(now >= effective)
