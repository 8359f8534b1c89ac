"""What every part of the tables reads: the settings, the journal, the word list, the clock, the metrics,
the computer players, and (cluster mode) the table ownership. One instance per relay, shared by reference.

Each table's own state lives in its :class:`~relay.tables.table.Table`; the parts that act on tables
(:class:`~relay.tables.turns.Turns`, :class:`~relay.tables.broadcast.Broadcaster`, ...) are composed by
:class:`relay.tables.Referee` and each holds these services, never each other's ``self``.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import engine
from relay.botdriver import BotDriver
from relay.config import Config
from relay.journal import Journal
from relay.journal.sqlite import StoreError
from relay.metrics import Metrics
from relay.push import NO_PUSH, PushHooks
from relay.tables.deadlines import TableIndex
from relay.tables.table import (
    _SYSTEM_RANDOM,
    FULL_STATE_CACHE,
    Clock,
    Members,
    NoMembers,
    Table,
    elide_journal,
    wall_clock_ms,
)

if TYPE_CHECKING:
    from relay.tables.hosting import Hosting


class TableServices:
    """The relay-wide services the tables use; ``now_ms`` and ``host`` may be set after construction
    (cluster mode reads the time and appends through :class:`~relay.cluster.ownership.Ownership`)."""

    # Where the tables are hosted (relay/tables/hosting.py): set by whoever composes the tables.
    host: Hosting

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
        # Signed-in players (relay/accounts): set by the app once the accounts are open.
        self.members: Members = NoMembers()
        # Web Push turn reminders (relay/push): set by the app once its VAPID key is loaded.
        self.push: PushHooks = NO_PUSH
        # Every live table by id: the registry adds and drops them; the others only look them up. The index
        # also keeps the correspondence tables apart (relay/tables/deadlines.py: swept by their deadline).
        self.tables: TableIndex = TableIndex()
        self.closed = False
        self.started = time.monotonic()
        # The last full states read back from SQLite (table id -> (its fold, full state)): snapshots asked
        # again and again, and bots, are served from memory; bounded, least recently used out.
        self._full: OrderedDict[str, tuple[engine.GameState, engine.GameState]] = OrderedDict()

    def rng(self, table_id: str) -> random.Random:
        """A table's random source: the OS's, or one seeded per table by ``--test-seed`` (tests only)."""
        if self.config.test_seed is not None:
            return random.Random(f"{self.config.test_seed}:{table_id}")
        return _SYSTEM_RANDOM

    def fold(self, state: engine.GameState) -> engine.GameState:
        """What a table keeps in memory of ``state``: in cluster mode the whole journal (reading it back
        would be a PostgreSQL call on the event loop, and the owner is the only writer anyway); with SQLite
        the fold with its journal elided (:func:`~relay.tables.table.elide_journal`)."""
        return state if self.host.keeps_journal else elide_journal(state)

    def full_state(self, table: Table) -> engine.GameState:
        """``table.state`` with its journal (elided in memory, see :func:`elide_journal`) read back from
        SQLite: what ``engine.view`` and the game record need. Raises StoreError / sqlite3.Error."""
        if self.host.keeps_journal:
            return table.state  # never elided then (see fold)
        version = table.state.version
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

    def forget_full_state(self, table_id: str) -> None:
        """Drop a table's cached full state (its journal changed under another owner)."""
        self._full.pop(table_id, None)

    # -- clocks ----------------------------------------------------------------------------------------------
    def clock(self, table: Table) -> dict[str, Any]:
        """The wire ``clock`` object of a table (docs/protocol.md): whose turn, its deadline, the grace (none
        at a correspondence table: its players are normally away)."""
        st = table.state
        if st.status != "playing" or st.turn is None or st.turn_started_ms is None:
            return {"turn": None, "deadline_ms": None, "grace_deadline_ms": None}
        deadline = st.turn_started_ms + st.turn_seconds * 1000
        grace: int | None = None
        away = table.away_since.get(st.turn)
        if away is not None and not table.is_bot(st.turn) and not engine.is_correspondence(st.turn_seconds):
            grace = max(away, st.turn_started_ms) + int(self.config.grace_seconds * 1000)
        return {"turn": st.turn, "deadline_ms": deadline, "grace_deadline_ms": grace}

    def due(self, table: Table, now: int) -> bool:
        """Whether the turn's time (or the away player's grace) ran out at ``now``: what :meth:`clock` says,
        without building it (the sweeper asks this of every timed table, five times a second)."""
        st = table.state
        turn, started = st.turn, st.turn_started_ms
        if st.status != "playing" or turn is None or started is None:
            return False
        if now >= started + st.turn_seconds * 1000:
            return True
        away = table.away_since.get(turn)
        if away is None or table.is_bot(turn) or engine.is_correspondence(st.turn_seconds):
            return False
        return now >= max(away, started) + int(self.config.grace_seconds * 1000)
