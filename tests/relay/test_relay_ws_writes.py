"""How the game socket writes (relay/http/ws.py) and gives memory back (relay/memory.py): one encoded frame
shared by a broadcast's recipients, and a debounced malloc_trim."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp
import pytest
from relaykit import RunningRelay, seated_game
from wsproto.connection import Connection, ConnectionType
from wsproto.events import TextMessage

from relay.http import ws
from relay.memory import Trimmer


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536, 70000])
def test_a_text_frame_is_encoded_as_wsproto_would_and_shared_while_recent(size: int) -> None:
    text = "é" * (size // 2) + "a" * (size % 2)
    assert ws.encode_text(text) == Connection(ConnectionType.SERVER).send(TextMessage(data=text))
    if len(text.encode()) >= 126:
        assert ws.encode_text(text) is ws.encode_text(text)


async def test_a_spectators_broadcast_frames_are_one_object_in_every_queue(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, (p0, _p1) = await seated_game(session, relay)
    watchers = []
    for _ in range(3):
        w = await session.ws_connect(f"{relay.url}/ws/{table_id}", headers={"Origin": relay.url})
        await w.send_str(json.dumps({"type": "watch"}))
        watchers.append(w)
    table = relay.referee.tables[table_id]
    while len(table.watchers) < 3:
        await asyncio.sleep(0.01)
    socks: list[Any] = [c.ws for c in table.watchers]
    for s in socks:
        s.pause_writing()  # as if each peer's buffers were full: frames queue
    frame = json.dumps({"type": "presence", "seats": [], "pad": "x" * 500, "now": 0})
    for c in list(table.watchers):
        c.send(frame)
    queued = [s._out[-1] for s in socks]
    assert all(q is queued[0] for q in queued)  # one bytes object, however many recipients
    for s in socks:
        s.resume_writing()
    for w in watchers:
        await w.close()
    await p0.send({"type": "ping"})


async def test_malloc_trim_runs_once_after_a_burst_of_releases_and_not_more_often_than_its_interval() -> None:
    # Times are measured, not assumed: a loaded machine only stretches the gaps (they are lower bounds).
    trimmer = Trimmer(delay=0.05, min_interval=1.0)
    calls: list[int] = []
    trimmer._trim = calls.append  # type: ignore[assignment]  # counted instead of trimming
    fired: list[float] = []  # when each trim was started (the worker thread may run it later)
    fire = trimmer._fire

    def timed_fire() -> None:
        fired.append(time.monotonic())
        fire()

    trimmer._fire = timed_fire  # type: ignore[method-assign]

    async def until(n: int) -> None:
        for _ in range(1000):
            if trimmer.trims >= n:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"{trimmer.trims} trims, expected {n}")

    burst_start = time.monotonic()
    for _ in range(5):  # a burst of closes: one trim, after the last
        trimmer.released()
    assert calls == []
    await until(1)
    assert fired[0] - burst_start >= 0.049 and calls == [0]
    trimmer.released()  # soon after: waits for the interval
    await until(2)
    assert fired[1] - fired[0] >= 0.99
    await asyncio.sleep(0.1)
    assert calls == [0, 0] and trimmer.trims == 2


def test_malloc_trim_is_found_on_linux_with_glibc() -> None:
    import platform
    import sys

    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        pytest.skip("glibc only")
    assert Trimmer().available
