"""Test support for the relay: a real server on 127.0.0.1, a settable clock, and scripted WebSocket players.

The scripted players play real moves against a test word list holding every 2- and 3-letter string: they
place single tiles whose crossing runs stay 2-3 letters long, so every placement they make is accepted.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import string
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import aiohttp
from aiohttp import web

from relay.app import REFEREE_KEY, create_app
from relay.config import Config
from relay.http.guard import Guard, GuardedRunner
from relay.lexicon import WordList
from relay.tables import Referee

T0 = 1_764_000_000_000
COLS = "ABCDEFGHIJKLM"


def short_words() -> list[str]:
    letters = string.ascii_uppercase
    two = ["".join(p) for p in itertools.product(letters, repeat=2)]
    three = ["".join(p) for p in itertools.product(letters, repeat=3)]
    return two + three


_WORDS: WordList | None = None


def short_wordlist() -> WordList:
    global _WORDS
    if _WORDS is None:
        _WORDS = WordList.from_words(short_words(), name="short")
    return _WORDS


def write_short_lexicon(path: Path) -> Path:
    path.write_text("\n".join(short_words()) + "\n", "utf-8")
    return path


class FakeClock:
    """Injected ``now_ms``: starts at T0 and moves only when a test says so."""

    def __init__(self, start: int = T0) -> None:
        self.t = start

    def __call__(self) -> int:
        return self.t

    def advance(self, ms: int) -> None:
        self.t += ms


class Address(Protocol):
    """Where a relay answers: an in-process :class:`RunningRelay` or a ``harness.process.RelayProcess``."""

    @property
    def url(self) -> str: ...


@dataclass
class RunningRelay:
    url: str
    app: web.Application
    runner: web.AppRunner
    clock: FakeClock | None

    @property
    def referee(self) -> Referee:
        return self.app[REFEREE_KEY]

    @property
    def ws_origin(self) -> str:
        return self.url

    async def stop(self) -> None:
        await self.runner.cleanup()


def relay_config(db: Path, **overrides: Any) -> Config:
    """The settings every in-process test relay runs with (``overrides`` win): journal ``db``, fast ticks,
    a fixed seed, and limits out of the scripted players' way."""
    settings: dict[str, Any] = {
        "db": db,
        "static": overrides.pop("static", None),
        "tick_seconds": 0.02,
        "test_seed": 7,
        "bot_delay_seconds": (0.0, 0.01),
        # Scripted players act far faster than people; the rate-limit test sets its own.
        "rate_burst": 1000.0,
        "rate_per_second": 1000.0,
        "create_burst": 1000.0,
        # Every scripted client is 127.0.0.1: the guard tests set their own per-address caps.
        "max_connections_per_address": 100_000,
        "max_pending_per_address": 100_000,
        "probe_burst": 1000.0,
    }
    settings.update(overrides)
    return Config(**settings)


async def serve(
    app: web.Application, config: Config, *, clock: FakeClock | None = None, nofile: int | None = None
) -> RunningRelay:
    """``app`` served on a free loopback port as `lexio serve` does: every connection counted and timed by
    the guard (descriptors as the test's own)."""
    runner = GuardedRunner(app, guard=Guard(config, nofile), handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    return RunningRelay(f"http://{host}:{port}", app, runner, clock)


async def start_relay(
    tmp_path: Path,
    *,
    clock: FakeClock | None = None,
    bot_driver: Any = None,
    nofile: int | None = None,
    **overrides: Any,
) -> RunningRelay:
    config = relay_config(tmp_path / "lexio.sqlite3", **overrides)
    app = create_app(config, now_ms=clock, lexicon=short_wordlist(), bot_driver=bot_driver)
    return await serve(app, config, clock=clock, nofile=nofile)


async def wait_until(pred: Any, timeout: float = 10.0) -> None:
    """Poll ``pred`` every 20 ms until true. Raises AssertionError after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not pred():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


async def create_table(session: aiohttp.ClientSession, relay: Address, **body: Any) -> str:
    async with session.post(relay.url + "/api/tables", json=body or {"turn_seconds": 60}) as resp:
        assert resp.status == 201, await resp.text()
        data = await resp.json()
    return str(data["id"])


def playable(sq: tuple[int, int]) -> bool:
    col, row = sq
    if not (0 <= col < 13 and 1 <= row <= 13):
        return False
    return not ((col < 2 or col > 10) and (row < 3 or row > 11))


def name_of(sq: tuple[int, int]) -> str:
    return f"{COLS[sq[0]]}{sq[1]}"


def parse_sq(name: str) -> tuple[int, int]:
    return COLS.index(name[0]), int(name[1:])


@dataclass
class Player:
    """One scripted client: keeps every frame it got, its rack and the board, and answers by request id."""

    ws: aiohttp.ClientWebSocketResponse
    frames: list[dict[str, Any]] = field(default_factory=list)
    seat: int | None = None
    token: str | None = None
    rack: str = ""
    board: dict[tuple[int, int], str] = field(default_factory=dict)
    seq: int = 0
    status: str = "waiting"
    turn: int | None = None
    bag_size: int = 0
    ended: dict[str, Any] | None = None
    _ids: itertools.count[int] = field(default_factory=itertools.count)
    _waiters: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    reader: asyncio.Task[None] | None = None
    closed: int | None = None

    @classmethod
    async def connect(cls, session: aiohttp.ClientSession, relay: Address, table_id: str) -> Player:
        ws = await session.ws_connect(f"{relay.url}/ws/{table_id}", headers={"Origin": relay.url})
        p = cls(ws)
        p.reader = asyncio.get_running_loop().create_task(p._read())
        return p

    async def _read(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            frame = json.loads(msg.data)
            self.frames.append(frame)
            self._on(frame)
            self._changed.set()
            fid = frame.get("id")
            if frame["type"] in ("ack", "rejected", "error", "welcome", "pong") and fid in self._waiters:
                fut = self._waiters.pop(fid)
                if not fut.done():
                    fut.set_result(frame)
        self.closed = self.ws.close_code
        self._changed.set()

    def _on(self, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        if kind == "welcome":
            self.seat, self.token = frame["seat"], frame["token"]
        elif kind == "snapshot":
            v = frame["view"]
            self.seq = frame["seq"]
            self.rack = v["rack"] or ""
            self.board = {parse_sq(t["sq"]): t["letter"] for t in v["board"]}
            self.status, self.turn, self.bag_size = v["status"], v["turn"], v["bag_size"]
            if v["status"] == "ended":
                self.ended = v["result"]
        elif kind == "event":
            self.seq = frame["seq"]
            ev = frame["event"]
            self.turn = frame["clock"]["turn"]
            if "rack" in ev and ev.get("rack") is not None:
                self.rack = ev["rack"]
            if "bag_size" in ev:
                self.bag_size = ev["bag_size"]
            if ev["type"] == "game_started":
                self.status = "playing"
            elif ev["type"] == "placed":
                for t in ev["tiles"]:
                    self.board[parse_sq(t["sq"])] = t["letter"]
            elif ev["type"] == "game_ended":
                self.status = "ended"
                self.ended = ev

    async def send(self, frame: dict[str, Any], *, timeout: float = 5.0) -> dict[str, Any]:
        """Send a frame with a fresh id and wait for the frame answering it (ack/rejected/error/...)."""
        fid = f"c{next(self._ids)}"
        frame = {**frame, "id": fid}
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters[fid] = fut
        await self.ws.send_str(json.dumps(frame))
        return await asyncio.wait_for(fut, timeout)

    async def send_raw(self, text: str, *, timeout: float = 5.0) -> dict[str, Any]:
        """Send raw text and wait for the next error frame."""
        before = len(self.frames)
        await self.ws.send_str(text)
        return await self.wait_for(lambda f: f["type"] == "error", start=before, timeout=timeout)

    async def wait_for(self, pred: Any, *, start: int = 0, timeout: float = 5.0) -> dict[str, Any]:
        async def scan() -> dict[str, Any]:
            i = start
            while True:
                while i < len(self.frames):
                    if pred(self.frames[i]):
                        return self.frames[i]
                    i += 1
                if self.closed is not None:
                    raise ConnectionError(f"closed with {self.closed}")
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(scan(), timeout)

    async def wait_seq(self, seq: int, timeout: float = 5.0) -> None:
        async def scan() -> None:
            while self.seq < seq:
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(scan(), timeout)

    async def join(self, name: str) -> dict[str, Any]:
        ans = await self.send({"type": "join", "name": name})
        assert ans["type"] == "welcome", ans
        await self.wait_for(lambda f: f["type"] == "snapshot")
        return ans

    def choose(self) -> dict[str, Any]:
        """A move every short word list accepts: single tiles keeping both runs at 2-3 letters."""
        letter = self.rack[0] if self.rack else "?"
        tile = {"letter": "E" if letter == "?" else letter, "blank": letter == "?"}
        if not self.board:
            if len(self.rack) < 2:
                return {"type": "pass"}
            second = self.rack[1]
            return {
                "type": "place",
                "tiles": [
                    {"sq": "G7", **tile},
                    {"sq": "H7", "letter": "E" if second == "?" else second, "blank": second == "?"},
                ],
            }
        for sq in sorted(self._candidates()):
            if self._runs_ok(sq):
                return {"type": "place", "tiles": [{"sq": name_of(sq), **tile}]}
        if self.bag_size >= len(self.rack) and self.rack:
            return {"type": "swap", "tiles": self.rack}
        return {"type": "pass"}

    def _candidates(self) -> set[tuple[int, int]]:
        out = set()
        for c, r in self.board:
            for d in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                n = (c + d[0], r + d[1])
                if playable(n) and n not in self.board:
                    out.add(n)
        return out

    def _run(self, sq: tuple[int, int], d: tuple[int, int]) -> int:
        n = 1
        for sign in (1, -1):
            c, r = sq[0] + sign * d[0], sq[1] + sign * d[1]
            while (c, r) in self.board:
                n += 1
                c, r = c + sign * d[0], r + sign * d[1]
        return n

    def _runs_ok(self, sq: tuple[int, int]) -> bool:
        return self._run(sq, (1, 0)) <= 3 and self._run(sq, (0, 1)) <= 3

    async def close(self) -> None:
        await self.ws.close()
        if self.reader is not None:
            await self.reader


async def play_to_end(players: list[Player], *, max_turns: int = 2000) -> None:
    """Each player on turn plays its scripted move until the game ends; asserts every action is acked."""
    by_seat = {p.seat: p for p in players}
    for _ in range(max_turns):
        p0 = players[0]
        if p0.status == "ended":
            return
        turn = p0.turn
        assert turn is not None, "no one on turn in a running game"
        p = by_seat[turn]
        await p.wait_seq(p0.seq)
        ans = await p.send(p.choose())
        assert ans["type"] == "ack", ans
        for q in players:
            await q.wait_seq(ans["seq"])
    raise AssertionError("game did not end")


async def pass_to_end(players: list[Player]) -> None:
    """Every person on turn passes until the game ends (bots pass by themselves)."""
    by_seat = {p.seat: p for p in players}
    for _ in range(40):
        p0 = players[0]
        if p0.status == "ended":
            return
        p = by_seat.get(p0.turn)
        if p is None:  # a bot's turn
            await p0.wait_seq(p0.seq + 1)
            continue
        await p.wait_seq(p0.seq)
        ans = await p.send({"type": "pass"})
        assert ans["type"] == "ack", ans
        for q in players:
            await q.wait_seq(ans["seq"])
    raise AssertionError("game did not end")


async def place_once_then_pass_to_end(players: list[Player]) -> None:
    """Seat 0 places (every seat sees it), then every person on turn passes until the game ends."""
    first = await players[0].send(players[0].choose())
    assert first["type"] == "ack", first
    for p in players:
        await p.wait_seq(first["seq"])
    await pass_to_end(players)


async def seated_game(
    session: aiohttp.ClientSession, relay: Address, seats: int = 2, **table: Any
) -> tuple[str, list[Player]]:
    """A started game with ``seats`` scripted players (seat i is players[i])."""
    table_id = await create_table(session, relay, **(table or {"turn_seconds": 60}))
    players = [await Player.connect(session, relay, table_id) for _ in range(seats)]
    for i, p in enumerate(players):
        await p.join(f"P{i}")
    if seats < 4:
        ans = await players[0].send({"type": "start"})
        assert ans["type"] == "ack", ans
    for p in players:
        await p.wait_seq(players[0].seq)
    return table_id, players


@contextlib.asynccontextmanager
async def ended_game(
    tmp_path: Path, session: aiohttp.ClientSession, **relay: Any
) -> AsyncIterator[tuple[RunningRelay, str, list[Player]]]:
    """A relay (``start_relay(tmp_path, **relay)``) with a two-seat game passed to its end: (relay, table,
    players); the players are closed and the relay stopped afterwards."""
    running = await start_relay(tmp_path, **relay)
    try:
        table_id, players = await seated_game(session, running)
        await pass_to_end(players)
        yield running, table_id, players
        for p in players:
            await p.close()
    finally:
        await running.stop()


def word_tiles(rack: str, squares: list[str]) -> list[dict[str, Any]]:
    out = []
    for sq, ch in zip(squares, rack, strict=False):
        out.append({"sq": sq, "letter": "E" if ch == "?" else ch, "blank": ch == "?"})
    return out


async def settle(relay: RunningRelay, ticks: int = 5) -> None:
    """Let the referee's sweeper run a few ticks (it checks deadlines every tick)."""
    await asyncio.sleep(relay.referee.config.tick_seconds * ticks)


PRIVATE_KEYS = ("rack", "drawn", "returned")


def private_strings(relay: RunningRelay, table_id: str) -> dict[int, set[str]]:
    """Every private string each seat legitimately held, from the full (unredacted) stored journal."""
    own: dict[int, set[str]] = {}
    for row in relay.referee.store.events(table_id):
        body = row.body
        if body["type"] == "game_started":
            for seat, rack in enumerate(body["racks"]):
                own.setdefault(seat, set()).add(rack)
        elif body["type"] in ("placed", "swapped"):
            own.setdefault(body["seat"], set()).update(str(body[k]) for k in PRIVATE_KEYS if k in body)
    return own


def scan(obj: Any, allowed: set[str], path: str, public_end: bool = False) -> None:
    """Fail if ``obj`` holds a bag or a private string outside ``allowed`` (except in end-of-game data)."""
    if isinstance(obj, dict):
        end = public_end or obj.get("type") == "game_ended" or obj.get("status") == "ended"
        for key, value in obj.items():
            assert key != "bag", f"bag contents in {path}"
            if key == "racks":
                assert end, f"racks outside the end of the game in {path}"
            if key in PRIVATE_KEYS and isinstance(value, str) and value and not end:
                assert value in allowed, f"{path}.{key} = {value!r} is not this seat's"
            scan(value, allowed, f"{path}.{key}", end if key in ("result", "journal") else public_end)
    elif isinstance(obj, list):
        for i, item in enumerate(obj):
            scan(item, allowed, f"{path}[{i}]", public_end)
