"""Computer players seated with add_bot play through the same referee path as people."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import pytest
from relaykit import Player, create_table, short_wordlist, start_relay

bots = pytest.importorskip("relay.bots")


class Broken:
    """A driver whose every call fails: the relay must pass for the bot rather than stall the table."""

    def choose(self, view: dict[str, Any], level: str, rng: Any) -> Any:
        raise RuntimeError("no move today")


async def test_a_bot_added_by_the_first_seat_plays_real_moves_to_the_end(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path, bot_driver=bots.driver(short_wordlist()))
    try:
        table_id = await create_table(session, relay)
        host = await Player.connect(session, relay, table_id)
        await host.join("Host")
        ans = await host.send({"type": "add_bot", "level": "medium"})
        assert ans["type"] == "ack", ans
        table = relay.referee.tables[table_id]
        assert table.state.seats[1].bot == "medium"
        assert (await host.send({"type": "start"}))["type"] == "ack"
        # The host plays scripted moves; the bot answers on its own through the referee.
        while table.status != "ended":
            if table.state.turn == 0:
                await host.wait_seq(table.state.version)
                ans = await host.send(host.choose())
                assert ans["type"] == "ack", ans
            else:
                await host.wait_seq(table.state.version + 1, timeout=20)
        events = relay.referee.full_state(table).events
        placed = [e for e in events if type(e).__name__ == "Placed" and e.seat == 1]
        assert placed, "the bot never placed a word"
    finally:
        await relay.stop()


async def test_a_failing_bot_driver_passes_for_the_bot(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path, bot_driver=Broken())
    try:
        table_id = await create_table(session, relay)
        host = await Player.connect(session, relay, table_id)
        await host.join("Host")
        await host.send({"type": "add_bot", "level": "easy"})
        guest = await Player.connect(session, relay, table_id)
        await guest.join("Guest")
        assert (await host.send({"type": "start"}))["type"] == "ack"
        table = relay.referee.tables[table_id]
        ans = await host.send({"type": "pass"})
        assert ans["type"] == "ack"
        ev = await host.wait_for(
            lambda f: f["type"] == "event" and f["event"]["type"] == "passed" and f["event"]["seat"] == 1
        )
        assert ev["clock"]["turn"] == 2
        assert table.state.turn == 2
    finally:
        await relay.stop()


async def test_only_the_first_seat_adds_bots_before_the_start(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path, bot_driver=Broken())
    try:
        table_id = await create_table(session, relay)
        a = await Player.connect(session, relay, table_id)
        await a.join("A")
        b = await Player.connect(session, relay, table_id)
        await b.join("B")
        err = await b.send({"type": "add_bot", "level": "easy"})
        assert err["code"] == "not_first_seat"
        assert (await a.send({"type": "start"}))["type"] == "ack"
        err = await a.send({"type": "add_bot", "level": "easy"})
        assert err["code"] == "already_started"
    finally:
        await relay.stop()


async def test_a_bot_gets_a_free_name_even_when_a_person_took_robot_1(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path, bot_driver=Broken())
    try:
        table_id = await create_table(session, relay)
        host = await Player.connect(session, relay, table_id)
        await host.join("Robotte")  # a person may not be called "Robot …" (engine rule)
        assert (await host.send({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        assert (await host.send({"type": "add_bot", "level": "strong"}))["type"] == "ack"
        names = [s.name for s in relay.referee.tables[table_id].state.seats]
        assert names == ["Robotte", "Robot 1", "Robot 2"]
    finally:
        await relay.stop()
