"""The relay's VAPID key pair (RFC 8292): made on the first start, then kept.

Where: in the accounts database (table ``push_vapid``, one row), on SQLite as on PostgreSQL. Each browser
subscription is bound to the public key the page subscribed with (``applicationServerKey``), so the key must
outlive restarts and be the same on every relay of a cluster: a row in the database the relays already share
gives that with no file to copy between hosts, and on SQLite it lives in the journal's file, in the relay's
data directory, so that one backup holds games, accounts and the key (and ``lexio export-journal`` carries it
to PostgreSQL). Two relays starting at once on an empty database both try to insert it; ``ON CONFLICT DO
NOTHING`` keeps the first and both read that one back.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from relay.accounts.db import Db

_ROW_ID = 1


@dataclass(frozen=True, slots=True)
class VapidKey:
    """``private_pem``: the PKCS#8 PEM of the P-256 private key; ``public_key``: the uncompressed point,
    base64url without padding (what ``pushManager.subscribe({applicationServerKey})`` takes)."""

    private_pem: str
    public_key: str


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def new_key() -> VapidKey:
    private = ec.generate_private_key(ec.SECP256R1())
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode("ascii")
    return VapidKey(pem, public_of(private))


def public_of(private: ec.EllipticCurvePrivateKey) -> str:
    point = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


def load_or_create(db: Db, now_ms: int) -> VapidKey:
    """The relay's key pair: the stored one, or a new one stored now (once across relays). Raises
    JournalUnavailable / sqlite3.Error (database), ValueError (a stored key that is not a P-256 PEM)."""
    candidate = new_key()
    with db.transaction() as tx:
        tx.run(
            "INSERT INTO push_vapid (id, private_key, public_key, created_ms) VALUES (?, ?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            (_ROW_ID, candidate.private_pem, candidate.public_key, now_ms),
        )
        rows = tx.rows("SELECT private_key FROM push_vapid WHERE id = ?", (_ROW_ID,))
    pem = str(rows[0][0])
    private = serialization.load_pem_private_key(pem.encode("ascii"), password=None)
    if not isinstance(private, ec.EllipticCurvePrivateKey) or not isinstance(private.curve, ec.SECP256R1):
        raise ValueError("push_vapid holds a key that is not a P-256 private key")
    # The public half is derived again rather than read: it can never disagree with the private key.
    return VapidKey(pem, public_of(private))
