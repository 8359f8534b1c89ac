"""Full games over the WebSocket, from the first arrival to the end of the game."""

from __future__ import annotations

import aiohttp
import pytest
from relaykit import Player, RunningRelay, create_table, play_to_end, private_strings, scan


@pytest.mark.parametrize("seats", [2, 3, 4])
async def test_full_game_is_played_to_the_end_over_the_websocket(
    relay: RunningRelay, session: aiohttp.ClientSession, seats: int
) -> None:
    table = await create_table(session, relay)
    players = [await Player.connect(session, relay, table) for _ in range(seats)]
    for i, p in enumerate(players):
        welcome = await p.join(f"P{i}")
        assert welcome["seat"] == i
    if seats < 4:
        ans = await players[0].send({"type": "start"})
        assert ans["type"] == "ack", ans
    for p in players:
        await p.wait_seq(players[0].seq)
        assert p.status == "playing"
    await play_to_end(players)
    for p in players:
        await p.wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "game_ended")
    async with session.get(f"{relay.url}/api/tables/{table}/gcg") as resp:
        assert resp.status == 200
        assert "P0" in await resp.text()
    for p in players:
        await p.close()


async def test_no_frame_ever_shows_a_rack_or_the_bag_to_another_seat(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table = await create_table(session, relay)
    players = [await Player.connect(session, relay, table) for _ in range(4)]
    watcher = await Player.connect(session, relay, table)
    await watcher.send({"type": "watch"})
    for i, p in enumerate(players):
        await p.join(f"P{i}")
    for p in players:
        await p.wait_seq(players[0].seq)
    # A rejected play and a reconnection (a fresh snapshot mid-game) are part of what gets scanned.
    on_turn = players[0]
    ans = await on_turn.send(
        {
            "type": "place",
            "tiles": [
                {"sq": sq, "letter": "E" if ch == "?" else ch, "blank": ch == "?"}
                for sq, ch in zip(["G7", "H7", "I7", "J7"], on_turn.rack, strict=False)
            ],
        }
    )
    assert ans["type"] == "rejected", ans
    await play_to_end(players)
    for p in [*players, watcher]:
        await p.wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "game_ended")
    own = private_strings(relay, table)
    total = 0
    for p in players:
        assert p.seat is not None
        for n, frame in enumerate(p.frames):
            scan(frame, own[p.seat], f"seat{p.seat}.frame{n}")
            total += 1
    for n, frame in enumerate(watcher.frames):
        scan(frame, set(), f"watcher.frame{n}")
    assert total > 100
    # At the end every rack is turned face up, for everyone.
    ended = watcher.frames[-1]["event"]
    assert ended["type"] == "game_ended" and len(ended["racks"]) == 4
