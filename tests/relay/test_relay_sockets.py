"""The game socket itself (relay/http/ws.py): RFC 6455 framing, heartbeat, hand-over from aiohttp, shutdown;
and the journal kept in SQLite rather than in memory. Raw TCP where a real client would hide the detail."""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Any

import aiohttp
import pytest
from relaykit import Player, RunningRelay, create_table, seated_game, start_relay

import engine
from relay.app import HUB_KEY
from relay.http import ws

KEY = "dGhlIHNhbXBsZSBub25jZQ=="  # the example of RFC 6455 1.3


def client_frame(
    op: int, payload: bytes, *, fin: bool = True, masked: bool = True, length: int | None = None
) -> bytes:
    n = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | op])
    bit = 0x80 if masked else 0
    if n < 126:
        head += bytes([bit | n])
    elif n < 1 << 16:
        head += bytes([bit | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([bit | 127]) + n.to_bytes(8, "big")
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def text(obj: dict[str, Any], **kw: Any) -> bytes:
    return client_frame(0x1, json.dumps(obj).encode(), **kw)


class Raw:
    """A WebSocket client written by hand: exactly the bytes a test wants on the wire."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, relay: RunningRelay, table_id: str, then: bytes = b"") -> Raw:
        host, port = relay.url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            f"GET /ws/{table_id} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
            + then
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 101 "), head
        assert b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" in head  # its answer in the RFC
        return cls(reader, writer)

    async def frame(self) -> tuple[int, bytes]:
        """The next server frame (opcode, payload); server frames are never masked."""
        b0, b1 = await asyncio.wait_for(self.reader.readexactly(2), 5)
        assert not b1 & 0x80
        n = b1 & 0x7F
        if n == 126:
            n = int.from_bytes(await self.reader.readexactly(2), "big")
        elif n == 127:
            n = int.from_bytes(await self.reader.readexactly(8), "big")
        return b0 & 0x0F, await asyncio.wait_for(self.reader.readexactly(n), 5)

    async def json(self) -> dict[str, Any]:
        while True:
            op, payload = await self.frame()
            if op == 0x1:
                return dict(json.loads(payload))
            assert op in (0x9, 0xA), (op, payload)

    async def close_code(self) -> int:
        while True:
            op, payload = await self.frame()
            if op == 0x8:
                return int.from_bytes(payload[:2], "big")

    def send(self, data: bytes) -> None:
        self.writer.write(data)

    async def gone(self) -> bool:
        """True once the server ended the TCP connection."""
        try:
            while await asyncio.wait_for(self.reader.read(4096), 5):
                pass
        except ConnectionError:
            pass
        self.writer.close()
        return True

    def close(self) -> None:
        self.writer.close()


async def test_frames_sent_along_with_the_upgrade_request_are_served(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id = await create_table(session, relay)
    raw = await Raw.connect(relay, table_id, then=text({"type": "join", "id": "j", "name": "Early"}))
    welcome = await raw.json()
    assert welcome["type"] == "welcome" and welcome["seat"] == 0
    raw.close()


async def test_a_fragmented_message_is_read_as_one_frame_with_control_frames_between(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id = await create_table(session, relay)
    raw = await Raw.connect(relay, table_id)
    body = json.dumps({"type": "join", "id": "j", "name": "Split"}).encode()
    raw.send(client_frame(0x1, body[:5], fin=False))
    raw.send(client_frame(0x9, b"hb"))  # a ping between fragments is answered at once
    raw.send(client_frame(0x0, body[5:12], fin=False))
    raw.send(client_frame(0x0, body[12:]))
    assert await raw.frame() == (0xA, b"hb")
    welcome = await raw.json()
    assert welcome["type"] == "welcome" and welcome["id"] == "j"
    raw.close()


async def test_a_frame_trickled_byte_by_byte_is_read_once_whole(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id = await create_table(session, relay)
    raw = await Raw.connect(relay, table_id)
    # The second frame is over 125 bytes (a 16-bit length) and has a key a ping may not have.
    wire = text({"type": "join", "id": "j", "name": "Slow"})
    wire += text({"type": "ping", "id": "p", "x": "y" * 200})
    for i in range(len(wire)):
        raw.send(wire[i : i + 1])
        await raw.writer.drain()
    welcome = await raw.json()
    assert welcome["type"] == "welcome" and welcome["id"] == "j"
    while (frame := await raw.json())["type"] != "error":
        pass
    assert frame["id"] == "p" and frame["code"] == "bad_message"
    raw.close()


@pytest.mark.parametrize(
    ("wire", "code"),
    [
        (client_frame(0x1, b'{"type":"ping"}', masked=False), 1002),  # client frames must be masked
        (client_frame(0x3, b"x"), 1002),  # reserved opcode
        (client_frame(0x0, b"x"), 1002),  # continuation without a message
        (client_frame(0x1, b"\xff\xfe"), 1007),  # text that is not UTF-8
        (client_frame(0x2, b"x" * 70_000), 1009),  # a message over 64 KiB
        # ...refused once 64 KiB of it arrived, whatever length its header claims.
        (client_frame(0x1, b"x" * 66_000, length=2**40), 1009),
    ],
    ids=["unmasked", "reserved-opcode", "stray-continuation", "not-utf8", "over-64KiB", "huge-length"],
)
async def test_a_frame_breaking_the_websocket_protocol_closes_the_socket_with_its_code(
    relay: RunningRelay, session: aiohttp.ClientSession, wire: bytes, code: int
) -> None:
    table_id = await create_table(session, relay)
    raw = await Raw.connect(relay, table_id)
    raw.send(wire)
    assert await raw.close_code() == code
    assert await raw.gone()


async def test_the_peer_closing_gets_its_close_code_echoed_and_frees_its_seat(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, (p0, _p1) = await seated_game(session, relay)
    raw = await Raw.connect(relay, table_id)
    raw.send(text({"type": "join", "id": "j", "token": p0.token}))
    assert (await raw.json())["type"] == "welcome"
    raw.send(client_frame(0x8, (1001).to_bytes(2, "big") + b"bye"))
    assert await raw.close_code() == 1001
    assert await raw.gone()
    for _ in range(100):
        if 0 not in relay.referee.tables[table_id].conns:
            break
        await asyncio.sleep(0.01)
    assert 0 not in relay.referee.tables[table_id].conns


async def test_a_quiet_socket_is_pinged_and_dropped_if_it_never_answers(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, (p0, p1) = await seated_game(session, relay)
    raw = await Raw.connect(relay, table_id)
    raw.send(text({"type": "join", "id": "j", "token": p1.token}))
    assert (await raw.json())["type"] == "welcome"
    hub = relay.app[HUB_KEY]
    now = time.monotonic() + hub.heartbeat
    hub.beat(now)
    while (await raw.frame())[0] != 0x9:  # the heartbeat ping (after the snapshot and presence frames)
        pass
    n = len(p0.frames)
    hub.beat(now + hub.heartbeat / 2 + 1)  # no pong in time: dropped
    assert await raw.gone()
    presence = await p0.wait_for(lambda f: f["type"] == "presence", start=n)
    assert presence["seats"][1]["connected"] is False


async def test_a_socket_that_answers_the_heartbeat_stays_open(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    _table_id, (p0, _p1) = await seated_game(session, relay)
    hub = relay.app[HUB_KEY]
    now = time.monotonic() + hub.heartbeat
    hub.beat(now)  # aiohttp's client answers the ping with a pong
    ans = await p0.send({"type": "ping"})
    assert ans["type"] == "pong"
    hub.beat(now + hub.heartbeat / 2 + 1)
    ans = await p0.send({"type": "ping"})
    assert ans["type"] == "pong" and p0.closed is None


async def test_a_game_socket_leaves_no_http_handler_behind(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id = await create_table(session, relay)
    server = relay.runner.server
    assert server is not None
    before = len(server.connections)
    players = [await Player.connect(session, relay, table_id) for _ in range(3)]
    await players[0].join("A")
    await asyncio.sleep(0.05)
    # (The client may send an upgrade over its pooled HTTP connection: that one is handed over too.)
    assert len(server.connections) <= before
    assert len(relay.app[HUB_KEY]) == 3
    async with session.get(relay.url + "/healthz") as r:
        assert (await r.json())["sockets"] == 3
    for p in players:
        await p.close()
    await asyncio.sleep(0.05)
    async with session.get(relay.url + "/healthz") as r:
        assert (await r.json())["sockets"] == 0
    assert len(relay.app[HUB_KEY]) == 0


async def test_a_plain_request_to_the_socket_path_is_400(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id = await create_table(session, relay)
    async with session.get(f"{relay.url}/ws/{table_id}") as r:
        assert r.status == 400
        assert (await r.json())["code"] == "bad_request"


async def test_an_upgrade_by_head_is_400(relay: RunningRelay, session: aiohttp.ClientSession) -> None:
    table_id = await create_table(session, relay)
    headers = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": KEY}
    headers["Sec-WebSocket-Version"] = "13"
    async with session.head(f"{relay.url}/ws/{table_id}", headers=headers) as r:
        assert r.status == 400


class Served:
    """One ws.WebSocket served on a loopback port by a bare asyncio server (no aiohttp in front), with the
    client's end of its TCP connection."""

    def __init__(self, hub: ws.Hub, ended: asyncio.Event | None = None) -> None:
        self.hub = hub
        self.ended = ended or asyncio.Event()
        self.made: list[ws.WebSocket] = []

    async def __aenter__(self) -> tuple[ws.WebSocket, asyncio.StreamReader, asyncio.StreamWriter]:
        ended = self.ended

        class Session:
            async def frame(self, data: str | bytes, t0: float) -> bool:
                return True

            async def ended(self) -> None:
                ended.set()

        class Attached(ws.WebSocket):
            __slots__ = ()

            def connection_made(self, transport: Any) -> None:
                self.attach(transport)

        def serve() -> ws.WebSocket:
            self.made.append(Attached(Session(), self.hub, max_size=65536))
            return self.made[0]

        self.server = await asyncio.get_running_loop().create_server(serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        while not self.made:
            await asyncio.sleep(0.01)
        return self.made[0], self.reader, self.writer

    async def __aexit__(self, *exc: object) -> None:
        self.writer.close()
        self.server.close()
        await self.server.wait_closed()


def record_writes(sock: ws.WebSocket) -> list[bytes]:
    """What ``sock`` writes to its transport from now on, one item per write (still written)."""
    transport = sock.transport
    assert transport is not None
    writes: list[bytes] = []
    write = transport.write

    def record(data: Any) -> None:
        writes.append(bytes(data))
        write(data)

    transport.write = record  # type: ignore[method-assign]
    return writes


async def test_closing_a_socket_ends_within_the_close_timeout_even_if_the_peer_reads_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A peer that stops reading, then breaks the protocol: our close frame waits behind megabytes it will
    never read. Closing (as at shutdown) must still end, after CLOSE_TIMEOUT, not wait for it forever."""
    monkeypatch.setattr(ws, "CLOSE_TIMEOUT", 0.3)
    hub = ws.Hub(heartbeat=30.0)
    ended = asyncio.Event()
    async with Served(hub, ended) as (sock, _reader, writer):  # the client never reads
        for _ in range(200):
            sock.send_text("x" * 60_000)
        assert sock.buffered() > 1_000_000
        writer.write(client_frame(0x1, b"{}", masked=False))  # 1002: the socket closes itself
        while not sock.close_sent:
            await asyncio.sleep(0.01)
        t0 = time.monotonic()
        await asyncio.wait_for(hub.close_all(1012, b"server restarting"), 3)
        assert time.monotonic() - t0 < 2
        assert sock.transport is None and len(hub) == 0
        await asyncio.wait_for(ended.wait(), 1)


async def test_a_socket_that_never_joined_is_closed_with_1012_at_shutdown(
    tmp_path: Any, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path)
    table_id = await create_table(session, relay)
    ws = await session.ws_connect(f"{relay.url}/ws/{table_id}", headers={"Origin": relay.url})
    stopping = asyncio.get_running_loop().create_task(relay.stop())
    msg = await ws.receive(timeout=5)
    assert msg.type == aiohttp.WSMsgType.CLOSE
    assert ws.close_code == 1012
    await stopping


async def test_the_journal_lives_in_sqlite_and_a_snapshot_carries_all_of_it(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, (p0, p1) = await seated_game(session, relay)
    for _ in range(4):
        mover = p0 if p0.turn == 0 else p1
        assert (await mover.send(mover.choose()))["type"] in ("ack", "rejected")
        await p0.wait_seq(relay.referee.tables[table_id].state.version)
    table = relay.referee.tables[table_id]
    # Memory holds the fold and the count of its events, not the events (each carries bag and racks).
    assert table.state.version > 4 and set(table.state.events) == {None}
    n = len(p1.frames)
    await p1.ws.send_str(json.dumps({"type": "resync", "since": 0}))
    snap = await p1.wait_for(lambda f: f["type"] == "snapshot", start=n)
    stored = [engine.event_from_dict(r.body) for r in relay.referee.store.events(table_id)]
    assert snap["seq"] == len(stored) == table.state.version
    assert snap["view"]["journal"] == [engine.redact_event(e, 1) for e in stored]


async def test_the_actor_gets_its_event_and_ack_in_one_write_and_the_others_their_event_alone(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    """An action's frames to the actor (the event, then the ack) are corked into one socket write: one
    system call and one wake-up for the client instead of two. The other seat gets the event in its own."""
    _table_id, (p0, p1) = await seated_game(session, relay)
    writes = {sock: record_writes(sock) for sock in relay.app[HUB_KEY].sockets}
    ans = await p0.send({"type": "pass"})
    assert ans["type"] == "ack"
    await p1.wait_seq(ans["seq"])
    batches = [w for w in writes.values() if w]
    assert len(batches) == 2, batches
    [actor] = next(w for w in batches if any(b'"type":"ack"' in data for data in w))
    [other] = next(w for w in batches if not any(b'"type":"ack"' in data for data in w))
    assert actor.index(b'"type":"event"') < actor.index(b'"type":"ack"'), actor
    assert b'"type":"event"' in other


async def test_an_action_of_several_events_reaches_each_socket_in_one_write(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    """The pass that ends a game is two events (the pass, the end): each socket, watchers' included, gets
    both event frames (and the actor its ack) in one write, in order."""
    table_id, players = await seated_game(session, relay)
    watcher = await Player.connect(session, relay, table_id)
    await watcher.send({"type": "watch"})
    by_seat = {p.seat: p for p in players}
    while True:  # pass until one pass is left before the end (two rounds without a placement)
        mover = by_seat[players[0].turn]
        writes = {sock: record_writes(sock) for sock in relay.app[HUB_KEY].sockets}
        ans = await mover.send({"type": "pass"})
        assert ans["type"] == "ack"
        for p in (*players, watcher):
            await p.wait_seq(ans["seq"])
        if players[0].status == "ended":
            break
    batches = [w for w in writes.values() if w]
    assert len(batches) == 3, batches
    for [data] in batches:
        assert data.count(b'"type":"event"') == 2, data
        assert data.index(b'"type":"passed"') < data.index(b'"type":"game_ended"'), data
    assert sum(b'"type":"ack"' in data for [data] in batches) == 1


async def test_frames_corked_on_a_socket_go_out_in_one_write_in_order_and_a_close_drops_them() -> None:
    """cork/uncork on the socket itself: held frames go out as one write, in order; a ping first writes
    what was held before it; a close frame goes out at once and the frames held before it never do."""
    async with Served(ws.Hub(heartbeat=30.0)) as (sock, reader, _writer):
        writes = record_writes(sock)
        sock.cork()
        sock.send_text("one")
        sock.send_text("two")
        assert writes == []
        sock.ping(time.monotonic())  # flushes the held frames, then the ping
        sock.send_text("three")
        sock.uncork()
        assert writes[0] == b"\x81\x03one\x81\x03two"
        assert writes[1][0] == 0x89 and writes[2] == b"\x81\x05three"
        sock.cork()
        sock.send_text("lost")
        sock.close_soon(1000)
        sock.uncork()
        assert writes[3][0] == 0x88 and len(writes) == 4
        got = await asyncio.wait_for(reader.read(4096), 5)
        assert b"lost" not in got and got.startswith(b"\x81\x03one\x81\x03two")
