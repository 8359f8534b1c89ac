"""A browser's side of the account API for the relay's tests: the page's fetch calls with its Origin, a
cookie jar, and a software passkey (harness/authenticator.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from harness.authenticator import Passkey


@dataclass
class Browser:
    """One browser profile on the site ``url`` (its own cookies), whose pages are at ``origin``."""

    session: aiohttp.ClientSession
    url: str
    origin: str = ""
    passkeys: list[Passkey] = field(default_factory=list)

    @classmethod
    def at(cls, url: str) -> Browser:
        # unsafe: the relay answers on 127.0.0.1, and aiohttp keeps no cookie of an IP address otherwise.
        session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
        port = urlsplit(url).port
        return cls(session, url, f"http://localhost:{port}")

    @property
    def rp_id(self) -> str:
        return urlsplit(self.origin).hostname or ""

    async def close(self) -> None:
        await self.session.close()

    async def post(
        self, path: str, body: dict[str, Any] | None = None, *, origin: str | None = None
    ) -> tuple[int, dict[str, Any], aiohttp.ClientResponse]:
        headers = {} if origin == "" else {"Origin": origin or self.origin}
        async with self.session.post(self.url + path, json=body or {}, headers=headers) as resp:
            return resp.status, await resp.json(), resp

    async def me(self) -> tuple[int, dict[str, Any]]:
        async with self.session.get(self.url + "/api/account") as resp:
            return resp.status, await resp.json()

    def session_cookie(self) -> str | None:
        for cookie in self.session.cookie_jar:
            if cookie.key == "lexio_session":
                return cookie.value
        return None

    async def signup(self, nickname: str, *, seats: list[dict[str, str]] | None = None) -> dict[str, Any]:
        """Signs up with a new passkey (kept in :attr:`passkeys`); the relay's answer. Asserts success."""
        status, options, _ = await self.post("/api/account/signup/options", {"nickname": nickname})
        assert status == 200, options
        key = Passkey(self.rp_id)
        credential = key.create(options["publicKey"], self.origin)
        body: dict[str, Any] = {"ceremony": options["ceremony"], "credential": credential}
        if seats is not None:
            body["seats"] = seats
        status, answer, _ = await self.post("/api/account/signup", body)
        assert status == 201, answer
        self.passkeys.append(key)
        return answer

    async def signin(self, key: Passkey, **lie: Any) -> tuple[int, dict[str, Any]]:
        status, options, _ = await self.post("/api/account/signin/options")
        assert status == 200, options
        credential = key.get(options["publicKey"], self.origin, **lie)
        status, answer, _ = await self.post(
            "/api/account/signin", {"ceremony": options["ceremony"], "credential": credential}
        )
        return status, answer
