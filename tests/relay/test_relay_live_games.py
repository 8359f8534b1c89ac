"""The lobby's games to watch (issue 27, point 13): public games in progress with players, scores, move
number and watchers, the most watched first; private games and tables still waiting are not among them.
Cluster mode: tests/relay/test_relay_cluster.py."""

from __future__ import annotations

from typing import Any

import aiohttp
from relaykit import Player, RunningRelay, create_table, seated_game

from relay.http.lobby import rank_live


async def live(session: aiohttp.ClientSession, relay: RunningRelay) -> list[dict[str, Any]]:
    async with session.get(relay.url + "/api/tables") as r:
        assert r.status == 200
        return list((await r.json())["live"])


async def test_public_games_in_progress_are_listed_with_players_scores_move_and_watchers_top_game_first(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    quiet, quiet_players = await seated_game(session, relay, turn_seconds=60, public=True)
    watched, players = await seated_game(session, relay, turn_seconds=90, public=True)
    _private, private_players = await seated_game(session, relay, turn_seconds=60, public=False)
    waiting = await create_table(session, relay, turn_seconds=60, public=True)
    host = await Player.connect(session, relay, waiting)
    await host.join("Hôte")
    # Two turns are played at the watched table (a pass each), and someone watches it.
    for p in players:
        ans = await p.send({"type": "pass"})
        assert ans["type"] == "ack", ans
    fan = await Player.connect(session, relay, watched)
    assert (await fan.send({"type": "watch"}))["type"] == "welcome"
    games = await live(session, relay)
    ids = [g["id"] for g in games]
    assert ids == [watched, quiet], "the watched game is the top game; private and waiting ones are absent"
    top = games[0]
    assert [(s["name"], s["bot"], s["score"]) for s in top["seats"]] == [("P0", None, 0), ("P1", None, 0)]
    assert top["move"] == 3 and top["watchers"] == 1 and top["turn_seconds"] == 90 and top["turn"] == 0
    assert games[1]["move"] == 1 and games[1]["watchers"] == 0
    for p in [*quiet_players, *players, *private_players, host, fan]:
        await p.close()


def test_the_top_game_is_the_most_watched_then_the_highest_scores_then_the_newest() -> None:
    def game(gid: str, watchers: int | None, *scores: int) -> dict[str, Any]:
        return {"id": gid, "watchers": watchers, "seats": [{"score": s} for s in scores]}

    newest_first = [game("a", 0, 10, 5), game("b", None, 40, 2), game("c", 2, 0, 0), game("d", 0, 30, 12)]
    assert [g["id"] for g in rank_live(newest_first)] == ["c", "b", "d", "a"]


async def test_the_top_game_is_chosen_among_all_games_in_progress_not_only_the_newest_twenty(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    old, _ = await seated_game(session, relay, turn_seconds=60, public=True)
    fan = await Player.connect(session, relay, old)
    assert (await fan.send({"type": "watch"}))["type"] == "welcome"
    for _ in range(20):  # twenty newer games, nobody watching them
        await seated_game(session, relay, turn_seconds=60, public=True)
    games = await live(session, relay)
    assert len(games) == 20 and games[0]["id"] == old and games[0]["watchers"] == 1
    assert games[0]["move"] == 1  # counted by the fold: no journal read per listed game
