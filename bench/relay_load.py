"""Relay load benchmark: N concurrent tables of scripted clients over loopback WebSockets, real moves.

The relay runs as its own process (``python -m relay serve``), pinned to one CPU when possible, with a word
list of every 2- and 3-letter string so that the scripted players' single-tile plays are real, accepted
placements. Each seat connects, joins, and plays on its turn after ``--think-ms``; a finished game is replaced
by a new table so N tables stay busy. Measured on the client: actions/s and action→ack latency; on the relay
process (/proc): CPU seconds and RSS growth, per table. The load client (two processes pinned to the other
CPU) is lean by default (:class:`LeanSeat`: a protocol object per socket, a timer per action), so that it
is not saturated before the relay; ``--client aiohttp`` is the client used before (about 2.5 times its CPU
per action). ``--relay-tree DIR`` serves another checkout's relay (e.g. a base commit's worktree) to this
same client.

Output: a human header (``#`` lines), then ``name<TAB>value<TAB>unit`` lines.

    python bench/relay_load.py                      # default: 200 tables x 4 seats, ~40 s in all
    python bench/relay_load.py --tables 1000 --duration 60 --think-ms 1000
    python bench/relay_load.py --tables 300 --tracemalloc   # also the relay's Python heap per table
    python bench/relay_load.py --tables 1700 --relay-tree /tmp/lexio-base   # the same load on another relay
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import gc
import itertools
import json
import multiprocessing as mp
import os
import random
import re
import signal
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

import aiohttp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # the process harness

from harness.process import RelayProcess, RelayStartError  # noqa: E402

COLS = "ABCDEFGHIJKLM"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_cpu_times(pid: int) -> tuple[float, float]:
    """CPU seconds of process ``pid`` in user space and in the kernel (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def proc_cpu_seconds(pid: int) -> float:
    return sum(proc_cpu_times(pid))


def proc_runqueue_wait_s(pid: int) -> float:
    """Seconds the relay's threads spent runnable but waiting for a CPU (/proc/<pid>/task/*/schedstat)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e9


# ``python -c TRACED_RELAY -m relay serve ARGS``: the relay under tracemalloc; on SIGUSR1 it writes its
# traced Python heap (bytes, after a full collection) to $LEXIO_BENCH_HEAP_FILE, and from the second signal
# on, the growth since the previous one by source file (bytes, blocks, file; biggest first) to that path
# + ".files".
TRACED_RELAY = """
import gc, os, runpy, signal, sys, tracemalloc
tracemalloc.start(1)
previous = []
def report(signum, frame):
    gc.collect()
    path = os.environ["LEXIO_BENCH_HEAP_FILE"]
    snap = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
    if previous:
        with open(path + ".files", "w") as out:
            for s in snap.compare_to(previous[0], "filename")[:40]:
                out.write(f"{s.size_diff}\\t{s.count_diff}\\t{s.traceback[0].filename}\\n")
    previous[:] = [snap]
    with open(path + ".tmp", "w") as out:
        out.write(str(tracemalloc.get_traced_memory()[0]))
    os.replace(path + ".tmp", path)
signal.signal(signal.SIGUSR1, report)
sys.argv = ["relay", *sys.argv[3:]]  # sys.argv is ["-c", "-m", "relay", "serve", ...]
runpy.run_module("relay", run_name="__main__", alter_sys=True)
"""


async def relay_heap_bytes(pid: int, path: Path) -> int:
    """The traced relay's Python heap now (see TRACED_RELAY); -1 if it does not answer within 10 s."""
    path.unlink(missing_ok=True)
    os.kill(pid, signal.SIGUSR1)
    for _ in range(1000):
        if path.exists():
            return int(path.read_text())
        await asyncio.sleep(0.01)
    return -1


def proc_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def playable(c: int, r: int) -> bool:
    return 0 <= c < 13 and 1 <= r <= 13 and not ((c < 2 or c > 10) and (r < 3 or r > 11))


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.actions = 0
        self.errors = 0
        self.games_ended = 0
        self.measuring = False


class Seat:
    """One scripted player. Keeps its rack and the board from its own frames; plays single tiles whose
    crossing runs stay 2-3 letters long (always accepted by the bench word list)."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, stats: Stats, think_s: float) -> None:
        self.ws, self.stats, self.think_s = ws, stats, think_s
        self.seat: int | None = None
        self.rack = ""
        self.board: dict[tuple[int, int], str] = {}
        self.bag = 0
        self.turn: int | None = None
        self.status = "waiting"
        self.ids = itertools.count()
        self.pending: dict[str, float] = {}
        self.turn_seen = asyncio.Event()

    def on(self, f: dict[str, Any]) -> None:
        kind = f["type"]
        if kind == "welcome":
            self.seat = f["seat"]
        elif kind == "snapshot":
            v = f["view"]
            self.rack, self.bag, self.turn, self.status = (
                v["rack"] or "",
                v["bag_size"],
                v["turn"],
                v["status"],
            )
            self.board = {(COLS.index(t["sq"][0]), int(t["sq"][1:])): t["letter"] for t in v["board"]}
        elif kind == "event":
            e = f["event"]
            self.turn = f["clock"]["turn"]
            if e.get("rack") is not None and "rack" in e:
                self.rack = e["rack"]
            self.bag = e.get("bag_size", self.bag)
            if e["type"] == "game_started":
                self.status = "playing"
            elif e["type"] == "placed":
                for t in e["tiles"]:
                    self.board[(COLS.index(t["sq"][0]), int(t["sq"][1:]))] = t["letter"]
            elif e["type"] == "game_ended":
                self.status = "ended"
        elif kind in ("ack", "error", "rejected"):
            t0 = self.pending.pop(f.get("id") or "", None)
            if t0 is not None and self.stats.measuring:
                self.stats.latencies.append(time.perf_counter() - t0)
                self.stats.actions += 1
            if kind != "ack":
                self.stats.errors += 1
        # Wake the player only when it may have something to do (its turn, an answer, the game's state):
        # waking 4 players on every frame cost the load client more CPU than reading the frames.
        if kind != "event" or self.turn == self.seat or self.status != "playing":
            self.turn_seen.set()

    def choose(self) -> dict[str, Any]:
        ch = self.rack[0] if self.rack else "?"
        tile = {"letter": "E" if ch == "?" else ch, "blank": ch == "?"}
        if not self.board:
            if len(self.rack) < 2:
                return {"type": "pass"}
            ch2 = self.rack[1]
            return {
                "type": "place",
                "tiles": [
                    {"sq": "G7", **tile},
                    {"sq": "H7", "letter": "E" if ch2 == "?" else ch2, "blank": ch2 == "?"},
                ],
            }
        cands = set()
        for c, r in self.board:
            for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                n = (c + dc, r + dr)
                if playable(*n) and n not in self.board:
                    cands.add(n)
        for sq in sorted(cands, key=lambda s: (s[1], s[0])):
            if self.run(sq, 1, 0) <= 3 and self.run(sq, 0, 1) <= 3:
                return {"type": "place", "tiles": [{"sq": f"{COLS[sq[0]]}{sq[1]}", **tile}]}
        if self.rack and self.bag >= len(self.rack):
            return {"type": "swap", "tiles": self.rack}
        return {"type": "pass"}

    def run(self, sq: tuple[int, int], dc: int, dr: int) -> int:
        n = 1
        for sign in (1, -1):
            c, r = sq[0] + sign * dc, sq[1] + sign * dr
            while (c, r) in self.board:
                n += 1
                c, r = c + sign * dc, r + sign * dr
        return n

    async def send(self, frame: dict[str, Any]) -> None:
        fid = f"b{next(self.ids)}"
        self.pending[fid] = time.perf_counter()
        await self.ws.send_str(json.dumps({**frame, "id": fid}))

    async def reader(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            self.on(json.loads(msg.data))

    async def player(self, stop: asyncio.Event) -> None:
        while not stop.is_set() and self.status != "ended":
            if self.status == "playing" and self.turn == self.seat and not self.pending:
                await asyncio.sleep(self.think_s * random.uniform(0.5, 1.5))
                if self.turn == self.seat and self.status == "playing" and not stop.is_set():
                    await self.send(self.choose())
            self.turn_seen.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1.0):  # no task per wait, unlike wait_for
                    await self.turn_seen.wait()


async def one_table(
    session: aiohttp.ClientSession,
    url: str,
    seats: int,
    stats: Stats,
    think_s: float,
    stop: asyncio.Event,
    ready: asyncio.Queue[None] | None,
) -> None:
    first = True
    while not stop.is_set():
        async with session.post(url + "/api/tables", json={"turn_seconds": 600}) as r:
            table = (await r.json())["id"]
        players: list[Seat] = []
        readers = []
        for i in range(seats):
            ws = await session.ws_connect(f"{url}/ws/{table}", headers={"Origin": url}, heartbeat=None)
            p = Seat(ws, stats, think_s)
            players.append(p)
            readers.append(asyncio.create_task(p.reader()))
            await ws.send_str(json.dumps({"type": "join", "id": "j", "name": f"P{i}"}))
            while p.seat is None:
                p.turn_seen.clear()
                await p.turn_seen.wait()
        if seats < 4:
            await players[0].ws.send_str(json.dumps({"type": "start", "id": "s"}))
        if first and ready is not None:
            ready.put_nowait(None)
            first = False
        await asyncio.gather(*(p.player(stop) for p in players))
        if players[0].status == "ended":
            stats.games_ended += 1
        for p in players:
            await p.ws.close()
        for t in readers:
            t.cancel()


# The lean load client (the default): one asyncio.Protocol per seat over a raw socket, RFC 6455 framing
# written here (the relay never fragments its frames), a timer per action rather than a task per player and a
# task per socket. At ~1,400 tables the aiohttp client below took ~80 % of its core, and it saturated before
# the relay did: the knee measured was the client's. ``--client aiohttp`` keeps the old client.
WS_KEY = base64.b64encode(b"lexio-bench-key!").decode()


class LeanSeat(Seat, asyncio.Protocol):
    """A :class:`Seat` on its own socket: frames parsed in ``data_received``, its action sent by a timer."""

    def __init__(self, stats: Stats, think_s: float, stop: asyncio.Event, done: asyncio.Future[None]) -> None:
        super().__init__(None, stats, think_s)  # type: ignore[arg-type]
        self.stop, self.done = stop, done
        self.transport: asyncio.Transport | None = None
        self.buf = b""
        self.open = False
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        for fut in (self.opened, self.done):
            if not fut.done():
                fut.set_result(None)
        self.turn_seen.set()

    def data_received(self, data: bytes) -> None:
        if self.buf:
            data = self.buf + data
            self.buf = b""
        if not self.open:
            end = data.find(b"\r\n\r\n")
            if end < 0:
                self.buf = data
                return
            if not data.startswith(b"HTTP/1.1 101"):
                raise RuntimeError(f"upgrade refused: {data[:80]!r}")
            self.open = True
            if not self.opened.done():
                self.opened.set_result(None)
            data = data[end + 4 :]
        pos, n = 0, len(data)
        while n - pos >= 2:
            first, size = data[pos], data[pos + 1] & 0x7F
            head = pos + 2
            if size == 126:
                if n - pos < 4:
                    break
                size, head = int.from_bytes(data[pos + 2 : pos + 4], "big"), pos + 4
            elif size == 127:
                if n - pos < 10:
                    break
                size, head = int.from_bytes(data[pos + 2 : pos + 10], "big"), pos + 10
            if head + size > n:
                break
            payload, pos = data[head : head + size], head + size
            opcode = first & 0x0F
            if opcode == 0x1:  # text: the relay's frames are never fragmented
                self.on(json.loads(payload))
            elif opcode == 0x9:  # ping
                self.write_frame(0x8A, payload)
            elif opcode == 0x8 and self.transport is not None:  # close
                self.transport.close()
                return
        if pos < n:
            self.buf = data[pos:]

    def write_frame(self, first: int, payload: bytes) -> None:
        """One masked frame. The mask is all zeros (the payload is sent as is): a bench client's choice; the
        relay unmasks it as any other, at the same cost."""
        if self.transport is None:
            return
        n = len(payload)
        if n < 126:
            head = bytes((first, 0x80 | n))
        elif n < 1 << 16:
            head = bytes((first, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            head = bytes((first, 0x80 | 127)) + n.to_bytes(8, "big")
        self.transport.write(head + b"\0\0\0\0" + payload)

    def send_text(self, text: str) -> None:
        self.write_frame(0x81, text.encode())

    def on(self, f: dict[str, Any]) -> None:
        super().on(f)
        if self.status == "ended" and not self.done.done():
            self.done.set_result(None)
        self.poke()

    def poke(self) -> None:
        """Schedule this seat's action after its think time, if it is its turn and nothing is pending."""
        if (
            self.timer is None
            and self.status == "playing"
            and self.turn == self.seat
            and not self.pending
            and not self.stop.is_set()
        ):
            delay = self.think_s * random.uniform(0.5, 1.5)
            self.timer = asyncio.get_running_loop().call_later(delay, self.act)

    def stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def act(self) -> None:
        self.timer = None
        if (
            self.turn == self.seat
            and self.status == "playing"
            and not self.pending
            and not self.stop.is_set()
        ):
            fid = f"b{next(self.ids)}"
            self.pending[fid] = time.perf_counter()
            self.send_text(json.dumps({**self.choose(), "id": fid}))


async def lean_table(
    session: aiohttp.ClientSession,
    url: str,
    seats: int,
    stats: Stats,
    think_s: float,
    stop: asyncio.Event,
    ready: asyncio.Queue[None] | None,
    live: set[asyncio.Future[None]],
) -> None:
    """:func:`one_table` with :class:`LeanSeat` players; ``live`` holds each running game's end, resolved
    by the worker when it stops."""
    loop = asyncio.get_running_loop()
    parts = urllib.parse.urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    first = True
    while not stop.is_set():
        async with session.post(url + "/api/tables", json={"turn_seconds": 600}) as r:
            table = (await r.json())["id"]
        done: asyncio.Future[None] = loop.create_future()
        live.add(done)
        request = (
            f"GET /ws/{table} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {WS_KEY}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {url}\r\n\r\n"
        ).encode()
        players: list[LeanSeat] = []
        for i in range(seats):
            p = LeanSeat(stats, think_s, stop, done)
            await loop.create_connection(lambda p=p: p, host, port)  # type: ignore[misc]
            players.append(p)
            assert p.transport is not None
            p.transport.write(request)
            await p.opened
            p.send_text(json.dumps({"type": "join", "id": "j", "name": f"P{i}"}))
            while p.seat is None and p.transport is not None:
                p.turn_seen.clear()
                await p.turn_seen.wait()
        if seats < 4:
            players[0].send_text(json.dumps({"type": "start", "id": "s"}))
        if first and ready is not None:
            ready.put_nowait(None)
            first = False
        await done
        live.discard(done)
        if players[0].status == "ended":
            stats.games_ended += 1
        for p in players:
            p.stop_timer()
            if p.transport is not None:
                p.transport.close()


async def scrape_histogram(session: aiohttp.ClientSession, url: str) -> dict[float, int]:
    """Cumulative counts of the relay's own action latency histogram (frame read -> ack queued); the key
    -1 / -2 hold the full GC count / seconds x 1e6, -3 / -4 the group commit's batches / appends (cluster
    mode)."""
    async with session.get(url + "/metrics") as r:
        text = await r.text()
    out: dict[float, int] = {}
    for line in text.splitlines():
        if line.startswith("lexio_loop_lag_seconds_bucket"):
            le = line.split('le="', 1)[1].split('"', 1)[0]
            out[-1000.0 - (1e6 if le == "+Inf" else float(le))] = int(float(line.rsplit(" ", 1)[1]))
        elif line.startswith("lexio_gc_full_collections_total"):
            out[-1.0] = int(float(line.rsplit(" ", 1)[1]))
        elif line.startswith("lexio_gc_full_seconds_total"):
            out[-2.0] = int(float(line.rsplit(" ", 1)[1]) * 1e6)
        elif line.startswith("lexio_journal_batches_total"):
            out[-3.0] = int(float(line.rsplit(" ", 1)[1]))
        elif line.startswith("lexio_journal_batched_appends_total"):
            out[-4.0] = int(float(line.rsplit(" ", 1)[1]))
        if line.startswith("lexio_action_latency_seconds_bucket"):
            le = line.split('le="', 1)[1].split('"', 1)[0]
            out[float("inf") if le == "+Inf" else float(le)] = int(float(line.rsplit(" ", 1)[1]))
    return out


def histogram_quantile(before: dict[float, int], after: dict[float, int], q: float) -> float:
    """Upper bound (bucket edge) below which a fraction q of the observations in the window fall."""
    bounds = sorted(b for b in after if b >= 0)
    if not bounds:
        return float("nan")
    total = after[float("inf")] - before.get(float("inf"), 0)
    if total <= 0:
        return float("nan")
    for b in bounds:
        if after[b] - before.get(b, 0) >= q * total:
            return b
    return float("inf")


def worker(
    url: str,
    tables: int,
    seats: int,
    think_s: float,
    ready_q: Any,
    measure_evt: Any,
    stop_evt: Any,
    result_q: Any,
    cpu: int | None,
    seat_per_s: float | None = None,
    client: str = "aiohttp",
) -> None:
    """One load-generator process (spawned): plays ``tables`` tables, reports its window's measurements.

    ``seat_per_s`` seats the tables at that pace rather than all at once (bench/cluster.py: thousands of
    sockets arriving in the same second stall a relay past HAProxy's health checks, which cut them all).
    ``client``: "lean" (:class:`LeanSeat`, this bench's default) or "aiohttp" (:func:`one_table`)."""
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})
    asyncio.run(
        worker_async(
            url, tables, seats, think_s, ready_q, measure_evt, stop_evt, result_q, seat_per_s, client
        )
    )


async def worker_async(
    url: str,
    tables: int,
    seats: int,
    think_s: float,
    ready_q: Any,
    measure_evt: Any,
    stop_evt: Any,
    result_q: Any,
    seat_per_s: float | None = None,
    client: str = "aiohttp",
) -> None:
    stats = Stats()
    stop = asyncio.Event()
    ready: asyncio.Queue[None] = asyncio.Queue()
    live: set[asyncio.Future[None]] = set()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        tasks = []
        for i in range(tables):
            table = (
                lean_table(session, url, seats, stats, think_s, stop, ready, live)
                if client == "lean"
                else one_table(session, url, seats, stats, think_s, stop, ready)
            )
            tasks.append(asyncio.create_task(table))
            if seat_per_s:
                await asyncio.sleep(1 / seat_per_s)
            elif i % 50 == 49:
                await asyncio.sleep(0)  # let connections progress
        for _ in range(tables):
            await ready.get()
        # The load generator's own full GC pauses (thousands of sockets) would show up as relay latency:
        # tune it like the relay does.
        gc.collect()
        gc.freeze()
        gc.set_threshold(10_000, 50, 100)
        ready_q.put(1)
        while not measure_evt.is_set():
            await asyncio.sleep(0.01)
        stats.measuring = True
        c0 = time.process_time()
        while not stop_evt.is_set():
            await asyncio.sleep(0.01)
        stats.measuring = False
        result_q.put(
            (stats.latencies, stats.actions, stats.errors, stats.games_ended, time.process_time() - c0)
        )
        stop.set()
        for done in list(live):
            if not done.done():
                done.set_result(None)
        await asyncio.wait(tasks, timeout=10)


def lag_quantile(before: dict[float, int], after: dict[float, int], q: float) -> float:
    """Same as histogram_quantile for the loop-lag histogram (stored under keys -1000 - bound)."""
    b = {-1000.0 - k: v for k, v in before.items() if k <= -1000.0}
    a = {-1000.0 - k: v for k, v in after.items() if k <= -1000.0}
    a = {(float("inf") if k >= 1e6 else k): v for k, v in a.items()}
    b = {(float("inf") if k >= 1e6 else k): v for k, v in b.items()}
    return histogram_quantile(b, a, q)


def short_path(name: str) -> str:
    """A source file named from the checkout, site-packages or the standard library."""
    name = name.replace(str(REPO) + "/", "")
    if "site-packages/" in name:
        return name.split("site-packages/", 1)[1]
    return re.sub(r"^.*/lib/python3\.\d+/", "", name)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main_async(args: argparse.Namespace) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="lexio-bench-"))
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    words = ["".join(p) for n in (2, 3) for p in itertools.product(letters, repeat=n)]
    (tmp / "short.txt").write_text("\n".join(words) + "\n")
    prefix = (
        ["-m", "cProfile", "-o", os.path.abspath(os.environ["LEXIO_BENCH_PROFILE"])]
        if os.environ.get("LEXIO_BENCH_PROFILE")
        else []
    )
    heap_file = tmp / "heap.txt"
    relay_tree = Path(args.relay_tree).resolve() if args.relay_tree else REPO
    if args.tracemalloc:
        prefix = ["-c", TRACED_RELAY]
    relay = RelayProcess(
        [
            "--db",
            args.db or str(tmp / "bench.sqlite3"),
            "--lexicon",
            str(tmp / "short.txt"),
            "--static",
            str(tmp / "none"),
            "--log-level",
            args.relay_log_level,
            "--create-burst",
            "1000000",
            # Every scripted client is 127.0.0.1: lift the per-address caps (the relay-wide ones stay).
            "--max-connections-per-address",
            "1000000",
            "--max-pending-per-address",
            "1000000",
            "--max-waiting-tables",
            "1000000",
        ],
        log=tmp / "relay.log",
        env={**os.environ, "PYTHONPATH": str(relay_tree), "LEXIO_BENCH_HEAP_FILE": str(heap_file)},
        # `python -m` puts the working directory first on sys.path: from another checkout's directory the
        # bench would measure that checkout's relay.
        cwd=relay_tree,
        python_args=prefix,
        wrapper=(
            ["taskset", "-c", str(args.cpu)]
            if args.cpu is not None and hasattr(os, "sched_setaffinity")
            else []
        ),
        start_timeout=15,
    )
    url = relay.url
    try:
        try:
            await relay.astart()
        except RelayStartError:
            print(relay.log.read_text(), file=sys.stderr)
            return 1
        ctx = mp.get_context("spawn")
        ready_q: Any = ctx.Queue()
        result_q: Any = ctx.Queue()
        measure_evt, stop_evt = ctx.Event(), ctx.Event()
        async with aiohttp.ClientSession() as session:
            assert relay.proc is not None
            pid = relay.proc.pid
            # Baseline: the idle relay after start-up (word list loaded, nothing connected).
            rss0 = proc_rss_kb(pid)
            heap0 = await relay_heap_bytes(pid, heap_file) if args.tracemalloc else 0
            t_setup = time.perf_counter()
            shares = [
                args.tables // args.clients + (1 if i < args.tables % args.clients else 0)
                for i in range(args.clients)
            ]
            client_cpu_pin = None if args.cpu is None else (args.cpu + 1) % (os.cpu_count() or 1)
            workers = [
                ctx.Process(
                    target=worker,
                    args=(
                        url,
                        n,
                        args.seats,
                        args.think_ms / 1000,
                        ready_q,
                        measure_evt,
                        stop_evt,
                        result_q,
                        client_cpu_pin,
                        None,
                        args.client,
                    ),
                )
                for n in shares
                if n
            ]
            for w in workers:
                w.start()
            loop = asyncio.get_running_loop()
            for _ in workers:
                await loop.run_in_executor(None, ready_q.get)
            setup_s = time.perf_counter() - t_setup
            await asyncio.sleep(min(2.0, args.duration / 5))
            rss_seated = proc_rss_kb(pid)
            hist0 = await scrape_histogram(session, url)
            cpu0 = proc_cpu_seconds(pid)
            wait0 = proc_runqueue_wait_s(pid)
            measure_evt.set()
            t0 = time.perf_counter()
            await asyncio.sleep(args.duration)
            stop_evt.set()
            elapsed = time.perf_counter() - t0
            cpu1 = proc_cpu_seconds(pid)
            wait1 = proc_runqueue_wait_s(pid)
            rss_end = proc_rss_kb(pid)
            async with session.get(url + "/healthz") as resp:
                # Every table in memory: the busy ones and the ended ones awaiting cleanup (freed within a
                # minute once their players leave).
                tables_end = int((await resp.json())["tables"])
            heap_end = await relay_heap_bytes(pid, heap_file) if args.tracemalloc else 0
            hist1 = await scrape_histogram(session, url)
            stats = Stats()
            client_cpu = 0.0
            for _ in workers:
                lats, actions, errors, games, cpu = await loop.run_in_executor(None, result_q.get)
                stats.latencies.extend(lats)
                stats.actions += actions
                stats.errors += errors
                stats.games_ended += games
                client_cpu += cpu
            for w in workers:
                w.join(15)
    finally:
        relay.stop(10)

    lat = stats.latencies
    print("# Lexio relay load benchmark (bench/relay_load.py)")
    print(
        f"# {args.tables} tables x {args.seats} seats, think {args.think_ms} ms, measured {elapsed:.1f} s "
        f"after {setup_s:.1f} s of seating; relay pinned to CPU {args.cpu}, {args.clients} {args.client} "
        f"client processes; relay from {relay_tree}; "
        f"Python {sys.version.split()[0]}"
    )
    load = os.getloadavg()
    print(
        f"# machine: {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at end "
        "(other work on the machine inflates client-side latency)"
    )
    if args.tracemalloc:
        print(
            "# relay under tracemalloc: its RSS includes tracemalloc's own records; CPU and latency inflated"
        )
    print("# rss/heap per table: (relay at the end of the window - idle relay after start-up) / busy tables;")
    print("#   the memory of ended tables awaiting cleanup is included; per table in memory: / all of them")
    print("# latency: client side, action frame sent -> its ack received (loopback, incl. the SQLite commit)")
    rows = [
        ("tables", args.tables, "tables"),
        ("seats_per_table", args.seats, "seats"),
        ("actions_per_s", round(stats.actions / elapsed, 1), "actions/s"),
        ("action_ack_p50", round(statistics.median(lat) * 1000, 2) if lat else float("nan"), "ms"),
        ("action_ack_p99", round(percentile(lat, 0.99) * 1000, 2), "ms"),
        ("action_ack_max", round(max(lat) * 1000, 2) if lat else float("nan"), "ms"),
        ("relay_side_p50_le", histogram_quantile(hist0, hist1, 0.50) * 1000, "ms (bucket bound)"),
        ("relay_side_p99_le", histogram_quantile(hist0, hist1, 0.99) * 1000, "ms (bucket bound)"),
        (
            "relay_runqueue_wait",
            round((wait1 - wait0) / elapsed * 100, 1),
            "% of wall time runnable but not given a CPU (other load)",
        ),
        (
            "relay_loop_lag_p99_le",
            round(lag_quantile(hist0, hist1, 0.99) * 1000, 3),
            "ms (bucket bound; loop stalls)",
        ),
        ("relay_loop_lag_max_le", round(lag_quantile(hist0, hist1, 1.0) * 1000, 3), "ms (bucket bound)"),
        ("relay_full_gc", hist1.get(-1.0, 0) - hist0.get(-1.0, 0), "collections in the window"),
        ("relay_full_gc_pause", round((hist1.get(-2.0, 0) - hist0.get(-2.0, 0)) / 1000, 1), "ms in all"),
        (
            "client_cpu",
            round(client_cpu / elapsed * 100, 1),
            f"% of one core ({args.clients} load processes)",
        ),
        ("errors", stats.errors, "frames"),
        ("games_ended", stats.games_ended, "games"),
        ("relay_cpu", round((cpu1 - cpu0) / elapsed * 100, 1), "% of one core"),
        ("relay_cpu_per_table", round((cpu1 - cpu0) / elapsed / args.tables * 1e6, 1), "us/s per table"),
        ("relay_cpu_per_action", round((cpu1 - cpu0) / max(1, stats.actions) * 1e6, 1), "us/action"),
        ("relay_rss_baseline", round(rss0 / 1024, 1), "MiB"),
        ("relay_rss_seated", round(rss_seated / 1024, 1), "MiB"),
        ("relay_rss_end", round(rss_end / 1024, 1), "MiB"),
        ("relay_rss_per_table", round((rss_end - rss0) / args.tables, 1), "KiB per busy table"),
        ("relay_tables_in_memory", tables_end, "tables (busy + ended awaiting cleanup)"),
        (
            "relay_rss_per_table_in_memory",
            round((rss_end - rss0) / max(1, tables_end), 1),
            "KiB per table in memory",
        ),
    ]
    if args.tracemalloc:
        rows += [
            ("relay_heap_baseline", round(heap0 / 2**20, 1), "MiB (Python heap, tracemalloc)"),
            ("relay_heap_end", round(heap_end / 2**20, 1), "MiB (Python heap, tracemalloc)"),
            ("relay_heap_per_table", round((heap_end - heap0) / 1024 / args.tables, 1), "KiB"),
        ]
    for name, value, unit in rows:
        print(f"{name}\t{value}\t{unit}")
    if args.tracemalloc:
        by_file = heap_file.with_name(heap_file.name + ".files")
        print("# relay heap growth per table by source file (tracemalloc; end of window - idle start-up):")
        for line in by_file.read_text().splitlines() if by_file.exists() else []:
            size, blocks, name = line.split("\t")
            if abs(int(size)) >= 256 * args.tables:  # at least 0.25 KiB per table
                per_kib, per_blocks = int(size) / 1024 / args.tables, int(blocks) / args.tables
                print(f"#   {per_kib:8.2f} KiB {per_blocks:7.1f} blocks  {short_path(name)}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--db", help="the relay's journal (a postgresql:// URL); default: a temp SQLite file")
    parser.add_argument("--seats", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--duration", type=float, default=20.0, help="measured seconds")
    parser.add_argument("--think-ms", type=float, default=1000.0, help="mean pause before each action")
    parser.add_argument("--cpu", type=int, default=0, help="pin the relay to this CPU (taskset); -1: no pin")
    parser.add_argument("--relay-log-level", default="INFO")
    parser.add_argument("--clients", type=int, default=2, help="load-generator processes")
    parser.add_argument(
        "--client",
        choices=("lean", "aiohttp"),
        default="lean",
        help="load client: one protocol object per seat (default) or aiohttp's WebSocket client (before)",
    )
    parser.add_argument(
        "--relay-tree",
        help="serve the relay of this checkout (default: this one), e.g. a base commit's worktree, so that "
        "two relays are measured by the same load client",
    )
    parser.add_argument(
        "--tracemalloc", action="store_true", help="run the relay under tracemalloc; report its Python heap"
    )
    args = parser.parse_args()
    if args.tracemalloc and os.environ.get("LEXIO_BENCH_PROFILE"):
        parser.error("--tracemalloc and LEXIO_BENCH_PROFILE are exclusive")
    if args.cpu is not None and args.cpu < 0:
        args.cpu = None
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
