"""Deleting an account and exporting its games (SQLite and PostgreSQL): everything of the account goes and
its nickname is free again, the other players keep the games with a deleted player in them, and the export
is one ZIP of the same GCG records as ``GET /api/tables/{id}/gcg``."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from accountkit import Browser
from relaykit import Player, RunningRelay, create_table, play_to_end, wait_until

from engine.gcg import parse_gcg
from relay.http.keys import ACCOUNTS_KEY


@pytest.fixture
async def zoe(new_browser: Callable[[], Browser]) -> Browser:
    return new_browser()


@pytest.fixture
async def max_(new_browser: Callable[[], Browser]) -> Browser:
    return new_browser()


async def _get(session: aiohttp.ClientSession, url: str) -> tuple[int, dict[str, Any]]:
    async with session.get(url) as resp:
        return resp.status, await resp.json()


async def _finished_game(site: RunningRelay, browsers: list[Browser]) -> str:
    table_id = await create_table(browsers[0].session, site)
    players = [await Player.connect(b.session, site, table_id) for b in browsers]
    for i, p in enumerate(players):
        await p.join(f"guest{i}")  # signed in: seated under the nickname whatever is typed
    assert (await players[0].send({"type": "start"}))["type"] == "ack"
    for p in players:
        await p.wait_seq(players[0].seq)
    await play_to_end(players)
    for p in players:
        await p.close()
    db = site.app[ACCOUNTS_KEY].db

    def recorded() -> bool:  # the history is written right after the end's commit, maybe after the last ack
        with db.transaction() as tx:
            return bool(tx.rows("SELECT 1 FROM game_players WHERE table_id = ?", (table_id,)))

    await wait_until(recorded)
    return table_id


def _rows_of(site: RunningRelay, account_id: str) -> dict[str, int]:
    db = site.app[ACCOUNTS_KEY].db
    counts = {}
    with db.transaction() as tx:
        for table in ("accounts", "credentials", "sessions", "recovery_codes", "seat_accounts"):
            column = "id" if table == "accounts" else "account_id"
            counts[table] = int(
                tx.rows(f"SELECT COUNT(*) FROM {table} WHERE {column} = ?", (account_id,))[0][0]
            )
    return counts


# -- deleting ------------------------------------------------------------------------------------------------
async def test_deleting_an_account_removes_its_passkeys_sessions_codes_and_seats_and_frees_the_nickname(
    site: RunningRelay, zoe: Browser, max_: Browser
) -> None:
    answer = await zoe.signup("Zoé")
    account_id = answer["account"]["id"]
    await max_.signup("Max")
    await _finished_game(site, [zoe, max_])
    elsewhere = Browser.at(site.url)
    try:
        assert (await elsewhere.signin(zoe.passkeys[0]))[0] == 200  # a second session, on another device
        token = zoe.session_cookie()
        status, body, resp = await zoe.post("/api/account/delete", {"confirm": "zoe"})  # as nicknames compare
        assert status == 200 and body == {"deleted": "Zoé"}, body
        assert "lexio_session=" in "; ".join(resp.headers.getall("Set-Cookie", []))
        assert zoe.session_cookie() in (None, "")
        assert _rows_of(site, account_id) == dict.fromkeys(
            ("accounts", "credentials", "sessions", "recovery_codes", "seat_accounts"), 0
        )
        # Every session refused: this browser's old cookie and the other device's.
        zoe.session.cookie_jar.update_cookies({"lexio_session": token or ""})
        assert (await zoe.me())[1]["code"] == "not_signed_in"
        assert (await elsewhere.me())[1]["code"] == "not_signed_in"
        # The passkey still in the authenticator signs in to nothing.
        status, body = await elsewhere.signin(zoe.passkeys[0])
        assert status == 401 and body["code"] == "bad_credential"
        assert (await _get(max_.session, site.url + "/api/users/Zoé"))[1]["code"] == "no_such_player"
        status, _, _ = await elsewhere.post("/api/account/signup/options", {"nickname": "ZOE"})
        assert status == 200  # the nickname is free again
    finally:
        await elsewhere.close()


async def test_the_opponent_keeps_the_game_with_a_deleted_player_and_no_link_even_to_a_new_namesake(
    site: RunningRelay, zoe: Browser, max_: Browser
) -> None:
    await zoe.signup("Zoé")
    await max_.signup("Max")
    table_id = await _finished_game(site, [zoe, max_])
    status, _, _ = await zoe.post("/api/account/delete", {"confirm": "Zoé"})
    assert status == 200
    namesake = Browser.at(site.url)
    try:
        await namesake.signup("Zoé")  # somebody else now: the old games are not theirs
        for _ in range(2):
            status, profile = await _get(max_.session, site.url + "/api/users/Max")
            assert status == 200
            [game] = profile["games"]
            assert game["table"] == table_id and profile["stats"]["games"] == 1
            gone, me = game["players"]
            assert gone["deleted"] is True and gone["nickname"] is None
            assert me["deleted"] is False and me["nickname"] == "Max"
            assert (await _get(namesake.session, site.url + "/api/users/Zoé"))[1]["games"] == []
    finally:
        await namesake.close()
    # The journal is never rewritten: the replay and its record still say who sat there.
    async with max_.session.get(f"{site.url}/api/tables/{table_id}/gcg") as resp:
        assert resp.status == 200 and "Zoé" in await resp.text()


@pytest.mark.parametrize("confirm", [None, "", "Zo", "Max", 42, ["Zoé"], "Zoé" * 20])
async def test_a_deletion_not_confirmed_by_the_nickname_is_refused_and_deletes_nothing(
    zoe: Browser, confirm: object
) -> None:
    await zoe.signup("Zoé")
    body = {} if confirm is None else {"confirm": confirm}
    status, answer, _ = await zoe.post("/api/account/delete", body)
    assert status == 400 and answer["code"] == "bad_confirm", answer
    assert (await zoe.me())[0] == 200


async def test_a_deletion_needs_a_session_and_the_sites_own_origin(zoe: Browser, max_: Browser) -> None:
    status, answer, _ = await max_.post("/api/account/delete", {"confirm": "Zoé"})
    assert status == 401 and answer["code"] == "not_signed_in"
    await zoe.signup("Zoé")
    for origin in ("https://evil.example", "null", ""):
        status, answer, _ = await zoe.post("/api/account/delete", {"confirm": "Zoé"}, origin=origin)
        assert status == 403 and answer["code"] == "bad_origin", origin
    assert (await zoe.me())[0] == 200


# -- exporting -----------------------------------------------------------------------------------------------
async def test_the_export_is_a_zip_of_the_accounts_finished_games_as_their_gcg_records(
    site: RunningRelay, zoe: Browser, max_: Browser
) -> None:
    await zoe.signup("Zoé")
    await max_.signup("Max")
    games = [await _finished_game(site, [zoe, max_]), await _finished_game(site, [max_, zoe])]
    live = await create_table(zoe.session, site)
    sitting = await Player.connect(zoe.session, site, live)
    await sitting.join("x")  # a game not finished: not in the export
    await sitting.close()
    async with zoe.session.get(site.url + "/api/account/export") as resp:
        assert resp.status == 200 and resp.content_type == "application/zip"
        disposition = resp.headers["Content-Disposition"]
        data = await resp.read()
    assert 'attachment; filename="lexio-Zoe-games.zip"' in disposition
    assert "filename*=UTF-8''lexio-Zo%C3%A9-games.zip" in disposition
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        assert len(names) == 2
        for name, table_id in zip(names, games, strict=True):  # oldest first
            assert re.fullmatch(rf"\d{{4}}-\d\d-\d\d-{re.escape(table_id)}\.gcg", name), name
            text = archive.read(name).decode()
            record = parse_gcg(text)
            assert sorted(p.nick for p in record.players) == ["Max", "Zoé"] and record.moves
            async with zoe.session.get(f"{site.url}/api/tables/{table_id}/gcg") as resp:
                assert text == await resp.text()  # the same record, racks unrevealed
    async with max_.session.get(site.url + "/api/account/export") as resp:
        with zipfile.ZipFile(io.BytesIO(await resp.read())) as archive:
            assert len(archive.namelist()) == 2  # Max's own copy


async def test_the_export_needs_a_session_and_is_empty_without_games(zoe: Browser) -> None:
    status, answer = await _get(zoe.session, zoe.url + "/api/account/export")
    assert status == 401 and answer["code"] == "not_signed_in"
    await zoe.signup("Neuve")
    async with zoe.session.get(zoe.url + "/api/account/export") as resp:
        assert resp.status == 200
        with zipfile.ZipFile(io.BytesIO(await resp.read())) as archive:
            assert archive.namelist() == []
