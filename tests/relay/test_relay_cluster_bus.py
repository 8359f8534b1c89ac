"""Relaying between real relay processes in cluster mode: PostgreSQL decides who owns a table, Redis carries
the frames of a socket that landed on another node (relay/cluster/bus.py, relay/cluster/relaying.py).

Two relays (``a`` and ``b``) on one PostgreSQL journal and one Redis, all on loopback, started here. A
table created on ``a`` is owned by ``a``; a player who connects to ``b`` is relayed to ``a``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import psycopg
import pytest
from buskit import away, two_seats
from harness.services import RedisServer, RelayNode
from pgcluster import PostgresCluster
from relaykit import Player, create_table, wait_until, write_short_lexicon

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@dataclass
class Cluster:
    a: RelayNode
    b: RelayNode
    redis: RedisServer
    db: str


def node(name: str, tmp_path: Path, db: str, bus: str) -> RelayNode:
    return RelayNode(
        name,
        db=db,
        bus=bus,
        log=tmp_path / f"{name}.log",
        static=tmp_path / "nostatic",
        extra=[
            "--lexicon",
            str(tmp_path / "short.txt"),
            "--test-seed",
            "5",
            "--tick-seconds",
            "0.05",
            "--grace-seconds",
            "30",
            "--log-json",
        ],
        env={**os.environ, "PYTHONPATH": str(REPO), "LEXIO_ALLOW_TEST_SEED": "1"},
        cwd=tmp_path,
        start_timeout=30,
    )


@pytest.fixture
async def cluster(tmp_path: Path, pg_cluster: PostgresCluster, redis: RedisServer) -> AsyncIterator[Cluster]:
    write_short_lexicon(tmp_path / "short.txt")
    db = pg_cluster.new_database()
    a, b = node("a", tmp_path, db, redis.url), node("b", tmp_path, db, redis.url)
    try:
        await asyncio.gather(a.astart(), b.astart())
        yield Cluster(a, b, redis, db)
    finally:
        for n in (a, b):
            n.stop()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory, pg_cluster: PostgresCluster) -> Iterator[Cluster]:
    """One cluster for the tests that stop nothing (each relay start costs seconds on a loaded machine)."""
    tmp_path = tmp_path_factory.mktemp("shared")
    write_short_lexicon(tmp_path / "short.txt")
    server = RedisServer()
    server.start()
    db = pg_cluster.new_database()
    a, b = node("a", tmp_path, db, server.url), node("b", tmp_path, db, server.url)
    try:
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(RelayNode.start, (a, b)))
        yield Cluster(a, b, server, db)
    finally:
        for n in (a, b):
            n.stop()
        server.cleanup()


def journal(db: str, table: str) -> list[tuple[int, str]]:
    """The table's journal as PostgreSQL holds it: (seq, event type), in order."""
    with psycopg.connect(db) as conn:
        rows = conn.execute(
            "SELECT seq, body FROM events WHERE table_id = %s ORDER BY seq", (table,)
        ).fetchall()
    return [(int(seq), str(body)) for seq, body in rows]


def owner(db: str, table: str) -> tuple[str, int]:
    with psycopg.connect(db) as conn:
        row = conn.execute("SELECT owner, owner_epoch FROM tables WHERE id = %s", (table,)).fetchone()
    assert row is not None
    return str(row[0]), int(row[1])


async def healthz(session: aiohttp.ClientSession, n: RelayNode) -> dict[str, Any]:
    async with session.get(n.url + "/healthz") as resp:
        data: dict[str, Any] = await resp.json()
        return data


def in_order(local: Player, relayed: Player) -> list[Player]:
    return [local, relayed] if local.seat == 0 else [relayed, local]


async def paced_game(players: list[Player], pace: float = 0.05) -> None:
    """play_to_end at a pace the relay's default per-connection frame budget (15/s) allows."""
    by_seat = {p.seat: p for p in players}
    for _ in range(2000):
        if players[0].status == "ended":
            return
        mover = by_seat[players[0].turn]
        await mover.wait_seq(players[0].seq)
        ans = await mover.send(mover.choose())
        assert ans["type"] == "ack", ans
        for p in players:
            await p.wait_seq(ans["seq"])
        await asyncio.sleep(pace)
    raise AssertionError("game did not end")


async def rejoin(session: aiohttp.ClientSession, node: RelayNode, table: str, token: str | None) -> Player:
    """Reconnect as a client does after a 1012 (retrying, here every 0.2 s) until the seat is back."""
    for _ in range(100):
        p = await Player.connect(session, node, table)
        await p.ws.send_json({"type": "join", "token": token, "id": "j"})
        try:
            welcome = await p.wait_for(lambda f: f.get("id") == "j", timeout=5)
        except (ConnectionError, TimeoutError):
            await p.close()
            await asyncio.sleep(0.2)
            continue
        assert welcome["type"] == "welcome", welcome
        await p.wait_for(lambda f: f["type"] == "snapshot")
        return p
    raise AssertionError("the seat did not come back")


async def test_a_client_on_a_node_that_does_not_own_the_table_plays_a_whole_game_through_the_owner(
    shared: Cluster, session: aiohttp.ClientSession
) -> None:
    cluster = shared
    table, local, relayed = await two_seats(session, cluster.a, cluster.b, turn_seconds=600)
    if relayed.turn != relayed.seat:
        ans = await local.send({"type": "pass"})  # the board stays empty for the four-letter try
        assert ans["type"] == "ack", ans
        await relayed.wait_seq(ans["seq"])
    # Rejected (unknown word) and refused (not your turn) answers come back through the edge.
    tiles = [
        {"sq": sq, "letter": "E" if ch == "?" else ch, "blank": ch == "?"}
        for sq, ch in zip(["G7", "H7", "I7", "J7"], relayed.rack, strict=False)
    ]
    ans = await relayed.send({"type": "place", "tiles": tiles})
    assert ans["type"] == "rejected" and ans["words"], ans
    ans = await local.send({"type": "pass"})
    assert ans["type"] == "error" and ans["code"] == "not_your_turn", ans
    # A resync through the edge gets the owner's snapshot, with this seat's rack.
    before = len(relayed.frames)
    await relayed.ws.send_json({"type": "resync", "id": "r1"})
    snap = await relayed.wait_for(lambda f: f["type"] == "snapshot", start=before)
    assert snap["seq"] == relayed.seq and snap["view"]["rack"] == relayed.rack
    await paced_game(in_order(local, relayed))
    for p in (local, relayed):
        await p.wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "game_ended")
    seen = [f["seq"] for f in relayed.frames if f["type"] == "event"]
    assert seen == sorted(set(seen))
    assert set(seen) <= {seq for seq, _ in journal(cluster.db, table)}
    # b relayed; the table stayed a's all game (epoch 1: claimed once).
    health_a, health_b = await healthz(session, cluster.a), await healthz(session, cluster.b)
    assert owner(cluster.db, table) == (health_a["node"], 1)
    assert health_b["bus"]["up"] and health_b["bus"]["relayed_out"] >= 1
    assert health_a["bus"]["relayed_in"] >= 1
    await local.close()
    await relayed.close()


async def test_the_same_seat_opened_through_two_nodes_behaves_as_on_one_relay(
    shared: Cluster, session: aiohttp.ClientSession
) -> None:
    cluster = shared
    table, local, relayed = await two_seats(session, cluster.a, cluster.b, turn_seconds=600)
    again = await Player.connect(session, cluster.b, table)
    welcome = await again.send({"type": "join", "token": local.token})
    assert welcome["type"] == "welcome" and welcome["seat"] == 0
    await wait_until(lambda: local.closed is not None)
    assert local.closed == 4001
    direct = await Player.connect(session, cluster.a, table)
    welcome = await direct.send({"type": "join", "token": relayed.token})
    assert welcome["type"] == "welcome" and welcome["seat"] == 1
    await wait_until(lambda: relayed.closed is not None)
    assert relayed.closed == 4001
    summary_url = f"{cluster.a.url}/api/tables/{table}"
    async with session.get(summary_url) as resp:
        seats = (await resp.json())["seats"]
    assert [s["connected"] for s in seats] == [True, True]
    on_turn = again if again.turn == 0 else direct
    ans = await on_turn.send({"type": "pass"})
    assert ans["type"] == "ack", ans
    await again.close()
    await direct.close()


async def test_redis_killed_and_restarted_breaks_only_relayed_sockets_and_loses_no_acknowledged_action(
    cluster: Cluster, session: aiohttp.ClientSession
) -> None:
    table, local, relayed = await two_seats(session, cluster.a, cluster.b, turn_seconds=600)
    acked: list[int] = []
    for _ in range(3):
        mover = local if local.turn == local.seat else relayed
        await mover.wait_seq(local.seq)
        ans = await mover.send(mover.choose())
        assert ans["type"] == "ack", ans
        acked.append(ans["seq"])
    await relayed.wait_seq(acked[-1])
    mark = len(local.frames)
    cluster.redis.kill()
    await wait_until(lambda: relayed.closed is not None, timeout=5)
    assert relayed.closed == 1012
    await local.wait_for(away(relayed.seat), start=mark, timeout=5)
    assert local.closed is None  # the owner's own socket plays on
    if local.turn == local.seat:
        ans = await local.send(local.choose())
        assert ans["type"] == "ack", ans
        acked.append(ans["seq"])
    cluster.redis.start()
    back = await rejoin(session, cluster.b, table, relayed.token)
    assert back.seat == relayed.seat
    assert back.seq >= max(acked)
    await paced_game(in_order(local, back))
    seqs = [seq for seq, _ in journal(cluster.db, table)]
    assert len(seqs) == len(set(seqs)) and set(acked) <= set(seqs)
    await local.close()
    await back.close()


async def test_an_edge_socket_closes_when_its_owner_is_killed_and_the_game_resumes_through_the_edge(
    cluster: Cluster, session: aiohttp.ClientSession
) -> None:
    table, local, relayed = await two_seats(session, cluster.a, cluster.b, turn_seconds=600)
    mover = local if local.turn == local.seat else relayed
    ans = await mover.send(mover.choose())
    assert ans["type"] == "ack", ans
    acked = ans["seq"]
    await relayed.wait_seq(acked)
    cluster.a.kill()
    await wait_until(lambda: relayed.closed is not None, timeout=5)
    assert relayed.closed == 1012
    # The client reconnects to b, which now finds no live owner and takes the table over.
    back = await rejoin(session, cluster.b, table, relayed.token)
    assert back.seat == relayed.seat
    assert back.seq >= acked
    assert acked in {seq for seq, _ in journal(cluster.db, table)}
    await back.close()


async def test_an_edge_socket_closes_when_its_owner_is_paused_and_the_edge_takes_the_table_over(
    cluster: Cluster, session: aiohttp.ClientSession
) -> None:
    table, local, relayed = await two_seats(session, cluster.a, cluster.b, turn_seconds=600)
    mover = local if local.turn == local.seat else relayed
    ans = await mover.send(mover.choose())
    assert ans["type"] == "ack", ans
    acked = ans["seq"]
    await relayed.wait_seq(acked)
    cluster.a.pause()  # still subscribed to Redis, and silent: only the missing pings tell
    try:
        await wait_until(lambda: relayed.closed is not None, timeout=8)
        assert relayed.closed == 1012
        back = await rejoin(session, cluster.b, table, relayed.token)
        assert back.seat == relayed.seat and back.seq >= acked
        assert (await healthz(session, cluster.b))["tables"] == 1  # b owns it now
    finally:
        cluster.a.resume()
        cluster.a.kill()  # its fate after the pause is test_relay_cluster.py's; here it only slows teardown
    await back.close()


async def test_no_action_acknowledged_through_the_edge_is_lost_when_the_owner_is_killed_mid_game(
    cluster: Cluster, session: aiohttp.ClientSession
) -> None:
    table = await create_table(session, cluster.a, turn_seconds=600)
    watcher = await Player.connect(session, cluster.a, table)  # a claims the table
    await watcher.send({"type": "watch"})
    players = [await Player.connect(session, cluster.b, table) for _ in range(2)]  # both relayed to a
    for i, p in enumerate(players):
        await p.join(f"P{i}")
    ans = await players[0].send({"type": "start"})
    assert ans["type"] == "ack", ans
    acked: list[int] = []

    async def play() -> None:
        while True:
            mover = players[players[0].turn]
            await mover.wait_seq(players[0].seq)
            ans = await mover.send(mover.choose())
            assert ans["type"] == "ack", ans
            acked.append(ans["seq"])
            await asyncio.sleep(0.05)

    task = asyncio.create_task(play())
    await wait_until(lambda: len(acked) >= 6 or task.done(), timeout=20)
    cluster.a.kill()  # while frames are in flight through the bus
    await wait_until(lambda: all(p.closed is not None for p in players), timeout=5)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, ConnectionError, TimeoutError):
        await task
    assert {p.closed for p in players} == {1012}
    back = [await rejoin(session, cluster.b, table, p.token) for p in players]
    rows = dict(journal(cluster.db, table))
    assert set(acked) <= set(rows), "an acknowledged action is missing from the journal"
    # What the clients were shown through the edge is what the journal holds.
    for p in players:
        for f in p.frames:
            if f["type"] == "event":
                assert f["event"]["type"] in rows[f["seq"]], (f["seq"], f["event"]["type"])
    assert back[0].seq == back[1].seq == max(rows)
    assert (await healthz(session, cluster.b))["tables"] == 1  # b took it over
    for p in back:
        await p.close()


async def test_a_draining_edge_closes_its_relayed_sockets_with_1012_and_the_owner_shows_the_seat_away_at_once(
    cluster: Cluster, session: aiohttp.ClientSession
) -> None:
    _, local, relayed = await two_seats(session, cluster.a, cluster.b, turn_seconds=600)
    mark = len(local.frames)
    await asyncio.to_thread(cluster.b.stop)  # SIGTERM: b drains
    stopped = asyncio.get_running_loop().time()
    assert relayed.closed == 1012 or (
        await wait_until(lambda: relayed.closed is not None) or relayed.closed == 1012
    )
    await local.wait_for(away(relayed.seat), start=mark, timeout=10)
    # The edge told the owner before leaving: not the 3 s it takes to notice a silent peer.
    assert asyncio.get_running_loop().time() - stopped < 2.0
    assert local.closed is None
    await local.close()
