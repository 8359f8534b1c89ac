"""Cluster mode (``--bus``): several relays on one PostgreSQL journal, each table owned by one of them at a
time. A killed owner's tables resume on another within 5 s with nothing acknowledged lost; a paused or cut-off
owner cannot commit; clocks follow the journal's absolute deadlines whatever a relay's own clock says; a
drain releases everything in under a second; a killed node comes back without taking anything."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from clusterkit import RedisServer, health, journal, node, owner, rejoin, stopping, wait_until
from relaykit import Player, seated_game


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def play(players: list[Player], moves: int) -> list[tuple[int, int, dict[str, Any]]]:
    """``moves`` scripted moves, each acknowledged; returns (seq, seat, move) of each."""
    acked = []
    by_seat = {p.seat: p for p in players}
    for _ in range(moves):
        p0 = players[0]
        mover = by_seat[p0.turn]
        await mover.wait_seq(p0.seq)
        move = mover.choose()
        ans = await mover.send(move)
        assert ans["type"] == "ack", ans
        acked.append((int(ans["seq"]), int(mover.seat or 0), move))
        for q in players:
            await q.wait_seq(ans["seq"])
    return acked


def assert_journaled(rows: list[dict[str, Any]], acked: list[tuple[int, int, dict[str, Any]]]) -> None:
    """Every acknowledged move is in the journal, once, at its seq, as the client sent it."""
    kinds = {"place": "placed", "swap": "swapped", "pass": "passed"}
    for seq, seat, move in acked:
        ev = rows[seq - 1]
        assert ev["seq"] == seq and ev["type"] == kinds[move["type"]] and ev["seat"] == seat, (ev, move)
        if move["type"] == "place":
            assert [t["sq"] for t in ev["tiles"]] == [t["sq"] for t in move["tiles"]]
    placed = [tuple(t["sq"] for t in r["tiles"]) for r in rows if r["type"] == "placed"]
    assert len(placed) == len(set(placed)), "a placement was applied twice"


async def test_a_killed_owners_table_resumes_on_another_relay_within_5_s_with_nothing_acked_lost(
    tmp_path: Path, pg_url: str, redis: RedisServer
) -> None:
    a, b = node(tmp_path, "a", pg_url, redis.url), node(tmp_path, "b", pg_url, redis.url)
    with stopping(a, b):
        await asyncio.gather(a.astart(), b.astart())
        async with aiohttp.ClientSession() as session:
            table_id, players = await seated_game(session, a, turn_seconds=600)
            first_owner, epoch = owner(pg_url, table_id)
            assert first_owner is not None and first_owner.startswith("a/") and epoch == 1
            acked = await play(players, 6)
            killed = time.monotonic()
            a.kill9()
            back = await asyncio.gather(*(rejoin(session, b, table_id, str(p.token)) for p in players))
            took = time.monotonic() - killed
            assert took < 5.0, f"takeover took {took:.2f} s"
            new_owner, new_epoch = owner(pg_url, table_id)
            assert new_owner is not None and new_owner.startswith("b/") and new_epoch == 2
            assert all(p.seq >= acked[-1][0] for p in back)
            rows = journal(pg_url, table_id)
            assert_journaled(rows, acked)
            # The game goes on at the next seq, on the new owner.
            more = await play(back, 2)
            assert more[0][0] == len(rows) + 1
            assert_journaled(journal(pg_url, table_id), acked + more)
            for p in [*players, *back]:
                await p.close()
