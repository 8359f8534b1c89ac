"""Accounts across a cluster: nothing about an account lives in one relay's memory (sessions, challenges)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
from accountkit import Browser
from clusterkit import node, stopping
from harness.authenticator import Passkey
from harness.process import RelayProcess
from harness.services import RedisServer
from relaykit import Player, create_table

from relay.accounts import admin

FRONT = "http://localhost:8443"  # what HAProxy would be: every relay serves the same public origin


def _front_pair(tmp_path: Path, pg_url: str, redis: RedisServer) -> tuple[RelayProcess, RelayProcess]:
    """Two relays of one cluster (not started) behind the same public origin."""
    extra = ["--public-url", FRONT]
    return node(tmp_path, "a", pg_url, redis.url, extra=extra), node(
        tmp_path, "b", pg_url, redis.url, extra=extra
    )


async def test_a_session_made_on_one_relay_is_valid_on_another_and_a_ceremony_spans_them(
    tmp_path: Path, pg_url: str, redis: RedisServer
) -> None:
    a, b = _front_pair(tmp_path, pg_url, redis)
    with stopping(a, b):
        await asyncio.gather(a.astart(), b.astart())
        browser = Browser.at(a.url)
        browser.origin = FRONT
        try:
            await browser.signup("Nomade")  # on relay A
            browser.url = b.url  # the front sends the next requests to B: same site, same cookie
            status, me = await browser.me()
            assert status == 200 and me["account"]["nickname"] == "Nomade"
            # A ceremony begun on B is finished on A: its challenge is in PostgreSQL, not in B's memory.
            status, options, _ = await browser.post("/api/account/passkeys/options")
            assert status == 200
            credential = Passkey(browser.rp_id).create(options["publicKey"], FRONT)
            browser.url = a.url
            status, added, _ = await browser.post(
                "/api/account/passkeys", {"ceremony": options["ceremony"], "credential": credential}
            )
            assert status == 201, added
            # Through a socket relayed from B to the table's owner A, a guest is refused the nickname and
            # the signed-in player sits as themself (the edge passes who the cookie names).
            table_id = await create_table(browser.session, a)
            other = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
            try:
                guest = await Player.connect(other, a, table_id)  # A claims the table
                answer = await guest.send({"type": "join", "name": "nomade"})
                assert answer["type"] == "error" and answer["code"] == "name_registered"
                await guest.join("Voyageuse")
                member = await Player.connect(browser.session, b, table_id)  # relayed to A
                await member.join("anything")
                seats = next(f for f in member.frames if f["type"] == "snapshot")["view"]["seats"]
                assert [s["name"] for s in seats] == ["Voyageuse", "Nomade"]
                assert "account" not in seats[0] and seats[1]["account"] is True
                await member.close()
                await guest.close()
            finally:
                await other.close()
            assert (await browser.post("/api/account/signout-all"))[0] == 200
            browser.url = b.url
            assert (await browser.me())[0] == 401  # signed out on A: on B too
        finally:
            await browser.close()


async def test_a_block_made_on_one_relay_and_a_hosts_ban_hold_on_every_relay(
    tmp_path: Path, pg_url: str, redis: RedisServer
) -> None:
    a, b = _front_pair(tmp_path, pg_url, redis)
    with stopping(a, b):
        await asyncio.gather(a.astart(), b.astart())
        zoe, max_ = Browser.at(a.url), Browser.at(b.url)
        zoe.origin = max_.origin = FRONT
        try:
            await zoe.signup("Zoe")
            await max_.signup("Max")
            zoe.url = b.url  # Zoe's block goes through B; the table is A's
            assert (await zoe.post("/api/account/blocks", {"nickname": "Max"}))[0] == 201
            table_id = await create_table(zoe.session, a)
            pz = await Player.connect(zoe.session, a, table_id)
            await pz.join("Zoe")
            pm = await Player.connect(max_.session, b, table_id)  # relayed to A
            await pm.join("Max")
            assert (await pm.send({"type": "chat", "text": "hidden"}))["type"] == "ack"
            assert (await pz.send({"type": "chat", "text": "seen"}))["type"] == "ack"
            await pm.wait_for(lambda f: f["type"] == "chat" and f["message"]["text"] == "seen")
            assert not any(f["type"] == "chat" and f["message"]["text"] == "hidden" for f in pz.frames)

            ban = ["--db", pg_url, "ban", "--account", "max", "--for", "1h", "--reason", "insults"]
            assert admin.main(ban) == 0
            refused = await pm.send({"type": "chat", "text": "again"})
            assert (refused["code"], refused["params"]["reason"]) == ("banned", "insults")
            other = await create_table(max_.session, b)
            pm2 = await Player.connect(max_.session, a, other)  # B's table, relayed from A
            refused = await pm2.send({"type": "join", "name": "Max"})
            assert refused["code"] == "banned"
            for p in (pz, pm, pm2):
                await p.close()
        finally:
            await zoe.close()
            await max_.close()
