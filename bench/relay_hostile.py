"""Hostile-frame benchmark: a client's ping latency while other sockets send deeply nested frames.

A relay process on loopback; ``--attackers`` sockets each send the 690-byte frame of issue 16 (an escape and
328 nested arrays) at ``--rate`` frames/s (under the per-connection rate limit), reconnecting when the relay
closes them (1008 after 50 bad frames); meanwhile one honest client pings. Reports the honest client's ping
latency (median, p99) with and without the attack, the relay's log size and its count of ERROR lines.

    python bench/relay_hostile.py                    # 8 attackers x 14 frames/s, 10 s each phase
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import sys
import time

import aiohttp
from _relaybench import quantile, relay_process, report, short_lexicon, workdir

NESTED = '{"type":"ping","id":"\\u0041","x":' + "[" * 328 + "]" * 328 + "}"


async def pings(ws: aiohttp.ClientWebSocketResponse, seconds: float) -> list[float]:
    out: list[float] = []
    end = time.monotonic() + seconds
    for i in itertools.count():
        if time.monotonic() >= end:
            return out
        t0 = time.perf_counter()
        await ws.send_str(json.dumps({"type": "ping", "id": f"p{i}"}))
        while True:
            msg = await ws.receive(timeout=5)
            if json.loads(msg.data).get("id") == f"p{i}":
                break
        out.append((time.perf_counter() - t0) * 1000)
        await asyncio.sleep(0.05)


async def attacker(
    session: aiohttp.ClientSession, url: str, table: str, rate: float, stop: asyncio.Event
) -> int:
    sent = 0
    while not stop.is_set():
        async with session.ws_connect(f"{url}/ws/{table}", headers={"Origin": url}) as ws:
            while not stop.is_set() and not ws.closed:
                try:
                    await ws.send_str(NESTED)
                except (ConnectionError, RuntimeError):
                    break
                sent += 1
                await asyncio.sleep(1 / rate)
                while True:  # drop the answers (error frames) without blocking
                    try:
                        msg = await ws.receive(timeout=0.001)
                    except TimeoutError:
                        break
                    if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                        break
    return sent


async def main_async(args: argparse.Namespace) -> int:
    tmp = workdir("hostile")
    relay = relay_process(tmp, ["--lexicon", str(short_lexicon(tmp, (2,)))], start_timeout=15)
    await relay.astart()
    try:
        async with aiohttp.ClientSession() as session:
            async with session.post(relay.url + "/api/tables", json={}) as resp:
                table = (await resp.json())["id"]
            honest = await session.ws_connect(f"{relay.url}/ws/{table}", headers={"Origin": relay.url})
            quiet = await pings(honest, args.seconds)
            stop = asyncio.Event()
            attack = [
                asyncio.ensure_future(attacker(session, relay.url, table, args.rate, stop))
                for _ in range(args.attackers)
            ]
            loud = await pings(honest, args.seconds)
            stop.set()
            sent = sum(await asyncio.gather(*attack))
            await honest.close()
    finally:
        relay.stop()
    log = relay.log.read_text()
    errors = sum(1 for line in log.splitlines() if " ERROR " in line or "Traceback" in line)
    report(
        "Lexio hostile-frame benchmark (bench/relay_hostile.py)",
        [f"{args.attackers} sockets x {args.rate:g} nested frames/s for {args.seconds:g} s ({sent} sent)"],
        [
            ("ping_p50_quiet", round(statistics.median(quiet), 2), "ms"),
            ("ping_p50_attacked", round(statistics.median(loud), 2), "ms"),
            ("ping_p99_attacked", round(quantile(loud, 0.99), 2), "ms"),
            ("hostile_frames", sent, "frames"),
            ("relay_log", round(len(log.encode()) / 1024, 1), "KiB"),
            ("relay_log_errors", errors, "ERROR or traceback lines"),
        ],
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--attackers", type=int, default=8)
    parser.add_argument("--rate", type=float, default=14.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
