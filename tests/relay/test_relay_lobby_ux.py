"""What the lobby and the table tell a newcomer (issue 11): the open list forgets abandoned tables, everyone
learns how many watch, seat 0 removes a computer player, and a person cannot pass for one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from relaykit import FakeClock, Player, RunningRelay, create_table, short_wordlist, start_relay

bots = pytest.importorskip("relay.bots")


async def listed(session: aiohttp.ClientSession, relay: RunningRelay) -> list[str]:
    async with session.get(relay.url + "/api/tables") as r:
        return [t["id"] for t in (await r.json())["tables"]]


async def until(pred: Any, timeout: float = 5.0) -> None:
    async def poll() -> None:
        while not pred():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


async def test_a_public_table_nobody_is_connected_to_leaves_the_open_list_within_30_s(
    relay: RunningRelay, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    never = await create_table(session, relay, turn_seconds=60, public=True)
    left = await create_table(session, relay, turn_seconds=60, public=True)
    kept = await create_table(session, relay, turn_seconds=60, public=True)
    gone = await Player.connect(session, relay, left)
    await gone.join("Gone")
    stays = await Player.connect(session, relay, kept)
    await stays.join("Stays")
    # Long after creation, a connected host keeps the table listed.
    clock.advance(10 * 60 * 1000)
    assert {left, kept} <= set(await listed(session, relay)) and never not in await listed(session, relay)
    await gone.ws.close()
    table = relay.referee.tables[left]
    await until(lambda: not table.conns)
    # A reload is not an abandonment: the table stays a few seconds...
    clock.advance(5_000)
    assert left in await listed(session, relay)
    # ...but not 30.
    clock.advance(25_000)
    ids = await listed(session, relay)
    assert left not in ids and kept in ids


async def test_a_table_nobody_sits_at_is_never_listed_and_leaves_the_list_as_soon_as_its_creator_leaves(
    relay: RunningRelay, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    """Issue 27: a nameless table ("— 4 free seats") offers nobody to play with."""
    table_id = await create_table(session, relay, turn_seconds=60, public=True)
    assert table_id not in await listed(session, relay)
    host = await Player.connect(session, relay, table_id)
    await host.join("Hôte")
    assert table_id in await listed(session, relay)
    await host.send({"type": "leave", "id": "l1"})
    await until(lambda: relay.referee.tables[table_id].seat_count() == 0)
    assert table_id not in await listed(session, relay)


async def test_players_and_watchers_learn_how_many_watch(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id = await create_table(session, relay)
    host = await Player.connect(session, relay, table_id)
    await host.join("Host")
    snap = next(f for f in host.frames if f["type"] == "snapshot")
    assert snap["watchers"] == 0
    fan = await Player.connect(session, relay, table_id)
    ans = await fan.send({"type": "watch"})
    assert ans["type"] == "welcome" and ans["seat"] is None
    snap = await fan.wait_for(lambda f: f["type"] == "snapshot")
    assert snap["watchers"] == 1
    told = await host.wait_for(lambda f: f["type"] == "watchers")
    assert told["count"] == 1 and isinstance(told["now"], int)
    second = await Player.connect(session, relay, table_id)
    await second.send({"type": "watch"})
    await host.wait_for(lambda f: f["type"] == "watchers" and f["count"] == 2)
    await fan.wait_for(lambda f: f["type"] == "watchers" and f["count"] == 2)
    # A watcher who takes a seat no longer watches; one who leaves is no longer counted.
    await fan.join("Fan")
    await host.wait_for(lambda f: f["type"] == "watchers" and f["count"] == 1)
    await second.ws.close()
    await host.wait_for(lambda f: f["type"] == "watchers" and f["count"] == 0)


async def test_seat_0_removes_a_computer_player_but_not_a_person_and_nobody_else_may(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path, bot_driver=bots.driver(short_wordlist()))
    try:
        table_id = await create_table(session, relay)
        host = await Player.connect(session, relay, table_id)
        await host.join("Host")
        guest = await Player.connect(session, relay, table_id)
        await guest.join("Guest")
        assert (await host.send({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        table = relay.referee.tables[table_id]
        names = [s.name for s in table.state.seats]
        assert names == ["Host", "Guest", "Robot 1"]
        not_bot = await host.send({"type": "remove_bot", "seat": 1})
        assert not_bot["type"] == "error" and not_bot["code"] == "not_a_bot"
        by_guest = await guest.send({"type": "remove_bot", "seat": 2})
        assert by_guest["type"] == "error" and by_guest["code"] == "not_first_seat"
        bad = await host.send({"type": "remove_bot", "seat": "2"})
        assert bad["type"] == "error" and bad["code"] == "bad_message"
        ans = await host.send({"type": "remove_bot", "seat": 2})
        assert ans["type"] == "ack", ans
        assert [s.name for s in table.state.seats] == ["Host", "Guest"]
        left = await guest.wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "seat_left")
        assert left["event"]["seat"] == 2
    finally:
        await relay.stop()


@pytest.mark.parametrize("name", ["Robot 1", "robot", "ROBOT fort", "  Robot 3 "])
async def test_a_person_cannot_take_a_computer_players_name(
    relay: RunningRelay, session: aiohttp.ClientSession, name: str
) -> None:
    table_id = await create_table(session, relay)
    p = await Player.connect(session, relay, table_id)
    ans = await p.send({"type": "join", "name": name})
    assert ans["type"] == "error" and ans["code"] == "bad_name" and ans["params"]["reason"] == "reserved"
    # The same socket may try again with another name.
    assert (await p.send({"type": "join", "name": "Roboticist"}))["type"] == "welcome"
