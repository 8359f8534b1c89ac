"""Clients that never read (issue 16, problem 4): each costs at most its output cap, is closed with 4002
(the close frame ahead of its unread queue, the queue dropped), and nothing of it stays once it is gone.
Snapshots are rate-limited per connection and served from memory."""

from __future__ import annotations

import asyncio
import gc
import json
import socket
import threading
import time
from typing import Any

import aiohttp
import pytest
from relaykit import Player, create_table, seated_game, start_relay
from test_relay_sockets import KEY, client_frame

from relay.app import HUB_KEY
from relay.http import ws
from relay.tables import CLOSE_SLOW

SOCKETS = 100
RESYNCS = 120
CAP_KIB = 32  # the default is 256; smaller here to spare the CPU (each snapshot ~1 KB)


class NonReader:
    """A blocking client in its own thread (the relay's loop, busy with the others, cannot starve it):
    upgrades with a tiny receive buffer, asks ``resyncs`` snapshots, then reads nothing until told."""

    def __init__(self, url: str, table_id: str, resyncs: int) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.settimeout(10)
        self.sock.connect((host, int(port)))
        self.port = self.sock.getsockname()[1]
        self.sock.sendall(
            f"GET /ws/{table_id} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self.buf += self.sock.recv(1)  # byte by byte: nothing past the answer's head is taken
        assert self.buf.startswith(b"HTTP/1.1 101 "), self.buf
        self.buf = b""
        frames = [client_frame(0x1, json.dumps({"type": "watch", "id": "w"}).encode())]
        frames += [client_frame(0x1, b'{"type":"resync"}') for _ in range(resyncs)]
        self.frames = b"".join(frames)
        self.go = threading.Event()
        self.result: tuple[int, int] | BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        """Send the frames (the kernel takes them all: the relay reads), then wait to be told to read."""
        self.sock.sendall(self.frames)
        self.thread.start()

    def _take(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"stream ended with {len(self.buf)} of {n} bytes: a cut frame")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _run(self) -> None:
        """Once told, read every frame to the close frame: (whole text frames before it, close code)."""
        self.go.wait(60)
        try:
            count = 0
            while True:
                b0, b1 = self._take(2)
                n = b1 & 0x7F
                if n == 126:
                    n = int.from_bytes(self._take(2), "big")
                elif n == 127:
                    n = int.from_bytes(self._take(8), "big")
                payload = self._take(n)
                if b0 & 0x0F == 0x8:
                    self.result = (count, int.from_bytes(payload[:2], "big"))
                    return
                if b0 & 0x0F == 0x1:
                    json.loads(payload)  # whole frames only
                    count += 1
        except BaseException as exc:  # handed to the test
            self.result = exc


async def test_a_hundred_sockets_that_never_read_are_closed_with_4002_within_their_cap(
    tmp_path: Any, session: aiohttp.ClientSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small kernel buffers, so that few snapshots fill them (the CPU is shared); and no heartbeat drop
    # of a quiet socket while a loaded machine takes its time.
    monkeypatch.setattr(ws, "KERNEL_SEND_BUFFER", 4096)
    relay = await start_relay(
        tmp_path, resync_burst=10_000.0, resync_per_second=10_000.0, output_cap_kib=CAP_KIB
    )
    try:
        table_id, players = await seated_game(session, relay)
        hub = relay.app[HUB_KEY]
        hub.heartbeat = 3600.0
        clients = await asyncio.gather(
            *(asyncio.to_thread(NonReader, relay.url, table_id, RESYNCS) for _ in range(SOCKETS))
        )
        waiting = {c.port: c for c in clients}
        closed: dict[int, tuple[int, int]] = {}  # port -> (close code, bytes unread when closing)
        real_close = ws.WebSocket.close_soon

        def close_soon(self: ws.WebSocket, code: int, message: bytes = b"") -> None:
            # Seen as it happens (a poll could miss it on a loaded machine), and the reader told at once.
            transport = self.transport
            port = transport.get_extra_info("peername")[1] if transport is not None else None
            if port in waiting and port not in closed:
                closed[port] = (code, self.buffered())
                waiting[port].go.set()  # a late reader: it starts reading now
            real_close(self, code, message)

        monkeypatch.setattr(ws.WebSocket, "close_soon", close_soon)
        for c in clients:
            c.start()
        for _ in range(6000):  # until the relay has told every one (60 s at most)
            if len(closed) == len(waiting):
                break
            await asyncio.sleep(0.01)
        assert len(closed) == len(waiting), f"{len(waiting) - len(closed)} non-readers were never closed"
        assert {code for code, _ in closed.values()} == {CLOSE_SLOW}
        peak = max(unread for _, unread in closed.values())
        # The cap plus the last frame and the transport's high-water mark: never the whole backlog.
        assert peak <= CAP_KIB * 1024 + ws.WRITE_HIGH_WATER, peak
        for c in clients:
            await asyncio.to_thread(c.thread.join, 20)
        # A late reader still gets whole frames, then the close frame: 4002, not a cut stream (1006).
        assert all(isinstance(c.result, tuple) for c in clients), [c.result for c in clients][:3]
        assert {c.result[1] for c in clients if isinstance(c.result, tuple)} == {CLOSE_SLOW}
        for c in clients:
            c.sock.close()
        # The players at the table were never slowed down.
        assert (await players[0].send({"type": "ping"}))["type"] == "pong"
        alive: list[ws.WebSocket] = []
        for _ in range(1000):  # nothing of the readers stays in memory (once their ends have run: 10 s)
            gc.collect()
            alive = [o for o in gc.get_objects() if isinstance(o, ws.WebSocket)]
            if len(hub) == len(players) and len(alive) == len(players):
                break
            await asyncio.sleep(0.01)
        assert len(hub) == len(players) and relay.referee.sockets == len(players), (
            len(hub),
            relay.referee.sockets,
        )
        assert len(alive) == len(players), len(alive)
        assert sum(s.buffered() for s in hub.sockets) < 4096
    finally:
        await relay.stop()


async def test_snapshots_are_rate_limited_per_connection_and_served_from_memory(
    tmp_path: Any, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path, resync_burst=3.0, resync_per_second=4.0)
    try:
        _table_id, (p0, _p1) = await seated_game(session, relay)
        store = relay.referee.store
        reads = 0
        real = store.events

        def counting(tid: str) -> Any:
            nonlocal reads
            reads += 1
            return real(tid)

        store.events = counting  # type: ignore[method-assign]
        before = len(p0.frames)
        t0 = time.monotonic()
        for _ in range(8):
            await p0.ws.send_str(json.dumps({"type": "resync", "id": "r"}))
        pong = await p0.send({"type": "ping"})  # frames after the resyncs are answered at once
        snapshots = lambda: [f for f in p0.frames[before:] if f["type"] == "snapshot"]  # noqa: E731
        assert pong["type"] == "pong" and len(snapshots()) == 3  # the burst; the rest waits
        while len(snapshots()) < 4 and time.monotonic() - t0 < 5:
            await asyncio.sleep(0.01)
        # The five resyncs past the burst are answered by one snapshot, once the budget allows (1/4 s).
        assert 0.15 <= time.monotonic() - t0 < 5
        await asyncio.sleep(0.5)
        assert len(snapshots()) == 4
        assert not [f for f in p0.frames[before:] if f["type"] == "error"]
        assert reads <= 1, "a snapshot of an unchanged table is read from SQLite once"
    finally:
        await relay.stop()


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
