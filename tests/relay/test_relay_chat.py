"""Table chat over the game socket (issue 12, point 5; docs/protocol.md "chat"): channels, limits,
refusal codes, persistence across a restart, and that a message never touches the game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
from relaykit import FakeClock, Player, RunningRelay, create_table, seated_game, start_relay

from engine.gcg import write_gcg


async def _watcher(session: aiohttp.ClientSession, relay: Any, table_id: str) -> Player:
    w = await Player.connect(session, relay, table_id)
    ans = await w.send({"type": "watch"})
    assert ans["type"] == "welcome" and ans["seat"] is None
    return w


def _chats(p: Player) -> list[dict[str, Any]]:
    return [f["message"] for f in p.frames if f["type"] == "chat"]


def _history(p: Player) -> list[dict[str, Any]]:
    frames = [f for f in p.frames if f["type"] == "chat_history"]
    assert frames, "no chat_history after the welcome"
    return list(frames[-1]["messages"])


async def test_seats_and_watchers_channels_reach_everyone_apart_and_change_no_game(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, (a, b) = await seated_game(session, relay)
    w = await _watcher(session, relay, table_id)
    seq = a.seq
    events_before = len(relay.referee.store.events(table_id))
    frames_before = [len(p.frames) for p in (a, b)]
    ans = await a.send({"type": "chat", "text": "  bonne   partie\n!  "})
    assert ans["type"] == "ack" and ans["seq"] == seq  # the game's seq: unchanged
    for p in (a, b, w):
        msg = await p.wait_for(lambda f: f["type"] == "chat")
        assert msg["message"]["channel"] == "seats"
        assert msg["message"]["seat"] == 0 and msg["message"]["name"] == "P0"
        assert msg["message"]["text"] == "bonne partie !"
    ans = await w.send({"type": "chat", "text": "allez P1", "name": "Zoé"})
    assert ans["type"] == "ack"
    for p in (a, b, w):
        msg = await p.wait_for(lambda f: f["type"] == "chat" and f["message"]["channel"] == "watchers")
        assert msg["message"]["seat"] is None and msg["message"]["name"] == "Zoé"
    # Never a game event: the journal and the GCG record hold no chat.
    assert len(relay.referee.store.events(table_id)) == events_before
    assert all(f["type"] != "event" for p, n in zip((a, b), frames_before, strict=True) for f in p.frames[n:])
    table = relay.referee.get(table_id)
    assert table is not None
    record = write_gcg(table.state, reveal=True)
    assert "partie" not in record and "allez" not in record


async def test_limits_and_refusal_codes(relay: RunningRelay, session: aiohttp.ClientSession) -> None:
    clock = relay.clock
    assert isinstance(clock, FakeClock)
    _table, (a, _b) = await seated_game(session, relay)
    assert (await a.send({"type": "chat", "text": "x" * 200}))["type"] == "ack"
    too_long = await a.send({"type": "chat", "text": "x" * 201})
    assert too_long["code"] == "chat_too_long" and too_long["params"]["max"] == 200
    assert (await a.send({"type": "chat", "text": " \n\t "}))["code"] == "chat_empty"
    assert (await a.send({"type": "chat", "text": "a\u0007b"}))["code"] == "chat_unprintable"
    assert (await a.send({"type": "chat", "text": 5}))["code"] == "bad_message"
    assert (await a.send({"type": "chat", "text": "hi", "seat": 1}))["code"] == "bad_message"
    # 5 per 10 s per connection (the accepted 200-character one counts).
    for _ in range(4):
        assert (await a.send({"type": "chat", "text": "ok"}))["type"] == "ack"
    clock.advance(3_000)
    limited = await a.send({"type": "chat", "text": "one more"})
    assert limited["code"] == "chat_rate_limited" and limited["params"]["retry_ms"] == 7_000
    clock.advance(7_000)
    assert (await a.send({"type": "chat", "text": "now fine"}))["type"] == "ack"
    # Escaping is the client's job: the relay keeps and sends the text as written.
    hostile = '<img src=x onerror="alert(1)"> & <b>'
    clock.advance(10_000)
    assert (await a.send({"type": "chat", "text": hostile}))["type"] == "ack"
    got = await a.wait_for(lambda f: f["type"] == "chat" and f["message"]["text"] == hostile)
    assert got["message"]["text"] == hostile


async def test_chat_before_joining_is_refused(relay: RunningRelay, session: aiohttp.ClientSession) -> None:
    table_id = await create_table(session, relay)
    p = await Player.connect(session, relay, table_id)
    assert (await p.send({"type": "chat", "text": "hello"}))["code"] == "not_joined"


async def test_watchers_of_a_private_table_may_chat_only_once_it_starts(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    private = await create_table(session, relay, turn_seconds=60, public=False)
    a = await Player.connect(session, relay, private)
    await a.join("Ann")
    w = await _watcher(session, relay, private)
    assert (await w.send({"type": "chat", "text": "hi"}))["code"] == "chat_closed"
    assert (await a.send({"type": "chat", "text": "seats may"}))["type"] == "ack"
    b = await Player.connect(session, relay, private)
    await b.join("Bea")
    assert (await a.send({"type": "start"}))["type"] == "ack"
    await w.wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "game_started")
    assert (await w.send({"type": "chat", "text": "hi now"}))["type"] == "ack"
    public = await create_table(session, relay, turn_seconds=60, public=True)
    c = await Player.connect(session, relay, public)
    await c.join("Cy")
    w2 = await _watcher(session, relay, public)
    assert (await w2.send({"type": "chat", "text": "hello"}))["type"] == "ack"


async def test_the_last_100_per_channel_survive_a_restart_and_come_with_the_welcome(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    clock = FakeClock()
    relay = await start_relay(tmp_path, clock=clock)
    try:
        table_id, (a, b) = await seated_game(session, relay)
        w = await _watcher(session, relay, table_id)
        for i in range(103):
            clock.advance(2_001)
            assert (await a.send({"type": "chat", "text": f"m{i}"}))["type"] == "ack"
        assert (await w.send({"type": "chat", "text": "watching"}))["type"] == "ack"
        token = b.token
        for p in (a, b, w):
            await p.close()
    finally:
        await relay.stop()
    relay = await start_relay(tmp_path, clock=clock)  # the same SQLite file
    try:
        back = await Player.connect(session, relay, table_id)
        ans = await back.send({"type": "join", "token": token})
        assert ans["type"] == "welcome"
        await back.wait_for(lambda f: f["type"] == "chat_history")
        history = _history(back)
        seats = [m["text"] for m in history if m["channel"] == "seats"]
        assert seats == [f"m{i}" for i in range(3, 103)]
        assert [m["text"] for m in history if m["channel"] == "watchers"] == ["watching"]
        assert [m["id"] for m in history] == sorted(m["id"] for m in history)
        # A watcher arriving later gets the same history.
        w = await _watcher(session, relay, table_id)
        await w.wait_for(lambda f: f["type"] == "chat_history")
        assert len(_history(w)) == 101
        assert not _chats(w)
    finally:
        await relay.stop()
