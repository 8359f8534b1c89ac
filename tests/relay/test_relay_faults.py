"""Races with the clock, a full disk, a long downtime, and the public address behind a reverse proxy."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from relaykit import FakeClock, Player, RunningRelay, create_table, seated_game, settle, start_relay

from relay.config import Config, ConfigError, build_parser, config_from_args

# The sweeper never ticks during these tests: every timeout seen comes from the action path itself.
NO_SWEEPER = 3600.0


def types(relay: RunningRelay, table_id: str) -> list[str]:
    table = relay.referee.tables[table_id]
    return [type(e).__name__ for e in relay.referee.full_state(table).events]


async def test_an_action_read_at_its_deadline_meets_the_table_passing_on_time_first(
    tmp_path: Path, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    relay = await start_relay(tmp_path, clock=clock, tick_seconds=NO_SWEEPER)
    try:
        table_id, (p0, p1) = await seated_game(session, relay, turn_seconds=30)
        clock.advance(29_999)  # one millisecond left: still the player's own move
        assert (await p0.send({"type": "pass"}))["type"] == "ack"
        clock.advance(30_000)  # exactly seat 1's deadline, before any timer tick
        err = await p1.send({"type": "pass"})
        assert err["type"] == "error" and err["code"] == "not_your_turn", err
        assert types(relay, table_id)[-2:] == ["Passed", "TimedOut"]
        timed = [f for f in p1.frames if f["type"] == "event" and f["event"]["type"] == "timed_out"]
        assert len(timed) == 1 and timed[0]["event"]["seat"] == 1
        assert relay.referee.store.events(table_id)[-1].body["type"] == "timed_out"
    finally:
        await relay.stop()


async def test_rejoining_after_the_grace_ran_out_does_not_revive_the_turn(
    tmp_path: Path, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    relay = await start_relay(tmp_path, clock=clock, tick_seconds=NO_SWEEPER)
    try:
        table_id, (p0, p1) = await seated_game(session, relay, turn_seconds=120)
        token = p0.token
        await p0.close()
        await p1.wait_for(lambda f: f["type"] == "clock" and f["clock"]["grace_deadline_ms"] is not None)
        clock.advance(10_000)  # the grace is over, the normal deadline is 110 s away, no timer has ticked
        back = await Player.connect(session, relay, table_id)
        assert (await back.send({"type": "join", "token": token}))["seat"] == 0
        snap = await back.wait_for(lambda f: f["type"] == "snapshot")
        assert snap["view"]["turn"] == 1 and snap["clock"]["turn"] == 1
        assert types(relay, table_id)[-1] == "TimedOut"
        ev = await p1.wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "timed_out")
        assert ev["event"]["seat"] == 0
    finally:
        await relay.stop()


def fill_disk(db: sqlite3.Connection, table_id: str, seq: int) -> None:
    """Make the journal's 'disk' full for real where ``table_id``'s next event goes: cap the file's size,
    then fill the pages around that row's place (filler seqs between seq - 1 and seq, deleted later)."""
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages + 2}")
    with pytest.raises(sqlite3.OperationalError, match="full"):
        for i in range(100_000):
            db.execute(
                "INSERT INTO events (table_id, seq, body) VALUES (?, ?, 'x')", (table_id, seq - 1 / (i + 2))
            )


def free_disk(db: sqlite3.Connection, table_id: str, seq: int) -> None:
    db.execute("PRAGMA max_page_count = 1073741823")
    db.execute("DELETE FROM events WHERE table_id = ? AND seq > ? AND seq < ?", (table_id, seq - 1, seq))


async def test_a_full_disk_acknowledges_nothing_and_play_resumes_when_space_returns(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, (p0, p1) = await seated_game(session, relay)
    table = relay.referee.tables[table_id]
    version = table.state.version
    db = relay.referee.store._db
    fill_disk(db, table_id, version + 1)
    err = await p0.send({"type": "pass"})
    assert err["type"] == "error" and err["code"] == "internal_error"
    assert table.state.version == version and table.state.turn == 0
    # Nothing half-written stays behind: once there is room again, the same action goes through.
    free_disk(db, table_id, version + 1)
    ans = await p0.send({"type": "pass"})
    assert ans == {"type": "ack", "id": ans["id"], "seq": version + 1, "now": ans["now"]}
    await p1.wait_seq(version + 1)
    assert [f["seq"] for f in p1.frames if f["type"] == "event" and f["seq"] > version] == [version + 1]
    assert len(relay.referee.store.events(table_id)) == version + 1


async def test_a_journal_that_cannot_be_written_refuses_new_tables_with_503(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    db = relay.referee.store._db
    db.execute("PRAGMA query_only = 1")  # as a disk remounted read-only
    async with session.post(relay.url + "/api/tables", json={}) as resp:
        assert resp.status == 503
        assert (await resp.json())["code"] == "journal_unavailable"
    assert relay.referee.tables == {}
    db.execute("PRAGMA query_only = 0")
    assert await create_table(session, relay)


async def test_one_table_whose_journal_refuses_a_commit_does_not_stop_the_other_clocks(
    relay: RunningRelay, session: aiohttp.ClientSession, clock: FakeClock
) -> None:
    broken_id, _ = await seated_game(session, relay, turn_seconds=30)
    healthy_id, (_q0, q1) = await seated_game(session, relay, turn_seconds=30)
    broken = relay.referee.tables[broken_id]
    # Someone else wrote this table's next seq: its timeout can never be committed.
    relay.referee.store._db.execute(
        "INSERT INTO events (table_id, seq, body) VALUES (?, ?, '{}')", (broken_id, broken.state.version + 1)
    )
    clock.advance(30_000)
    ev = await q1.wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "timed_out")
    assert ev["event"]["seat"] == 0
    assert types(relay, healthy_id)[-1] == "TimedOut"
    assert types(relay, broken_id)[-1] == "GameStarted"


async def test_after_a_long_downtime_only_the_turn_that_was_running_is_passed(
    tmp_path: Path, session: aiohttp.ClientSession, clock: FakeClock, journal_settings: dict[str, Any]
) -> None:
    relay = await start_relay(tmp_path, clock=clock, **journal_settings)
    table_id, players = await seated_game(session, relay, seats=3, turn_seconds=30)
    token1 = players[1].token
    await relay.stop()
    clock.advance(10 * 30_000)  # ten turn times pass while the relay is down
    restart = clock()
    relay = await start_relay(tmp_path, clock=clock, **journal_settings)
    try:
        await settle(relay)
        # Seat 0's deadline passed while down: the table passes for it once, on restore. Nobody could play
        # during the downtime, so the turns after it start now (not ten passes and a game over).
        assert types(relay, table_id)[-2:] == ["GameStarted", "TimedOut"]
        table = relay.referee.tables[table_id]
        assert table.state.turn == 1
        assert relay.referee.clock(table) == {
            "turn": 1,
            "deadline_ms": restart + 30_000,
            "grace_deadline_ms": restart + 10_000,
        }
        back = await Player.connect(session, relay, table_id)
        assert (await back.send({"type": "join", "token": token1}))["seat"] == 1
        snap = await back.wait_for(lambda f: f["type"] == "snapshot")
        assert snap["clock"] == {"turn": 1, "deadline_ms": restart + 30_000, "grace_deadline_ms": None}
    finally:
        await relay.stop()


async def test_behind_a_reverse_proxy_the_link_uses_the_public_url_and_its_origin_may_connect(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path, public_url="https://lexio.example.org/")
    try:
        # Forwarded headers alone change nothing: any client can send them.
        async with session.post(
            relay.url + "/api/tables",
            json={},
            headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"},
        ) as resp:
            data = await resp.json()
        assert data["link"] == f"https://lexio.example.org/t/{data['id']}"
        ws = await session.ws_connect(
            f"{relay.url}/ws/{data['id']}", headers={"Origin": "https://lexio.example.org"}
        )
        await ws.close()
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(
                f"{relay.url}/ws/{data['id']}", headers={"Origin": "http://lexio.example.org"}
            )
        assert refused.value.status == 403
    finally:
        await relay.stop()


async def test_without_a_public_url_the_link_is_the_request_address(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    async with session.post(
        relay.url + "/api/tables", json={}, headers={"X-Forwarded-Proto": "https"}
    ) as resp:
        data = await resp.json()
    assert data["link"] == f"{relay.url}/t/{data['id']}"


def test_public_url_comes_from_its_flag_or_env_and_must_be_an_http_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LEXIO_PUBLIC_URL", raising=False)
    assert config_from_args(["serve"]).public_url is None
    cfg = config_from_args(["serve", "--public-url", "https://lexio.example.org/"])
    assert cfg.public_url == "https://lexio.example.org"
    assert cfg.public_origin == "https://lexio.example.org"
    monkeypatch.setenv("LEXIO_PUBLIC_URL", "https://Play.Example.org:8443/lexio")
    cfg = config_from_args(["serve"])
    assert cfg.public_url == "https://Play.Example.org:8443/lexio"
    assert cfg.public_origin == "https://play.example.org:8443"
    for bad in ("lexio.example.org", "ftp://x.org", "https://", "https://x.org/?a=1", "https://u:p@x.org"):
        with pytest.raises(ConfigError, match="--public-url"):
            Config(public_url=bad)
    serve = build_parser()._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    assert "--public-url" in serve.format_help()


async def test_a_frame_that_cannot_be_sent_does_not_strand_the_frames_queued_after_it(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, (p0, _p1) = await seated_game(session, relay)
    conn = relay.referee.tables[table_id].conns[0]
    conn.send('{"type": "note", "text": "\ud800"}')  # not encodable as UTF-8: a bug elsewhere, say
    conn.send('{"type": "note", "text": "after"}')
    note = await p0.wait_for(lambda f: f["type"] == "note")
    assert note["text"] == "after"
    assert (await p0.send({"type": "ping"}))["type"] == "pong"
