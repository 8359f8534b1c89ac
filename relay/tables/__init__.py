"""The live tables: each table's state and connections, and the parts that act on them, composed.

Every change to a table goes through :meth:`Turns.run <relay.tables.turns.Turns.run>` under that table's
``asyncio.Lock``: the engine decides, the events are committed to the journal in one transaction, then
folded, then each connection gets the events redacted for its seat, then the actor gets its ack. A play and
a timeout therefore cannot both happen. In memory a table keeps the fold (see :func:`elide_journal`).

The parts, one job each, composed by :class:`Referee` (none inherits another; each holds the shared
:class:`~relay.tables.services.TableServices`): ``table`` (a table and its connections), ``services``
(settings, journal, clock, the fold kept in memory), ``broadcast`` (frames per seat), ``turns`` (the one
path that changes a table), ``bots`` (computer players' turns), ``joins`` (seats and watchers),
``registry`` (creating, finding and rebuilding tables), ``lifecycle`` (timers, collection, shutdown),
``rematch``; ``chat``, ``resend`` and ``analysis`` are functions over a table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import engine
from relay.botdriver import BotDriver
from relay.config import Config
from relay.journal import Journal
from relay.metrics import Metrics
from relay.tables.bots import BotTurns
from relay.tables.broadcast import Broadcaster
from relay.tables.hosting import ClusterHost, SingleHost
from relay.tables.joins import Seating
from relay.tables.lifecycle import Lifecycle
from relay.tables.registry import Registry
from relay.tables.rematch import Rematches
from relay.tables.services import TableServices
from relay.tables.table import (
    BOT_NAMES,
    CLOSE_RESTART,
    CLOSE_SLOW,
    CLOSE_TAKEN_OVER,
    EMPTY_TABLE_TTL_MS,
    FULL_STATE_CACHE,
    LISTED_GRACE_MS,
    Clock,
    Conn,
    RelayError,
    Socket,
    Table,
    dumps,
    elide_journal,
    hash_token,
    wall_clock_ms,
)
from relay.tables.turns import Turns

if TYPE_CHECKING:
    from relay.cluster.ownership import Ownership

__all__ = [
    "BOT_NAMES",
    "CLOSE_RESTART",
    "CLOSE_SLOW",
    "CLOSE_TAKEN_OVER",
    "EMPTY_TABLE_TTL_MS",
    "FULL_STATE_CACHE",
    "LISTED_GRACE_MS",
    "Clock",
    "Conn",
    "Referee",
    "RelayError",
    "Socket",
    "Table",
    "TableServices",
    "dumps",
    "elide_journal",
    "hash_token",
    "wall_clock_ms",
]


class Referee:
    """Every live table of this relay and the parts that act on them. Created in the app's cleanup
    context (:func:`relay.app.create_app`); the HTTP side, the cluster and the tests call this interface,
    never a part's internals."""

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
        self.services = s = TableServices(
            config, store, lexicon, now_ms=now_ms, metrics=metrics, bot_driver=bot_driver
        )
        self.broadcaster = Broadcaster(s)
        self.turns = Turns(s, self.broadcaster)
        self.bots = BotTurns(s, self.turns)
        self.seating = Seating(s, self.turns, self.broadcaster)
        self.registry = Registry(s)
        s.host = SingleHost(store, self.registry)
        self.lifecycle = Lifecycle(s, self.turns)
        self.rematches = Rematches(s, self.registry)
        self.sockets = 0  # open game sockets (the HTTP side counts them; /healthz and /metrics read)

    # -- the shared services ---------------------------------------------------------------------------------
    @property
    def config(self) -> Config:
        return self.services.config

    @property
    def store(self) -> Journal:
        return self.services.store

    @property
    def lexicon(self) -> engine.Lexicon:
        return self.services.lexicon

    @property
    def metrics(self) -> Metrics:
        return self.services.metrics

    @property
    def bot_driver(self) -> BotDriver | None:
        return self.services.bot_driver

    @property
    def tables(self) -> dict[str, Table]:
        return self.services.tables

    @property
    def started(self) -> float:
        return self.services.started

    @property
    def now_ms(self) -> Clock:
        return self.services.now_ms

    @now_ms.setter
    def now_ms(self, clock: Clock) -> None:
        self.services.now_ms = clock

    def hosted_by(self, ownership: Ownership) -> None:
        """Cluster mode: the tables are hosted by ``ownership`` (relay/cluster/ownership.py)."""
        self.services.host = ClusterHost(ownership)

    def full_state(self, table: Table) -> engine.GameState:
        """See :meth:`TableServices.full_state`. Raises StoreError / sqlite3.Error."""
        return self.services.full_state(table)

    def forget_full_state(self, table_id: str) -> None:
        self.services.forget_full_state(table_id)

    def clock(self, table: Table) -> dict[str, Any]:
        return self.services.clock(table)

    # -- tables (created, found and rebuilt by ``registry``) -------------------------------------------------
    def get(self, table_id: str) -> Table | None:
        return self.registry.get(table_id)
