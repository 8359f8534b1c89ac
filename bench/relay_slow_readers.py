"""Slow-reader benchmark: N game sockets that never read, each asking snapshots, against a relay process.

Measures the relay's RSS (/proc) before, at its peak while the sockets flood, and after they are gone, and
how each socket ended (the close code it reads at the end). With the default resync budget (10, then 2/s)
the snapshots past it wait and are merged; ``--unlimited-resyncs`` lifts it (the per-connection frame
limit, 15/s, still holds), and ``--output-cap-kib`` sets the cap past which a socket is closed (4002).

Output: ``#`` lines, then ``name<TAB>value<TAB>unit`` lines.

    python bench/relay_slow_readers.py                          # 100 sockets, 12 resyncs/s each, 4 s
    python bench/relay_slow_readers.py --unlimited-resyncs
    python bench/relay_slow_readers.py --events 80 --unlimited-resyncs --seconds 10 [--no-trim]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import socket
import sys
import time

import aiohttp
from _relaybench import load_average, relay_process, report, rss_kib, short_lexicon, workdir


def frame(payload: bytes) -> bytes:
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def non_reader(port: int, table_id: str, rate: float, seconds: float) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    loop = asyncio.get_running_loop()
    await loop.sock_connect(sock, ("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    await loop.sock_sendall(
        sock,
        f"GET /ws/{table_id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        + frame(b'{"type":"watch"}'),
    )
    end = time.monotonic() + seconds
    with_ok = True
    while time.monotonic() < end and with_ok:
        try:
            await asyncio.wait_for(loop.sock_sendall(sock, frame(b'{"type":"resync"}')), 1)
        except (OSError, TimeoutError):
            with_ok = False  # the relay closed it (or stopped reading it)
        await asyncio.sleep(1 / rate)
    return sock


async def ending(sock: socket.socket) -> str:
    """Read what the relay sent, to its end: the close code, or how the stream ended."""
    loop = asyncio.get_running_loop()
    data, ended = b"", "eof"
    try:
        while chunk := await asyncio.wait_for(loop.sock_recv(sock, 65536), 2):
            data += chunk
    except TimeoutError:
        ended = "open"
    except OSError:
        ended = "reset"
    _head, _, rest = data.partition(b"\r\n\r\n")
    while len(rest) >= 2:
        op, n, at = rest[0] & 0x0F, rest[1] & 0x7F, 2
        if n == 126:
            n, at = int.from_bytes(rest[2:4], "big"), 4
        elif n == 127:
            n, at = int.from_bytes(rest[2:10], "big"), 10
        if len(rest) < at + n:
            return "cut frame (1006)" if ended != "open" else "open"
        if op == 0x8:
            return str(int.from_bytes(rest[at : at + 2], "big"))
        rest = rest[at + n :]
    return "still open, never closed" if ended == "open" else f"{ended} without a close frame (1006)"


async def play_with_a_bot(
    session: aiohttp.ClientSession, url: str, table_id: str, events: int, *, receive_timeout: float = 30.0
) -> int:
    """Ann plays against a computer player (passing on her turns) until ``events`` events or the end: the
    journal, hence every snapshot, grows as in a real game (a few KiB per snapshot). Returns the events
    seen. Also tests/relay/test_relay_memory.py's long journal."""
    ws = await session.ws_connect(f"{url}/ws/{table_id}", headers={"Origin": url})
    for frame_ in ({"type": "join", "name": "Ann"}, {"type": "add_bot", "level": "easy"}, {"type": "start"}):
        await ws.send_str(json.dumps(frame_))
    seen, me, asked = 0, None, -1
    while seen < events:
        msg = await ws.receive(timeout=receive_timeout)
        if msg.type != aiohttp.WSMsgType.TEXT:
            break
        f = json.loads(msg.data)
        if f["type"] == "welcome":
            me = f["seat"]
        if f["type"] != "event":
            continue
        seen = f["seq"]
        if f["event"]["type"] == "game_ended":
            break
        if f["clock"]["turn"] == me and asked != seen:
            asked = seen
            await ws.send_str(json.dumps({"type": "pass"}))
    await ws.close()
    return seen


async def main_async(args: argparse.Namespace) -> int:
    tmp = workdir("slow")
    extra = ["--resync-burst", "1000000", "--resync-per-second", "1000000"] if args.unlimited_resyncs else []
    extra += ["--output-cap-kib", str(args.output_cap_kib)]
    relay = relay_process(
        tmp,
        [
            "--lexicon",
            str(short_lexicon(tmp)),
            "--max-connections-per-address",
            "100000",
            "--max-pending-per-address",
            "100000",
            "--bot-delay-seconds",
            "0,0.01",
            *extra,
        ],
        env={"LEXIO_MALLOC_TRIM": "0"} if args.no_trim else None,
        start_timeout=15,
    )
    await relay.astart()
    try:
        assert relay.proc is not None
        pid = relay.proc.pid
        async with aiohttp.ClientSession() as session:
            async with session.post(relay.url + "/api/tables", json={}) as resp:
                table_id = (await resp.json())["id"]
            journal = await play_with_a_bot(session, relay.url, table_id, args.events) if args.events else 0
            players = []
            for name in ("Bea", "Bob") if not args.events else ():
                ws = await session.ws_connect(f"{relay.url}/ws/{table_id}", headers={"Origin": relay.url})
                await ws.send_str(json.dumps({"type": "join", "name": name}))
                players.append(ws)
            await asyncio.sleep(1)
            base = rss_kib(pid)
            peak = base
            tasks = [
                asyncio.ensure_future(non_reader(relay.port, table_id, args.rate, args.seconds))
                for _ in range(args.sockets)
            ]
            while not all(t.done() for t in tasks):
                peak = max(peak, rss_kib(pid))
                await asyncio.sleep(0.1)
            socks = [t.result() for t in tasks]
            endings = await asyncio.gather(*(ending(s) for s in socks))
            for s in socks:
                s.close()
            await asyncio.sleep(2)
            after = rss_kib(pid)
            await asyncio.sleep(args.settle)
            settled = rss_kib(pid)
            async with session.get(relay.url + "/healthz") as resp:
                sockets_after = (await resp.json())["sockets"]
            for ws in players:
                await ws.close()
    finally:
        relay.stop()
    counts: dict[str, int] = {}
    for e in endings:
        counts[e] = counts.get(e, 0) + 1
    report(
        "Lexio slow-reader benchmark (bench/relay_slow_readers.py)",
        [
            f"{args.sockets} sockets that never read, {args.rate:g} resyncs/s each for {args.seconds:g} s; "
            f"resync limit {'lifted' if args.unlimited_resyncs else 'default (10, then 2/s)'}, "
            f"output cap {args.output_cap_kib} KiB; malloc_trim {'off' if args.no_trim else 'on'}",
            f"table journal: {journal} events before the sockets came; how they ended: {counts}",
            f"load average {load_average()}",
        ],
        [
            ("rss_base", round(base / 1024, 1), "MiB"),
            ("rss_peak", round(peak / 1024, 1), "MiB"),
            ("rss_after", round(after / 1024, 1), "MiB (2 s after they closed)"),
            ("rss_settled", round(settled / 1024, 1), f"MiB ({2 + args.settle:g} s after they closed)"),
            ("closed_4002", counts.get("4002", 0), "sockets"),
            ("sockets_after", sockets_after, "game sockets left (the players still connected)"),
        ],
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sockets", type=int, default=100)
    parser.add_argument("--rate", type=float, default=12.0, help="resyncs per second per socket")
    # Shorter than the relay's 5 s close timeout, so that a socket it closed (4002) is read before the
    # relay drops the TCP connection (a reader later than that finds a reset, as a browser would: 1006).
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--unlimited-resyncs", action="store_true")
    parser.add_argument("--output-cap-kib", type=int, default=256)
    parser.add_argument(
        "--no-trim", action="store_true", help="LEXIO_MALLOC_TRIM=0: the relay keeps freed heap pages"
    )
    parser.add_argument("--settle", type=float, default=3.0, help="seconds before the last RSS reading")
    parser.add_argument(
        "--events",
        type=int,
        default=0,
        help="first play a game with a bot to this many events (bigger snapshots)",
    )
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
