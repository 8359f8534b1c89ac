"""Relay responsiveness with many bot tables: N tables of one scripted person against one computer player.

The relay runs as its own process (``python -m relay serve``, the shipped French list, the default bot
pacing) with its default bot driver (thinking in a worker process, ``LEXIO_BOT_PROCESSES``). Each table's
person joins, seats a bot (levels in turn: strong, expert, medium, easy), starts, and on each of its turns
waits ``--think-ms`` then passes (a real action the relay must ack; the bot keeps placing, so games go on).
Measured on the client: the person's action→ack latency (what a human at a busy relay feels), and how many
bot moves the relay made meanwhile.

Output: ``#`` lines, then ``name<TAB>value<TAB>unit`` lines. Target: ack p99 <= 50 ms with 200 tables.

Usage: nice -n 5 .venv/bin/python bench/bots_load.py [--tables 200] [--duration 40] [--processes 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time

import aiohttp
from _relaybench import (
    LoopLag,
    difference,
    histogram_quantile,
    load_average,
    quantile,
    relay_metrics,
    relay_process,
    report,
    schedstat,
    workdir,
)

LEVELS = ("strong", "expert", "medium", "easy")


class Stats:
    def __init__(self) -> None:
        self.acks: list[float] = []
        self.bot_moves = 0
        self.measuring = False
        self.errors: list[str] = []


async def table(
    session: aiohttp.ClientSession, url: str, i: int, stats: Stats, think: float, stop: asyncio.Event
) -> None:
    async with session.post(url + "/api/tables", json={"turn_seconds": 600}) as r:
        tid = (await r.json())["id"]
    ws = await session.ws_connect(f"{url}/ws/{tid}", headers={"Origin": url}, heartbeat=None)
    seat: int | None = None
    turn: int | None = None
    pending: dict[str, float] = {}
    my_turn = asyncio.Event()
    n = 0

    async def reader() -> None:
        nonlocal seat, turn
        async for msg in ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            f = json.loads(msg.data)
            kind = f.get("type")
            if kind == "welcome":
                seat = f.get("seat")
            elif kind in ("snapshot", "event"):
                clock = f.get("clock") or {}
                turn = clock.get("turn")
                ev = f.get("event") or {}
                if (
                    kind == "event"
                    and ev.get("seat") not in (None, seat)
                    and ev.get("type") in ("placed", "swapped", "passed")
                ):
                    stats.bot_moves += stats.measuring
                if turn == seat and seat is not None:
                    my_turn.set()
            if kind in ("ack", "error") and f.get("id") in pending:
                t0 = pending.pop(f["id"])
                if stats.measuring and str(f["id"]).startswith("p"):
                    stats.acks.append(time.perf_counter() - t0)
                if kind == "error" and f.get("code") not in ("not_your_turn",):
                    stats.errors.append(str(f.get("code")))

    task = asyncio.create_task(reader())

    async def send(frame: dict[str, object], fid: str) -> None:
        pending[fid] = time.perf_counter()
        await ws.send_str(json.dumps({**frame, "id": fid}))

    await send({"type": "join", "name": f"P{i}"}, "j")
    await send({"type": "add_bot", "level": LEVELS[i % len(LEVELS)]}, "b")
    await asyncio.sleep(0.2)
    await send({"type": "start"}, "s")
    rng = random.Random(i)
    while not stop.is_set():
        try:
            await asyncio.wait_for(my_turn.wait(), 5)
        except TimeoutError:
            continue
        my_turn.clear()
        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        n += 1
        await send({"type": "pass"}, f"p{n}")
    await ws.close()
    task.cancel()


async def main_async(args: argparse.Namespace) -> int:
    tmp = workdir("botload")
    relay = relay_process(
        tmp,
        ["--create-burst", "1000000"],
        env={"LEXIO_BOT_PROCESSES": str(args.processes)},
        start_timeout=60,
    )
    await relay.astart()
    stats = Stats()
    stop = asyncio.Event()
    lag = LoopLag()
    load_before = load_average()
    try:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            tasks = [
                asyncio.create_task(table(session, relay.url, i, stats, args.think_ms / 1000, stop))
                for i in range(args.tables)
            ]
            await asyncio.sleep(args.warmup)
            before = await relay_metrics(session, relay.url)
            assert relay.proc is not None
            sched_before = schedstat(relay.proc.pid)
            stats.measuring = True
            lag.start()
            t0 = time.monotonic()
            await asyncio.sleep(args.duration)
            stats.measuring = False
            lag.stop()
            elapsed = time.monotonic() - t0
            sched = [b - a for a, b in zip(sched_before, schedstat(relay.proc.pid), strict=True)]
            server = difference(await relay_metrics(session, relay.url), before)
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        relay.stop()
    acks = sorted(stats.acks)
    if not acks:
        print("# no acks measured", file=sys.stderr)
        print(relay.log.read_text()[-2000:], file=sys.stderr)
        return 1

    def ms(seconds: float) -> str:
        return f"{seconds * 1000:.1f}"

    report(
        "Lexio bot-load benchmark (bench/bots_load.py)",
        [
            f"{args.tables} tables (1 person + 1 bot), {args.processes} bot process(es), {elapsed:.0f} s "
            f"measured: {len(acks)} person actions, {stats.bot_moves} bot moves; "
            f"errors {sorted(set(stats.errors))}",
            f"load average {load_before} before, {load_average()} after",
            "relay_* figures are the relay's own (/metrics over the measured window; a histogram's p99 is "
            "its bucket's upper bound); client_loop_lag is this client's (its figures are the relay's only "
            "if that stays small)",
        ],
        [
            ("botload_tables", args.tables, "tables"),
            ("botload_person_ack_p50", ms(quantile(acks, 0.5)), "ms"),
            ("botload_person_ack_p99", ms(quantile(acks, 0.99)), "ms"),
            ("botload_person_ack_max", ms(acks[-1]), "ms"),
            ("botload_person_actions", len(acks), "actions"),
            ("botload_bot_moves_per_s", f"{stats.bot_moves / elapsed:.1f}", "moves/s"),
            (
                "botload_relay_action_p99",
                ms(histogram_quantile(server, "lexio_action_latency_seconds", 0.99)),
                "ms (<=, frame read to answer)",
            ),
            (
                "botload_relay_loop_lag_p99",
                ms(histogram_quantile(server, "lexio_loop_lag_seconds", 0.99)),
                "ms (<=)",
            ),
            ("botload_relay_cpu", f"{sched[0]:.1f}", "s (all its threads, over the window)"),
            (
                "botload_relay_cpu_wait",
                f"{sched[1]:.1f}",
                f"s runnable but waiting for a CPU ({sched[1] / max(1, sched[2]) * 1000:.2f} ms per slice)",
            ),
            ("botload_relay_full_gcs", int(server.get("lexio_gc_full_collections_total", 0)), "collections"),
            ("botload_client_loop_lag_p99", ms(quantile(lag.lags, 0.99) if lag.lags else 0.0), "ms"),
        ],
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--think-ms", type=float, default=1500.0)
    parser.add_argument(
        "--processes", type=int, default=1, help="LEXIO_BOT_PROCESSES for the relay (0: threads)"
    )
    args = parser.parse_args()
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
