"""The front (HAProxy, rendered from relay/deploy/haproxy.cfg.in) in front of three real relays: every request
naming a table — its socket, its API, its page — reaches the one relay the table id hashes to; requests
without a table go round robin; when that relay's health check fails, its tables (and only its) move to
the others and its open sockets are cut, and they come back when it is healthy again."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest
from harness.process import RelayProcess, free_port
from harness.services import HAProxy, ServiceUnavailable
from relaykit import Player, create_table, write_short_lexicon

REPO = Path(__file__).resolve().parents[2]
NAMES = ("r1", "r2", "r3")
HEADER = "X-Lexio-Relay"


class Front:
    def __init__(self, haproxy: HAProxy, relays: dict[str, RelayProcess]) -> None:
        self.haproxy, self.relays = haproxy, relays

    @property
    def url(self) -> str:
        return self.haproxy.url

    def wait_state(self, name: str, state: str, timeout: float = 10.0) -> float:
        """Seconds until HAProxy reports relay ``name`` as ``state`` (UP or DOWN)."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.haproxy.server_states().get(name, "").split(" ")[0] == state:
                return time.monotonic() - t0
            time.sleep(0.05)
        raise AssertionError(f"{name} not {state} after {timeout} s: {self.haproxy.server_states()}")


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Front]:
    tmp = tmp_path_factory.mktemp("front")
    write_short_lexicon(tmp / "short.txt")
    front_port = free_port()
    relays = {
        name: RelayProcess(
            [
                "--db",
                str(tmp / f"{name}.sqlite3"),
                "--lexicon",
                str(tmp / "short.txt"),
                "--static",
                str(tmp / "nostatic"),
                "--public-url",
                f"http://127.0.0.1:{front_port}",
                "--trusted-proxy",
                "127.0.0.1",
            ],
            log=tmp / f"{name}.log",
            env={**os.environ, "PYTHONPATH": str(REPO)},
            cwd=tmp,
            start_timeout=20,
        )
        for name in NAMES
    }
    haproxy: HAProxy | None = None
    try:
        for r in relays.values():
            r.start()
        haproxy = HAProxy([(name, r.port) for name, r in relays.items()], port=front_port)
        haproxy.start()
        f = Front(haproxy, relays)
        for name in NAMES:
            f.wait_state(name, "UP")
        yield f
    except ServiceUnavailable as err:
        pytest.fail(str(err))
    finally:
        if haproxy is not None:
            haproxy.cleanup()
        for r in relays.values():
            if r.proc is not None and r.proc.poll() is None:
                r.proc.send_signal(signal.SIGCONT)
            r.stop()


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


async def served_by(session: aiohttp.ClientSession, front: Front, table_id: str) -> str:
    """The relay that answered every kind of request for ``table_id`` (asserting it is one relay)."""
    seen: set[str] = set()
    for path in (f"/api/tables/{table_id}", f"/api/tables/{table_id}/gcg", f"/t/{table_id}",
                 f"/t/{table_id}/replay", f"/ws/{table_id}"):  # fmt: skip
        async with session.get(front.url + path, headers={"Origin": front.url}) as resp:
            seen.add(resp.headers[HEADER])
    # A WebSocket upgrade (a relay that does not know the table refuses it with 404: it answered).
    try:
        async with session.ws_connect(f"{front.url}/ws/{table_id}", headers={"Origin": front.url}) as ws:
            assert ws._response is not None
            seen.add(ws._response.headers[HEADER])
    except aiohttp.WSServerHandshakeError as refused:
        assert refused.status == 404 and refused.headers is not None
        seen.add(refused.headers[HEADER])
    assert len(seen) == 1, f"table {table_id} was served by {seen}"
    return seen.pop()


async def test_requests_naming_a_table_reach_one_relay_and_the_others_go_round_robin(
    front: Front, session: aiohttp.ClientSession
) -> None:
    creators = []
    tables = []
    for _ in range(9):
        async with session.post(front.url + "/api/tables", json={"turn_seconds": 60}) as resp:
            assert resp.status == 201
            creators.append(resp.headers[HEADER])
            tables.append((await resp.json())["id"])
    # Round robin: each relay created three of nine tables.
    assert sorted(creators) == sorted(NAMES * 3)
    homes = {t: await served_by(session, front, t) for t in tables}
    # Ids unknown to every relay hash too (a 404 comes from the relay they hash to).
    homes |= {f"nosuch{i}": await served_by(session, front, f"nosuch{i}") for i in range(12)}
    assert set(homes.values()) == set(NAMES), homes
    # Stable: asking again gives the same relay.
    for t, home in list(homes.items())[:6]:
        assert await served_by(session, front, t) == home


async def test_a_relay_failing_its_health_check_loses_only_its_tables_and_gets_them_back(
    front: Front, session: aiohttp.ClientSession
) -> None:
    homes = {f"x{i}": await served_by(session, front, f"x{i}") for i in range(30)}
    victim = "r2"
    assert victim in homes.values()
    # A game socket open through the front on a table of the victim.
    relay = front.relays[victim]
    for _ in range(40):
        table_id = await create_table(session, relay)
        if await served_by(session, front, table_id) == victim:
            break
    else:
        raise AssertionError("no table id hashed to the victim in 40 tries")
    player = await Player.connect(session, front, table_id)
    await player.join("Ada")
    assert player.seat is not None

    assert relay.proc is not None
    relay.proc.send_signal(signal.SIGSTOP)  # its /healthz stops answering
    try:
        down_after = await asyncio.to_thread(front.wait_state, victim, "DOWN")
        # Three failed checks 500 ms apart, each failing after its 2 s timeout.
        assert down_after < 9.0
        # Its socket was cut when the relay was marked down: the client reconnects through the front.
        assert player.reader is not None
        await asyncio.wait_for(player.reader, 3.0)
        assert player.ws.closed
        moved = {t: await served_by(session, front, t) for t in homes}
        for t, home in homes.items():
            if home == victim:
                assert moved[t] != victim, t
            else:
                assert moved[t] == home, f"{t} moved from live {home} to {moved[t]}"
    finally:
        relay.proc.send_signal(signal.SIGCONT)
    await asyncio.to_thread(front.wait_state, victim, "UP")
    back = {t: await served_by(session, front, t) for t in homes}
    assert back == homes
