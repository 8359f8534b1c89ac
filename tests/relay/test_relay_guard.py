"""The connection guard (issue 16, problem 2, and the HTTP departures): descriptors, per-address caps,
request timeouts, JSON bodies and isolation headers on every HTTP answer, true ``Allow`` headers."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from harness.process import RelayProcess
from relaykit import Player, RunningRelay, create_table, start_relay, write_short_lexicon

REPO = Path(__file__).resolve().parents[2]
# Started as `ulimit -n 128` with a hard limit of 256: the relay raises its soft limit to 256 itself.
LOW_NOFILE = (
    "import os, resource, sys; resource.setrlimit(resource.RLIMIT_NOFILE, (128, 256)); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)


async def _open_from(address: str, port: int, data: bytes = b"") -> socket.socket:
    sock = socket.socket()
    sock.setblocking(False)
    sock.bind((address, 0))
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    if data:
        sock.send(data)
    return sock


async def _answer(sock: socket.socket, timeout: float = 5.0) -> bytes:
    """Everything the relay sends until it closes the connection."""
    loop = asyncio.get_running_loop()
    out = b""
    try:
        async with asyncio.timeout(timeout):
            while chunk := await loop.sock_recv(sock, 65536):
                out += chunk
    except ConnectionResetError:
        pass
    return out


async def _response(sock: socket.socket, timeout: float = 5.0) -> bytes:
    """One HTTP answer (head and its Content-Length body), without waiting for the connection to end."""
    loop = asyncio.get_running_loop()
    out = b""
    async with asyncio.timeout(timeout):
        while True:
            head, sep, body = out.partition(b"\r\n\r\n")
            if sep:
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                if len(body) >= length:
                    return out
            chunk = await loop.sock_recv(sock, 65536)
            assert chunk, f"closed before a whole answer: {out!r}"
            out += chunk


def _isolated_json(head_and_body: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
    head, _, body = head_and_body.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    assert headers["cross-origin-opener-policy"] == "same-origin"
    assert headers["cross-origin-embedder-policy"] == "require-corp"
    assert headers["content-type"].startswith("application/json")
    data = json.loads(body)
    assert set(data) == {"code", "message"}
    return status, headers, data


async def test_a_descriptor_flood_against_a_low_ulimit_relay_leaves_it_answering(tmp_path: Path) -> None:
    write_short_lexicon(tmp_path / "short.txt")
    proc = RelayProcess(
        [
            "--db",
            str(tmp_path / "lexio.sqlite3"),
            "--lexicon",
            str(tmp_path / "short.txt"),
            "--static",
            str(tmp_path / "nostatic"),
            "--log-json",
            "--max-connections-per-address",
            "64",
            "--max-pending-per-address",
            "64",
        ],
        log=tmp_path / "relay.log",
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=tmp_path,
        wrapper=[sys.executable, "-c", LOW_NOFILE],
        start_timeout=15,
    )
    await proc.astart()
    flood: list[socket.socket] = []
    try:
        lines = [json.loads(line) for line in proc.log.read_text().splitlines() if line.startswith("{")]
        limits = next(line for line in lines if line["msg"] == "descriptors")
        assert limits["nofile_soft"] == 256 and limits["nofile_hard"] == 256
        assert limits["connections"] == 224  # 32 kept back for the journal, logs and /healthz
        # Eight addresses, forty half-sent requests each: more connections than the relay has descriptors.
        for a in range(8):
            for _ in range(40):
                flood.append(
                    await _open_from(f"127.0.0.{10 + a}", proc.port, b"GET / HTTP/1.1\r\nHost: x\r\n")
                )
        await asyncio.sleep(0.5)
        async with aiohttp.ClientSession() as session:
            # Starved of descriptors it would never answer; the bound is loose for a loaded test machine.
            for _ in range(5):
                t0 = time.monotonic()
                async with session.get(proc.url + "/healthz", timeout=aiohttp.ClientTimeout(total=10)) as r:
                    assert r.status == 200 and (await r.json())["ok"] is True
                assert time.monotonic() - t0 < 8
            # A player still gets a table and a seat.
            table_id = await create_table(session, proc)
            p = await Player.connect(session, proc, table_id)
            assert (await p.join("Ann"))["seat"] == 0
            await p.close()
        # The relay dropped the oldest half-open connections to make room: never more than its capacity.
        await asyncio.sleep(0.2)
        still = 0
        for sock in flood:
            try:
                sock.recv(1, socket.MSG_PEEK)  # b"": closed by the relay
            except BlockingIOError:
                still += 1  # open, nothing to read
            except OSError:
                pass  # reset by the relay
        assert still <= 224, still
        assert proc.proc is not None and proc.proc.poll() is None
    finally:
        for sock in flood:
            sock.close()
        proc.stop()
    log = proc.log.read_text()
    assert "Traceback" not in log
    records = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    assert not [r for r in records if r["level"] in ("error", "critical")], "no error for a client's flood"


@pytest.fixture
async def capped(tmp_path: Path) -> Any:
    relay = await start_relay(
        tmp_path, max_connections_per_address=6, max_pending_per_address=3, request_timeout_seconds=1.0
    )
    try:
        yield relay
    finally:
        await relay.stop()


def _port(relay: RunningRelay) -> int:
    return int(relay.url.rsplit(":", 1)[1])


async def test_one_address_is_capped_and_the_others_and_healthz_still_answer(capped: RunningRelay) -> None:
    port = _port(capped)
    held = [await _open_from("127.0.0.5", port) for _ in range(3)]  # three half-open: the pending cap
    refused = await _open_from("127.0.0.5", port)
    status, _headers, data = _isolated_json(await _answer(refused))
    assert (status, data["code"]) == (429, "too_many_connections")
    async with aiohttp.ClientSession() as session, session.get(capped.url + "/healthz") as resp:
        assert resp.status == 200  # another address (127.0.0.1)
    # Game sockets count toward the connection cap (6), with the HTTP connections of the address.
    connector = aiohttp.TCPConnector(local_addr=("127.0.0.5", 0))
    async with aiohttp.ClientSession(connector=connector) as session:
        for s in held:
            s.close()
        await asyncio.sleep(0.1)
        table_id = await create_table(session, capped)
        players = []
        with pytest.raises(aiohttp.WSServerHandshakeError) as info:
            for _ in range(10):
                players.append(await Player.connect(session, capped, table_id))
        assert info.value.status == 429
        assert len(players) in (5, 6)  # 6, or 5 and the connection that created the table
        for p in players:
            await p.close()
        await asyncio.sleep(0.1)
        again = await Player.connect(session, capped, table_id)  # released when the sockets went
        await again.close()


async def test_a_half_sent_request_is_dropped_after_the_request_timeout(capped: RunningRelay) -> None:
    sock = await _open_from("127.0.0.6", _port(capped), b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    t0 = time.monotonic()
    assert await _answer(sock, timeout=5) == b""
    assert 0.8 <= time.monotonic() - t0 < 3


async def test_a_slow_body_is_answered_408_json(capped: RunningRelay) -> None:
    head = b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    head += b"Content-Length: 20\r\n\r\n{"  # one byte of twenty, then nothing
    sock = await _open_from("127.0.0.7", _port(capped), head)
    t0 = time.monotonic()
    status, _headers, data = _isolated_json(await _response(sock))
    assert (status, data["code"]) == (408, "request_timeout")
    assert time.monotonic() - t0 < 3


async def test_a_declared_huge_body_is_refused_at_once_with_413_json(relay: RunningRelay) -> None:
    head = b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    sock = await _open_from("127.0.0.8", _port(relay), head + b"Content-Length: 1000000000000\r\n\r\n{")
    t0 = time.monotonic()
    status, _headers, data = _isolated_json(await _response(sock))
    assert (status, data["code"]) == (413, "body_too_large")
    assert time.monotonic() - t0 < 1
    assert await _answer(sock, timeout=5) == b""  # then closed (after at most the lingering time)


async def test_a_chunked_body_over_the_cap_is_413_json(relay: RunningRelay) -> None:
    async with aiohttp.ClientSession() as session:

        async def chunks() -> Any:
            for _ in range(100):
                yield b"x" * 1024

        async with session.post(relay.url + "/api/tables", data=chunks()) as resp:
            assert resp.status == 413
            assert resp.headers["Cross-Origin-Embedder-Policy"] == "require-corp"
            assert (await resp.json())["code"] == "body_too_large"


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n", 400),
        (b"NOT HTTP AT ALL\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n", 400),
    ],
)
async def test_aiohttps_own_400s_are_json_isolated_and_echo_nothing(
    relay: RunningRelay, request_bytes: bytes, status: int
) -> None:
    sock = await _open_from("127.0.0.9", _port(relay), request_bytes)
    answer = await _answer(sock)
    got, _headers, data = _isolated_json(answer)
    assert (got, data["code"]) == (status, "bad_request")
    assert b"aaaa" not in answer and b"bbbb" not in answer and b"NOT HTTP" not in answer


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/api/tables", "GET, HEAD, POST"),
        ("DELETE", "/api/tables/abc", "GET, HEAD"),
        ("POST", "/healthz", "GET, HEAD"),
        ("POST", "/ws/abc", "GET, HEAD"),
        ("PUT", "/index.html", "GET, HEAD"),
    ],
)
async def test_a_405_is_json_and_its_allow_header_names_the_paths_methods(
    relay: RunningRelay, session: aiohttp.ClientSession, method: str, path: str, allow: str
) -> None:
    async with session.request(method, relay.url + path) as resp:
        assert resp.status == 405
        assert resp.headers["Allow"] == allow
        assert resp.headers["Cross-Origin-Opener-Policy"] == "same-origin"
        assert (await resp.json())["code"] == "method_not_allowed"


async def test_an_unknown_api_path_with_any_method_is_404_json(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    async with session.put(relay.url + "/api/nothing") as resp:
        assert resp.status == 404
        assert (await resp.json())["code"] == "not_found"


def test_accept_running_out_of_descriptors_is_one_throttled_warning(caplog: pytest.LogCaptureFixture) -> None:
    import errno
    import logging

    from relay.http.guard import loop_exception_handler

    caplog.set_level(logging.INFO)
    loop = asyncio.new_event_loop()
    try:
        for _ in range(200):  # what asyncio reports at each failed accept() (it retries after 1 s)
            context = {
                "message": "socket.accept() out of system resource",
                "exception": OSError(errno.EMFILE, "Too many open files"),
            }
            loop_exception_handler(loop, context)
    finally:
        loop.close()
    records = [r for r in caplog.records if r.name.startswith("lexio") or r.name == "asyncio"]
    assert records and all(r.levelno == logging.WARNING and not r.exc_info for r in records)
    assert len(records) <= 5


def test_at_capacity_the_oldest_idle_connection_makes_room() -> None:
    from relay.config import Config
    from relay.http.guard import Guard

    guard = Guard(Config(), nofile=64)  # reserve 32: capacity 32, nothing past 48

    class Idle:
        evicted = False

        def evict(self) -> None:
            self.evicted = True
            guard.idle.pop(self, None)  # type: ignore[call-overload]
            guard.close(None)

    conns = []
    for _ in range(guard.capacity):
        assert guard.open(None) == "ok"
        conn = Idle()
        guard.idle[conn] = None  # type: ignore[index]
        conns.append(conn)
    assert guard.open(None) == "ok"  # room made by closing the oldest idle one
    assert conns[0].evicted and not conns[1].evicted
    assert guard.total == guard.capacity
