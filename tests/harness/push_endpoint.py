"""A Web Push service on 127.0.0.1 for the relay's tests (RFC 8030, RFC 8291, RFC 8292).

The test makes up a browser's subscription (:meth:`PushEndpoint.subscribe`: a P-256 key pair and a 16-byte
auth secret, as ``pushManager.subscribe()`` would), registers it with the relay, and the relay posts its
notices here. Each post is checked as a push service and the browser would: the VAPID ``Authorization``
(``vapid t=<JWT>,k=<key>``) must carry the relay's public key, a valid ES256 signature, this service's
origin as ``aud``, a future ``exp`` and a ``sub``; the body must be ``aes128gcm`` and decrypt with the
subscription's private key and auth secret. What arrived is kept in :attr:`PushEndpoint.received`, what was
wrong in :attr:`PushEndpoint.problems`. The answer is 201, or what the test set for a subscription
(:meth:`PushEndpoint.answer`: 404, 410, 500...).
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import http_ece  # type: ignore[import-untyped]
from aiohttp import web
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Subscriber:
    """One made-up subscription: its endpoint, its private key and auth secret (the browser's secrets)."""

    id: str
    endpoint: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes

    def to_json(self) -> dict[str, Any]:
        """As ``PushSubscription.toJSON()``."""
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)},
        }


@dataclass
class Received:
    subscription: str
    payload: dict[str, Any]
    headers: dict[str, str]
    status: int


@dataclass
class PushEndpoint:
    """``await start()``, then ``url``; ``vapid_key`` (base64url) must be set to the relay's public key
    before posts arrive."""

    vapid_key: str | None = None
    received: list[Received] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    url: str = ""
    _browsers: dict[str, Subscriber] = field(default_factory=dict)
    _answers: dict[str, int] = field(default_factory=dict)
    _runner: web.AppRunner | None = None

    async def start(self) -> PushEndpoint:
        app = web.Application()
        app.router.add_post("/push/{id}", self._post)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def subscribe(self) -> Subscriber:
        sub_id = secrets.token_urlsafe(12)
        browser = Subscriber(
            sub_id,
            f"{self.url}/push/{sub_id}",
            ec.generate_private_key(ec.SECP256R1()),
            secrets.token_bytes(16),
        )
        self._browsers[sub_id] = browser
        return browser

    def answer(self, browser: Subscriber, status: int) -> None:
        """From now on, posts to ``browser``'s endpoint are answered with ``status``."""
        self._answers[browser.id] = status

    def to(self, browser: Subscriber) -> list[Received]:
        return [r for r in self.received if r.subscription == browser.id]

    async def _post(self, request: web.Request) -> web.Response:
        sub_id = request.match_info["id"]
        browser = self._browsers.get(sub_id)
        if browser is None:
            return web.Response(status=404)
        body = await request.read()
        status = self._answers.get(sub_id, 201)
        try:
            self._check_vapid(request.headers.get("Authorization", ""))
            if request.headers.get("Content-Encoding") != "aes128gcm":
                raise ValueError(f"Content-Encoding {request.headers.get('Content-Encoding')!r}")
            if not request.headers.get("TTL", "").isdigit():
                raise ValueError(f"TTL {request.headers.get('TTL')!r}")
            plain = http_ece.decrypt(
                body, private_key=browser.private_key, auth_secret=browser.auth, version="aes128gcm"
            )
            payload = json.loads(plain)
        except Exception as exc:
            self.problems.append(f"{sub_id}: {type(exc).__name__}: {exc}")
            return web.Response(status=400)
        self.received.append(
            Received(sub_id, payload, {k.lower(): v for k, v in request.headers.items()}, status)
        )
        return web.Response(status=status)

    def _check_vapid(self, header: str) -> None:
        """Raises ValueError unless ``header`` is ``vapid t=<JWT>,k=<the relay's key>`` signed by that key,
        for this origin, not expired."""
        scheme, _, rest = header.partition(" ")
        if scheme.lower() != "vapid":
            raise ValueError(f"Authorization scheme {scheme!r}")
        parts = dict(p.strip().split("=", 1) for p in rest.split(","))
        if parts.get("k") != self.vapid_key:
            raise ValueError("VAPID key is not the relay's")
        head, claims, signature = parts["t"].split(".")
        if json.loads(unb64url(head)) != {"typ": "JWT", "alg": "ES256"}:
            raise ValueError(f"JWT header {unb64url(head)!r}")
        raw = unb64url(signature)
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(parts["k"]))
        try:
            key.verify(der, f"{head}.{claims}".encode("ascii"), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature as exc:
            raise ValueError("VAPID signature does not verify") from exc
        decoded = json.loads(unb64url(claims))
        if decoded.get("aud") != self.url:
            raise ValueError(f"aud {decoded.get('aud')!r}, expected {self.url!r}")
        if not int(decoded.get("exp", 0)) > time.time() or not decoded.get("sub"):
            raise ValueError(f"claims {decoded!r}")
