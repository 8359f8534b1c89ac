"""The WebAuthn ceremonies, verified by py_webauthn: options for the browser, and the checks of its answer.

Passkeys are discoverable credentials (the browser offers the accounts it holds: signing in names no one,
so it cannot tell whether a nickname exists), with user verification preferred. The relying party is the
page's host, the expected origin the page's origin (the views pass the one the request came from, once
checked against the relay's own origins).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import (
    InvalidAuthenticationResponse,
    InvalidJSONStructure,
    InvalidRegistrationResponse,
)
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from relay.accounts.errors import AccountError

__all__ = ["Site", "base64url_to_bytes", "bytes_to_base64url", "creation_options", "request_options"]

RP_NAME = "Lexio"
CEREMONY_MS = 5 * 60 * 1000  # a challenge lives 5 minutes
TIMEOUT_MS = 120_000  # what the browser is told to wait for the person


@dataclass(frozen=True, slots=True)
class Site:
    """Who the ceremony is for: the relying party id (a host name) and the page's origin."""

    rp_id: str
    origin: str


@dataclass(frozen=True, slots=True)
class NewPasskey:
    credential_id: str
    public_key: str
    sign_count: int
    transports: tuple[str, ...]


def creation_options(
    site: Site, challenge: bytes, user_handle: bytes, nickname: str, exclude: list[str]
) -> Any:
    """``PublicKeyCredentialCreationOptionsJSON`` for ``navigator.credentials.create`` (parsed in the browser
    with ``PublicKeyCredential.parseCreationOptionsFromJSON``)."""
    options = generate_registration_options(
        rp_id=site.rp_id,
        rp_name=RP_NAME,
        user_name=nickname,
        user_id=user_handle,
        user_display_name=nickname,
        challenge=challenge,
        timeout=TIMEOUT_MS,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in exclude],
    )
    return json.loads(options_to_json(options))


def request_options(site: Site, challenge: bytes) -> Any:
    """``PublicKeyCredentialRequestOptionsJSON`` for ``navigator.credentials.get``: no allowed list (the
    browser offers the discoverable passkeys it holds for this site)."""
    options = generate_authentication_options(
        rp_id=site.rp_id,
        challenge=challenge,
        timeout=TIMEOUT_MS,
        user_verification=UserVerificationRequirement.PREFERRED,
    )
    return json.loads(options_to_json(options))


def verify_new(site: Site, challenge: str, credential: object) -> NewPasskey:
    """The passkey a ``navigator.credentials.create`` answer (``credential.toJSON()``) registers. Raises
    AccountError ``bad_credential`` (malformed, wrong challenge, origin or relying party, bad attestation)."""
    if not isinstance(credential, dict):
        raise AccountError("bad_credential", "the passkey's answer is not a JSON object")
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=site.rp_id,
            expected_origin=site.origin,
        )
    except (InvalidRegistrationResponse, InvalidJSONStructure, ValueError, KeyError, TypeError) as exc:
        raise AccountError("bad_credential", f"the passkey could not be verified: {_short(exc)}") from exc
    transports = (
        credential.get("response", {}).get("transports")
        if isinstance(credential.get("response"), dict)
        else None
    )
    return NewPasskey(
        credential_id=bytes_to_base64url(verified.credential_id),
        public_key=bytes_to_base64url(verified.credential_public_key),
        sign_count=verified.sign_count,
        transports=tuple(str(t) for t in transports[:8]) if isinstance(transports, list) else (),
    )


def credential_id_of(credential: object) -> str:
    """The credential id an assertion names. Raises AccountError ``bad_credential``."""
    if not isinstance(credential, dict) or not isinstance(credential.get("id"), str):
        raise AccountError("bad_credential", "the passkey's answer names no credential")
    raw = credential["id"]
    try:
        return bytes_to_base64url(base64url_to_bytes(raw))  # one spelling, whatever padding came
    except ValueError as exc:
        raise AccountError("bad_credential", "the passkey's id is not base64url") from exc


def verify_assertion(site: Site, challenge: str, credential: object, public_key: str, sign_count: int) -> int:
    """Checks a ``navigator.credentials.get`` answer against the stored passkey; returns its new sign count.
    Raises AccountError ``bad_credential`` (bad signature, challenge, origin, relying party) or
    ``bad_counter`` (the authenticator's counter did not move forward: a cloned key)."""
    if not isinstance(credential, dict):
        raise AccountError("bad_credential", "the passkey's answer is not a JSON object")
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=site.rp_id,
            expected_origin=site.origin,
            credential_public_key=base64url_to_bytes(public_key),
            credential_current_sign_count=sign_count,
        )
    except InvalidAuthenticationResponse as exc:
        if "sign count" in str(exc).lower():
            raise AccountError("bad_counter", "this passkey's counter went backwards", status=401) from exc
        raise AccountError(
            "bad_credential", f"the passkey could not be verified: {_short(exc)}", status=401
        ) from exc
    except (InvalidJSONStructure, ValueError, KeyError, TypeError) as exc:
        raise AccountError("bad_credential", f"the passkey's answer is malformed: {_short(exc)}") from exc
    return int(verified.new_sign_count)


def _short(exc: Exception) -> str:
    return str(exc)[:160]
