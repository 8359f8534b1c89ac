from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from accountkit import Browser
from buskit import redis_server
from harness.process import RelayProcess
from pgcluster import PostgresCluster
from relaykit import FakeClock, RunningRelay, start_relay, write_short_lexicon

from relay import logs as relay_logs
from relay.journal.postgres import PostgresStore

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def fresh_log_throttle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test its own budget of client-fault log lines: the relay's is one per process, and a test that
    counts lines must not find it spent by the tests run before it in the same worker."""
    monkeypatch.setattr(relay_logs, "_client_throttle", relay_logs.Throttle())


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


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PostgresCluster]:
    """One throw-away PostgreSQL server for the whole session (started on first use)."""
    cluster = PostgresCluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: PostgresCluster) -> str:
    """A fresh, empty database on the session's server."""
    return pg_cluster.new_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def journal_settings(request: pytest.FixtureRequest) -> dict[str, Any]:
    """start_relay overrides that run a test on each journal: the SQLite file in its tmp_path (none), or a
    fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return {}
    return {"journal_url": request.getfixturevalue("pg_url")}


# A redis-server per test (harness.services.RedisServer); a module shares one with
# ``pytest.fixture(scope=...)``.
redis = pytest.fixture(redis_server, name="redis")


@pytest.fixture
def nodes(pg_url: str) -> Iterator[tuple[PostgresStore, PostgresStore]]:
    """Two cluster nodes' stores on the test's PostgreSQL schema."""
    a, b = PostgresStore(pg_url, node_id="node-a"), PostgresStore(pg_url, node_id="node-b")
    try:
        yield a, b
    finally:
        a.close()
        b.close()


@pytest.fixture
async def site(tmp_path: Path, journal_settings: dict[str, Any]) -> AsyncIterator[RunningRelay]:
    """A relay with accounts, on each journal (SQLite, then PostgreSQL): a test using it runs on both."""
    running = await start_relay(tmp_path, account_burst=1000, **journal_settings)
    yield running
    await running.stop()


@pytest.fixture
async def browsers() -> AsyncIterator[Callable[[str], Browser]]:
    """Opens browser profiles (each its own cookies) on a relay's address; all closed at the end of the
    test."""
    opened: list[Browser] = []

    def new(url: str) -> Browser:
        opened.append(Browser.at(url))
        return opened[-1]

    yield new
    for b in opened:
        await b.close()


@pytest.fixture
def new_browser(site: RunningRelay, browsers: Callable[[str], Browser]) -> Callable[[], Browser]:
    """Opens browser profiles on ``site`` (closed at the end of the test)."""
    return lambda: browsers(site.url)


@pytest.fixture(params=["sqlite", "postgresql"])
async def proc(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[RelayProcess]:
    """The relay as a process, on each journal: the SQLite file, or a fresh PostgreSQL schema."""
    write_short_lexicon(tmp_path / "short.txt")
    db = str(tmp_path / "lexio.sqlite3") if request.param == "sqlite" else request.getfixturevalue("pg_url")
    p = RelayProcess(
        [
            "--db",
            db,
            "--lexicon",
            str(tmp_path / "short.txt"),
            "--static",
            str(tmp_path / "nostatic"),
            "--test-seed",
            "3",
            "--tick-seconds",
            "0.05",
            "--log-json",
        ],
        log=tmp_path / "relay.log",
        env={**os.environ, "PYTHONPATH": str(REPO), "LEXIO_ALLOW_TEST_SEED": "1"},
        cwd=tmp_path,
        start_timeout=10,
    )
    try:
        yield p
    finally:
        p.stop()
