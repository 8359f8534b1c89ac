"""Profiles and history (SQLite and PostgreSQL): one row per seat at a game's end, an account's games are
its claimed seats (a guest's game joins the account made later), stats, head-to-head, my games, and the
history filled in from the journal at start-up."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
from accountkit import Browser
from relaykit import Player, RunningRelay, create_table, play_to_end, start_relay

from relay.accounts.history import SeatResult
from relay.accounts.nicknames import fold
from relay.http.keys import ACCOUNTS_KEY


async def _get(session: aiohttp.ClientSession, url: str) -> tuple[int, dict[str, Any]]:
    async with session.get(url) as resp:
        return resp.status, await resp.json()


async def _recorded(session: aiohttp.ClientSession, url: str) -> tuple[int, dict[str, Any]]:
    """A profile once its last game is in its history: the history is written right after the end is
    committed, and the players may have their last answer (and ask) before that."""
    for _ in range(100):
        status, profile = await _get(session, url)
        if status != 200 or profile["stats"]["games"] == len(profile["games"]) > 0:
            break
        await asyncio.sleep(0.05)
    return status, profile


async def _game(
    site: RunningRelay, sessions: list[aiohttp.ClientSession], names: list[str]
) -> tuple[str, list[Player]]:
    table_id = await create_table(sessions[0], site)
    players = [await Player.connect(s, site, table_id) for s in sessions]
    for p, name in zip(players, names, strict=True):
        await p.join(name)
    assert (await players[0].send({"type": "start"}))["type"] == "ack"
    for p in players:
        await p.wait_seq(players[0].seq)
    return table_id, players


async def test_two_members_game_is_in_both_profiles_with_stats_and_head_to_head(site: RunningRelay) -> None:
    zoe, max_ = Browser.at(site.url), Browser.at(site.url)
    try:
        await zoe.signup("Zoé")
        await max_.signup("Max")
        table_id, players = await _game(site, [zoe.session, max_.session], ["x", "y"])
        status, mine = await _get(zoe.session, site.url + "/api/account/games")
        assert status == 200 and [g["table"] for g in mine["live"]] == [table_id] and mine["recent"] == []
        await play_to_end(players)
        end = players[0].ended
        assert end is not None
        status, profile = await _recorded(zoe.session, site.url + "/api/users/zoe")  # any case, no accent
        assert status == 200 and profile["nickname"] == "Zoé"
        [game] = profile["games"]
        assert game["table"] == table_id and game["replay"] == f"/t/{table_id}"
        assert [p["nickname"] for p in game["players"]] == ["Zoé", "Max"]
        assert game["score"] == end["scores"][0]
        expected = "draw" if len(end["winners"]) > 1 else ("win" if end["winners"] == [0] else "loss")
        assert game["result"] == expected
        stats = profile["stats"]
        assert stats["games"] == 1 and stats["wins"] == (
            end["winners"] == [0]
        )  # a shared top score is a draw
        assert stats["best_score"] == end["scores"][0] and stats["average"] == float(end["scores"][0])
        assert stats["best_play"] is None or stats["best_play"]["score"] > 0
        status, h2h = await _get(max_.session, site.url + "/api/users/Max/versus/Zoé")
        assert status == 200 and h2h["wins"] + h2h["draws"] + h2h["losses"] == 1
        status, mine = await _get(zoe.session, site.url + "/api/account/games")
        assert mine["live"] == [] and [g["table"] for g in mine["recent"]] == [table_id]
        for p in players:
            await p.close()
    finally:
        await zoe.close()
        await max_.close()


async def test_a_guests_finished_game_joins_the_account_made_later(site: RunningRelay) -> None:
    guest, rival = Browser.at(site.url), Browser.at(site.url)
    try:
        table_id, players = await _game(site, [guest.session, rival.session], ["Invitée", "Rival"])
        await play_to_end(players)
        token = players[0].token
        assert token is not None
        answer = await guest.signup("Ancienne", seats=[{"table": table_id, "token": token}])
        assert answer["claimed"] == [{"table": table_id, "seat": 0}]
        status, profile = await _recorded(guest.session, site.url + "/api/users/Ancienne")
        assert status == 200 and [g["table"] for g in profile["games"]] == [table_id]
        assert [p["name"] for p in profile["games"][0]["players"]] == ["Invitée", "Rival"]
        assert [p["nickname"] for p in profile["games"][0]["players"]] == ["Ancienne", None]
        for p in players:
            await p.close()
    finally:
        await guest.close()
        await rival.close()


async def test_the_history_is_filled_in_from_the_journal_at_start_up(
    tmp_path: Path, journal_settings: dict[str, Any]
) -> None:
    relay = await start_relay(tmp_path, account_burst=1000, **journal_settings)
    member, rival = Browser.at(relay.url), Browser.at(relay.url)
    try:
        await member.signup("Patient")
        table_id, players = await _game(relay, [member.session, rival.session], ["a", "b"])
        await play_to_end(players)
        for p in players:
            await p.close()
        db = relay.app[ACCOUNTS_KEY].db
        with db.transaction() as tx:  # as if the relay had stopped between the end and its history
            tx.run("DELETE FROM game_players")
        await relay.stop()
        relay = await start_relay(tmp_path, account_burst=1000, **journal_settings)
        member.url = relay.url
        for _ in range(100):
            _, profile = await _get(member.session, relay.url + "/api/users/Patient")
            if profile.get("games"):
                break
            await asyncio.sleep(0.05)
        assert [g["table"] for g in profile["games"]] == [table_id]
    finally:
        await member.close()
        await rival.close()
        await relay.stop()


async def test_an_unknown_player_or_a_bad_page_is_refused_with_a_code(site: RunningRelay) -> None:
    async with aiohttp.ClientSession() as session:
        status, body = await _get(session, site.url + "/api/users/nobody")
        assert status == 404 and body["code"] == "no_such_player"
        status, body = await _get(session, site.url + "/api/users/" + "x" * 50)
        assert status == 404 and body["code"] == "no_such_player"
        status, body = await _get(session, site.url + "/api/account/games")
        assert status == 401 and body["code"] == "not_signed_in"
    browser = Browser.at(site.url)
    try:
        await browser.signup("Pagée")
        for page in ("-1", "x", "99999999"):
            status, body = await _get(browser.session, site.url + f"/api/users/Pagée?page={page}")
            assert status == 400 and body["code"] == "bad_request"
    finally:
        await browser.close()


async def test_a_shared_top_score_is_a_draw_in_the_games_and_not_a_win_in_the_stats(
    site: RunningRelay,
) -> None:
    one, two = Browser.at(site.url), Browser.at(site.url)
    try:
        await one.signup("Égal")
        await two.signup("Pareil")
        accounts = site.app[ACCOUNTS_KEY]
        ids = [accounts.store.by_nickname(fold(n)).id for n in ("egal", "pareil")]  # type: ignore[union-attr]
        rows = [
            SeatResult("tie", seat, name, None, 120, 1, True, 0, "MOT", 20, 10, 5_000, "lexio")
            for seat, name in ((0, "Égal"), (1, "Pareil"))
        ]
        accounts.profiles.add_results(rows)  # a game both ended on 120: both top scores
        for seat, account_id in enumerate(ids):
            accounts.store.claim_seat("tie", seat, account_id, 5_000)
        for b, name in ((one, "Égal"), (two, "Pareil")):
            _, profile = await _get(b.session, site.url + f"/api/users/{name}")
            assert [g["result"] for g in profile["games"]] == ["draw"]
            assert profile["stats"]["games"] == 1 and profile["stats"]["wins"] == 0
    finally:
        await one.close()
        await two.close()
