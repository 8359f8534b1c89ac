"""Accounts across a cluster: nothing about an account lives in one relay's memory (sessions, challenges)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
from accountkit import Browser
from clusterkit import node, stopping
from harness.authenticator import Passkey
from harness.services import RedisServer
from relaykit import Player, create_table

FRONT = "http://localhost:8443"  # what HAProxy would be: every relay serves the same public origin


async def test_a_session_made_on_one_relay_is_valid_on_another_and_a_ceremony_spans_them(
    tmp_path: Path, pg_url: str, redis: RedisServer
) -> None:
    extra = ["--public-url", FRONT]
    a, b = (
        node(tmp_path, "a", pg_url, redis.url, extra=extra),
        node(tmp_path, "b", pg_url, redis.url, extra=extra),
    )
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
