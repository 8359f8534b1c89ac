"""A software passkey for the relay's tests: what a browser's authenticator returns, built by hand.

It makes real ES256 keys and signatures (cryptography) and real CBOR (cbor2), so the relay's py_webauthn
checks them as it would a phone's or a laptop's answer; and it can lie on purpose (another origin, another
challenge, a counter going backwards, a bad signature) to test the refusals.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Passkey:
    """One discoverable credential for ``rp_id``, as an authenticator holds it."""

    rp_id: str
    user_handle: bytes = b""
    credential_id: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    sign_count: int = 0

    def to_id(self) -> str:
        """The credential id as the relay spells it (base64url)."""
        return b64url(self.credential_id)

    def _cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps(
            {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        )

    def _auth_data(self, flags: int, attested: bool, rp_id: str | None = None) -> bytes:
        data = hashlib.sha256((rp_id or self.rp_id).encode()).digest()
        data += bytes([flags]) + struct.pack(">I", self.sign_count)
        if attested:
            data += (
                bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + self._cose_key()
            )
        return data

    def create(self, options: dict[str, Any], origin: str, **lie: Any) -> dict[str, Any]:
        """``credential.toJSON()`` of ``navigator.credentials.create(options)``. ``lie``: ``as_origin``,
        ``as_challenge`` (base64url), ``as_rp_id`` to answer with instead of the true ones."""
        self.user_handle = unb64url(options["user"]["id"])
        client = {
            "type": "webauthn.create",
            "challenge": lie.get("as_challenge", options["challenge"]),
            "origin": lie.get("as_origin", origin),
            "crossOrigin": False,
        }
        auth = self._auth_data(UP | UV | AT, True, lie.get("as_rp_id"))
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth})
        return {
            "id": b64url(self.credential_id),
            "rawId": b64url(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(json.dumps(client).encode()),
                "attestationObject": b64url(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }

    def get(self, options: dict[str, Any], origin: str, *, step: int = 1, **lie: Any) -> dict[str, Any]:
        """``credential.toJSON()`` of ``navigator.credentials.get(options)``; the counter moves by ``step``
        (0 or negative: a cloned key). ``lie``: ``as_origin``, ``as_challenge``, ``as_rp_id``,
        ``bad_signature``."""
        self.sign_count = max(0, self.sign_count + step)
        client = {
            "type": "webauthn.get",
            "challenge": lie.get("as_challenge", options["challenge"]),
            "origin": lie.get("as_origin", origin),
            "crossOrigin": False,
        }
        client_json = json.dumps(client).encode()
        auth = self._auth_data(UP | UV, False, lie.get("as_rp_id"))
        signature = self.key.sign(auth + hashlib.sha256(client_json).digest(), ec.ECDSA(hashes.SHA256()))
        if lie.get("bad_signature"):
            signature = ec.generate_private_key(ec.SECP256R1()).sign(
                auth + hashlib.sha256(client_json).digest(), ec.ECDSA(hashes.SHA256())
            )
        return {
            "id": b64url(self.credential_id),
            "rawId": b64url(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_json),
                "authenticatorData": b64url(auth),
                "signature": b64url(signature),
                "userHandle": b64url(self.user_handle),
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }
