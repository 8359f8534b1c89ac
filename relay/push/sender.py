"""Sending one notice to one subscription: encrypted for the browser (RFC 8291, aes128gcm), signed with the
relay's VAPID key (RFC 8292), posted to the push service (RFC 8030) with pywebpush on aiohttp.

The notice is ``{"title", "body", "url", "table"}`` and never more than "your turn at table X, N hours left":
nothing from any rack, board or chat goes to a push service.
"""

from __future__ import annotations

import enum
import json
import logging
import re
import time
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from py_vapid import Vapid02  # type: ignore[import-untyped]
from pywebpush import WebPusher  # type: ignore[import-untyped]

from relay.push.store import Subscription
from relay.push.vapid import VapidKey

log = logging.getLogger("lexio.relay")

# The VAPID token's life (RFC 8292 allows at most 24 h); push services refuse expired ones.
TOKEN_SECONDS = 12 * 3600
MAX_TTL_SECONDS = 24 * 3600
_TOPIC_JUNK = re.compile(r"[^A-Za-z0-9_-]")


class Delivery(enum.Enum):
    SENT = "sent"
    GONE = "gone"  # 404/410: the subscription expired or was withdrawn; forget it
    FAILED = "failed"  # anything else: logged, kept, not retried


def notice(table_id: str, kind: str, left_ms: int, url: str) -> dict[str, str]:
    """The payload: ``kind`` "turn" (your turn began) or "late" (80 % of it is used); ``left_ms`` the time
    left. In French, as the site."""
    left = _hours(left_ms)
    if kind == "turn":
        body = f"À vous de jouer à la table {table_id} : il reste {left}."
    else:
        body = f"Plus que {left} pour jouer à la table {table_id}."
    return {"title": "Lexio : à vous de jouer", "body": body, "url": url, "table": table_id}


def _hours(left_ms: int) -> str:
    if left_ms < 3_600_000:
        return "moins d'une heure"
    return f"{(left_ms + 3_599_999) // 3_600_000} h"


class Sender:
    """Posts notices; one aiohttp session for all of them (opened on first use, on the running loop)."""

    def __init__(self, key: VapidKey, contact: str, *, timeout_seconds: float = 10.0) -> None:
        self.vapid = Vapid02.from_pem(key.private_pem.encode("ascii"))
        self.contact = contact
        self.timeout = aiohttp.ClientTimeout(total=timeout_seconds)
        self._session: aiohttp.ClientSession | None = None

    async def send(
        self, sub: Subscription, payload: dict[str, str], *, ttl_seconds: int, urgency: str, topic: str
    ) -> Delivery:
        """Encrypts and posts ``payload`` to ``sub``; never raises (a failure is logged and answered
        FAILED). ``ttl_seconds``: how long the push service keeps it for an offline browser; ``urgency``:
        RFC 8030's (``normal``, ``high``); ``topic``: a newer notice with the same one replaces an undelivered
        older one (at most 32 base64url characters)."""
        parts = urlsplit(sub.endpoint)
        claims: dict[str, Any] = {
            "aud": f"{parts.scheme}://{parts.netloc}",
            "sub": self.contact,
            "exp": int(time.time()) + TOKEN_SECONDS,  # the push service's clock, not the game's
        }
        headers = {"Urgency": urgency, "Topic": _TOPIC_JUNK.sub("", topic)[:32], **self.vapid.sign(claims)}
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        try:
            if self._session is None or self._session.closed:
                self._session = aiohttp.ClientSession()
            pusher = WebPusher(sub.info(), aiohttp_session=self._session)
            response = await pusher.send_async(
                data, headers, ttl=max(1, min(ttl_seconds, MAX_TTL_SECONDS)), timeout=self.timeout
            )
            status = int(response.status)
        except Exception:  # network, TLS, timeouts, pywebpush's own: none may reach the game
            log.warning("push failed", exc_info=True, extra={"fields": {"push_host": parts.hostname}})
            return Delivery.FAILED
        if status in (404, 410):
            return Delivery.GONE
        if status >= 300:
            log.warning("push refused", extra={"fields": {"push_host": parts.hostname, "status": status}})
            return Delivery.FAILED
        return Delivery.SENT

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
