"""Test support for relaying over Redis: two in-process relays on one bus (relay.cluster.RedisServer).

The in-process pair shares one event loop: an *owner* relay whose tables are its own, and an *edge* relay
whose ``locate`` says every table the owner knows lives on the owner (the ownership a PostgreSQL cluster
would decide; the subprocess tests in test_relay_cluster_bus.py use the real one). Everything else is real:
Redis, the bus, both relays' sockets, referees and journals.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web
from relaykit import RunningRelay, short_wordlist

from relay.app import create_app
from relay.config import Config
from relay.guard import Guard, GuardedRunner
from relay.relaying import Relaying
from relay.tables import Referee, Table


@dataclass
class Pair:
    owner: RunningRelay
    edge: RunningRelay


def _settings(db: Path, **overrides: Any) -> Config:
    settings: dict[str, Any] = {
        "db": db,
        "static": None,
        "tick_seconds": 0.02,
        "test_seed": 7,
        "bot_delay_seconds": (0.0, 0.01),
        "rate_burst": 1000.0,
        "rate_per_second": 1000.0,
        "create_burst": 1000.0,
        "max_connections_per_address": 100_000,
        "max_pending_per_address": 100_000,
        "probe_burst": 1000.0,
    }
    settings.update(overrides)
    return Config(**settings)


async def _start(config: Config, relaying: Relaying) -> RunningRelay:
    app = create_app(config, lexicon=short_wordlist(), bot_driver=None, relaying=relaying)
    runner = GuardedRunner(app, guard=Guard(config, None), handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    return RunningRelay(f"http://{host}:{port}", app, runner, None)


async def start_pair(tmp_path: Path, redis_url: str, **overrides: Any) -> Pair:
    """An owner relay (node ``owner``) and an edge relay (node ``edge``) on one bus."""
    holder: dict[str, Referee] = {}

    async def owner_locate(table_id: str) -> Table | str | None:
        return holder["owner"].revive(table_id)

    async def edge_locate(table_id: str) -> Table | str | None:
        return "owner" if holder["owner"].revive(table_id) is not None else None

    owner = await _start(
        _settings(tmp_path / "owner.sqlite3", **overrides), Relaying(redis_url, "owner", owner_locate)
    )
    holder["owner"] = owner.referee
    edge = await _start(
        _settings(tmp_path / "edge.sqlite3", **overrides), Relaying(redis_url, "edge", edge_locate)
    )
    return Pair(owner, edge)
