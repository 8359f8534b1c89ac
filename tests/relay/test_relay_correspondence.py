"""Correspondence play (issue 31), on SQLite and PostgreSQL: tables in days for signed-in players, the sweep
that passes an expired turn (no disconnect grace), across a restart too, the limit of games at once, and
"my games" (whose turn, the time left, the last move, your games first)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from accountkit import Browser
from harness.services import RedisServer
from relaykit import FakeClock, Player, RunningRelay, create_table, start_relay, wait_until

import engine
from relay.accounts.nicknames import fold
from relay.accounts.profiles import CORRESPONDENCE_MAX
from relay.cluster import adoption
from relay.http.keys import ACCOUNTS_KEY
from relay.journal.postgres import PostgresStore

DAY_MS = engine.DAY_SECONDS * 1000


@pytest.fixture
async def days_site(tmp_path: Path, journal_settings: dict[str, Any]) -> AsyncIterator[RunningRelay]:
    """A relay with accounts on each journal, on a fake clock (days pass when the test says so)."""
    running = await start_relay(tmp_path, clock=FakeClock(), account_burst=1000, **journal_settings)
    yield running
    await running.stop()


async def _post(browser: Browser, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    async with browser.session.post(browser.url + "/api/tables", json=body) as resp:
        return resp.status, await resp.json()


async def _my_games(browser: Browser) -> dict[str, Any]:
    async with browser.session.get(browser.url + "/api/account/games") as resp:
        assert resp.status == 200, await resp.text()
        data: dict[str, Any] = await resp.json()
        return data


async def _days_game(site: RunningRelay, a: Browser, b: Browser, days: int = 1) -> tuple[str, list[Player]]:
    """A started game in days between two signed-in players (a's seat 0, b's seat 1)."""
    table_id = await create_table(a.session, site, turn_seconds=days * engine.DAY_SECONDS, public=False)
    players = [await Player.connect(x.session, site, table_id) for x in (a, b)]
    for p in players:
        await p.join("ignored: the nickname is used")
    assert (await players[0].send({"type": "start"}))["type"] == "ack"
    for p in players:
        await p.wait_seq(players[0].seq)
    return table_id, players


async def _zoe_and_max(browsers: Callable[[str], Browser], url: str) -> tuple[Browser, Browser]:
    """Two players signed up on the relay at ``url`` (closed at the end of the test)."""
    zoe, max_ = browsers(url), browsers(url)
    await zoe.signup("Zoé")
    await max_.signup("Max")
    return zoe, max_


def _timeouts(p: Player) -> list[dict[str, Any]]:
    return [f for f in p.frames if f["type"] == "event" and f["event"]["type"] == "timed_out"]


async def test_a_guest_asking_for_a_days_table_and_days_outside_the_list_are_refused_and_nothing_is_made(
    days_site: RunningRelay, browsers: Callable[[str], Browser]
) -> None:
    guest, zoe = browsers(days_site.url), browsers(days_site.url)
    before = len(days_site.referee.tables)
    status, body = await _post(guest, {"turn_seconds": engine.DAY_SECONDS})
    assert status == 401 and body["code"] == "not_signed_in"
    await zoe.signup("Zoé")
    for bad in (4 * engine.DAY_SECONDS, engine.DAY_SECONDS + 1, 3600, 14 * engine.DAY_SECONDS, "86400"):
        status, body = await _post(zoe, {"turn_seconds": bad})
        assert status == 400 and body["code"] == "bad_turn_seconds", bad
    assert len(days_site.referee.tables) == before
    for days in engine.TURN_DAYS:
        status, body = await _post(zoe, {"turn_seconds": days * engine.DAY_SECONDS, "public": days == 7})
        assert status == 201, body
        table = days_site.referee.tables[body["id"]]
        assert table.state.turn_seconds == days * engine.DAY_SECONDS
    async with zoe.session.get(f"{days_site.url}/api/tables/{body['id']}") as resp:
        summary = await resp.json()
    assert summary["speed"] == "correspondance" and summary["turn_seconds"] == 7 * engine.DAY_SECONDS


async def test_a_guest_cannot_take_a_seat_at_a_days_table(
    days_site: RunningRelay, browsers: Callable[[str], Browser]
) -> None:
    zoe, guest = browsers(days_site.url), browsers(days_site.url)
    await zoe.signup("Zoé")
    table_id = await create_table(zoe.session, days_site, turn_seconds=engine.DAY_SECONDS)
    p = await Player.connect(guest.session, days_site, table_id)
    answer = await p.send({"type": "join", "name": "Invitée"})
    assert answer["type"] == "error" and answer["code"] == "not_signed_in"
    assert days_site.referee.tables[table_id].seat_count() == 0
    await p.close()


async def test_the_sweep_passes_an_expired_days_turn_without_a_disconnect_grace_and_two_rounds_end_the_game(
    days_site: RunningRelay, browsers: Callable[[str], Browser]
) -> None:
    clock = days_site.clock
    assert clock is not None
    zoe, max_ = await _zoe_and_max(browsers, days_site.url)
    table_id, players = await _days_game(days_site, zoe, max_)
    lifecycle = days_site.referee.lifecycle
    # Swept by its deadline, never scanned with the tables timed in seconds.
    assert table_id in lifecycle.deadlines and table_id not in days_site.referee.tables.timed
    await players[0].close()  # seat 0, on turn, goes away: a correspondence player normally is
    await wait_until(lambda: 0 in days_site.referee.tables[table_id].away_since)
    clock.advance(DAY_MS - 60_000)  # far past the disconnect grace, a minute before the deadline
    await asyncio.sleep(0.2)
    assert _timeouts(players[1]) == [] and days_site.referee.tables[table_id].state.turn == 0
    for n in range(1, engine.scoreless_limit(2) + 1):
        clock.advance(DAY_MS if n > 1 else 60_000)
        await players[1].wait_for(lambda f, n=n: len(_timeouts(players[1])) >= n, timeout=5)
    end = await players[1].wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "game_ended")
    assert end["event"]["reason"] == "scoreless"
    assert [f["event"]["seat"] for f in _timeouts(players[1])] == [0, 1, 0, 1]
    assert table_id not in lifecycle.deadlines
    await players[1].close()


async def test_a_relay_restarted_after_the_deadline_ends_the_turn(
    tmp_path: Path, journal_settings: dict[str, Any], browsers: Callable[[str], Browser]
) -> None:
    clock = FakeClock()
    site = await start_relay(tmp_path, clock=clock, account_burst=1000, **journal_settings)
    try:
        zoe, max_ = await _zoe_and_max(browsers, site.url)
        table_id, players = await _days_game(site, zoe, max_, days=2)
        for p in players:
            await p.close()
    finally:
        await site.stop()
    clock.advance(3 * DAY_MS)  # down while the deadline passed
    site = await start_relay(tmp_path, clock=clock, account_burst=1000, **journal_settings)
    try:
        await wait_until(lambda: site.referee.tables[table_id].state.turn == 1)
        st = site.referee.tables[table_id].state
        assert st.status == "playing" and st.turns_played == 1
        # The time-out happened at the restart: the next deadline runs two days from then.
        assert site.referee.clock(site.referee.tables[table_id])["deadline_ms"] == clock() + 2 * DAY_MS
    finally:
        await site.stop()


async def test_a_player_sits_at_fifty_games_in_days_at_most_at_creation_and_at_join(
    days_site: RunningRelay, browsers: Callable[[str], Browser]
) -> None:
    zoe, max_ = await _zoe_and_max(browsers, days_site.url)
    players: list[Player] = []
    try:
        for _ in range(CORRESPONDENCE_MAX):
            table_id = await create_table(max_.session, days_site, turn_seconds=engine.DAY_SECONDS)
            players.append(await Player.connect(zoe.session, days_site, table_id))
            await players[-1].join("Zoé")
        accounts = days_site.app[ACCOUNTS_KEY]
        zoe_id = accounts.store.by_nickname(fold("zoe")).id  # type: ignore[union-attr]
        # The seat is the account's once claimed, just after the welcome: wait for the last claim.
        await wait_until(lambda: accounts.profiles.correspondence_count(zoe_id) == CORRESPONDENCE_MAX)
        status, body = await _post(zoe, {"turn_seconds": 3 * engine.DAY_SECONDS})
        assert status == 409 and body["code"] == "too_many_games"
        table_id = await create_table(max_.session, days_site, turn_seconds=engine.DAY_SECONDS)
        extra = await Player.connect(zoe.session, days_site, table_id)
        answer = await extra.send({"type": "join", "name": "Zoé"})
        assert answer["type"] == "error" and answer["code"] == "too_many_games"
        assert days_site.referee.tables[table_id].seat_count() == 0
        # Games timed in minutes are not counted.
        fast = await create_table(zoe.session, days_site, turn_seconds=120)
        minutes = await Player.connect(zoe.session, days_site, fast)
        await minutes.join("Zoé")
        players += [extra, minutes]
    finally:
        for p in players:
            await p.close()


async def test_my_games_says_whose_turn_the_time_left_the_last_move_and_puts_your_turn_first(
    days_site: RunningRelay, browsers: Callable[[str], Browser]
) -> None:
    clock = days_site.clock
    assert clock is not None
    zoe, max_ = await _zoe_and_max(browsers, days_site.url)
    first, one = await _days_game(days_site, zoe, max_, days=1)
    clock.advance(1000)
    second, two = await _days_game(days_site, zoe, max_, days=3)
    clock.advance(1000)
    assert (await two[0].send({"type": "pass"}))["type"] == "ack"  # Zoé passes: Max's turn there
    clock.advance(1000)
    mine = await _my_games(zoe)
    assert [g["table"] for g in mine["live"]] == [first, second] and mine["your_turn"] == 1
    waiting, other = mine["live"]
    assert waiting["your_turn"] and waiting["turn_name"] == "Zoé" and waiting["correspondence"]
    assert waiting["time_left_ms"] == DAY_MS - 3000 and waiting["last_move"] is None
    assert other["turn_name"] == "Max" and not other["your_turn"]
    assert other["last_move"]["kind"] == "pass" and other["last_move"]["name"] == "Zoé"
    assert other["time_left_ms"] == 3 * DAY_MS - 1000
    assert [p["score"] for p in other["players"]] == [0, 0]
    theirs = await _my_games(max_)
    assert [g["table"] for g in theirs["live"]] == [second, first] and theirs["your_turn"] == 1
    # A placement: who played what, for how many points (never a rack).
    p = one[0]
    move = p.choose()
    ack = await p.send(move)
    assert ack["type"] == "ack"
    mine = await _my_games(zoe)
    placed = next(g for g in mine["live"] if g["table"] == first)["last_move"]
    assert placed["name"] == "Zoé"
    if move["type"] == "place":
        assert placed["kind"] == "place" and placed["word"] and placed["score"] > 0
    assert mine["your_turn"] == 0 and mine["live"][0]["table"] == first  # the newest activity first
    for x in (*one, *two):
        await x.close()


async def test_a_drained_relays_days_game_is_adopted_by_another_that_sweeps_its_deadline_unattended(
    tmp_path: Path,
    pg_url: str,
    redis: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
    browsers: Callable[[str], Browser],
) -> None:
    """Two relays of one cluster on one clock. A days game owned by A, whose players went away, is not
    taken while A lives; once A drains (its tables released), B adopts it although nobody connects, and
    B's sweeper passes the turn when the day is over."""
    monkeypatch.setattr(adoption, "ADOPT_SECONDS", 0.2)
    clock = FakeClock()

    async def cluster_node(name: str) -> RunningRelay:
        (tmp_path / name).mkdir()
        return await start_relay(
            tmp_path / name,
            clock=clock,
            account_burst=1000,
            journal_url=pg_url,
            bus_url=redis.url,
            node_name=name,
        )

    a, b = await cluster_node("a"), await cluster_node("b")
    stopped: list[RunningRelay] = []
    try:
        zoe, max_ = await _zoe_and_max(browsers, a.url)
        table_id, players = await _days_game(a, zoe, max_)
        for p in players:
            await p.close()
        await asyncio.sleep(1.0)  # five looks by B: a game its live owner serves is not B's to take
        assert table_id in a.referee.tables and table_id not in b.referee.tables
        await a.stop()  # SIGTERM's drain: every table released
        stopped.append(a)
        await wait_until(lambda: table_id in b.referee.tables, timeout=10)
        adopted = b.referee.tables[table_id]
        assert adopted.state.turn == 0 and table_id in b.referee.lifecycle.deadlines
        clock.advance(DAY_MS)
        await wait_until(lambda: b.referee.tables[table_id].state.turn == 1, timeout=10)
        st = b.referee.tables[table_id].state
        assert st.status == "playing" and st.turns_played == 1
        store = b.referee.store
        assert isinstance(store, PostgresStore)
        last = store.events(table_id)[-1].body
        assert last["type"] == "timed_out" and last["seat"] == 0, last
    finally:
        for node in (a, b):
            if node not in stopped:
                await node.stop()
