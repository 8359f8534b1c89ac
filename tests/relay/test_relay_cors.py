"""CORS on /api/*: a site hosted apart from the relay (web/build.py --relay) may call the HTTP API, for
exactly the origins that may open game sockets (--allow-origin, --public-url's origin); nobody else; never
static files.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from relaykit import RunningRelay, start_relay

SITE = "https://site.example"
PUBLIC = "https://lexio.example.org"
OTHER = "https://evil.example"
ACAO = "Access-Control-Allow-Origin"


@pytest.fixture
async def cors_relay(tmp_path: Path) -> AsyncIterator[RunningRelay]:
    static = tmp_path / "dist"
    static.mkdir()
    (static / "index.html").write_text("<!doctype html><title>Lexio</title>", "utf-8")
    (static / "app.js").write_text("1;", "utf-8")
    running = await start_relay(tmp_path, static=static, allow_origins=(SITE,), public_url=PUBLIC + "/lexio")
    try:
        yield running
    finally:
        await running.stop()


async def test_an_allowed_origin_may_create_and_list_tables(
    cors_relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    for origin in (SITE, PUBLIC):
        headers = {"Origin": origin}
        async with session.post(
            cors_relay.url + "/api/tables", json={"turn_seconds": 60}, headers=headers
        ) as r:
            assert r.status == 201
            assert r.headers[ACAO] == origin
            assert "Origin" in r.headers.get("Vary", "")
            table = (await r.json())["id"]
        for path in ("/api/tables", f"/api/tables/{table}", "/api/tables/nope"):
            async with session.get(cors_relay.url + path, headers=headers) as r:
                assert r.headers[ACAO] == origin, path
                # COOP/COEP stay on API answers too.
                assert r.headers["Cross-Origin-Embedder-Policy"] == "require-corp"


async def test_the_preflight_of_a_json_post_is_granted_to_an_allowed_origin(
    cors_relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    headers = {
        "Origin": SITE,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    }
    async with session.options(cors_relay.url + "/api/tables", headers=headers) as r:
        assert r.status == 204
        assert r.headers[ACAO] == SITE
        assert "POST" in r.headers["Access-Control-Allow-Methods"]
        assert "GET" in r.headers["Access-Control-Allow-Methods"]
        assert "content-type" in r.headers["Access-Control-Allow-Headers"].lower()


async def test_other_origins_get_no_cors_grant(
    cors_relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    for origin in (OTHER, "null", SITE + ".evil.example", "http://site.example"):
        headers = {"Origin": origin}
        async with session.get(cors_relay.url + "/api/tables", headers=headers) as r:
            assert ACAO not in r.headers, origin
        async with session.options(
            cors_relay.url + "/api/tables",
            headers={**headers, "Access-Control-Request-Method": "POST"},
        ) as r:
            assert r.status == 403 and ACAO not in r.headers, origin
            assert "Access-Control-Allow-Methods" not in r.headers
    # Same-host pages need no CORS (and get none).
    async with session.get(cors_relay.url + "/api/tables") as r:
        assert ACAO not in r.headers


async def test_static_files_never_carry_cors_headers(
    cors_relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    for path in ("/", "/app.js", "/t/abc", "/healthz", "/metrics"):
        async with session.get(cors_relay.url + path, headers={"Origin": SITE}) as r:
            assert r.status == 200, path
            assert ACAO not in r.headers, path


async def test_without_allowed_origins_the_api_grants_nobody(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    async with session.get(relay.url + "/api/tables", headers={"Origin": SITE}) as r:
        assert ACAO not in r.headers
    async with session.options(relay.url + "/api/tables", headers={"Origin": SITE}) as r:
        assert r.status == 403 and ACAO not in r.headers
