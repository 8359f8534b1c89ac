"""Sockets relayed over Redis from a node that does not own the table (the edge) to the one that does.

Two in-process relays on one real redis-server (see buskit.py): the edge's ``locate`` names the owner for
every table the owner has. Players connect to either; what they see must be what one relay shows.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from buskit import Pair, away, start_pair, two_seats
from harness.services import RedisServer
from relaykit import Player, create_table, play_to_end, wait_until

from relay.app import BUS_KEY, EDGE_KEY
from relay.cluster.bus import Bus
from relay.cluster.relaying import OwnerSide


@pytest.fixture
async def pair(tmp_path: Path, redis: RedisServer) -> AsyncIterator[Pair]:
    nodes = await start_pair(tmp_path, redis.url, grace_seconds=30.0)
    try:
        yield nodes
    finally:
        await nodes.edge.stop()
        await nodes.owner.stop()


def bus(relay: Any) -> Bus:
    return relay.app[BUS_KEY]  # type: ignore[no-any-return]


def journal_seqs(pair: Pair, table: str) -> list[int]:
    return [row.seq for row in pair.owner.referee.store.events(table)]


async def test_a_socket_on_a_node_that_does_not_own_the_table_plays_a_whole_game_through_the_owner(
    pair: Pair, session: aiohttp.ClientSession
) -> None:
    table, local, relayed = await two_seats(session, pair.owner, pair.edge)
    assert table not in pair.edge.referee.tables  # the edge holds no copy: only the owner decides
    assert relayed.status == "playing"
    # A rejected action answers through the edge as it would locally.
    if relayed.turn != relayed.seat:
        ans = await local.send({"type": "pass"})  # the board stays empty for the four-letter try
        assert ans["type"] == "ack", ans
        await relayed.wait_seq(ans["seq"])
    squares = ["G7", "H7", "I7", "J7"]
    tiles = [
        {"sq": sq, "letter": "E" if c == "?" else c, "blank": c == "?"}
        for sq, c in zip(squares, relayed.rack, strict=False)
    ]
    ans = await relayed.send({"type": "place", "tiles": tiles})
    assert ans["type"] == "rejected", ans
    assert ans["words"]
    # An error (not a seat's turn: the other seat tries) has its code and reason.
    ans = await local.send({"type": "pass"})
    assert ans["type"] == "error" and ans["code"] == "not_your_turn", ans
    # A resync through the edge: a snapshot at the owner's seq, with this seat's own rack.
    before = len(relayed.frames)
    await relayed.ws.send_json({"type": "resync", "id": "r1"})
    snap = await relayed.wait_for(lambda f: f["type"] == "snapshot", start=before)
    assert snap["seq"] == pair.owner.referee.tables[table].state.version
    assert snap["view"]["rack"] == relayed.rack
    await play_to_end([local, relayed] if local.seat == 0 else [relayed, local])
    for p in (local, relayed):
        await p.wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "game_ended")
    # Every event the relayed seat saw is in the owner's journal, in order, none twice.
    seen = [f["seq"] for f in relayed.frames if f["type"] == "event"]
    assert seen == sorted(set(seen))
    assert set(seen) <= set(journal_seqs(pair, table))
    await local.close()
    await relayed.close()


async def test_the_same_seat_opened_through_two_nodes_keeps_one_connection_as_on_one_relay(
    pair: Pair, session: aiohttp.ClientSession
) -> None:
    table, local, relayed = await two_seats(session, pair.owner, pair.edge)
    # Seat 0 (opened on the owner) opened again through the edge with its token: the first is taken over.
    again = await Player.connect(session, pair.edge, table)
    welcome = await again.send({"type": "join", "token": local.token})
    assert welcome["type"] == "welcome" and welcome["seat"] == 0
    await wait_until(lambda: local.closed is not None)
    assert local.closed == 4001
    # Seat 1 (opened through the edge) opened again on the owner: the relayed one is taken over.
    direct = await Player.connect(session, pair.owner, table)
    welcome = await direct.send({"type": "join", "token": relayed.token})
    assert welcome["type"] == "welcome" and welcome["seat"] == 1
    await wait_until(lambda: relayed.closed is not None)
    assert relayed.closed == 4001
    # Seat 0 opened a third time, through the same edge: the edge's first one is taken over.
    third = await Player.connect(session, pair.edge, table)
    welcome = await third.send({"type": "join", "token": local.token})
    assert welcome["type"] == "welcome" and welcome["seat"] == 0
    await wait_until(lambda: again.closed is not None)
    assert again.closed == 4001
    # One connection per seat on the owner, both still playing; the edge relays just the one left.
    t = pair.owner.referee.tables[table]
    assert set(t.conns) == {0, 1}
    await wait_until(lambda: len(pair.edge.app[EDGE_KEY].sessions) == 1)
    await wait_until(lambda: pair.owner.referee.sockets == 2)
    assert all(p["connected"] for p in t.presence())
    on_turn = third if t.state.turn == 0 else direct
    await on_turn.wait_for(lambda f: f["type"] == "snapshot")
    ans = await on_turn.send({"type": "pass"})
    assert ans["type"] == "ack", ans
    await third.close()
    await direct.close()


async def test_redis_killed_closes_only_relayed_sockets_with_1012_and_they_play_on_after_its_restart(
    pair: Pair, redis: RedisServer, session: aiohttp.ClientSession
) -> None:
    table, local, relayed = await two_seats(session, pair.owner, pair.edge)
    acked: list[int] = []
    for _ in range(2):
        player = local if local.turn == local.seat else relayed
        ans = await player.send(player.choose())
        assert ans["type"] == "ack", ans
        acked.append(ans["seq"])
        await local.wait_seq(ans["seq"])
        await relayed.wait_seq(ans["seq"])
    mark = len(local.frames)
    redis.kill()
    await wait_until(lambda: relayed.closed is not None, timeout=5)
    assert relayed.closed == 1012
    # The owner's own socket is untouched; it learns that the relayed seat is away (grace running).
    frame = await local.wait_for(away(relayed.seat), start=mark, timeout=5)
    assert frame
    assert local.closed is None
    t = pair.owner.referee.tables[table]
    assert relayed.seat in t.away_since
    if t.state.turn == local.seat:
        ans = await local.send(local.choose())
        assert ans["type"] == "ack", ans
        acked.append(ans["seq"])
    # While Redis is down a socket that needs relaying is closed with 1012 at once (the client retries).
    refused = await Player.connect(session, pair.edge, table)
    await wait_until(lambda: refused.closed is not None, timeout=5)
    assert refused.closed == 1012
    redis.start()
    await wait_until(lambda: bus(pair.edge).up and bus(pair.owner).up, timeout=10)
    back = await Player.connect(session, pair.edge, table)
    welcome = await back.send({"type": "join", "token": relayed.token})
    assert welcome["seat"] == relayed.seat
    snap = await back.wait_for(lambda f: f["type"] == "snapshot")
    assert snap["seq"] == t.state.version >= max(acked)
    await wait_until(lambda: all(p["connected"] for p in t.presence()))
    back.seat = relayed.seat
    players = [local, back] if local.seat == 0 else [back, local]
    await play_to_end(players)
    # No acknowledged action lost: every acked seq is in the journal, once.
    seqs = journal_seqs(pair, table)
    assert len(seqs) == len(set(seqs))
    assert set(acked) <= set(seqs)
    await local.close()
    await back.close()


async def test_a_lost_relayed_frame_closes_the_relayed_socket_and_the_client_resyncs(
    pair: Pair, session: aiohttp.ClientSession
) -> None:
    table, local, relayed = await two_seats(session, pair.owner, pair.edge)
    owner_side = bus(pair.owner).owner
    assert isinstance(owner_side, OwnerSide)
    (link,) = owner_side.links.values()
    link.n_out += 1  # as if the owner's next frame to the edge had been lost on the way
    player = local if local.turn == local.seat else relayed
    ans = await player.send(player.choose())
    assert ans["type"] == "ack", ans
    await wait_until(lambda: relayed.closed is not None, timeout=5)
    assert relayed.closed == 1012
    back = await Player.connect(session, pair.edge, table)
    await back.send({"type": "join", "token": relayed.token})
    snap = await back.wait_for(lambda f: f["type"] == "snapshot")
    assert snap["seq"] == ans["seq"]
    await back.close()
    await local.close()


async def test_an_edge_socket_closes_with_1012_when_the_owner_node_is_lost(
    pair: Pair, session: aiohttp.ClientSession
) -> None:
    _table, local, relayed = await two_seats(session, pair.owner, pair.edge)
    # The owner's bus stops without a word (as a killed node's would): the edge notices its silence.
    await bus(pair.owner).close()
    await wait_until(lambda: relayed.closed is not None, timeout=6)
    assert relayed.closed == 1012
    assert not pair.edge.app[EDGE_KEY].sessions
    await local.close()


async def test_a_seat_relayed_from_a_lost_edge_shows_away_and_its_grace_runs(
    pair: Pair, session: aiohttp.ClientSession
) -> None:
    table, local, relayed = await two_seats(session, pair.owner, pair.edge)
    t = pair.owner.referee.tables[table]
    mark = len(local.frames)
    await bus(pair.edge).close()
    frame = await local.wait_for(away(relayed.seat), start=mark, timeout=6)
    assert frame
    assert relayed.seat in t.away_since and relayed.seat not in t.conns
    assert pair.owner.referee.sockets == 1
    await local.close()


async def test_a_paused_redis_is_noticed_and_the_bus_reconnects_once_it_answers_again(
    pair: Pair, redis: RedisServer, session: aiohttp.ClientSession
) -> None:
    table, local, relayed = await two_seats(session, pair.owner, pair.edge)
    redis.pause()  # connections stay open, nothing is delivered: only the bus's own pings show it
    try:
        await wait_until(lambda: relayed.closed is not None, timeout=8)
        assert relayed.closed == 1012
        assert not bus(pair.edge).up
    finally:
        redis.resume()
    await wait_until(lambda: bus(pair.edge).up and bus(pair.owner).up, timeout=10)
    back = await Player.connect(session, pair.edge, table)
    welcome = await back.send({"type": "join", "token": relayed.token})
    assert welcome["seat"] == relayed.seat
    await back.close()
    await local.close()


async def test_the_disconnect_grace_of_a_relayed_seat_on_turn_runs_out_and_the_owner_passes_for_it(
    tmp_path: Path, redis: RedisServer, session: aiohttp.ClientSession
) -> None:
    nodes = await start_pair(tmp_path, redis.url, grace_seconds=0.5)
    try:
        _table, local, relayed = await two_seats(session, nodes.owner, nodes.edge)
        if relayed.turn != relayed.seat:
            ans = await local.send({"type": "pass"})
            assert ans["type"] == "ack", ans
            await relayed.wait_seq(ans["seq"])
        mark = len(local.frames)
        await bus(nodes.edge).close()  # the edge is gone: the owner hears nothing from it any more
        timeout = await local.wait_for(
            lambda f: f["type"] == "event" and f["event"]["type"] == "timed_out", start=mark, timeout=8
        )
        assert timeout["event"]["seat"] == relayed.seat
        await local.close()
    finally:
        await nodes.edge.stop()
        await nodes.owner.stop()


async def test_a_client_flooding_through_the_edge_is_closed_with_1008_on_both_nodes(
    tmp_path: Path, redis: RedisServer, session: aiohttp.ClientSession
) -> None:
    nodes = await start_pair(tmp_path, redis.url, rate_burst=5.0, rate_per_second=1.0)
    try:
        table = await create_table(session, nodes.owner)
        flooder = await Player.connect(session, nodes.edge, table)
        for i in range(400):
            if flooder.closed is not None:
                break
            await flooder.ws.send_json({"type": "ping", "id": f"p{i}"})
        await wait_until(lambda: flooder.closed is not None, timeout=5)
        assert flooder.closed == 1008  # by the edge or the owner, whichever counted the flood first
        await wait_until(lambda: not nodes.edge.app[EDGE_KEY].sessions and nodes.owner.referee.sockets == 0)
    finally:
        await nodes.edge.stop()
        await nodes.owner.stop()


async def test_relays_started_before_redis_serve_their_own_tables_and_relay_once_it_is_up(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    server = RedisServer()  # not started yet
    try:
        nodes = await start_pair(tmp_path, server.url)
        try:
            assert not bus(nodes.owner).up and not bus(nodes.edge).up
            table = await create_table(session, nodes.owner)
            local = await Player.connect(session, nodes.owner, table)
            await local.join("Local")  # the owner's own sockets need no Redis
            refused = await Player.connect(session, nodes.edge, table)
            await wait_until(lambda: refused.closed is not None, timeout=5)
            assert refused.closed == 1012
            server.start()
            await wait_until(lambda: bus(nodes.edge).up and bus(nodes.owner).up, timeout=10)
            relayed = await Player.connect(session, nodes.edge, table)
            welcome = await relayed.join("Relayed")
            assert welcome["seat"] == 1
            await local.close()
            await relayed.close()
        finally:
            await nodes.edge.stop()
            await nodes.owner.stop()
    finally:
        server.cleanup()


async def test_an_edge_the_owner_wrongly_thought_lost_closes_its_client_instead_of_leaving_it_deaf(
    pair: Pair, session: aiohttp.ClientSession
) -> None:
    table, local, relayed = await two_seats(session, pair.owner, pair.edge)
    bus(pair.owner)._lose("edge", "relay node lost")  # as after a stall of the edge past the 3 s timeout
    # Told at once, not when the edge in turn misses the owner's pings (3 s later).
    await wait_until(lambda: relayed.closed is not None, timeout=2.5)
    assert relayed.closed == 1012
    back = await Player.connect(session, pair.edge, table)
    welcome = await back.send({"type": "join", "token": relayed.token})
    assert welcome["seat"] == relayed.seat
    await back.close()
    await local.close()
