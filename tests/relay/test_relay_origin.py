"""The game socket's Origin check is against the relay's configured origins (the address it listens on,
--public-url, --allow-origin), never against the request's Host header (issue 16, departures)."""

from __future__ import annotations

import aiohttp
import pytest
from relaykit import RunningRelay, create_table


def _port(relay: RunningRelay) -> int:
    return int(relay.url.rsplit(":", 1)[1])


@pytest.mark.parametrize(
    ("origin", "host", "ok"),
    [
        ("http://127.0.0.1:{port}", None, True),
        ("http://localhost:{port}", None, True),  # loopback: its usual name too
        ("http://LOCALHOST:{port}/", None, True),
        # DNS rebinding: a page on evil.example whose name now points at the relay; Host says the same.
        ("http://evil.example:{port}", "evil.example:{port}", False),
        ("https://127.0.0.1:{port}", None, False),  # the relay speaks plain http here
        ("http://127.0.0.1:1", None, False),  # another port is another origin
        ("http://127.0.0.1", None, False),
        ("null", None, False),
    ],
)
async def test_a_socket_origin_must_be_one_of_the_relays_own(
    relay: RunningRelay, session: aiohttp.ClientSession, origin: str, host: str | None, ok: bool
) -> None:
    port = _port(relay)
    table_id = await create_table(session, relay)
    headers = {"Origin": origin.format(port=port)}
    if host is not None:
        headers["Host"] = host.format(port=port)
    if ok:
        ws = await session.ws_connect(f"{relay.url}/ws/{table_id}", headers=headers)
        await ws.close()
    else:
        with pytest.raises(aiohttp.WSServerHandshakeError) as info:
            await session.ws_connect(f"{relay.url}/ws/{table_id}", headers=headers)
        assert info.value.status == 403
