"""Test support for cluster mode: relays as processes sharing one PostgreSQL journal (``--bus``), a
freezable TCP forwarder, and scripted players that reconnect by token (their bus: buskit.redis_server)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import threading
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import aiohttp
import psycopg
from harness.process import HOST, RelayProcess, free_port
from relaykit import Player, write_short_lexicon

REPO = Path(__file__).resolve().parents[2]


class Forwarder:
    """A TCP forwarder on a free loopback port to ``target``; :meth:`freeze` stops it moving bytes either way
    (the connections stay open, as with a network partition), :meth:`thaw` resumes."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.port = free_port()
        self._moving = threading.Event()
        self._moving.set()
        self._stop = threading.Event()
        self._server = socket.create_server((HOST, self.port))
        self._server.settimeout(0.2)
        self._threads: list[threading.Thread] = []
        self._socks: list[socket.socket] = []
        t = threading.Thread(target=self._accept, daemon=True)
        t.start()
        self._threads.append(t)

    def freeze(self) -> None:
        self._moving.clear()

    def thaw(self) -> None:
        self._moving.set()

    def close(self) -> None:
        self._stop.set()
        self._moving.set()
        self._server.close()
        for s in self._socks:
            with contextlib.suppress(OSError):
                s.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            upstream = socket.create_connection((HOST, self.target))
            self._socks += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                t = threading.Thread(target=self._pump, args=(a, b), daemon=True)
                t.start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        src.settimeout(0.1)
        while not self._stop.is_set():
            if not self._moving.wait(0.1):
                continue
            try:
                data = src.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            if not data:
                break
            self._moving.wait()  # frozen while this chunk was read: it waits too
            try:
                dst.sendall(data)
            except OSError:
                break
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


def node(
    tmp: Path,
    name: str,
    db: str,
    bus: str,
    *,
    extra: Sequence[str] = (),
    wrapper: Sequence[str] = (),
    env: dict[str, str] | None = None,
) -> RelayProcess:
    """A cluster relay (not started) named ``name``, logging to ``tmp/name.log``."""
    lexicon = tmp / "short.txt"
    if not lexicon.exists():
        write_short_lexicon(lexicon)
    return RelayProcess(
        [
            "--db", db, "--bus", bus, "--node-name", name,
            "--lexicon", str(lexicon), "--static", str(tmp / "nostatic"),
            "--test-seed", "3", "--tick-seconds", "0.05", "--log-json", *extra,
        ],
        log=tmp / f"{name}.log",
        env={**os.environ, "PYTHONPATH": str(REPO), "LEXIO_ALLOW_TEST_SEED": "1", **(env or {})},
        cwd=tmp,
        wrapper=wrapper,
        start_timeout=30,
    )  # fmt: skip


def health(relay: RelayProcess) -> tuple[int, dict[str, Any]]:
    """(status, body) of /healthz; (0, {}) if it does not answer within a second."""
    try:
        with urllib.request.urlopen(relay.url + "/healthz", timeout=1) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")
    except OSError:
        return 0, {}


async def wait_seconds(what: str, pred: Any, timeout: float, every: float = 0.05) -> float:
    """Poll ``pred`` (sync or async) until true; returns the seconds it took. Fails after ``timeout``."""
    t0 = time.monotonic()
    while True:
        got = pred()
        if asyncio.iscoroutine(got):
            got = await got
        if got:
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"{what}: not within {timeout} s")
        await asyncio.sleep(every)


async def rejoin(
    session: aiohttp.ClientSession, relay: RelayProcess, table_id: str, token: str, *, timeout: float = 10.0
) -> Player:
    """A player back at its seat through ``relay`` (retrying while the table is not servable there yet, as a
    client does); returns once its snapshot arrived."""
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            p = await Player.connect(session, relay, table_id)
        except (aiohttp.ClientError, OSError) as exc:
            last = exc
            await asyncio.sleep(0.1)
            continue
        try:
            ans = await p.send({"type": "join", "token": token}, timeout=5)
            if ans["type"] == "welcome":
                await p.wait_for(lambda f: f["type"] == "snapshot", timeout=5)
                return p
            last = AssertionError(str(ans))
        except (TimeoutError, ConnectionError) as exc:
            last = exc
        await p.close()
        await asyncio.sleep(0.1)
    raise AssertionError(f"could not rejoin through {relay.url}: {last!r}")


def journal(url: str, table_id: str) -> list[dict[str, Any]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT seq, body FROM events WHERE table_id = %s ORDER BY seq", (table_id,)
        ).fetchall()
    return [{"seq": int(seq), **json.loads(body)} for seq, body in rows]


def owner(url: str, table_id: str) -> tuple[str | None, int]:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT owner, owner_epoch FROM tables WHERE id = %s", (table_id,)).fetchone()
    assert row is not None
    return row[0], int(row[1])


@contextlib.contextmanager
def stopping(*relays: RelayProcess) -> Iterator[None]:
    try:
        yield
    finally:
        for r in relays:
            if r.proc is not None and r.proc.poll() is None:
                with contextlib.suppress(Exception):
                    r.proc.send_signal(18)  # SIGCONT: a paused relay must be able to stop
                r.stop(5)


@contextlib.asynccontextmanager
async def two_relays(
    tmp: Path, db: str, bus: str
) -> AsyncIterator[tuple[RelayProcess, RelayProcess, aiohttp.ClientSession]]:
    """Relays ``a`` and ``b`` started on one journal and bus, and a client session; both stopped after."""
    a, b = node(tmp, "a", db, bus), node(tmp, "b", db, bus)
    with stopping(a, b):
        await asyncio.gather(a.astart(), b.astart())
        async with aiohttp.ClientSession() as session:
            yield a, b, session


async def send_as(player: Player, frame: dict[str, Any], *, timeout: float = 5.0) -> dict[str, Any]:
    """Send ``frame`` with its own id (a resend keeps it) and wait for the answer carrying that id."""
    before = len(player.frames)
    await player.ws.send_str(json.dumps(frame))
    return await player.wait_for(
        lambda f: f.get("id") == frame["id"] and f["type"] in ("ack", "rejected", "error"),
        start=before,
        timeout=timeout,
    )


def kill_heartbeat(url: str, node: str) -> None:
    """The node stopped renewing its heartbeat 10 s ago (killed, paused or cut off)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "UPDATE nodes SET heartbeat_at = now() - interval '10 seconds' WHERE node_id = %s", (node,)
        )
