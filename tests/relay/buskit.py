"""Test support for relaying over Redis: two in-process relays on one bus (harness.services.RedisServer), and
what the in-process and the subprocess relaying tests share (a Redis server, a game across two nodes).

The in-process pair shares one event loop: an *owner* relay whose tables are its own, and an *edge* relay
whose ``locate`` says every table the owner knows lives on the owner (the ownership a PostgreSQL cluster
would decide; the subprocess tests in test_relay_cluster_bus.py use the real one). Everything else is real:
Redis, the bus, both relays' sockets, referees and journals.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from harness.services import RedisServer
from relaykit import Player, RunningRelay, create_table, relay_config, serve, short_wordlist

from relay.app import create_app
from relay.cluster.relaying import Relaying
from relay.config import Config
from relay.tables import Referee, Table


@dataclass
class Pair:
    owner: RunningRelay
    edge: RunningRelay


async def _start(config: Config, relaying: Relaying) -> RunningRelay:
    return await serve(
        create_app(config, lexicon=short_wordlist(), bot_driver=None, relaying=relaying), config
    )


async def start_pair(tmp_path: Path, redis_url: str, **overrides: Any) -> Pair:
    """An owner relay (node ``owner``) and an edge relay (node ``edge``) on one bus."""
    holder: dict[str, Referee] = {}

    async def owner_locate(table_id: str) -> Table | str | None:
        return holder["owner"].registry.revive(table_id)

    async def edge_locate(table_id: str) -> Table | str | None:
        return "owner" if holder["owner"].registry.revive(table_id) is not None else None

    owner = await _start(
        relay_config(tmp_path / "owner.sqlite3", **overrides), Relaying(redis_url, "owner", owner_locate)
    )
    holder["owner"] = owner.referee
    edge = await _start(
        relay_config(tmp_path / "edge.sqlite3", **overrides), Relaying(redis_url, "edge", edge_locate)
    )
    return Pair(owner, edge)


def redis_server() -> Iterator[RedisServer]:
    """A started ``redis-server``, stopped and removed after; the body of the ``redis`` fixtures."""
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.cleanup()


async def two_seats(
    session: aiohttp.ClientSession, owner: Any, edge: Any, **table: Any
) -> tuple[str, Player, Player]:
    """A started two-seat game: seat 0 on ``owner``, seat 1 through ``edge`` (relayed to the owner)."""
    table_id = await create_table(session, owner, **table)
    local = await Player.connect(session, owner, table_id)
    await local.join("Local")
    relayed = await Player.connect(session, edge, table_id)
    await relayed.join("Relayed")
    assert relayed.seat == 1
    ans = await local.send({"type": "start"})
    assert ans["type"] == "ack", ans
    await relayed.wait_seq(local.seq)
    return table_id, local, relayed


def away(seat: int | None) -> Any:
    """Matches the presence frame that shows ``seat`` disconnected."""
    return lambda f: (
        f["type"] == "presence" and len(f["seats"]) > (seat or 0) and not f["seats"][seat]["connected"]
    )
