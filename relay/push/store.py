"""Push subscriptions, pending reminders and the ledger of reminders sent (accounts schema version 7).

A subscription (``PushSubscription.toJSON()``: endpoint, p256dh, auth) belongs to one account and remembers
the session that registered it. The relay posts only to endpoints that are https on a known push service
(``Config.push_services``): an endpoint is a URL a page chose, and must not make the relay reach anything
else (its network, other sites).

Reminders are coordinated through the database so that a cluster sends each one once: ``push_pending``
holds the 80 % reminder of each running turn (taken with ``DELETE ... RETURNING`` by whichever relay sweeps
first), and ``push_sent`` is the ledger, one row per (table, seat, turn deadline, kind) claimed with
``INSERT ... ON CONFLICT DO NOTHING RETURNING`` in the same transaction as the sending decision.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from ipaddress import ip_address
from typing import Any, TypeVar
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec

from relay.accounts.db import Db, Tx
from relay.accounts.errors import AccountError

MAX_SUBSCRIPTIONS = 10
MAX_ENDPOINT = 1000
# The ledger only has to outlive any repeat of a turn's start (a restart, an ownership move): a day past the
# turn's deadline is plenty.
LEDGER_KEEP_MS = 86_400_000
_B64URL = re.compile(r"^[A-Za-z0-9_-]+={0,2}$")
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Subscription:
    """A browser's push subscription: ``endpoint`` (the push service's URL for it) and its two keys as the
    browser gave them, base64url (``p256dh``: its P-256 public key, ``auth``: the 16-byte secret)."""

    endpoint: str
    p256dh: str
    auth: str

    def info(self) -> dict[str, Any]:
        """As pywebpush takes it."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


@dataclass(frozen=True, slots=True)
class Due:
    """A reminder this relay claimed and must send: to ``subscriptions``."""

    table_id: str
    seat: int
    kind: str
    deadline_ms: int
    subscriptions: tuple[Subscription, ...]


def _bad(message: str) -> AccountError:
    return AccountError("bad_subscription", message)


def _decoded(value: object, name: str) -> bytes:
    if not isinstance(value, str) or not 1 <= len(value) <= 200 or not _B64URL.match(value):
        raise _bad(f"keys.{name} must be base64url")
    try:
        return base64.urlsafe_b64decode(value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4))
    except (binascii.Error, ValueError) as exc:
        raise _bad(f"keys.{name} must be base64url") from exc


def check_endpoint(endpoint: object, services: Sequence[str], allow_loopback: bool) -> str:
    """The endpoint if the relay may post to it: https on one of ``services`` (or a subdomain), no user,
    no fragment, at most 1000 characters; with ``allow_loopback`` (tests) also http(s) on 127.0.0.1,
    localhost or [::1]. Raises AccountError ``bad_subscription``."""
    if not isinstance(endpoint, str) or not 10 <= len(endpoint) <= MAX_ENDPOINT or not endpoint.isprintable():
        raise _bad(f"endpoint must be a URL of at most {MAX_ENDPOINT} characters")
    try:
        parts = urlsplit(endpoint)
        host = (parts.hostname or "").lower()
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        raise _bad("endpoint is not a URL") from exc
    if parts.username is not None or parts.password is not None or parts.fragment or " " in endpoint:
        raise _bad("endpoint is not a push service's URL")
    if allow_loopback and host in _LOOPBACK_HOSTS and parts.scheme in ("http", "https"):
        return endpoint
    if parts.scheme != "https" or not host:
        raise _bad("endpoint must be https")
    try:
        ip_address(host)
    except ValueError:
        pass
    else:
        raise _bad("endpoint must name a push service, not an address")
    if not any(host == s or host.endswith("." + s) for s in services):
        raise _bad("endpoint is not a known push service")
    return endpoint


def parse_subscription(body: object, services: Sequence[str], allow_loopback: bool) -> Subscription:
    """A ``PushSubscription.toJSON()`` checked: the endpoint (:func:`check_endpoint`), ``keys.p256dh`` a
    P-256 point (65 bytes, uncompressed, on the curve), ``keys.auth`` 16 bytes, both base64url. Raises
    AccountError ``bad_subscription``."""
    if not isinstance(body, dict):
        raise _bad("subscription must be PushSubscription.toJSON()")
    endpoint = check_endpoint(body.get("endpoint"), services, allow_loopback)
    expires = body.get("expirationTime")
    if expires is not None and (isinstance(expires, bool) or not isinstance(expires, int | float)):
        raise _bad("expirationTime must be a number or null")
    keys = body.get("keys")
    if not isinstance(keys, dict):
        raise _bad("keys must be {p256dh, auth}")
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    point = _decoded(p256dh, "p256dh")
    if len(point) != 65 or point[0] != 4:
        raise _bad("keys.p256dh must be an uncompressed P-256 point (65 bytes)")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError as exc:
        raise _bad("keys.p256dh is not a point of P-256") from exc
    if len(_decoded(auth, "auth")) != 16:
        raise _bad("keys.auth must be 16 bytes")
    assert isinstance(p256dh, str) and isinstance(auth, str)
    return Subscription(endpoint, p256dh.rstrip("="), auth.rstrip("="))


async def run_db(db: Db, fn: Callable[..., T], *args: object) -> T:
    """``fn(*args)``: in place on SQLite (short, like the journal's calls), in a thread on PostgreSQL (as
    relay.accounts.service.Accounts.call)."""
    if db.kind == "sqlite":
        return fn(*args)
    return await asyncio.to_thread(fn, *args)


_SUB = "SELECT endpoint, p256dh, auth FROM push_subscriptions"


class PushStore:
    """Queries; each method is one transaction. Raises JournalUnavailable (PostgreSQL unreachable) or
    sqlite3.Error (SQLite I/O) besides the AccountErrors each names."""

    def __init__(self, db: Db) -> None:
        self.db = db

    # -- subscriptions -----------------------------------------------------------------------------------
    def subscribe(
        self,
        account_id: str,
        sub: Subscription,
        session_hash: str | None,
        now_ms: int,
        limit: int = MAX_SUBSCRIPTIONS,
    ) -> None:
        """Registers ``sub`` for the account (again: its keys and session are renewed). Raises AccountError
        ``push_taken`` (409: the endpoint is another account's), ``too_many_subscriptions`` (409: ``limit``
        reached)."""
        with self.db.transaction() as tx:
            owner = tx.rows("SELECT account_id FROM push_subscriptions WHERE endpoint = ?", (sub.endpoint,))
            if owner and owner[0][0] != account_id:
                raise AccountError(
                    "push_taken", "this push subscription belongs to another account", status=409
                )
            if not owner:
                count = tx.rows("SELECT COUNT(*) FROM push_subscriptions WHERE account_id = ?", (account_id,))
                if int(count[0][0]) >= limit:
                    raise AccountError(
                        "too_many_subscriptions",
                        f"an account keeps at most {limit} push subscriptions",
                        status=409,
                    )
            # The WHERE keeps another account's row untouched if it was registered since the read above.
            changed = tx.run(
                "INSERT INTO push_subscriptions"
                " (endpoint, account_id, p256dh, auth, session_hash, created_ms) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (endpoint) DO UPDATE SET p256dh = excluded.p256dh,"
                " auth = excluded.auth, session_hash = excluded.session_hash"
                " WHERE push_subscriptions.account_id = excluded.account_id",
                (sub.endpoint, account_id, sub.p256dh, sub.auth, session_hash, now_ms),
            )
            if changed != 1:
                raise AccountError(
                    "push_taken", "this push subscription belongs to another account", status=409
                )

    def subscriptions(self, account_id: str) -> list[Subscription]:
        with self.db.transaction() as tx:
            return _subs(tx, account_id)

    def unsubscribe(self, account_id: str, endpoint: str) -> int:
        """Removes the account's subscription at ``endpoint`` (never another account's); how many (0, 1)."""
        with self.db.transaction() as tx:
            return tx.run(
                "DELETE FROM push_subscriptions WHERE endpoint = ? AND account_id = ?", (endpoint, account_id)
            )

    def forget_endpoint(self, endpoint: str) -> int:
        """The push service said the subscription is gone (404/410)."""
        with self.db.transaction() as tx:
            return tx.run("DELETE FROM push_subscriptions WHERE endpoint = ?", (endpoint,))

    def forget_session(self, session_hash: str) -> int:
        """Sign-out: the subscriptions registered from that session."""
        with self.db.transaction() as tx:
            return tx.run("DELETE FROM push_subscriptions WHERE session_hash = ?", (session_hash,))

    def forget_account(self, account_id: str) -> int:
        """Sign-out everywhere: all of the account's subscriptions."""
        with self.db.transaction() as tx:
            return tx.run("DELETE FROM push_subscriptions WHERE account_id = ?", (account_id,))

    # -- reminders ---------------------------------------------------------------------------------------
    def begin_turn(
        self, table_id: str, seat: int, account_id: str, deadline_ms: int, due_ms: int, now_ms: int
    ) -> Due | None:
        """Records the turn's 80 % reminder (replacing the seat's previous one) and claims its "your turn"
        notice: the Due to send, or None if it was claimed before (this turn began already, here or on
        another relay) or the account has no subscription."""
        with self.db.transaction() as tx:
            tx.run(
                "INSERT INTO push_pending (table_id, seat, account_id, deadline_ms, due_ms)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id, seat) DO UPDATE SET"
                " account_id = excluded.account_id, deadline_ms = excluded.deadline_ms,"
                " due_ms = excluded.due_ms",
                (table_id, seat, account_id, deadline_ms, due_ms),
            )
            if not _claim(tx, table_id, seat, deadline_ms, "turn", now_ms):
                return None
            subs = _subs(tx, account_id)
        return Due(table_id, seat, "turn", deadline_ms, tuple(subs)) if subs else None

    def end_turn(self, table_id: str, seat: int) -> int:
        """Drops the seat's pending reminder (the turn ended before it was due)."""
        with self.db.transaction() as tx:
            return tx.run("DELETE FROM push_pending WHERE table_id = ? AND seat = ?", (table_id, seat))

    def claim_due(self, now_ms: int) -> list[Due]:
        """Takes every reminder due at ``now_ms`` (once across relays: the rows are deleted as they are
        read, and each is entered in the ledger) and returns those to send; one whose turn is already over
        (the relay was down past its deadline) is dropped unsent. Also prunes the ledger."""
        out: list[Due] = []
        with self.db.transaction() as tx:
            rows = tx.rows(
                "DELETE FROM push_pending WHERE due_ms <= ?"
                " RETURNING table_id, seat, account_id, deadline_ms",
                (now_ms,),
            )
            for table_id, seat, account_id, deadline in sorted(rows):
                if int(deadline) <= now_ms or not _claim(
                    tx, table_id, int(seat), int(deadline), "late", now_ms
                ):
                    continue
                subs = _subs(tx, str(account_id))
                if subs:
                    out.append(Due(str(table_id), int(seat), "late", int(deadline), tuple(subs)))
            tx.run("DELETE FROM push_sent WHERE deadline_ms < ?", (now_ms - LEDGER_KEEP_MS,))
        return out


def _claim(tx: Tx, table_id: str, seat: int, deadline_ms: int, kind: str, now_ms: int) -> bool:
    """True if this transaction is the first to claim the notice (table, seat, deadline, kind)."""
    return bool(
        tx.rows(
            "INSERT INTO push_sent (table_id, seat, deadline_ms, kind, sent_ms) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT DO NOTHING RETURNING kind",
            (table_id, seat, deadline_ms, kind, now_ms),
        )
    )


def _subs(tx: Tx, account_id: str) -> list[Subscription]:
    rows = tx.rows(_SUB + " WHERE account_id = ? ORDER BY created_ms, endpoint", (account_id,))
    return [Subscription(str(r[0]), str(r[1]), str(r[2])) for r in rows]
