"""Post-game analysis: any seat may ask once the game has ended, for its own moves, and is served once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
from relaykit import Player, ended_game, place_once_then_pass_to_end, seated_game, short_wordlist, start_relay

from relay.bots.player import MoveGenDriver


def analysis_frame(p: Player, fid: str) -> dict[str, Any]:
    """The analysis answering request ``fid`` (it comes just before that request's ack)."""
    found = [f for f in p.frames if f["type"] == "analysis" and f.get("id") == fid]
    assert len(found) == 1, p.frames[-3:]
    return found[0]


async def test_the_analysis_is_refused_before_the_end_and_served_once_after(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path, bot_driver=MoveGenDriver(short_wordlist()))
    try:
        table_id, players = await seated_game(session, relay)
        p0, p1 = players
        ans = await p0.send({"type": "analyse"})
        assert ans["type"] == "error" and ans["code"] == "not_ended", ans
        await place_once_then_pass_to_end(players)
        watcher = await Player.connect(session, relay, table_id)
        await watcher.send({"type": "watch"})
        ans = await watcher.send({"type": "analyse"})
        assert ans["type"] == "error" and ans["code"] == "not_a_seat", ans

        ack = await p0.send({"type": "analyse"}, timeout=30)
        assert ack["type"] == "ack", ack
        ans = analysis_frame(p0, ack["id"])
        assert ans["seat"] == 0, ans
        moves = ans["moves"]
        # Seat 0's own turns only: its placement first, then its passes.
        assert [m["played"]["kind"] for m in moves][:2] == ["place", "pass"]
        assert moves[0]["turn"] == 1 and moves[1]["turn"] == 3
        for m in moves:
            assert m["lost"] >= 0
            assert m["best"]["equity"] >= m["played"]["equity"]
            assert m["best"]["kind"] in ("place", "swap", "pass")
        # The placement found on the short list scores at least what the scripted single tiles did.
        assert moves[1]["best"]["kind"] == "place" and moves[1]["lost"] > 0

        again = await p0.send({"type": "analyse"})
        assert again["type"] == "error" and again["code"] == "analysis_used", again
        ack = await p1.send({"type": "analyse"}, timeout=30)
        other = analysis_frame(p1, ack["id"])
        assert other["seat"] == 1
        assert [m["turn"] for m in other["moves"]][:2] == [2, 4]
        for p in [*players, watcher]:
            await p.close()
    finally:
        await relay.stop()


async def test_a_relay_without_a_move_generator_says_so(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    async with ended_game(tmp_path, session, bot_driver=None) as (_, _, players):
        ans = await players[0].send({"type": "analyse"})
        assert ans["type"] == "error" and ans["code"] == "analysis_unavailable", ans


async def test_the_default_driver_analyses_in_its_worker_process(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    from relay.bots.pool import ProcessDriver

    bots = ProcessDriver(short_wordlist())
    relay = await start_relay(tmp_path, bot_driver=bots)
    try:
        _, players = await seated_game(session, relay)
        await place_once_then_pass_to_end(players)
        ack = await players[0].send({"type": "analyse"}, timeout=60)
        moves = analysis_frame(players[0], ack["id"])["moves"]
        assert moves[0]["played"]["kind"] == "place" and all(m["lost"] >= 0 for m in moves)
        for p in players:
            await p.close()
    finally:
        await relay.stop()
        bots.close()


async def test_each_analysed_move_shows_the_rack_the_seat_held_and_only_its_own(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path, bot_driver=MoveGenDriver(short_wordlist()))
    try:
        _, players = await seated_game(session, relay)
        # Each seat's own dealt rack, as the start's event gives it (the others' are never sent to it).
        dealt = []
        for p in players:
            events = [f["event"] for f in p.frames if f["type"] == "event"]
            dealt.append(next(e["rack"] for e in events if e["type"] == "game_started"))
        await place_once_then_pass_to_end(players)
        for seat, p in enumerate(players):
            ack = await p.send({"type": "analyse"}, timeout=30)
            moves = analysis_frame(p, ack["id"])["moves"]
            # The first move of each seat is made with the rack it was dealt.
            assert sorted(moves[0]["rack"]) == sorted(dealt[seat])
            assert sorted(moves[0]["rack"]) != sorted(dealt[1 - seat])
            assert all(isinstance(m["rack"], str) and 0 < len(m["rack"]) <= 7 for m in moves)
        for p in players:
            await p.close()
    finally:
        await relay.stop()
