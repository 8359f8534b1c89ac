"""Memory returns to its base after clients that never read are gone (issue 16, problem 4).

The relay runs as its own process (``python -m relay serve``), so its RSS (/proc) is its own: a hundred
sockets that never read ask snapshots of a table with a long journal until the relay closes them at their
output cap; once they are gone, the relay's RSS must come back near where it was before they came. Without
relay.memory's trim (LEXIO_MALLOC_TRIM=0) it stays at its peak (glibc keeps the freed heap pages).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

import aiohttp
import pytest
from harness.process import RelayProcess
from relaykit import write_short_lexicon
from test_relay_sockets import KEY, client_frame

# Appended, not first: bench/engine.py must not shadow the engine package.
sys.path.append(str(Path(__file__).resolve().parents[2] / "bench"))
from _relaybench import rss_kib
from relay_slow_readers import play_with_a_bot

REPO = Path(__file__).resolve().parents[2]
SOCKETS = 100
# Resyncs each socket sends at once (the per-connection frame limit allows a burst of 30), then per second.
BURST = 25
PER_SECOND = 10
# The share of the burst's growth (peak - base) that may stay once the sockets are gone. Without the trim
# ~100 % stays; with it ~5 % (measured: 45 MiB base, 71 peak, 46 after). A loaded machine moves the
# figures a little (allocator state, a collection running late), never by half.
KEPT_AT_MOST = 0.3
# The flood must have cost at least this much, or the test proves nothing.
MIN_GROWTH_KIB = 10 * 1024

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RSS from /proc, glibc")


class NonReader:
    """A blocking client in its own thread (the relay's loop cannot starve it): upgrades with a tiny
    receive buffer, watches, asks snapshots (a burst, then a steady rate) and never reads."""

    def __init__(self, port: int, table_id: str, seconds: float) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.sendall(
            f"GET /ws/{table_id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
            + client_frame(0x1, json.dumps({"type": "watch"}).encode())
        )
        self.seconds = seconds
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        resync = client_frame(0x1, b'{"type":"resync"}')
        end = time.monotonic() + self.seconds
        try:
            self.sock.sendall(resync * BURST)
            while time.monotonic() < end and not self.stop.wait(1 / PER_SECOND):
                self.sock.sendall(resync)
        except OSError:
            pass  # the relay closed it: what the test waits for

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)
        self.sock.close()


async def snapshot_size(session: aiohttp.ClientSession, url: str, table_id: str) -> int:
    ws = await session.ws_connect(f"{url}/ws/{table_id}", headers={"Origin": url})
    await ws.send_str(json.dumps({"type": "watch"}))
    while True:
        msg = await ws.receive(timeout=10)
        if json.loads(msg.data)["type"] == "snapshot":
            await ws.close()
            return len(msg.data.encode())


async def sockets(session: aiohttp.ClientSession, url: str) -> int:
    async with session.get(url + "/healthz") as resp:
        return int((await resp.json())["sockets"])


async def test_rss_returns_near_its_base_after_a_hundred_non_readers_leave(tmp_path: Path) -> None:
    write_short_lexicon(tmp_path / "short.txt")
    relay = RelayProcess(
        [
            "--db",
            str(tmp_path / "lexio.sqlite3"),
            "--lexicon",
            str(tmp_path / "short.txt"),
            "--static",
            str(tmp_path / "nostatic"),
            "--max-connections-per-address",
            "100000",
            "--max-pending-per-address",
            "100000",
            "--resync-burst",
            "100000",
            "--resync-per-second",
            "100000",
            "--bot-delay-seconds",
            "0,0.01",
        ],
        log=tmp_path / "relay.log",
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=tmp_path,
        start_timeout=30,
    )
    await relay.astart()
    try:
        assert relay.proc is not None
        pid = relay.proc.pid
        async with aiohttp.ClientSession() as session:
            # A table whose snapshots are big enough that ~25 of them fill a socket's cap and buffers (a
            # random deal may end the game early, when the bot cannot place either: then another).
            size = 0
            for _ in range(6):
                async with session.post(relay.url + "/api/tables", json={}) as resp:
                    table_id = (await resp.json())["id"]
                # A bot's first move waits for its worker on a loaded machine.
                await play_with_a_bot(session, relay.url, table_id, 80, receive_timeout=120)
                size = await snapshot_size(session, relay.url, table_id)
                if size > 8000:
                    break
            assert size > 8000, size
            await asyncio.sleep(1)
            base = rss_kib(pid)
            clients = await asyncio.gather(
                *(asyncio.to_thread(NonReader, relay.port, table_id, 20.0) for _ in range(SOCKETS))
            )
            for _ in range(600):  # every upgrade served before the flood starts (30 s at most)
                if await sockets(session, relay.url) == SOCKETS:
                    break
                await asyncio.sleep(0.05)
            for c in clients:
                c.thread.start()
            peak, most = base, 0
            for _ in range(1200):  # until the relay closed them all (each at its cap): 120 s at most
                peak = max(peak, rss_kib(pid))
                now = await sockets(session, relay.url)
                most = max(most, now)
                if most == SOCKETS and now == 0:
                    break
                await asyncio.sleep(0.1)
            assert most == SOCKETS
            for c in clients:
                c.close()
            # Gone: the relay dropped them (no close answer within its 5 s timeout) or they closed.
            for _ in range(300):
                if await sockets(session, relay.url) == 0:
                    break
                await asyncio.sleep(0.1)
            assert await sockets(session, relay.url) == 0
            after = rss_kib(pid)
            # The trim comes a second after the last of them went, or up to 10 s later if one ran just
            # before (at most one per 10 s): allow 20 s.
            for _ in range(200):
                if after - base <= KEPT_AT_MOST * (peak - base):
                    break
                await asyncio.sleep(0.1)
                after = rss_kib(pid)
        print(f"rss KiB: base {base}, peak {peak}, after {after}")
        assert peak - base >= MIN_GROWTH_KIB, (base, peak)
        assert after - base <= KEPT_AT_MOST * (peak - base), (base, peak, after)
    finally:
        relay.stop()
