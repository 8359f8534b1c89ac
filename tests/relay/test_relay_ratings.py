"""Rated games on the relay (issue 30; SQLite and PostgreSQL): a rated table is made by a signed-in player and
seats accounts only; the players' ratings and win chances reach every connection; at the end each rating
moves exactly as openskill moves it, once, in the transaction that records the game, however often the end
is replayed (the history's fill-in after a crash included)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from accountkit import Browser
from harness.process import RelayProcess
from relaykit import Player, RunningRelay, create_table, pass_to_end, play_to_end, wait_until

from relay.app import _journal_reader
from relay.http.keys import ACCOUNTS_KEY
from relay.ratings import Rating, SpeedClass, predict_win, rate_game


def _ratings(p: Player) -> list[dict[str, Any]]:
    return [f for f in p.frames if f["type"] == "ratings"]


def _rows(site: RunningRelay) -> dict[str, tuple[float, float, int]]:
    db = site.app[ACCOUNTS_KEY].db
    with db.transaction() as tx:
        rows = tx.rows(
            "SELECT a.nickname, r.mu, r.sigma, r.games FROM ratings r JOIN accounts a ON a.id = r.account_id"
        )
    return {str(r[0]): (float(r[1]), float(r[2]), int(r[3])) for r in rows}


async def _rated_game(
    site: RunningRelay | RelayProcess, zoe: Browser, max_: Browser, *, start: bool = False
) -> tuple[str, list[Player]]:
    """Zoe and Max sign up and sit at a rated rapid table Zoe made (started when ``start``)."""
    await zoe.signup("Zoe")
    await max_.signup("Max")
    table_id = await create_table(zoe.session, site, turn_seconds=60, rated=True)
    players = []
    for b, name in ((zoe, "Zoe"), (max_, "Max")):
        players.append(await Player.connect(b.session, site, table_id))
        await players[-1].join(name)
    if start:
        assert (await players[0].send({"type": "start"}))["type"] == "ack"
        for p in players:
            await p.wait_seq(players[0].seq)
    return table_id, players


async def test_a_rated_game_moves_each_rating_once_as_openskill_does_and_everyone_is_told_the_change(
    site: RunningRelay, new_browser: Callable[[], Browser]
) -> None:
    zoe, max_ = new_browser(), new_browser()
    table_id, players = await _rated_game(site, zoe, max_)
    pz, pm = players
    await pz.wait_for(lambda f: f["type"] == "ratings" and len(f["seats"]) == 2)
    before = _ratings(pz)[-1]
    assert before["speed"] == "rapide" and before["rated"] is True
    even = predict_win([Rating(), Rating()])
    assert [(s["rating"], s["provisional"], s["chance"]) for s in before["seats"]] == [
        (Rating().display, True, round(even[0], 3)),
        (Rating().display, True, round(even[1], 3)),
    ]
    assert (await pz.send({"type": "start"}))["type"] == "ack"
    for p in players:
        await p.wait_seq(pz.seq)
    await play_to_end(players)
    end = await pm.wait_for(lambda f: f["type"] == "ratings" and "change" in f["seats"][0])
    scores = [int(s) for s in pz.ended["scores"]] if pz.ended else []
    expected = rate_game([Rating(), Rating()], scores, pz.ended["at"] / 1000 if pz.ended else 0)
    assert [s["change"] for s in end["seats"]] == [c.display_delta for c in expected]
    assert [s["rating"] for s in end["seats"]] == [c.after.display for c in expected]
    rows = _rows(site)
    for name, change in zip(("Zoe", "Max"), expected, strict=True):
        mu, sigma, games = rows[name]
        assert (mu, sigma, games) == pytest.approx((change.after.mu, change.after.sigma, 1))

    # The end again (a replay): recorded already, nothing moves.
    members = site.referee.services.members
    assert (
        await members.game_ended(table_id, site.referee.services.full_state(site.referee.tables[table_id]))
        == ()
    )
    assert _rows(site) == rows
    # A reload of the end screen gets the same changes, read back from the history.
    back = await Player.connect(zoe.session, site, table_id)
    assert (await back.send({"type": "join", "token": pz.token}))["type"] == "welcome"
    again = await back.wait_for(lambda f: f["type"] == "ratings")
    assert [s["change"] for s in again["seats"]] == [c.display_delta for c in expected]
    for p in (*players, back):
        await p.close()


async def test_a_game_whose_record_was_lost_in_a_crash_is_rated_once_by_the_fill_in_at_start_up(
    site: RunningRelay, new_browser: Callable[[], Browser]
) -> None:
    zoe, max_ = new_browser(), new_browser()
    table_id, players = await _rated_game(site, zoe, max_, start=True)
    await play_to_end(players)
    await wait_until(lambda: len(_rows(site)) == 2)
    rated = _rows(site)
    db = site.app[ACCOUNTS_KEY].db
    with db.transaction() as tx:  # the one transaction the crash lost: history and ratings together
        tx.run("DELETE FROM game_players WHERE table_id = ?", (table_id,))
        tx.run("DELETE FROM ratings")
    members = site.referee.services.members
    assert await members.backfill(_journal_reader(site.referee)) == 1
    assert _rows(site) == rated
    assert await members.backfill(_journal_reader(site.referee)) == 0
    assert _rows(site) == rated
    for p in players:
        await p.close()


async def test_a_rated_table_is_made_by_a_signed_in_player_and_seats_no_guest(
    site: RunningRelay, new_browser: Callable[[], Browser]
) -> None:
    zoe, guest = new_browser(), new_browser()
    async with guest.session.post(site.url + "/api/tables", json={"rated": True}) as resp:
        assert (resp.status, (await resp.json())["code"]) == (401, "not_signed_in")
    async with guest.session.post(site.url + "/api/tables", json={"rated": "yes"}) as resp:
        assert (resp.status, (await resp.json())["code"]) == (400, "bad_request")
    await zoe.signup("Zoe")
    table_id = await create_table(zoe.session, site, turn_seconds=200, rated=True)
    p = await Player.connect(guest.session, site, table_id)
    refused = await p.send({"type": "join", "name": "Guest"})
    assert (refused["type"], refused["code"]) == ("error", "rated_accounts_only")
    async with aiohttp.ClientSession() as s, s.get(f"{site.url}/api/tables/{table_id}") as resp:
        summary = await resp.json()
    assert summary.get("rated") is True and summary.get("speed") == SpeedClass.LENT.value
    await p.close()


async def test_the_leaderboard_lists_active_settled_unbanned_players_best_first_and_my_own_row(
    site: RunningRelay, new_browser: Callable[[], Browser]
) -> None:
    browsers = {name: new_browser() for name in ("Ace", "Bea", "Cub", "Dod", "Eve", "Fay")}
    ids = {}
    for name, b in browsers.items():
        ids[name] = (await b.signup(name))["account"]["id"]
    now = site.referee.now_ms()
    day = 86_400_000
    seeded = {  # mu, sigma, played, games
        "Ace": (32.0, 2.0, now - day, 40),
        "Bea": (29.0, 2.0, now - 2 * day, 30),
        "Cub": (40.0, 7.0, now - day, 3),  # provisional: not listed
        "Dod": (35.0, 2.0, now - 40 * day, 50),  # no rated game in 30 days
        "Eve": (36.0, 2.0, now - day, 60),  # banned below
        "Fay": (27.0, 2.0, now - day, 20),
    }
    db = site.app[ACCOUNTS_KEY].db
    with db.transaction() as tx:
        for name, (mu, sigma, played, games) in seeded.items():
            tx.run(
                "INSERT INTO ratings (account_id, speed, mu, sigma, played_ms, games)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (ids[name], "normal", mu, sigma, played, games),
            )
        tx.run(
            "INSERT INTO bans (id, account_id, address, reason, created_ms, until_ms, lifted_ms)"
            " VALUES ('b1', ?, NULL, 'x', ?, ?, NULL)",
            (ids["Eve"], now, now + day),
        )
    async with browsers["Bea"].session.get(site.url + "/api/leaderboard/normal") as resp:
        board = await resp.json()
    assert [r["nickname"] for r in board["rows"]] == ["Ace", "Bea", "Fay"]
    assert [r["rank"] for r in board["rows"]] == [1, 2, 3]
    ratings = [r["rating"] for r in board["rows"]]
    assert ratings == sorted(ratings, reverse=True)
    assert board["mine"] == board["rows"][1] and board["total"] == 3 and board["more"] is False
    async with aiohttp.ClientSession() as s:
        async with s.get(site.url + "/api/leaderboard/normal") as resp:
            assert (await resp.json())["mine"] is None  # a guest
        async with s.get(site.url + "/api/leaderboard/blitz") as resp:
            assert (resp.status, (await resp.json())["code"]) == (400, "unknown_class")
        async with s.get(site.url + "/api/leaderboard/normal?page=x") as resp:
            assert (resp.status, (await resp.json())["code"]) == (400, "bad_request")
    # A deleted account leaves the board with its ratings.
    assert (await browsers["Ace"].post("/api/account/delete", {"confirm": "Ace"}))[0] == 200
    async with aiohttp.ClientSession() as s, s.get(site.url + "/api/leaderboard/normal") as resp:
        assert [r["nickname"] for r in (await resp.json())["rows"]] == ["Bea", "Fay"]


async def test_a_profile_shows_each_class_rating_and_its_history_for_the_chart(
    site: RunningRelay, new_browser: Callable[[], Browser]
) -> None:
    zoe, max_ = new_browser(), new_browser()
    _, players = await _rated_game(site, zoe, max_, start=True)
    await play_to_end(players)
    await wait_until(lambda: len(_rows(site)) == 2)
    async with aiohttp.ClientSession() as s, s.get(site.url + "/api/users/zoe") as resp:
        profile = await resp.json()
    rating = profile["ratings"]["rapide"]
    assert rating["games"] == 1 and rating["provisional"] is True
    (point,) = profile["rating_history"]
    assert point["speed"] == "rapide" and point["rating"] == rating["rating"] and point["provisional"] is True
    for p in players:
        await p.close()


@pytest.mark.parametrize("delay", [0.0, 0.05])
async def test_a_kill_9_right_after_a_rated_games_end_rates_it_exactly_once(
    proc: RelayProcess, delay: float
) -> None:
    """Whichever side of the history's commit the kill lands, the restarted relay ends with one update."""
    await proc.astart()
    zoe, max_ = Browser.at(proc.url), Browser.at(proc.url)
    try:
        _, players = await _rated_game(proc, zoe, max_, start=True)
        await pass_to_end(players)  # few frames: the process keeps its per-socket frame budget
        await asyncio.sleep(delay)
        proc.kill9()
    finally:
        await zoe.close()
        await max_.close()
    await proc.astart()

    async def games() -> int:
        async with aiohttp.ClientSession() as s, s.get(proc.url + "/api/users/zoe") as resp:
            data = await resp.json()
        return int(data["ratings"].get("rapide", {}).get("games", 0))

    for _ in range(400):  # the fill-in runs once the relay is up (a loaded machine: up to 20 s)
        if await games() == 1:
            break
        await asyncio.sleep(0.05)
    assert await games() == 1
    proc.kill9()
    await proc.astart()  # a second start finds the game recorded: nothing more
    await asyncio.sleep(0.3)
    assert await games() == 1
