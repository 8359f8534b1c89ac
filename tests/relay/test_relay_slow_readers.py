"""Clients that never read (issue 16, problem 4): each costs at most its output cap, is closed with 4002
(the close frame ahead of its unread queue, the queue dropped), and nothing of it stays once it is gone.
Snapshots are rate-limited per connection and served from memory."""

from __future__ import annotations

import asyncio
import gc
import json
import socket
from typing import Any

import aiohttp
from relaykit import Player, RunningRelay, create_table, seated_game, start_relay
from test_relay_sockets import KEY, client_frame

from relay import ws
from relay.app import HUB_KEY
from relay.tables import CLOSE_SLOW

SOCKETS = 100
RESYNCS = 300
CAP_KIB = 64  # the default is 256; smaller here to spare the CPU (each snapshot ~1 KB)


async def _non_reader(url: str, table_id: str, resyncs: int) -> tuple[asyncio.StreamReader, Any, int]:
    """An upgraded socket with a tiny receive buffer that asks ``resyncs`` snapshots and reads nothing."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
    reader, writer = await asyncio.open_connection(sock=sock)
    writer.write(
        f"GET /ws/{table_id} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert head.startswith(b"HTTP/1.1 101 "), head
    frames = [client_frame(0x1, json.dumps({"type": "watch", "id": "w"}).encode())]
    frames += [client_frame(0x1, b'{"type":"resync"}') for _ in range(resyncs)]
    writer.write(b"".join(frames))
    return reader, writer, sock.getsockname()[1]


async def _read_to_close(reader: asyncio.StreamReader) -> tuple[int, int]:
    """Read every server frame to the close frame: (frames before it, close code). Raises if the stream
    ends first or a frame is cut (1006 for a browser)."""
    count = 0
    while True:
        b0, b1 = await asyncio.wait_for(reader.readexactly(2), 10)
        n = b1 & 0x7F
        if n == 126:
            n = int.from_bytes(await reader.readexactly(2), "big")
        elif n == 127:
            n = int.from_bytes(await reader.readexactly(8), "big")
        payload = await asyncio.wait_for(reader.readexactly(n), 10)
        if b0 & 0x0F == 0x8:
            return count, int.from_bytes(payload[:2], "big")
        if b0 & 0x0F == 0x1:
            json.loads(payload)  # whole frames only
            count += 1


async def test_a_hundred_sockets_that_never_read_are_closed_with_4002_within_their_cap(
    tmp_path: Any, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(
        tmp_path, resync_burst=10_000.0, resync_per_second=10_000.0, output_cap_kib=CAP_KIB
    )
    try:
        table_id, players = await seated_game(session, relay)
        hub = relay.app[HUB_KEY]
        peak = 0

        async def one() -> tuple[int, int, Any]:
            nonlocal peak
            reader, writer, port = await _non_reader(relay.url, table_id, RESYNCS)
            for _ in range(3000):  # until the relay tells it 4002 (30 s at most)
                mine = [
                    s
                    for s in hub.sockets
                    if s.transport and s.transport.get_extra_info("peername")[1] == port
                ]
                if mine:
                    peak = max(peak, mine[0].buffered())
                    if mine[0].close_sent:
                        assert mine[0].close_code == CLOSE_SLOW
                        break
                await asyncio.sleep(0.01)
            else:
                raise AssertionError("a non-reader was never closed")
            # A late reader still gets whole frames, then the close frame: 4002, not a cut stream (1006).
            count, code = await _read_to_close(reader)
            return count, code, writer

        results = await asyncio.gather(*(one() for _ in range(SOCKETS)))
        # The cap plus the last frame and the transport's high-water mark: never the whole backlog.
        assert peak <= CAP_KIB * 1024 + ws.WRITE_HIGH_WATER, peak
        assert {code for _, code, _ in results} == {CLOSE_SLOW}
        assert all(count >= 1 for count, _, _ in results)
        clients = [(None, writer, None) for _, _, writer in results]
        for _, writer, _ in clients:
            writer.close()
        for _ in range(500):
            if len(hub) == len(players):
                break
            await asyncio.sleep(0.01)
        assert len(hub) == len(players) and relay.referee.sockets == len(players)
        # The players at the table were never slowed down, and nothing of the readers stays in memory.
        assert (await players[0].send({"type": "ping"}))["type"] == "pong"
        gc.collect()
        alive = [o for o in gc.get_objects() if isinstance(o, ws.WebSocket)]
        assert len(alive) == len(players), len(alive)
        assert sum(s.buffered() for s in hub.sockets) < 4096
    finally:
        await relay.stop()


async def test_snapshots_are_rate_limited_per_connection_and_served_from_memory(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    _table_id, (p0, _p1) = await seated_game(session, relay)
    store = relay.referee.store
    reads = 0
    real = store.events

    def counting(tid: str) -> Any:
        nonlocal reads
        reads += 1
        return real(tid)

    store.events = counting  # type: ignore[method-assign]
    answers = []
    for _ in range(8):
        before = len(p0.frames)
        await p0.ws.send_str(json.dumps({"type": "resync", "id": "r"}))
        answers.append(await p0.wait_for(lambda f: f["type"] in ("snapshot", "error"), start=before))
    kinds = [a["type"] if a["type"] == "snapshot" else a["code"] for a in answers]
    burst = int(relay.referee.config.resync_burst)
    assert kinds == ["snapshot"] * burst + ["rate_limited"] * (8 - burst), kinds
    assert reads <= 1, "a snapshot of an unchanged table is read from SQLite once"
    assert (await p0.send({"type": "ping"}))["type"] == "pong"  # the connection stays up


async def test_a_slow_table_player_rejoins_after_4002_and_gets_a_snapshot(
    tmp_path: Any, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path, output_cap_kib=8)
    try:
        table_id = await create_table(session, relay)
        p = await Player.connect(session, relay, table_id)
        await p.join("Slow")
        conn = next(iter(relay.referee.tables[table_id].conns.values()))
        sock = conn.ws
        assert isinstance(sock, ws.WebSocket)
        sock.pause_writing()  # as if the peer's buffers were full: frames queue from now on
        for _ in range(20):
            conn.send(json.dumps({"type": "presence", "seats": [], "pad": "x" * 1000, "now": 0}))
        assert conn.closing and sock.close_code == CLOSE_SLOW
        sock.resume_writing()
        await p.reader
        assert p.closed == CLOSE_SLOW
        back = await Player.connect(session, relay, table_id)
        welcome = await back.send({"type": "join", "token": p.token})
        assert welcome["type"] == "welcome" and welcome["seat"] == 0
        await back.wait_for(lambda f: f["type"] == "snapshot")
    finally:
        await relay.stop()
