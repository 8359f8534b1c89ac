"""HTTP: table API, health, metrics, static headers, the SPA fallback; the word list is never served."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from multidict import CIMultiDict
from relaykit import Player, RunningRelay, create_table, play_to_end, seated_game, start_relay

from relay.config import parse_networks

ISOLATION = {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp"}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "dist"
    runtime = root / "runtime" / "pyodide-314.0.7"
    runtime.mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>Lexio</title>", "utf-8")
    (root / "app.mjs").write_text("export const x = 1;\n", "utf-8")
    (root / "main.py").write_text("print('hi')\n", "utf-8")
    (root / "config.json").write_text("{}", "utf-8")
    (runtime / "pyodide.asm.wasm").write_bytes(b"\0asm\1\0\0\0")
    big = "const s = '" + "lexio " * 2000 + "';\n"
    (root / "big.js").write_text(big, "utf-8")
    (root / "big.js.gz").write_bytes(gzip.compress(big.encode()))
    # Only the headers are checked for brotli (no brotli codec in the test environment).
    (runtime / "pyodide.asm.wasm.br").write_bytes(b"BROTLI-PLACEHOLDER")
    (root / ".secret").write_text("no", "utf-8")
    return root


@pytest.fixture
async def web_relay(tmp_path: Path, site: Path) -> Any:
    relay = await start_relay(tmp_path, static=site)
    yield relay
    await relay.stop()


async def test_create_table_returns_an_unguessable_id_and_a_link(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    async with session.post(relay.url + "/api/tables", json={"turn_seconds": 45, "public": False}) as r:
        assert r.status == 201
        body = await r.json()
    assert len(body["id"]) >= 22  # 128 random bits, url-safe base64
    assert body["link"] == f"{relay.url}/t/{body['id']}"
    async with session.post(relay.url + "/api/tables", json={}) as r:
        other = (await r.json())["id"]
    assert other != body["id"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"turn_seconds": 29}, "bad_turn_seconds"),
        ({"turn_seconds": 601}, "bad_turn_seconds"),
        ({"turn_seconds": "60"}, "bad_turn_seconds"),
        ({"public": "yes"}, "bad_request"),
        ({"colour": "red"}, "bad_request"),
        ([1], "bad_request"),
        ({"variant": "chess"}, "unknown_variant"),
    ],
)
async def test_create_table_validates_its_settings(
    relay: RunningRelay, session: aiohttp.ClientSession, body: Any, code: str
) -> None:
    async with session.post(relay.url + "/api/tables", json=body) as r:
        assert r.status == 400
        assert (await r.json())["code"] == code
    assert relay.referee.tables == {}


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b'{"turn_seconds": ' + b"7" * 5000 + b"}", "bad_request"),  # past Python's int-parsing limit
        (b"[" * 5000, "bad_request"),  # nested deeper than the JSON parser recurses
        (b"\xff\xfe{}", "bad_request"),
        (b'{"turn_seconds": 1e999}', "bad_turn_seconds"),
        (b'{"turn_seconds": 1' + b"0" * 100 + b"}", "bad_turn_seconds"),
    ],
)
async def test_create_table_answers_pathological_bodies_with_400(
    relay: RunningRelay, session: aiohttp.ClientSession, raw: bytes, code: str
) -> None:
    headers = {"Content-Type": "application/json"}
    async with session.post(relay.url + "/api/tables", data=raw, headers=headers) as r:
        assert r.status == 400
        body = await r.json()
    assert body["code"] == code and len(body["message"]) < 200
    assert relay.referee.tables == {}


async def test_only_public_waiting_tables_are_listed(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    public = await create_table(session, relay, turn_seconds=60, public=True)
    host = await Player.connect(session, relay, public)
    await host.join("Hôte")  # a table nobody sits at is not listed (issue 27)
    private = await create_table(session, relay, turn_seconds=60, public=False)
    started, _ = await seated_game(session, relay)
    async with session.get(relay.url + "/api/tables") as r:
        ids = [t["id"] for t in (await r.json())["tables"]]
    assert public in ids and private not in ids and started not in ids
    async with session.get(f"{relay.url}/api/tables/{private}") as r:
        assert r.status == 200 and (await r.json())["public"] is False


async def test_table_summary_and_gcg_before_the_end(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, _ = await seated_game(session, relay)
    async with session.get(f"{relay.url}/api/tables/{table_id}") as r:
        summary = await r.json()
    assert summary["status"] == "playing" and [s["name"] for s in summary["seats"]] == ["P0", "P1"]
    assert "rack" not in str(summary)
    async with session.get(f"{relay.url}/api/tables/{table_id}/gcg") as r:
        assert r.status == 409 and (await r.json())["code"] == "game_not_finished"
    async with session.get(f"{relay.url}/api/tables/nope/gcg") as r:
        assert r.status == 404


async def test_health_and_metrics(relay: RunningRelay, session: aiohttp.ClientSession) -> None:
    _table_id, (p0, p1) = await seated_game(session, relay)
    await p1.send({"type": "pass"})
    await p0.send({"type": "pass"})
    async with session.get(relay.url + "/healthz") as r:
        health = await r.json()
    assert health["ok"] is True and health["tables"] == 1 and health["sockets"] == 2
    async with session.get(relay.url + "/metrics") as r:
        text = await r.text()
    assert 'lexio_tables{state="playing"} 1' in text
    assert "lexio_sockets 2" in text
    assert 'lexio_actions_total{type="pass"} 1' in text
    assert 'lexio_rejections_total{code="not_your_turn"} 1' in text
    assert "lexio_action_latency_seconds_bucket" in text and "lexio_action_latency_seconds_count" in text


async def test_static_files_have_their_mime_types_and_isolation_headers(
    web_relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    expected = {
        "/": "text/html",
        "/app.mjs": "text/javascript",
        "/main.py": "text/x-python",
        "/config.json": "application/json",
        "/runtime/pyodide-314.0.7/pyodide.asm.wasm": "application/wasm",
    }
    for path, mime in expected.items():
        async with session.get(web_relay.url + path) as r:
            assert r.status == 200, path
            assert r.headers["Content-Type"].startswith(mime), (path, r.headers["Content-Type"])
            for k, v in ISOLATION.items():
                assert r.headers[k] == v
            assert r.headers["Cross-Origin-Resource-Policy"] == "same-origin"


async def test_cache_policy_immutable_runtime_and_no_cache_index(
    web_relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    async with session.get(web_relay.url + "/runtime/pyodide-314.0.7/pyodide.asm.wasm") as r:
        assert r.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    for path in ("/", "/index.html", "/t/abc"):
        async with session.get(web_relay.url + path) as r:
            assert r.headers["Cache-Control"] == "no-cache"


async def test_precompressed_sibling_is_served_when_accepted(
    web_relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    async with session.get(
        web_relay.url + "/big.js", headers={"Accept-Encoding": "gzip"}, auto_decompress=False
    ) as r:
        raw = await r.read()
        assert r.headers["Content-Encoding"] == "gzip"
        assert r.headers["Content-Type"].startswith("text/javascript")
        assert gzip.decompress(raw).startswith(b"const s")
    wasm = "/runtime/pyodide-314.0.7/pyodide.asm.wasm"
    async with session.get(
        web_relay.url + wasm, headers={"Accept-Encoding": "br, gzip"}, auto_decompress=False
    ) as r:
        assert r.headers["Content-Encoding"] == "br"
        assert r.headers["Content-Type"] == "application/wasm"
        assert r.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert await r.read() == b"BROTLI-PLACEHOLDER"
    async with session.get(web_relay.url + "/big.js", headers={"Accept-Encoding": "identity"}) as r:
        assert "Content-Encoding" not in r.headers
        assert (await r.read()).startswith(b"const s")


async def test_spa_routes_serve_index_and_unknown_files_are_404(
    web_relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    async with session.get(web_relay.url + "/t/SomeTableId") as r:
        assert r.status == 200 and "<title>Lexio</title>" in await r.text()
    for path in ("/missing.js", "/.secret", "/api/nothing"):
        async with session.get(web_relay.url + path) as r:
            assert r.status == 404, path
            assert r.headers["Cross-Origin-Opener-Policy"] == "same-origin"


async def test_the_word_list_is_never_served(web_relay: RunningRelay, session: aiohttp.ClientSession) -> None:
    repo = Path(__file__).resolve().parents[2]
    lexicon_files = [p.name for p in (repo / "lexicons").glob("*")] or ["fr.txt.gz"]
    probes = [f"/lexicons/{n}" for n in lexicon_files] + [
        "/../lexicons/fr.txt.gz",
        "/%2e%2e/lexicons/fr.txt.gz",
        "/..%2flexicons%2ffr.txt.gz",
        "/static/../../lexicons/fr.txt.gz",
        "/api/words",
        "/api/lexicon",
        "/api/check?word=MAISON",
        "/api/tables/x/check",
        "/fr.txt.gz",
    ]
    for path in probes:
        async with session.get(web_relay.url + path) as r:
            body = await r.read()
            assert r.status in (404, 405) or b"<title>Lexio</title>" in body, path
            assert b"MAISON" not in body.upper() or b"<title>" in body
    # No route answers "is this a word" outside a submitted play: only the WebSocket place frame looks up.
    routes = {r.resource.canonical for r in web_relay.app.router.routes() if r.resource is not None}
    accounts = {"/api/account", "/api/account/games"} | {
        "/api/users/{nickname}",
        "/api/users/{nickname}/versus/{other}",
        "/api/leaderboard/{speed}",
        "/api/push/key",
    } | {
        f"/api/account/{p}"
        for p in ("signup/options", "signup", "signin/options", "signin", "signout", "signout-all", "claim",
                  "passkeys/options", "passkeys", "passkeys/rename", "passkeys/remove", "recover/options",
                  "recover", "delete", "export", "blocks", "blocks/remove", "push", "push/remove")
    }  # fmt: skip
    assert routes - accounts == {
        "/api/tables",
        "/api/tables/{table_id}",
        "/api/tables/{table_id}/gcg",
        "/api/tables/{table_id}/analysis",
        "/healthz",
        "/metrics",
        "/ws/seek",  # play now: seeks, offers, confirmations (no word looked up)
        "/ws/{table_id}",
        "/{path}",
    }


async def test_a_websocket_to_an_unknown_table_is_404(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    with pytest.raises(aiohttp.WSServerHandshakeError) as info:
        await session.ws_connect(f"{relay.url}/ws/doesnotexist")
    assert info.value.status == 404


async def test_ended_games_stay_readable_after_they_leave_memory(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    table_id, players = await seated_game(session, relay)
    await play_to_end(players)
    for p in players:
        await p.close()
    relay.referee.lifecycle.collect(relay.referee.now_ms())
    assert table_id not in relay.referee.tables
    async with session.get(f"{relay.url}/api/tables/{table_id}/gcg") as r:
        assert r.status == 200
        text = await r.text()
    assert "P0" in text and "P1" in text
    async with session.get(f"{relay.url}/api/tables/{table_id}") as r:
        assert (await r.json())["status"] == "ended"


async def test_table_creation_is_rate_limited_per_address(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(tmp_path, create_burst=3.0, create_per_second=0.001)
    try:
        statuses = []
        for _ in range(5):
            async with session.post(relay.url + "/api/tables", json={}) as r:
                statuses.append(r.status)
                body = await r.json()
        assert statuses == [201, 201, 201, 429, 429]
        assert body["code"] == "rate_limited"
        assert len(relay.referee.tables) == 3
    finally:
        await relay.stop()


async def test_behind_a_trusted_proxy_each_client_has_its_own_creation_limit(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    relay = await start_relay(
        tmp_path, create_burst=2.0, create_per_second=0.001, trusted_proxies=parse_networks(["127.0.0.1"])
    )
    try:

        async def create(client: str) -> int:
            headers = {"X-Forwarded-For": f"6.6.6.6, {client}"}  # the first entry is forged by the client
            async with session.post(relay.url + "/api/tables", json={}, headers=headers) as r:
                return r.status

        assert [await create("198.51.100.1") for _ in range(3)] == [201, 201, 429]
        assert [await create("198.51.100.2") for _ in range(2)] == [201, 201]
        # A proxy that adds a header line of its own, after the one the client forged: both lines count.
        two_lines = CIMultiDict([("X-Forwarded-For", "198.51.100.3"), ("X-Forwarded-For", "198.51.100.1")])
        async with session.post(relay.url + "/api/tables", json={}, headers=two_lines) as r:
            assert r.status == 429  # 198.51.100.1's limit, whatever the first line says
    finally:
        await relay.stop()


async def test_word_lists_are_not_served_even_from_a_misconfigured_static_root(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    repo = Path(__file__).resolve().parents[2]
    relay = await start_relay(tmp_path, static=repo)
    try:
        for path in (
            "/lexicons/fr.txt.gz",
            "/lexicons/fr-add.txt",
            "/lexicons/README.md",
            "/.cache/lexicon/fr.txt.gz-v1.dawg",
        ):
            async with session.get(relay.url + path) as r:
                assert r.status == 404, path
        async with session.get(relay.url + "/pyproject.toml") as r:
            assert r.status == 200  # the guard is specific to word lists, not a blanket refusal
    finally:
        await relay.stop()
