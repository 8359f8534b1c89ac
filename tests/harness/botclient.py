"""Scripted players over the relay's real WebSocket protocol, for soak tests and load benches.

A scripted seat joins a table like a browser would, plays its turns with the move generator (any level) and
checks, on every frame it receives, the invariants a client can see:

- event ``seq`` numbers follow each other by exactly 1;
- tiles are conserved: board + every rack + bag = the variant's tile count (102 for Lexio), after every event
  and in every snapshot;
- each seat's score equals the sum of its journal (placements, plus the end-of-game adjustments);
- no frame shows another seat's rack, drawn or returned tiles, rejected tiles or words (before the end), nor
  the bag's contents.

:func:`run_table` plays one whole game (a table created over HTTP, seat 0 scripted, then computer seats added
with ``add_bot`` and/or more scripted seats, plus a spectator) and returns a :class:`TableReport`; the relay's
load bench can import it, :func:`play_seat` for finer control, or :func:`suggest_frame` to have its own
clients play a bot's move. This is a test tool: the table never plays for a human, and these clients only
run where the relay itself runs (they load the word list).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import aiohttp

from engine.moves import Move, Place, Swap
from engine.variants import get_variant
from relay.bots.player import MoveGenDriver

__all__ = ["FrameChecker", "SeatLog", "TableReport", "move_frame", "play_seat", "run_table", "suggest_frame"]

_PRIVATE_KEYS: Final = ("rack", "drawn", "returned", "unknown")
#: Seconds between two frames of one connection: 10 frames/s, under the relay's 15/s sustained limit.
MIN_FRAME_GAP: Final = 0.1
#: Seconds of silence after which a client asks again (a snapshot) rather than wait for a lost answer.
RESYNC_AFTER: Final = 3.0


@dataclass
class FrameChecker:
    """Follows one connection's frames (``me``: its seat, None for a spectator) and records every broken
    invariant in ``failures`` (it never raises)."""

    me: int | None = None
    failures: list[str] = field(default_factory=list)
    seq: int | None = None
    status: str = "waiting"
    variant: str = "lexio"
    turn: int | None = None
    board_tiles: int = 0
    bag: int = 0
    racks: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    events: int = 0
    actions: int = 0
    ended: dict[str, Any] | None = None

    def fail(self, what: str) -> None:
        if len(self.failures) < 50:  # enough to diagnose; a broken relay must not eat the memory
            self.failures.append(f"seat {self.me}: {what}")

    @property
    def tile_count(self) -> int:
        return get_variant(self.variant).tile_count

    def on_frame(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "snapshot":
            self._snapshot(frame)
        elif kind == "event":
            self._event(frame)
        clock = frame.get("clock")
        if isinstance(clock, dict) and "turn" in clock:
            self.turn = clock["turn"]
        self._no_bag(frame)

    def _no_bag(self, obj: Any) -> None:
        if isinstance(obj, dict):
            if "bag" in obj:
                self.fail("a frame carries the bag's contents")
            for value in obj.values():
                self._no_bag(value)
        elif isinstance(obj, list):
            for value in obj:
                self._no_bag(value)

    def _private(self, ev: dict[str, Any], where: str) -> None:
        """Flag another seat's private tiles in one redacted event."""
        kind = ev.get("type")
        if kind == "game_ended":
            return
        if kind == "game_started":
            if self.me is None and "rack" in ev:
                self.fail(f"{where}: a spectator sees a dealt rack")
            return
        if ev.get("seat") != self.me:
            shown = [k for k in _PRIVATE_KEYS if ev.get(k) is not None]
            if kind == "rejected" and "tiles" in ev:
                shown.append("tiles")
            if shown:
                self.fail(f"{where}: seat {ev.get('seat')}'s {', '.join(shown)} shown to seat {self.me}")

    def _check_conservation(self, where: str) -> None:
        if self.status not in ("playing", "ended"):
            return
        total = self.board_tiles + sum(self.racks) + self.bag
        if total != self.tile_count:
            self.fail(
                f"{where}: board {self.board_tiles} + racks {self.racks} + bag {self.bag} = {total}, "
                f"not {self.tile_count}"
            )

    def _snapshot(self, frame: dict[str, Any]) -> None:
        view = frame.get("view") or {}
        self.seq = frame.get("seq")
        self.variant = view.get("variant", self.variant)
        self.status = view.get("status", self.status)
        self.turn = view.get("turn")
        seats = view.get("seats", [])
        ended = self.status == "ended"
        if self.me is None and view.get("rack") is not None:
            self.fail("snapshot: a spectator sees a rack")
        for s in seats:
            if s.get("seat") != self.me and s.get("rack") is not None and not ended:
                self.fail(f"snapshot: seat {s.get('seat')}'s rack shown to seat {self.me}")
        journal = view.get("journal", [])
        sums = [0] * len(seats)
        for ev in journal:
            self._private(ev, "snapshot journal")
            seat = ev.get("seat")
            if ev.get("type") == "placed" and isinstance(seat, int) and 0 <= seat < len(sums):
                sums[seat] += int(ev.get("score", 0))
            if ev.get("type") == "game_ended":
                sums = [a + b for a, b in zip(sums, ev.get("adjustments", []), strict=False)]
        scores = [int(s.get("score", 0)) for s in seats]
        if scores != sums:
            self.fail(f"snapshot: scores {scores} are not the journal's sums {sums}")
        self.board_tiles = len(view.get("board", []))
        self.bag = int(view.get("bag_size", 0))
        self.racks = [int(s.get("rack_size", 0)) for s in seats]
        self.scores = scores
        self._check_conservation("snapshot")

    def _event(self, frame: dict[str, Any]) -> None:
        seq = frame.get("seq")
        if self.seq is not None and seq != self.seq + 1:
            self.fail(f"event seq {seq} after {self.seq}")
        self.seq = seq if isinstance(seq, int) else self.seq
        ev = frame.get("event") or {}
        self.events += 1
        self._private(ev, f"event {seq}")
        kind = ev.get("type")
        seat = ev.get("seat")
        if kind == "seat_joined":
            self.racks.append(0)
            self.scores.append(0)
        elif kind == "seat_left" and isinstance(seat, int) and 0 <= seat < len(self.racks):
            self.racks.pop(seat)
            self.scores.pop(seat)
        elif kind == "game_started":
            self.status = "playing"
            self.racks = list(ev.get("rack_sizes", []))
            self.bag = int(ev.get("bag_size", 0))
            self.scores = [0] * len(self.racks)
        elif kind in ("placed", "swapped") and isinstance(seat, int) and 0 <= seat < len(self.racks):
            self.actions += 1
            self.racks[seat] = int(ev.get("rack_size", 0))
            self.bag = int(ev.get("bag_size", 0))
            if kind == "placed":
                self.board_tiles += len(ev.get("tiles", []))
                self.scores[seat] += int(ev.get("score", 0))
        elif kind in ("passed", "timed_out"):
            self.actions += 1
        elif kind == "game_ended":
            self.status = "ended"
            self.ended = ev
            adjusted = [a + b for a, b in zip(self.scores, ev.get("adjustments", []), strict=False)]
            if adjusted != list(ev.get("scores", [])):
                self.fail(f"game_ended scores {ev.get('scores')} are not the journal's sums {adjusted}")
            self.scores = list(ev.get("scores", []))
        self._check_conservation(f"event {seq} ({kind})")


@dataclass
class SeatLog:
    """What one scripted connection did and saw."""

    table: str
    name: str
    checker: FrameChecker
    moves_sent: int = 0
    think_ms: list[float] = field(default_factory=list)

    @property
    def failures(self) -> list[str]:
        return self.checker.failures


@dataclass
class TableReport:
    """One game: its seats' logs, the final result seen, and every failure any connection recorded."""

    table: str
    seats: list[SeatLog]
    result: dict[str, Any] | None
    events: int
    actions: int
    seconds: float

    @property
    def failures(self) -> list[str]:
        return [f"table {self.table}: {f}" for s in self.seats for f in s.failures]


def move_frame(move: Move, msg_id: str) -> dict[str, Any]:
    """The client frame that submits ``move``."""
    if isinstance(move, Place):
        return {"type": "place", "id": msg_id, "tiles": [t.to_dict() for t in move.tiles]}
    if isinstance(move, Swap):
        return {"type": "swap", "id": msg_id, "tiles": move.tiles}
    return {"type": "pass", "id": msg_id}


async def suggest_frame(
    driver: MoveGenDriver, view: dict[str, Any], level: str, rng: random.Random, msg_id: str
) -> dict[str, Any]:
    """The client frame a bot of ``level`` would send for the seat whose snapshot view is ``view`` (its move
    is searched in a worker thread). For load benches that run their own clients. Raises BotError."""
    return move_frame(await asyncio.to_thread(driver.choose, view, level, rng), msg_id)


async def play_seat(
    session: aiohttp.ClientSession,
    base_url: str,
    table_id: str,
    *,
    name: str | None,
    driver: MoveGenDriver | None,
    level: str = "strong",
    rng: random.Random | None = None,
    add_bots: Sequence[str] = (),
    start_at: int | None = None,
    joined: asyncio.Event | None = None,
    timeout: float = 600.0,
) -> SeatLog:
    """Join ``table_id`` as ``name`` (None: watch as a spectator), play every turn with ``driver`` at
    ``level`` until the game ends, and return the log.

    Seat 0 may add computer seats (``add_bots``: their levels) and sends ``start`` once ``start_at`` seats
    are taken (below 4: the fourth arrival starts the game by itself). ``joined`` is set after the welcome,
    so callers can seat players in a known order. Raises asyncio.TimeoutError after ``timeout`` seconds and
    aiohttp errors if the relay cannot be reached; invariant breaks are recorded, not raised.
    """
    rng = rng or random.Random()
    checker = FrameChecker()
    log = SeatLog(table_id, name or "(spectator)", checker)
    url = f"{base_url.rstrip('/')}/ws/{table_id}"
    deadline = time.monotonic() + timeout
    async with session.ws_connect(url) as ws:
        last_send = 0.0

        async def send(frame: dict[str, Any]) -> None:
            # Stay under the relay's per-connection rate limit (15 frames/s) however fast the bots play.
            nonlocal last_send
            wait = last_send + MIN_FRAME_GAP - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            last_send = time.monotonic()
            await ws.send_json(frame)

        await send({"type": "join", "id": "j", "name": name} if name else {"type": "watch", "id": "w"})
        start_sent = False
        asked_version: int | None = None  # version of the last resync sent for our turn
        acted_version: int | None = None
        pending: str | None = None  # id of our move awaiting its ack
        counter = 0
        final_asked = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"table {table_id}: seat {checker.me} saw no end after {timeout} s")
            try:
                msg = await ws.receive(timeout=min(left, RESYNC_AFTER))
            except TimeoutError:
                # Quiet for a while: ask again for whatever we were waiting for (a lost frame must not stall).
                asked_version = None
                final_asked = False
                msg = None
            if msg is not None:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    checker.fail(f"socket closed ({msg.type.name}, {ws.close_code}) before the end")
                    break
                frame = json.loads(msg.data)
            else:
                frame = {"type": "idle"}
            kind = frame.get("type")
            checker.on_frame(frame)
            if kind == "welcome":
                checker.me = frame.get("seat")
                for i, lvl in enumerate(add_bots):
                    await send({"type": "add_bot", "id": f"b{i}", "level": lvl})
                if joined is not None:
                    joined.set()
            elif kind == "error":
                checker.fail(f"error {frame.get('code')} for {frame.get('id')}: {frame.get('message')}")
                if frame.get("id") == pending:
                    pending = None
                    await send({"type": "pass", "id": "fallback"})
            elif kind == "rejected":
                checker.fail(f"the generator's move was rejected for words {frame.get('words')}")
                pending = None
                await send({"type": "pass", "id": "fallback"})
            elif kind == "ack" and frame.get("id") == pending:
                pending = None
            if checker.status == "ended":
                if kind == "snapshot":
                    break  # the final snapshot has been checked
                if not final_asked:
                    final_asked = True
                    await send({"type": "resync", "since": checker.seq or 0})
                continue
            me = checker.me
            if (
                me == 0
                and start_at is not None
                and not start_sent
                and checker.status == "waiting"
                and len(checker.racks) >= start_at
            ):
                start_sent = True
                if start_at < 4:
                    await send({"type": "start", "id": "s"})
            if me is None or driver is None or checker.status != "playing" or checker.turn != me or pending:
                continue
            version = checker.seq
            if kind == "snapshot" and frame["view"].get("turn") == me and acted_version != version:
                acted_version = version
                t0 = time.perf_counter()
                move = await asyncio.to_thread(driver.choose, frame["view"], level, rng)
                log.think_ms.append((time.perf_counter() - t0) * 1000)
                counter += 1
                pending = f"m{counter}"
                log.moves_sent += 1
                await send(move_frame(move, pending))
            elif asked_version != version and acted_version != version:
                asked_version = version
                await send({"type": "resync", "since": version or 0})
    return log


async def run_table(
    session: aiohttp.ClientSession,
    base_url: str,
    *,
    driver: MoveGenDriver,
    bots: Sequence[str] = ("strong",),
    scripted: Sequence[str] = (),
    seat0_level: str = "strong",
    spectator: bool = True,
    turn_seconds: int = 120,
    rng: random.Random | None = None,
    timeout: float = 600.0,
) -> TableReport:
    """Create a table over HTTP and play one game to its end: seat 0 scripted at ``seat0_level``, then one
    relay computer seat per level in ``bots`` (``add_bot``), then one scripted seat per level in
    ``scripted``; 2-4 seats in all. A spectator watches too when ``spectator``.

    Raises ValueError for a seat count outside 2-4, aiohttp.ClientResponseError if the table cannot be
    created, and what :func:`play_seat` raises.
    """
    total = 1 + len(bots) + len(scripted)
    if not 2 <= total <= 4:
        raise ValueError(f"a table seats 2-4 players, not {total}")
    rng = rng or random.Random()
    t0 = time.monotonic()
    async with session.post(
        f"{base_url.rstrip('/')}/api/tables", json={"turn_seconds": turn_seconds}
    ) as resp:
        resp.raise_for_status()
        table_id = str((await resp.json())["id"])
    tasks: list[asyncio.Task[SeatLog]] = []
    first = asyncio.Event()
    tasks.append(
        asyncio.create_task(
            play_seat(
                session,
                base_url,
                table_id,
                name="Script 0",
                driver=driver,
                level=seat0_level,
                rng=random.Random(rng.getrandbits(64)),
                add_bots=bots,
                start_at=total,
                joined=first,
                timeout=timeout,
            )
        )
    )
    await asyncio.wait_for(first.wait(), timeout)
    # Let seat 0's add_bot frames land before the next arrivals take their seats.
    await asyncio.sleep(0.05 * len(bots))
    for i, lvl in enumerate(scripted, start=1):
        seated = asyncio.Event()
        tasks.append(
            asyncio.create_task(
                play_seat(
                    session,
                    base_url,
                    table_id,
                    name=f"Script {i}",
                    driver=driver,
                    level=lvl,
                    rng=random.Random(rng.getrandbits(64)),
                    joined=seated,
                    timeout=timeout,
                )
            )
        )
        await asyncio.wait_for(seated.wait(), timeout)
    if spectator:
        tasks.append(
            asyncio.create_task(
                play_seat(session, base_url, table_id, name=None, driver=None, timeout=timeout)
            )
        )
    logs = list(await asyncio.gather(*tasks))
    seat0 = logs[0].checker
    return TableReport(
        table_id,
        logs,
        seat0.ended,
        seat0.events,
        seat0.actions,
        time.monotonic() - t0,
    )
