"""The referee: tables, their owner lock, clocks, journal commits and per-seat broadcasts.

Every change to a table goes through :meth:`Referee.run` under that table's ``asyncio.Lock``: the engine
decides, the events are committed to SQLite in one transaction, then folded, then each connection gets the
events redacted for its seat, then the actor gets its ack. A play and a timeout therefore cannot both happen.
The journal itself stays in SQLite: in memory a table keeps the fold (see :func:`elide_journal`).

Clocks live here, read from the injectable ``now_ms``; a sweeper task checks deadlines every ``tick``.

The referee is composed of layers, one job each, under relay/referee/: ``table`` (a table and its
connections), ``base`` (state, folds, clocks), ``broadcast`` (frames per seat), ``turns`` (the one path that
changes a table), ``bots``, ``joins``, ``registry`` (creating and finding tables), ``lifecycle`` (timers,
collection, shutdown) and ``rematch``. Callers import everything from here.
"""

from __future__ import annotations

from relay.referee.bots import Bots
from relay.referee.joins import Joins
from relay.referee.lifecycle import Lifecycle
from relay.referee.rematch import Rematches
from relay.referee.table import (
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
    "dumps",
    "elide_journal",
    "hash_token",
    "wall_clock_ms",
]


class Referee(Joins, Bots, Lifecycle, Rematches):
    """Owns every live table. Created in the app's cleanup context; see :func:`relay.app.create_app`."""
