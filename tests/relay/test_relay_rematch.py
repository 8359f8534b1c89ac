"""A new table with the same players: after the end, any seat proposes one; everyone at the table is told."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
from relaykit import Player, RunningRelay, create_table, pass_to_end, seated_game, start_relay

import engine


class Passer:
    """A computer player that always passes: the game then ends quickly by the two-rounds rule."""

    def choose(self, view: dict[str, Any], level: str, rng: Any) -> Any:
        return engine.Pass()


def rematch_frames(p: Player) -> list[dict[str, Any]]:
    return [f for f in p.frames if f["type"] == "rematch"]


async def test_a_new_table_cannot_be_proposed_before_the_game_ends(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    _, players = await seated_game(session, relay)
    ans = await players[1].send({"type": "rematch"})
    assert ans["type"] == "error" and ans["code"] == "not_ended", ans
    assert len(relay.referee.tables) == 1
    for p in players:
        await p.close()


async def test_a_spectator_cannot_propose_a_new_table(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, players = await seated_game(session, relay)
    watcher = await Player.connect(session, relay, table_id)
    await watcher.send({"type": "watch"})
    await pass_to_end(players)
    ans = await watcher.send({"type": "rematch"})
    assert ans["type"] == "error" and ans["code"] == "not_a_seat", ans
    assert relay.referee.tables[table_id].rematch is None
    stranger = await Player.connect(session, relay, table_id)
    ans = await stranger.send({"type": "rematch"})
    assert ans["type"] == "error" and ans["code"] == "not_joined", ans
    ans = await players[0].send({"type": "rematch", "table": "x"})
    assert ans["type"] == "error" and ans["code"] == "bad_message", ans


async def test_every_seat_and_spectator_learns_the_one_new_table_with_the_same_settings(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, players = await seated_game(session, relay, turn_seconds=90, public=False)
    watcher = await Player.connect(session, relay, table_id)
    await watcher.send({"type": "watch"})
    await pass_to_end(players)
    asker, other = players[1], players[0]
    ans = await asker.send({"type": "rematch"})
    assert ans["type"] == "ack", ans
    told = [await p.wait_for(lambda f: f["type"] == "rematch") for p in (asker, other, watcher)]
    new_id = told[0]["table"]
    assert new_id != table_id
    for frame in told:
        assert frame["table"] == new_id and frame["by"] == 1
        assert frame["link"] == f"{relay.url}/t/{new_id}"
    # A second request (the other player clicking too) gets the same table back: still one new table.
    ans = await other.send({"type": "rematch"})
    assert ans["type"] == "ack", ans
    assert rematch_frames(other)[-1]["table"] == new_id
    assert len(relay.referee.tables) == 2
    async with session.get(f"{relay.url}/api/tables/{new_id}") as resp:
        summary = await resp.json()
    assert summary["turn_seconds"] == 90 and summary["public"] is False and summary["status"] != "ended"
    async with session.get(f"{relay.url}/api/tables/{table_id}") as resp:
        assert (await resp.json())["rematch"] == {"table": new_id, "link": told[0]["link"], "by": 1}
    # Both players sit down at the new table (the asker first) and can play again.
    newcomers = [await Player.connect(session, relay, new_id) for _ in range(2)]
    assert (await newcomers[0].join("P1"))["seat"] == 0
    assert (await newcomers[1].join("P0"))["seat"] == 1
    assert (await newcomers[0].send({"type": "start"}))["type"] == "ack"
    await newcomers[1].wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "game_started")


async def test_a_player_who_reconnects_after_the_proposal_finds_it_in_the_snapshot(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, players = await seated_game(session, relay)
    await pass_to_end(players)
    gone = players[1]
    token = gone.token
    await gone.close()
    ans = await players[0].send({"type": "rematch"})
    assert ans["type"] == "ack", ans
    new_id = (await players[0].wait_for(lambda f: f["type"] == "rematch"))["table"]
    back = await Player.connect(session, relay, table_id)
    welcome = await back.send({"type": "join", "token": token})
    assert welcome["type"] == "welcome" and welcome["seat"] == 1
    snap = await back.wait_for(lambda f: f["type"] == "snapshot")
    assert snap["rematch"] == {"table": new_id, "link": f"{relay.url}/t/{new_id}", "by": 0}
    assert snap["view"]["status"] == "ended"


async def test_computer_players_are_seated_again_right_after_the_first_arrival(
    tmp_path: Path, session: aiohttp.ClientSession, journal_settings: dict[str, Any]
) -> None:
    relay = await start_relay(tmp_path, bot_driver=Passer(), **journal_settings)
    try:
        table_id = await create_table(session, relay)
        host = await Player.connect(session, relay, table_id)
        await host.join("Host")
        assert (await host.send({"type": "add_bot", "level": "strong"}))["type"] == "ack"
        guest = await Player.connect(session, relay, table_id)
        await guest.join("Guest")
        assert (await host.send({"type": "add_bot", "level": "easy"}))["type"] == "ack"  # full: starts
        for p in (host, guest):
            await p.wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "game_started")
        await guest.wait_seq(host.seq)
        await pass_to_end([host, guest])
        assert (await guest.send({"type": "rematch"}))["type"] == "ack"
        new_id = (await guest.wait_for(lambda f: f["type"] == "rematch"))["table"]
        new = relay.referee.tables[new_id]
        assert new.seat_count() == 0  # nobody is seated before a person arrives
        g2 = await Player.connect(session, relay, new_id)
        await g2.join("Guest")
        seats = [(s.name, s.bot) for s in new.state.seats]
        assert seats == [("Guest", None), ("Robot 1", "strong"), ("Robot 2", "easy")]
        assert new.state.status == "waiting"
        # The person holds seat 0 with their own token; the computer players hold no token.
        assert g2.seat == 0 and new.tokens[0] is not None and new.tokens[1:] == [None, None]
        h2 = await Player.connect(session, relay, new_id)
        await h2.join("Host")
        # Four seated: the table starts by itself, as any full table does.
        await g2.wait_for(lambda f: f["type"] == "event" and f["event"]["type"] == "game_started")
        assert h2.status == "playing" and h2.seat == 3
        assert [s.name for s in new.state.seats] == ["Guest", "Robot 1", "Robot 2", "Host"]
    finally:
        await relay.stop()


async def test_the_proposal_survives_a_restart_of_the_relay(
    tmp_path: Path, session: aiohttp.ClientSession, journal_settings: dict[str, Any]
) -> None:
    relay = await start_relay(tmp_path, **journal_settings)
    try:
        table_id, players = await seated_game(session, relay)
        await pass_to_end(players)
        assert (await players[0].send({"type": "rematch"}))["type"] == "ack"
        new_id = (await players[0].wait_for(lambda f: f["type"] == "rematch"))["table"]
        token = players[1].token
    finally:
        await relay.stop()
    relay = await start_relay(tmp_path, **journal_settings)  # same journal
    try:
        async with session.get(f"{relay.url}/api/tables/{table_id}") as resp:
            assert (await resp.json())["rematch"]["table"] == new_id
        # The finished table is back on a socket: its players see the end and the proposal.
        back = await Player.connect(session, relay, table_id)
        assert (await back.send({"type": "join", "token": token}))["seat"] == 1
        snap = await back.wait_for(lambda f: f["type"] == "snapshot")
        assert snap["rematch"]["table"] == new_id
        ans = await back.send({"type": "rematch"})
        assert ans["type"] == "ack", ans
        assert rematch_frames(back)[-1]["table"] == new_id
        assert new_id in relay.referee.tables  # the new (waiting) table was restored too
    finally:
        await relay.stop()
