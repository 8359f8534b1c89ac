from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from relaykit import FakeClock, RunningRelay, start_relay


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def relay(tmp_path: Path, clock: FakeClock) -> AsyncIterator[RunningRelay]:
    running = await start_relay(tmp_path, clock=clock)
    try:
        yield running
    finally:
        await running.stop()


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s
