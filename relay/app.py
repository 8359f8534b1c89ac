"""The aiohttp application: HTTP API, WebSocket endpoint, static site, health and metrics.

:func:`create_app` builds it from a :class:`~relay.config.Config`; the journal, word list and referee are
opened in ``cleanup_ctx`` (so they close in reverse order) and reachable through typed ``AppKey``s.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

import engine
from relay.accounts.db import open_accounts_db
from relay.accounts.members import TableMembers
from relay.accounts.service import Accounts
from relay.botdriver import BotDriver, load_default_driver
from relay.cluster.bus import Bus
from relay.cluster.relaying import EdgeSide, Locate, OwnerSide, Relaying
from relay.config import Config
from relay.http.accounts import add_routes as add_account_routes
from relay.http.guard import MAX_BODY, Guard, guard_middleware, raise_nofile, serve
from relay.http.keys import (
    ACCOUNT_LIMITS_KEY,
    ACCOUNTS_KEY,
    BUS_KEY,
    CONFIG_KEY,
    EDGE_KEY,
    HUB_KEY,
    LIMITS_KEY,
    LOCATE_KEY,
    METRICS_KEY,
    REFEREE_KEY,
    STATIC_KEY,
)
from relay.http.leaderboards import add_routes as add_leaderboard_routes
from relay.http.limits import AccountLimits, Limits
from relay.http.middlewares import headers_middleware
from relay.http.moderation import add_routes as add_moderation_routes
from relay.http.profiles import add_routes as add_profile_routes
from relay.http.push import add_routes as add_push_routes
from relay.http.seek import add_routes as add_seek_routes
from relay.http.session import GameSession
from relay.http.static import StaticSite
from relay.http.upgrade import (
    HEARTBEAT_SECONDS,
    websocket,
)
from relay.http.views import (
    create_table,
    get_gcg,
    get_table,
    healthz,
    list_tables,
    metrics,
    post_analysis,
)
from relay.http.ws import Hub
from relay.journal import JournalUnavailable, open_journal
from relay.journal.sqlite import StoreError
from relay.lexicon import load_lexicon
from relay.metrics import Metrics, gc_timer
from relay.tables import (
    CLOSE_RESTART,
    Clock,
    Conn,
    Referee,
    Socket,
    Table,
    wall_clock_ms,
)
from relay.tables.table import Member

if TYPE_CHECKING:  # psycopg is only needed by hosts that use PostgreSQL
    from relay.cluster.ownership import Ownership

log = logging.getLogger("lexio.relay")
FILL_IN_SECONDS = 60.0  # how often each relay looks for ended games without their history (and ratings)


_UNSET: Any = object()


def _word_list_paths(config: Config) -> tuple[Path, ...]:
    from relay.lexicon import NAMED_LEXICONS, LexiconError, default_cache_dir, lexicon_files

    paths = [p.parent for files in NAMED_LEXICONS.values() for p in files]
    paths.append(config.lexicon_cache or default_cache_dir())
    if config.lexicon not in NAMED_LEXICONS:
        try:
            paths.extend(lexicon_files(config.lexicon))
        except LexiconError:  # reported when the list is loaded; nothing to hide if it does not exist
            paths.append(Path(config.lexicon))
    return tuple(paths)


def create_app(
    config: Config,
    *,
    now_ms: Clock | None = None,
    lexicon: engine.Lexicon | None = None,
    bot_driver: BotDriver | None = _UNSET,
    relaying: Relaying | None = None,
) -> web.Application:
    """Build the relay application.

    ``now_ms`` (tests) replaces the wall clock; ``lexicon`` replaces loading ``config.lexicon``;
    ``bot_driver`` replaces ``relay.bots.driver()`` (None: no bots); ``relaying`` (cluster mode) relays
    sockets of tables owned elsewhere over its Redis bus (relay/cluster/relaying.py). The journal is opened
    and unfinished tables restored at startup (raises sqlite3.Error / relay.lexicon.LexiconError then).
    """
    app = web.Application(middlewares=[headers_middleware, guard_middleware], client_max_size=MAX_BODY)
    app[CONFIG_KEY] = config
    app[METRICS_KEY] = Metrics()
    app[STATIC_KEY] = StaticSite(config.static, forbidden=_word_list_paths(config))
    app[LIMITS_KEY] = Limits.from_config(config)
    app[ACCOUNT_LIMITS_KEY] = AccountLimits.from_config(config)
    app[HUB_KEY] = hub = Hub(HEARTBEAT_SECONDS)
    clock = now_ms or wall_clock_ms

    async def resources(app: web.Application) -> AsyncIterator[None]:
        words = (
            lexicon if lexicon is not None else load_lexicon(config.lexicon, cache_dir=config.lexicon_cache)
        )
        store = open_journal(config)
        driver = load_default_driver(words) if bot_driver is _UNSET else bot_driver
        referee = Referee(config, store, words, now_ms=clock, metrics=app[METRICS_KEY], bot_driver=driver)
        ownership: Ownership | None = None
        if config.cluster:
            # Tables are claimed when their sockets arrive, not restored (relay/cluster/ownership.py).
            from relay.cluster.ownership import Ownership
            from relay.journal.postgres import PostgresStore

            assert isinstance(store, PostgresStore)
            ownership = Ownership(referee, store)
            try:
                await ownership.start()
            except BaseException:
                await ownership.close()
                store.close()
                raise
            referee.hosted_by(ownership)
            if now_ms is None:
                referee.now_ms = ownership.now_ms
            restored = 0
        else:
            restored = referee.registry.restore()
        app[REFEREE_KEY] = referee
        accounts_db = open_accounts_db(config.journal_url, config.db)
        app[ACCOUNTS_KEY] = accounts = Accounts(accounts_db, now_ms=lambda: referee.now_ms())
        referee.services.members = members = TableMembers(accounts)
        logging.getLogger("lexio.relay").info(
            "relay ready",
            extra={
                "fields": {"restored_tables": restored, "db": config.journal_name, "bots": driver is not None}
            },
        )
        # Startup objects (modules, word list wrappers, restored journals) never die: keep them out of the
        # collector's full passes, which otherwise grow with every table.
        gc.collect()
        gc.freeze()
        # Thousands of sockets mean hundreds of thousands of tracked objects: a full collection then pauses
        # the loop for hundreds of ms. Young collections stay frequent; full ones become rare.
        gc.set_threshold(10_000, 50, 100)
        if gc_timer not in gc.callbacks:
            gc.callbacks.append(gc_timer)
        referee.lifecycle.start()
        hub.start()
        relays = relaying
        if relays is None and ownership is not None and config.bus_url is not None:
            relays = Relaying(config.bus_url, ownership.node_id, _locate(ownership))
        bus = await _start_bus(app, relays) if relays is not None else None
        for table in referee.tables.values():
            referee.bots.schedule(table)
        backfill = asyncio.get_running_loop().create_task(_fill_in(members, _journal_reader(referee)))
        try:
            yield
        finally:
            backfill.cancel()
            await referee.lifecycle.shutdown()
            await hub.close_all(CLOSE_RESTART, b"server restarting")
            if bus is not None:
                await bus.close()
            if ownership is not None:
                await ownership.close()
            accounts_db.close()
            store.close()

    async def on_shutdown(app: web.Application) -> None:
        # Runs before cleanup: close sockets with 1012 while the loop still serves them.
        if REFEREE_KEY in app:
            await app[REFEREE_KEY].lifecycle.shutdown()
        # Sockets that never joined a table (the referee closed the others).
        await hub.close_all(CLOSE_RESTART, b"server restarting")

    app.cleanup_ctx.append(resources)
    app.on_shutdown.append(on_shutdown)
    app.router.add_post("/api/tables", create_table)
    app.router.add_get("/api/tables", list_tables)
    app.router.add_get("/api/tables/{table_id}", get_table)
    app.router.add_get("/api/tables/{table_id}/gcg", get_gcg)
    app.router.add_post("/api/tables/{table_id}/analysis", post_analysis)
    add_account_routes(app)
    add_push_routes(app)  # after app.cleanup_ctx's resources: it needs the accounts' database
    add_moderation_routes(app)
    add_profile_routes(app)
    add_leaderboard_routes(app)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
    add_seek_routes(app)  # /ws/seek: before /ws/{table_id}
    app.router.add_get("/ws/{table_id}", websocket)
    app.router.add_route("*", "/{path:.*}", app[STATIC_KEY].handle)
    return app


async def _fill_in(members: TableMembers, read: Callable[[str], Awaitable[engine.GameState]]) -> None:
    """The history (and a rated game's ratings) of every ended game that lacks it: at the start, then every
    minute. In a cluster a game can end on a node killed before it recorded the end: another relay records it
    here within a minute; each game is recorded, and rated, once whichever relay gets there
    (relay/accounts/ratings.py)."""
    while True:
        try:
            await members.backfill(read)
        except Exception:  # the accounts unreachable a moment: try again at the next round
            log.exception("cannot fill in the history")
        await asyncio.sleep(FILL_IN_SECONDS)


def _journal_reader(referee: Referee) -> Callable[[str], Awaitable[engine.GameState]]:
    """A table's full fold read back from the journal (for the history's fill-in, relay/accounts)."""

    async def read_state(table_id: str) -> engine.GameState:
        store = referee.store

        def read() -> engine.GameState:
            return engine.replay(engine.event_from_dict(r.body) for r in store.events(table_id))

        return await referee.services.host.call(read)

    return read_state


def _locate(ownership: Ownership) -> Locate:
    """Cluster mode's answer to "where is this table": claimed here, another live node's id, or None."""
    from relay.cluster.ownership import Elsewhere

    async def locate(table_id: str) -> Table | str | None:
        found = await ownership.acquire(table_id)
        return found.node_id if isinstance(found, Elsewhere) else found

    return locate


async def _start_bus(app: web.Application, relaying: Relaying) -> Bus:
    """Connect the Redis bus: sockets of tables owned elsewhere are relayed to their owners (the edge
    side), and sockets relayed here from other nodes are served as local ones (the owner side)."""
    bus = Bus(relaying.bus_url, relaying.node_id)
    locate = relaying.locate

    async def open_relayed(
        table_id: str, peer: str, link_base: str, socket: Socket, member: Member | None
    ) -> GameSession | None:
        try:
            placed = await locate(table_id)
        except (JournalUnavailable, StoreError):
            log.exception("cannot claim a relayed table")
            return None
        if not isinstance(placed, Table):
            return None  # moved on (or gone) since the edge looked
        referee, config = app[REFEREE_KEY], app[CONFIG_KEY]
        session = GameSession(referee, config, placed, sys.intern(link_base), app[LIMITS_KEY])
        session.conn = Conn(socket, sys.intern(peer), member)
        referee.sockets += 1
        return session

    app[EDGE_KEY] = EdgeSide(bus, (app[CONFIG_KEY].rate_burst, app[CONFIG_KEY].rate_per_second))
    OwnerSide(bus, open_relayed)
    app[BUS_KEY] = bus
    app[LOCATE_KEY] = locate
    await bus.start()
    return bus


def run(config: Config) -> None:
    """Serve until SIGINT/SIGTERM (then shut down gracefully), every connection through the guard."""
    soft, hard = raise_nofile()
    guard = Guard(config, soft)
    log.info(
        "descriptors",
        extra={
            "fields": {
                "nofile_soft": soft,
                "nofile_hard": hard,
                "connections": guard.capacity,
                "per_address": config.max_connections_per_address,
            }
        },
    )
    serve(create_app(config), config, guard)


__all__ = ["CONFIG_KEY", "METRICS_KEY", "REFEREE_KEY", "create_app", "run"]
