"""Cluster benchmark: takeover after kill -9, nothing acknowledged lost or applied twice, and throughput
of one relay vs three, on PostgreSQL + Redis behind HAProxy (tests/harness/services.py's servers, on
loopback).

Takeover: three relays (``--db postgresql://… --bus redis://…``) behind HAProxy; ``--tables`` scripted
tables (2, 3 and 4 seats in turn; a finished game is replaced by a new table) play through the front, each
seat reconnecting on its own after a cut (jitter 50-250 ms, rejoin by token, resend of its unacknowledged
action with the same id). ``--kills`` times, the relay owning the most live tables (PostgreSQL's
``tables.owner``) gets SIGKILL; a table's takeover time runs from the kill to the first snapshot its players
get on a new connection (the table is served again); ``resume_ack`` to its first acknowledged action after
the kill. The killed relay is started again (a fresh node) before the next kill. Then the journal is
checked: every acknowledged ``(table, seq)`` is there with the event its players saw (``acked_lost``); no
client frame was answered at two seqs nor journaled twice (``acked_doubled``); every table's events replay
through the engine, to a board holding every tile its players saw (``journals_replayed``, ``replay_*``).

Throughput: bench/relay_load.py's load client (its scripted tables, ``one_table``) on ``--load-tables``
four-seat tables, one action per second per table, seated at ``--seat-per-s`` tables a second, through
HAProxy, first in front of one relay, then of three; ack latency is measured client side.

Output: ``#`` commentary, then ``name<TAB>value<TAB>unit`` lines (as every bench/ script).

    python bench/cluster.py                              # default: 40 tables, 10 kills; 500 tables load
    python bench/cluster.py --kills 3 --load-tables 0    # quick: takeover only
    python bench/cluster.py --kills 0 --load-relays 1    # throughput only, one relay
    python bench/cluster.py --kills 0 --load-tables 0 --sweep 100,200,300   # one relay at each count
    python bench/cluster.py --kills 0 --profile DIR      # py-spy each relay and load process (raw stacks;
                                                         # bench/pyspy_top.py DIR/load1-t500-n1.txt sums them)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import itertools
import json
import multiprocessing as mp
import os
import queue
import random
import resource
import shutil
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # the process harness
sys.path.insert(0, str(REPO / "bench"))

import relay_load  # noqa: E402
from harness.process import free_port  # noqa: E402
from harness.services import HAPROXY_TEMPLATE, HAProxy, PostgresServer, RedisServer, RelayNode  # noqa: E402

import engine  # noqa: E402

TAKEOVER_GIVE_UP_S = 15.0


def percentile(values: list[float], q: float) -> float:
    return relay_load.percentile(values, q)


def summary(event: dict[str, Any]) -> tuple[Any, ...]:
    """What a player sees of an event and the journal holds too (its type, seat, tiles placed)."""
    tiles = tuple((t["sq"], t["letter"]) for t in event.get("tiles") or () if isinstance(t, dict))
    return (event.get("type"), event.get("seat"), tiles)


CLUSTERS: list[Cluster] = []


class Cluster:
    """PostgreSQL, Redis, ``nodes`` relays and HAProxy in front, in ``tmp``."""

    def __init__(
        self, tmp: Path, nodes: int, *, log_level: str = "WARNING", check_fall: int | None = None
    ) -> None:
        CLUSTERS.append(self)  # stopped by main() whatever happens
        self.check_fall = check_fall
        self.tmp = tmp
        self.pg = PostgresServer(max_connections=400)
        self.redis = RedisServer()
        self.front_port = free_port()
        self.front_url = f"http://127.0.0.1:{self.front_port}"
        self.nodes_wanted = nodes
        self.log_level = log_level
        self.nodes: list[RelayNode] = []
        self.front: HAProxy | None = None
        self.db = ""

    def start(self) -> None:
        self.pg.start()
        self.redis.start()
        self.db = self.pg.new_database()
        lexicon = self.tmp / "short.txt"
        if not lexicon.exists():
            letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            words = ["".join(p) for n in (2, 3) for p in itertools.product(letters, repeat=n)]
            lexicon.write_text("\n".join(words) + "\n")
        extra = [
            "--lexicon",
            str(lexicon),
            "--static",
            str(self.tmp / "none"),
            "--log-level",
            self.log_level,
            "--public-url",
            self.front_url,
            "--trusted-proxy",
            "127.0.0.1",
            "--create-burst",
            "1000000",
            "--max-connections-per-address",
            "1000000",
            "--max-pending-per-address",
            "1000000",
            "--max-waiting-tables",
            "1000000",
        ]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.nodes = [
            RelayNode(
                f"n{i + 1}",
                db=self.db,
                bus=self.redis.url,
                log=self.tmp / f"n{i + 1}.log",
                extra=extra,
                env=env,
                cwd=REPO,
                start_timeout=30,
            )
            for i in range(self.nodes_wanted)
        ]
        for n in self.nodes:
            n.start()
        template = HAPROXY_TEMPLATE
        if self.check_fall is not None:
            # The load runs measure throughput, not failover: a relay slowed down by the machine's other load
            # must not be taken out (which cuts all its sockets; relay_load's players do not reconnect).
            template = self.tmp / "haproxy.cfg.in"
            text = HAPROXY_TEMPLATE.read_text()
            assert " fall 3 " in text
            template.write_text(text.replace(" fall 3 ", f" fall {self.check_fall} "))
        self.front = HAProxy([(n.name, n.port) for n in self.nodes], port=self.front_port, template=template)
        self.front.start()
        self.wait_front_up()

    def wait_front_up(self, timeout: float = 15.0) -> None:
        assert self.front is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = self.front.server_states()
            if all(states.get(n.name, "").startswith("UP") for n in self.nodes if n.running()):
                return
            time.sleep(0.1)
        raise RuntimeError(f"relays not all UP behind HAProxy: {self.front.server_states()}")

    def stop(self) -> None:
        for n in self.nodes:
            if n.running() and n.proc is not None:
                n.proc.terminate()  # drain all at once
        for n in self.nodes:
            n.stop()
        for s in (self.front, self.redis, self.pg):
            if s is not None:
                s.cleanup()

    def query(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.db, autocommit=True) as conn:
            return list(conn.execute(sql, args).fetchall())


# -- takeover -----------------------------------------------------------------------------------------------


@dataclass
class TableRun:
    """One table as its scripted players saw it."""

    id: str
    seats: int
    seen: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    seen_conflicts: int = 0
    acks: list[tuple[int, str, int]] = field(default_factory=list)  # (seat, frame id, seq)
    reconnect_snapshots: list[float] = field(default_factory=list)
    ack_times: list[float] = field(default_factory=list)
    players: list[TakeoverSeat] = field(default_factory=list)

    def ended(self) -> bool:
        return bool(self.players) and all(p.status == "ended" for p in self.players)

    def live(self) -> bool:
        return any(p.status == "playing" for p in self.players)


class TakeoverSeat(relay_load.Seat):
    """bench/relay_load.py's scripted player, through the front, surviving cuts: it reconnects, rejoins by
    token and resends its unacknowledged action with the same id."""

    def __init__(self, table: TableRun, index: int, think_s: float) -> None:
        super().__init__(None, relay_load.Stats(), think_s)  # type: ignore[arg-type]
        self.table, self.index = table, index
        self.token: str | None = None
        self.unacked: dict[str, Any] | None = None
        self.connections = 0
        self.welcomed = asyncio.Event()
        self.answers: dict[str, int] = {}
        self.doubled = 0

    def on(self, f: dict[str, Any]) -> None:
        kind = f["type"]
        now = time.monotonic()
        if kind == "welcome":
            self.token = f["token"]
            self.welcomed.set()
        elif kind == "snapshot":
            if self.connections > 1:
                self.table.reconnect_snapshots.append(now)
            if self.unacked is not None and self.ws is not None:
                # Resent as is, same id, marked: the relay answers what it answered the first time, if it did.
                self.pending[self.unacked["id"]] = time.perf_counter()
                resend = json.dumps({**self.unacked, "resent": True})
                asyncio.get_running_loop().create_task(self._send_text(resend))
        elif kind == "event":
            s = summary(f["event"])
            old = self.table.seen.setdefault(int(f["seq"]), s)
            if old != s:
                self.table.seen_conflicts += 1
        elif kind in ("ack", "rejected", "error"):
            fid = f.get("id") or ""
            if self.unacked is not None and fid == self.unacked["id"]:
                self.unacked = None
            if kind in ("ack", "rejected") and "seq" in f:
                seq = int(f["seq"])
                if self.answers.setdefault(fid, seq) != seq:
                    self.doubled += 1
                if kind == "ack":
                    self.table.acks.append((self.index, fid, seq))
                    self.table.ack_times.append(now)
        super().on(f)

    async def _send_text(self, text: str) -> None:
        with contextlib.suppress(Exception):
            assert self.ws is not None
            await self.ws.send_str(text)

    async def send(self, frame: dict[str, Any]) -> None:
        fid = f"b{next(self.ids)}"
        full = {**frame, "id": fid}
        self.unacked = full
        self.pending[fid] = time.perf_counter()
        await self._send_text(json.dumps(full))

    async def connection(self, session: aiohttp.ClientSession, front: str, stop: asyncio.Event) -> None:
        while not stop.is_set() and self.status != "ended":
            try:
                ws = await session.ws_connect(
                    f"{front}/ws/{self.table.id}",
                    headers={"Origin": front},
                    heartbeat=None,
                    timeout=aiohttp.ClientWSTimeout(ws_receive=None, ws_close=2.0),
                )
            except (TimeoutError, aiohttp.ClientError, OSError):
                await asyncio.sleep(random.uniform(0.05, 0.25))
                continue
            self.ws = ws
            self.connections += 1
            self.pending.clear()
            join = {"type": "join", "id": f"j{self.connections}"}
            join |= {"token": self.token} if self.token else {"name": f"P{self.index}"}
            await self._send_text(json.dumps(join))
            try:
                async for msg in ws:
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        break
                    self.on(json.loads(msg.data))
                    if stop.is_set() or self.status == "ended":
                        break
            except (aiohttp.ClientError, OSError):
                pass
            with contextlib.suppress(Exception):
                await ws.close()
            self.ws = None
            self.turn_seen.set()
            if not stop.is_set() and self.status != "ended":
                await asyncio.sleep(random.uniform(0.05, 0.25))

    async def play(self, stop: asyncio.Event) -> None:
        while not stop.is_set() and self.status != "ended":
            if (
                self.ws is not None
                and self.status == "playing"
                and self.turn == self.seat
                and not self.pending
                and self.unacked is None
            ):
                await asyncio.sleep(self.think_s * random.uniform(0.5, 1.5))
                if self.ws is not None and self.turn == self.seat and self.status == "playing":
                    await self.send(self.choose())
            self.turn_seen.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.turn_seen.wait(), 0.5)


async def table_loop(
    session: aiohttp.ClientSession,
    front: str,
    seats: int,
    think_s: float,
    stop: asyncio.Event,
    runs: list[TableRun],
    delay: float,
) -> None:
    # Started at spread-out times so that the games do not all end (and get replaced) together.
    await asyncio.sleep(delay)
    while not stop.is_set():
        try:
            async with session.post(front + "/api/tables", json={"turn_seconds": 600}) as r:
                table_id = (await r.json())["id"]
        except (aiohttp.ClientError, OSError, KeyError, ValueError):
            await asyncio.sleep(0.2)
            continue
        run = TableRun(table_id, seats)
        runs.append(run)
        tasks = []
        for i in range(seats):
            p = TakeoverSeat(run, i, think_s)
            run.players.append(p)
            tasks.append(asyncio.create_task(p.connection(session, front, stop)))
            await p.welcomed.wait()  # seat order = join order
        if seats < 4:
            while run.players[0].ws is None:
                await asyncio.sleep(0.05)
            await run.players[0].send({"type": "start"})
        tasks += [asyncio.create_task(p.play(stop)) for p in run.players]
        await asyncio.gather(*tasks)


def node_health(url: str) -> dict[str, Any]:
    import urllib.request

    try:
        with urllib.request.urlopen(url + "/healthz", timeout=2) as r:
            return dict(json.loads(r.read()))
    except OSError:
        return {}


async def takeover(args: argparse.Namespace, tmp: Path) -> list[tuple[str, Any, str]]:
    cluster = Cluster(tmp / "takeover", 3)
    (tmp / "takeover").mkdir()
    runs: list[TableRun] = []
    takeovers: list[float] = []
    resumes: list[float] = []
    live_at_kill: list[int] = []
    victims_total = 0
    timeouts = 0
    kills = 0
    stop = asyncio.Event()
    t_start = time.monotonic()
    try:
        await asyncio.to_thread(cluster.start)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            loops = [
                asyncio.create_task(
                    table_loop(
                        session,
                        cluster.front_url,
                        (2, 3, 4)[i % 3],
                        args.think_ms / 1000,
                        stop,
                        runs,
                        random.uniform(0, args.warmup / 2),
                    )
                )
                for i in range(args.tables)
            ]
            await asyncio.sleep(args.warmup)
            give_up = time.monotonic() + args.kills * 60
            while kills < args.kills and time.monotonic() < give_up:
                k = kills
                if sum(r.live() for r in runs) < args.min_live:
                    await asyncio.sleep(0.2)  # games ended meanwhile: their replacements are being seated
                    continue
                health = {n.name: await asyncio.to_thread(node_health, n.url) for n in cluster.nodes}
                by_node = {h.get("node"): name for name, h in health.items() if h.get("node")}
                owned = await asyncio.to_thread(
                    cluster.query,
                    "SELECT owner, id FROM tables WHERE status = 'playing' AND owner IS NOT NULL",
                )
                per: dict[str, list[str]] = {}
                for owner, tid in owned:
                    if owner in by_node:
                        per.setdefault(owner, []).append(tid)
                if not per:
                    await asyncio.sleep(0.2)
                    continue
                victim_id = max(per, key=lambda o: len(per[o]))
                victim = next(n for n in cluster.nodes if n.name == by_node[victim_id])
                live = {r.id: r for r in runs if r.live()}
                victims = [live[t] for t in per[victim_id] if t in live]
                live_at_kill.append(len(live))
                t0 = time.monotonic()
                victim.kill()
                kills += 1
                victims_total += len(victims)
                deadline = t0 + TAKEOVER_GIVE_UP_S
                pending = {r.id: r for r in victims}
                got: dict[str, float] = {}
                acked: dict[str, float] = {}
                while (pending or len(acked) < len(victims)) and time.monotonic() < deadline:
                    await asyncio.sleep(0.02)
                    for r in victims:
                        if r.id in pending and any(s > t0 for s in r.reconnect_snapshots):
                            got[r.id] = min(s for s in r.reconnect_snapshots if s > t0) - t0
                            del pending[r.id]
                        if r.id not in acked and any(a > t0 for a in r.ack_times):
                            acked[r.id] = min(a for a in r.ack_times if a > t0) - t0
                        if r.id not in acked and r.ended():
                            acked[r.id] = float("nan")
                timeouts += len(pending)
                takeovers += list(got.values()) + [TAKEOVER_GIVE_UP_S] * len(pending)
                resumes += [v for v in acked.values() if v == v]
                print(
                    f"# kill {k + 1}: {victim.name} owned {len(victims)} of {len(live)} live tables; "
                    f"back in max {max(got.values(), default=float('nan')) * 1000:.0f} ms, "
                    f"{len(pending)} not back",
                    file=sys.stderr,
                )
                await asyncio.to_thread(victim.start)
                await asyncio.to_thread(cluster.wait_front_up)
                await asyncio.sleep(args.settle)
            await asyncio.sleep(1.0)
            stop.set()
            await asyncio.wait(loops, timeout=10)
        elapsed = time.monotonic() - t_start
        for n in cluster.nodes:  # drain: everything committed is in the journal
            if n.running() and n.proc is not None:
                n.proc.terminate()
        for n in cluster.nodes:
            n.stop()
        checks = await asyncio.to_thread(check_journal, cluster, runs)
    finally:
        cluster.stop()
    ms = [t * 1000 for t in takeovers]
    return [
        ("tables", min(live_at_kill, default=0), "live tables at a kill (fewest)"),
        ("tables_played", len(runs), "tables in all"),
        ("kills", kills, "kill -9 of the busiest relay"),
        ("takeover_tables", victims_total, "tables taken over in all"),
        ("takeover_p50_ms", round(statistics.median(ms), 1) if ms else float("nan"), "ms"),
        ("takeover_p99_ms", round(percentile(ms, 0.99), 1), "ms"),
        ("takeover_max_ms", round(max(ms), 1) if ms else float("nan"), "ms"),
        ("takeover_timeouts", timeouts, f"tables not back within {TAKEOVER_GIVE_UP_S:g} s"),
        (
            "resume_ack_p50_ms",
            round(statistics.median(resumes) * 1000, 1) if resumes else float("nan"),
            "ms (kill -> first acked action, incl. think time)",
        ),
        ("resume_ack_max_ms", round(max(resumes) * 1000, 1) if resumes else float("nan"), "ms"),
        *checks,
        ("takeover_run_s", round(elapsed, 1), "s"),
    ]


def check_journal(cluster: Cluster, runs: list[TableRun]) -> list[tuple[str, Any, str]]:
    """Compare what the players saw and were told with what PostgreSQL holds, and replay every journal."""
    rows = cluster.query("SELECT table_id, seq, body FROM events ORDER BY table_id, seq")
    journal: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for tid, seq, body in rows:
        journal.setdefault(tid, []).append((int(seq), body if isinstance(body, dict) else json.loads(body)))
    acked = lost = seen_missing = doubled = replayed = replay_errors = board_mismatch = gaps = 0
    acked_actions = 0
    for run in runs:
        events = journal.get(run.id, [])
        by_seq = {seq: summary(body) for seq, body in events}
        if [s for s, _ in events] != list(range(1, len(events) + 1)):
            gaps += 1
        for _, _, seq in run.acks:
            acked_actions += 1
            if by_seq.get(seq) is None or by_seq[seq] != run.seen.get(seq, by_seq[seq]):
                lost += 1
        for seq, s in run.seen.items():
            if by_seq.get(seq) != s:
                seen_missing += 1
        doubled += sum(p.doubled for p in run.players)
        acked += len(run.acks)
        try:
            state = engine.replay(engine.event_from_dict(b) for _, b in events)
            replayed += 1
        except (ValueError, KeyError, TypeError):
            replay_errors += 1
            continue
        # Every tile a player has on its board (from its snapshots and events) is on the replayed board.
        board = {(t["sq"], t["letter"].upper()) for t in state.board.to_json()}
        for p in run.players:
            mine = {(f"{relay_load.COLS[c]}{r}", letter.upper()) for (c, r), letter in p.board.items()}
            if not mine <= board:
                board_mismatch += 1
                break
    # A frame journaled at two seqs (applied twice), per table, seat and frame id.
    with contextlib.suppress(Exception):
        dup = cluster.query(
            "SELECT count(*) FROM (SELECT table_id, who, frame_id, digest FROM frames "
            "GROUP BY table_id, who, frame_id, digest HAVING count(*) > 1) d"
        )
        doubled += int(dup[0][0])
    return [
        ("acked_actions", acked_actions, "actions acknowledged to players"),
        ("acked_lost", lost, "acknowledged (table, seq) missing from the journal or not what was seen"),
        ("acked_doubled", doubled, "actions applied twice"),
        ("seen_not_journaled", seen_missing, "events players saw that the journal lacks"),
        ("seen_conflicts", sum(r.seen_conflicts for r in runs), "seqs two players saw differently"),
        ("journal_gaps", gaps, "tables whose seqs are not 1..n"),
        ("journals_replayed", replayed, "tables replayed through the engine"),
        ("replay_errors", replay_errors, "tables whose journal does not replay"),
        ("replay_board_mismatch", board_mismatch, "tables whose players saw a tile the replay lacks"),
    ]


# -- throughput ---------------------------------------------------------------------------------------------


async def probe_health(cluster: Cluster, out: list[tuple[float, str, float, int]]) -> None:
    """Each relay's /healthz (direct, not through HAProxy) every 250 ms: (when, relay, seconds, status)."""
    async with aiohttp.ClientSession() as session:
        while True:
            for n in cluster.nodes:
                t0 = time.perf_counter()
                try:
                    async with session.get(n.url + "/healthz", timeout=aiohttp.ClientTimeout(total=10)) as r:
                        status = r.status
                except (aiohttp.ClientError, TimeoutError):
                    status = 0
                out.append((t0, n.name, time.perf_counter() - t0, status))
            await asyncio.sleep(0.25)


def report_probes(probes: list[tuple[float, str, float, int]], t0: float) -> None:
    slow = [p for p in probes if p[2] > 1.0 or p[3] != 200]
    worst = max((p[2] for p in probes), default=float("nan"))
    print(
        f"# /healthz probes: {len(probes)}, slowest {worst * 1000:.0f} ms, {len(slow)} slow or failed",
        file=sys.stderr,
    )
    for when, name, took, status in slow[:20]:
        print(f"#   at {when - t0:6.1f} s {name}: {took * 1000:.0f} ms, status {status}", file=sys.stderr)


def front_downs(cluster: Cluster) -> int:
    assert cluster.front is not None
    return sum(int(row.get("chkdown") or 0) for row in cluster.front.server_stats().values())


def start_profilers(args: argparse.Namespace, nodes: int, cluster: Cluster, workers: list[Any]) -> list[Any]:
    """``--profile DIR``: py-spy samples each relay and load process over the measured window (raw
    collapsed stacks, DIR/load{nodes}-t{tables}-{name}.txt; summarise with bench/pyspy_top.py)."""
    import subprocess

    if not args.profile:
        return []
    spy = shutil.which("py-spy") or args.py_spy
    out = Path(args.profile)
    out.mkdir(parents=True, exist_ok=True)
    targets = [(n.name, n.pid) for n in cluster.nodes] + [
        (f"client{i}", w.pid) for i, w in enumerate(workers)
    ]
    return [
        subprocess.Popen(
            [
                spy,
                "record",
                "-p",
                str(pid),
                "-d",
                str(int(args.load_duration)),
                "-r",
                "50",
                "-f",
                "raw",
                "-o",
                str(out / f"load{nodes}-t{args.load_tables}-{name}.txt"),
                "--threads",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, pid in targets
    ]


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds of process ``root`` and its live descendants (a server: PostgreSQL's postmaster and
    backends, HAProxy), from /proc."""
    procs: dict[int, tuple[int, int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            procs[int(stat.parent.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
        except (OSError, IndexError, ValueError):
            continue
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += procs.get(pid, (0, 0))[1]
        todo += children.get(pid, [])
    return total / relay_load.CLK_TCK


def servers_cpu(cluster: Cluster) -> dict[str, float]:
    out = {}
    for name, server in (("postgres", cluster.pg), ("haproxy", cluster.front), ("redis", cluster.redis)):
        proc = getattr(server, "proc", None)
        out[name] = tree_cpu_seconds(proc.pid) if proc is not None else 0.0
    return out


async def relay_histograms(cluster: Cluster) -> dict[float, int]:
    """The relays' /metrics histograms (relay_load.scrape_histogram's keys), summed over the relays."""
    out: dict[float, int] = {}
    async with aiohttp.ClientSession() as session:
        for n in cluster.nodes:
            for k, v in (await relay_load.scrape_histogram(session, n.url)).items():
                out[k] = out.get(k, 0) + v
    return out


async def load(
    args: argparse.Namespace, tmp: Path, nodes: int, prefix: str = ""
) -> list[tuple[str, Any, str]]:
    """bench/relay_load.py's load client, through HAProxy, against ``nodes`` relays."""
    work = tmp / f"{prefix}load{nodes}"
    work.mkdir()
    cluster = Cluster(work, nodes, check_fall=args.load_check_fall)
    ctx = mp.get_context("spawn")
    workers: list[Any] = []
    try:
        await asyncio.to_thread(cluster.start)
        ready_q: Any = ctx.Queue()
        result_q: Any = ctx.Queue()
        measure_evt, stop_evt = ctx.Event(), ctx.Event()
        shares = [
            args.load_tables // args.clients + (1 if i < args.load_tables % args.clients else 0)
            for i in range(args.clients)
        ]
        workers = [
            ctx.Process(
                target=relay_load.worker,
                args=(
                    cluster.front_url,
                    n,
                    4,
                    args.load_think_ms / 1000,
                    ready_q,
                    measure_evt,
                    stop_evt,
                    result_q,
                    None,
                    args.seat_per_s / len(shares),
                ),
            )
            for n in shares
            if n
        ]
        t_setup = time.perf_counter()
        probes: list[tuple[float, str, float, int]] = []
        probing = asyncio.create_task(probe_health(cluster, probes))
        for w in workers:
            w.start()
        loop = asyncio.get_running_loop()
        try:
            for _ in workers:
                await loop.run_in_executor(None, functools.partial(ready_q.get, timeout=args.seating_timeout))
        except queue.Empty:
            # relay_load's players do not reconnect: a table whose socket was cut never gets seated.
            for w in workers:
                w.kill()
            probing.cancel()
            report_probes(probes, t_setup)
            return [
                (f"load{nodes}_failed", 1, f"tables not all seated within {args.seating_timeout:g} s"),
                (f"load{nodes}_front_downs", front_downs(cluster), "relays marked down by HAProxy"),
            ]
        setup_s = time.perf_counter() - t_setup
        await asyncio.sleep(2.0)
        spies = start_profilers(args, nodes, cluster, workers)
        hist0 = await relay_histograms(cluster)
        servers0 = servers_cpu(cluster)
        cpu0 = {n.name: relay_load.proc_cpu_times(n.pid) for n in cluster.nodes}
        wait0 = {n.name: relay_load.proc_runqueue_wait_s(n.pid) for n in cluster.nodes}
        measure_evt.set()
        t0 = time.perf_counter()
        await asyncio.sleep(args.load_duration)
        stop_evt.set()
        elapsed = time.perf_counter() - t0
        load_avg = os.getloadavg()
        hist1 = await relay_histograms(cluster)
        servers = {k: v - servers0[k] for k, v in servers_cpu(cluster).items()}
        client_cpu = 0.0
        user_cpu = sys_cpu = 0.0  # the relays' seconds in the window
        for n in cluster.nodes:
            user, kernel = relay_load.proc_cpu_times(n.pid)
            user_cpu += user - cpu0[n.name][0]
            sys_cpu += kernel - cpu0[n.name][1]
        cpu = user_cpu + sys_cpu
        batches, appends = (hist1.get(k, 0) - hist0.get(k, 0) for k in (-3.0, -4.0))
        waited = sum(relay_load.proc_runqueue_wait_s(n.pid) - wait0[n.name] for n in cluster.nodes)
        lat: list[float] = []
        actions = errors = 0
        for _ in workers:
            lats, n_actions, n_errors, _games, ccpu = await loop.run_in_executor(None, result_q.get)
            client_cpu += ccpu
            lat.extend(lats)
            actions += n_actions
            errors += n_errors
        for w in workers:
            w.join(15)
        downs = front_downs(cluster)
        for spy in spies:
            await asyncio.to_thread(spy.wait, 30)
        probing.cancel()
        report_probes(probes, t_setup)
    finally:
        for w in workers:
            if w.is_alive():
                w.kill()
        cluster.stop()
    p = f"{prefix}load{nodes}_"
    print(
        f"# load runs: HAProxy marks a relay down after {args.load_check_fall} failed checks "
        "(3 in the shipped config): failover is what the takeover part measures",
        file=sys.stderr,
    )
    print(
        f"# load through HAProxy on {nodes} relay(s): {args.load_tables} tables x 4 seats, think "
        f"{args.load_think_ms:g} ms, measured {elapsed:.1f} s after {setup_s:.1f} s of seating",
        file=sys.stderr,
    )
    return [
        (p + "tables", args.load_tables, "four-seat tables"),
        (p + "relays", nodes, "relays"),
        (p + "actions_per_s", round(actions / elapsed, 1), "actions/s"),
        (p + "action_ack_p50", round(statistics.median(lat) * 1000, 2) if lat else float("nan"), "ms"),
        (p + "action_ack_p99", round(percentile(lat, 0.99) * 1000, 2), "ms"),
        (p + "action_ack_max", round(max(lat) * 1000, 2) if lat else float("nan"), "ms"),
        (p + "errors", errors, "frames"),
        (
            p + "relay_side_p99_le",
            relay_load.histogram_quantile(hist0, hist1, 0.99) * 1000,
            "ms (bucket bound; frame read -> ack queued, all relays)",
        ),
        (
            p + "relay_loop_lag_p99_le",
            round(relay_load.lag_quantile(hist0, hist1, 0.99) * 1000, 3),
            "ms (bucket bound; event-loop stalls, all relays)",
        ),
        (p + "relay_loop_lag_max_le", round(relay_load.lag_quantile(hist0, hist1, 1.0) * 1000, 3), "ms"),
        (p + "relay_full_gc", hist1.get(-1.0, 0) - hist0.get(-1.0, 0), "collections in the window"),
        (
            p + "relay_full_gc_pause",
            round((hist1.get(-2.0, 0) - hist0.get(-2.0, 0)) / 1000, 1),
            "ms in all",
        ),
        (p + "relay_cpu_per_action", round(cpu / max(1, actions) * 1e6, 1), "us of relay CPU per action"),
        (p + "relay_cpu", round(cpu / elapsed * 100, 1), "% of one core (all relays)"),
        (p + "relay_sys_share", round(sys_cpu / max(1e-9, cpu) * 100, 1), "% of relay CPU in the kernel"),
        (p + "journal_batch", round(appends / max(1, batches), 2), "appends per transaction (all relays)"),
        (
            p + "relay_runqueue_wait",
            round(waited / elapsed * 100, 1),
            "% of wall time, summed over the relays' threads, runnable but given no CPU (other load)",
        ),
        (
            p + "client_cpu",
            round(client_cpu / elapsed * 100, 1),
            f"% of one core ({len(workers)} load processes)",
        ),
        *(
            (p + f"{name}_cpu", round(seconds / elapsed * 100, 1), "% of one core")
            for name, seconds in servers.items()
        ),
        (p + "load_average", round(load_avg[0], 2), "1-minute load average at the end of the window"),
        (p + "seating_s", round(setup_s, 1), "s"),
        (p + "front_downs", downs, "relays marked down by HAProxy (each cuts its sockets)"),
    ]


async def load_rounds(args: argparse.Namespace, tmp: Path) -> list[tuple[str, Any, str]]:
    """The throughput runs: one relay then three, ``--load-rounds`` times in alternation. One run's p99 on
    a shared machine swings by a factor of two or more (one relay, one night: 39 to 182 ms), so
    with several rounds the comparison is made on the medians of the rounds' p99s, one relay and three run
    back to back in each round. The first round's rows are printed in full, the later rounds' p99s and
    relay CPU per action."""
    relays = [int(x) for x in args.load_relays.split(",") if x]
    rows: list[tuple[str, Any, str]] = []
    p99s: dict[int, list[float]] = {1: [], 3: []}
    for round_ in range(max(1, args.load_rounds)):
        for nodes in (1, 3):
            if nodes not in relays:
                continue
            prefix = f"r{round_}-" if round_ else ""
            got = await load(args, tmp, nodes, prefix=prefix)
            p99 = {r[0]: r[1] for r in got}.get(f"{prefix}load{nodes}_action_ack_p99")
            if isinstance(p99, float) and p99 == p99:
                p99s[nodes].append(p99)
            later = ("_action_ack_p99", "_relay_cpu_per_action", "_failed")
            rows += got if round_ == 0 else [r for r in got if r[0].endswith(later)]
    for nodes, values in p99s.items():
        if len(values) > 1:
            rows.append(
                (
                    f"load{nodes}_ack_p99_median",
                    round(statistics.median(values), 2),
                    f"ms over {len(values)} rounds",
                )
            )
    if p99s[1] and p99s[3]:
        ratio = statistics.median(p99s[3]) / max(0.01, statistics.median(p99s[1]))
        what = "ratio of the rounds' median p99s" if len(p99s[1]) > 1 else "ratio"
        rows.append(("load3_vs_load1_ack_p99", round(ratio, 2), f"{what} (<= 1: three relays not slower)"))
    return rows


async def main_async(args: argparse.Namespace) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="lexio-bench-cluster-"))
    try:
        return await run_all(args, tmp)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


async def run_all(args: argparse.Namespace, tmp: Path) -> int:
    rows: list[tuple[str, Any, str]] = []
    print("# Lexio cluster benchmark (bench/cluster.py): PostgreSQL + Redis + HAProxy + relays on loopback")
    print(f"# machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start")
    t0 = time.monotonic()
    if args.kills > 0:
        rows += await takeover(args, tmp)
    if args.load_tables > 0:
        rows += await load_rounds(args, tmp)
    for tables in (int(x) for x in args.sweep.split(",") if x):
        # One relay at each table count: the most tables that still meet a latency target.
        sweep = argparse.Namespace(**{**vars(args), "load_tables": tables})
        rows += await load(sweep, tmp, 1, prefix=f"sweep{tables}_")
    print(
        f"# machine: load average {os.getloadavg()[0]:.2f} at the end, {time.monotonic() - t0:.0f} s in all"
    )
    for name, value, unit in rows:
        print(f"{name}\t{value}\t{unit}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=40, help="live tables during the kills")
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--min-live", type=int, default=30, help="live tables wanted at each kill")
    parser.add_argument("--think-ms", type=float, default=300.0, help="takeover players' mean pause")
    parser.add_argument("--warmup", type=float, default=6.0, help="seconds of play before the first kill")
    parser.add_argument(
        "--settle", type=float, default=2.0, help="seconds between a restart and the next kill"
    )
    parser.add_argument("--load-tables", type=int, default=500, help="0: no throughput runs")
    parser.add_argument("--load-duration", type=float, default=20.0)
    parser.add_argument("--load-think-ms", type=float, default=1000.0)
    parser.add_argument("--clients", type=int, default=2, help="load-generator processes")
    parser.add_argument("--seat-per-s", type=float, default=20.0, help="load tables seated per second")
    parser.add_argument(
        "--load-check-fall", type=int, default=40, help="HAProxy's failed checks before DOWN in the load runs"
    )
    parser.add_argument("--seating-timeout", type=float, default=240.0, help="s to seat the load tables")
    parser.add_argument("--load-relays", default="1,3", help="throughput runs to make: 1, 3 or 1,3 relays")
    parser.add_argument(
        "--load-rounds", type=int, default=1, help="throughput runs in alternation, compared on median p99s"
    )
    parser.add_argument(
        "--sweep", default="", metavar="N,N,…", help="then one relay at each of these table counts"
    )
    parser.add_argument(
        "--profile", metavar="DIR", help="py-spy record each relay and load process in the load windows"
    )
    parser.add_argument("--py-spy", default="py-spy", help="the py-spy executable for --profile")
    parser.add_argument("--keep", action="store_true", help="keep the temp directory (relay logs)")
    args = parser.parse_args()
    # Thousands of sockets in the load generators (spawned children inherit the limit).
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        return asyncio.run(main_async(args))
    finally:
        # The servers run in sessions of their own: an interrupted bench must not leave them running.
        for cluster in CLUSTERS:
            with contextlib.suppress(Exception):
                cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
