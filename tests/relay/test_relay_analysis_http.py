"""The replay viewer's way to the analysis: ``POST /api/tables/{id}/analysis`` with the seat's token.

The same one analysis per seat as the socket's ``analyse`` (served once, whichever way it is asked), private
to the seat: the token names the seat, nobody else gets it."""

from __future__ import annotations

from pathlib import Path

import aiohttp
from relaykit import ended_game, pass_to_end, seated_game, short_wordlist, start_relay

from engine.gcg import parse_gcg
from relay.bots.player import MoveGenDriver


async def test_a_seat_gets_its_analysis_by_token_once_and_nobody_else_does(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path, bot_driver=MoveGenDriver(short_wordlist()))
    try:
        table_id, players = await seated_game(session, relay)
        p0, p1 = players
        url = f"{relay.url}/api/tables/{table_id}/analysis"
        async with session.post(url, json={"token": p0.token}) as r:
            assert r.status == 409 and (await r.json())["code"] == "not_ended"
        first = await p0.send(p0.choose())
        assert first["type"] == "ack", first
        for p in players:
            await p.wait_seq(first["seq"])
        await pass_to_end(players)
        for p in players:
            await p.close()
        async with session.post(url, json={"token": "not-a-token"}) as r:
            assert r.status == 403 and (await r.json())["code"] == "bad_token"
        async with session.post(url, json={}) as r:
            assert r.status == 400 and (await r.json())["code"] == "bad_request"
        async with session.post(url, data=b"[") as r:
            assert r.status == 400
        async with session.post(f"{relay.url}/api/tables/nope/analysis", json={"token": p0.token}) as r:
            assert r.status == 404 and (await r.json())["code"] == "table_not_found"

        async with session.post(url, json={"token": p0.token}, timeout=aiohttp.ClientTimeout(60)) as r:
            assert r.status == 200, await r.text()
            got = await r.json()
        assert got["seat"] == 0
        assert [m["turn"] for m in got["moves"]][:2] == [1, 3]
        assert got["moves"][0]["played"]["kind"] == "place"
        async with session.post(url, json={"token": p0.token}) as r:
            assert r.status == 409 and (await r.json())["code"] == "analysis_used"
        # The other seat's token gives the other seat's own moves, never seat 0's.
        async with session.post(url, json={"token": p1.token}, timeout=aiohttp.ClientTimeout(60)) as r:
            other = await r.json()
        assert other["seat"] == 1 and [m["turn"] for m in other["moves"]][:2] == [2, 4]
    finally:
        await relay.stop()


async def test_a_seats_one_analysis_outlives_the_tables_memory_and_a_restart(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    bots = MoveGenDriver(short_wordlist())
    async with ended_game(tmp_path, session, bot_driver=bots) as (relay, table_id, (p0, p1)):
        for p in (p0, p1):
            await p.close()
        url = f"{relay.url}/api/tables/{table_id}/analysis"
        async with session.post(url, json={"token": p0.token}, timeout=aiohttp.ClientTimeout(60)) as r:
            assert r.status == 200, await r.text()
        # Nobody is connected to the ended table: the collector frees its memory, as it does every tick.
        relay.referee.lifecycle.collect(relay.referee.now_ms())
        assert relay.referee.get(table_id) is None
        async with session.post(url, json={"token": p0.token}) as r:
            assert r.status == 409 and (await r.json())["code"] == "analysis_used"
    relay = await start_relay(tmp_path, bot_driver=MoveGenDriver(short_wordlist()))
    try:
        url = f"{relay.url}/api/tables/{table_id}/analysis"
        async with session.post(url, json={"token": p0.token}) as r:
            assert r.status == 409 and (await r.json())["code"] == "analysis_used"
        async with session.post(url, json={"token": p1.token}, timeout=aiohttp.ClientTimeout(60)) as r:
            assert r.status == 200 and (await r.json())["seat"] == 1
    finally:
        await relay.stop()


async def test_the_record_names_its_table_in_a_gcg_id_pragma(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    async with ended_game(tmp_path, session, bot_driver=None) as (relay, table_id, _):
        async with session.get(f"{relay.url}/api/tables/{table_id}/gcg") as r:
            text = await r.text()
        lines = text.splitlines()
        assert lines[0] == "#character-encoding UTF-8" and lines[1] == f"#id lexio {table_id}"
        assert parse_gcg(text).moves  # still a record the engine reads
