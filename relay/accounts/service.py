"""What the account views call: sign up, sign in, sessions, passkeys, recovery codes and seat claims.

Every method is synchronous and short (a few queries, one signature check); the views run them on the event
loop with SQLite and in a worker thread with PostgreSQL (:meth:`Accounts.call`). Time comes from the clock
passed in, randomness from ``secrets``.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from relay.accounts import passkeys
from relay.accounts.db import Db
from relay.accounts.erasure import Erasure
from relay.accounts.errors import AccountError
from relay.accounts.moderation import Moderation
from relay.accounts.nicknames import check_nickname, fold
from relay.accounts.passkeys import CEREMONY_MS, Site
from relay.accounts.profiles import Profiles
from relay.accounts.ratings import RatingBook
from relay.accounts.store import Account, AccountStore, Challenge, Credential, NewAccount

log = logging.getLogger("lexio.relay")

P = ParamSpec("P")
T = TypeVar("T")

SESSION_DAYS = 30
SESSION_MS = SESSION_DAYS * 24 * 3600 * 1000
# A session seen again renews its expiry at most once an hour (not one write per request).
RENEW_AFTER_MS = 3600 * 1000
RECOVERY_CODES = 8
RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read aloud or copied by hand
RECOVERY_LEN = 12
PASSKEY_NAME_MAX = 40
# scrypt: ~40 ms a try on a small VM; with the per-address limit, 60 bits of code are out of reach.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}


@dataclass(frozen=True, slots=True)
class Ceremony:
    """What the browser needs to run a ceremony: its id (sent back with the answer) and the options."""

    id: str
    public_key: Any


@dataclass(frozen=True, slots=True)
class SignedIn:
    account: Account
    token: str  # the session cookie's value: given to the browser, never stored
    recovery_codes: tuple[str, ...] = ()


def hash_session(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Accounts:
    def __init__(self, db: Db, now_ms: Callable[[], int]) -> None:
        self.db = db
        self.store = AccountStore(db)
        self.ratings = RatingBook(db, now_ms)
        self.profiles = Profiles(db, self.ratings)
        self.erasure = Erasure(db)
        self.moderation = Moderation(db, now_ms)
        self.now_ms = now_ms

    async def call(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args)``: in place on SQLite (short, like the journal's calls), in a thread on PostgreSQL."""
        if self.db.kind == "sqlite":
            return fn(*args, **kwargs)
        return await asyncio.to_thread(fn, *args, **kwargs)

    # -- sign up -----------------------------------------------------------------------------------------
    def signup_options(self, site: Site, nickname: object) -> Ceremony:
        """Raises AccountError ``bad_nickname``, ``nickname_taken``."""
        name = check_nickname(nickname)
        if self.store.nickname_taken(fold(name)):
            raise AccountError("nickname_taken", "this nickname is taken", status=409)
        handle = secrets.token_bytes(64)
        ch = self._challenge("signup", nickname=name, user_handle=passkeys.bytes_to_base64url(handle))
        return Ceremony(ch.id, passkeys.creation_options(site, _raw(ch.challenge), handle, name, []))

    def signup(self, site: Site, ceremony: object, credential: object, agent: str) -> SignedIn:
        """The new account, signed in, with its recovery codes (shown once). Raises AccountError
        ``bad_challenge``, ``bad_credential``, ``passkey_exists``, ``nickname_taken``."""
        ch = self._take(ceremony, "signup")
        key = passkeys.verify_new(site, ch.challenge, credential)
        assert ch.nickname is not None and ch.user_handle is not None
        now = self.now_ms()
        account = Account(_new_id(), ch.nickname, ch.user_handle, secrets.token_hex(16), now)
        codes = tuple(_recovery_code() for _ in range(RECOVERY_CODES))
        self.store.create(
            NewAccount(
                account=account,
                folded=fold(ch.nickname),
                credential=_credential(key, account.id, "Passkey 1", now),
                recovery_hashes=tuple(_hash_code(account.recovery_salt, c) for c in codes),
            )
        )
        return SignedIn(account, self._open_session(account, agent), codes)

    # -- sign in -----------------------------------------------------------------------------------------
    def signin_options(self, site: Site) -> Ceremony:
        ch = self._challenge("signin")
        return Ceremony(ch.id, passkeys.request_options(site, _raw(ch.challenge)))

    def signin(self, site: Site, ceremony: object, credential: object, agent: str) -> SignedIn:
        """Raises AccountError ``bad_challenge``, ``bad_credential`` (unknown passkey too: the answer does
        not say which), ``bad_counter``."""
        ch = self._take(ceremony, "signin")
        stored = self.store.credential(passkeys.credential_id_of(credential))
        if stored is None:
            raise AccountError("bad_credential", "this passkey is not registered here", status=401)
        count = passkeys.verify_assertion(
            site, ch.challenge, credential, stored.public_key, stored.sign_count
        )
        self.store.used(stored.id, stored.sign_count, count, self.now_ms())
        account = self.store.account(stored.account_id)
        if account is None:  # deleted between the two reads
            raise AccountError("bad_credential", "this passkey is not registered here", status=401)
        return SignedIn(account, self._open_session(account, agent))

    # -- sessions ----------------------------------------------------------------------------------------
    def session(self, token: str | None) -> Account | None:
        """The account of a session cookie; None for none, an unknown, revoked or expired one. A session in
        use slides: it expires 30 days after it was last seen."""
        if not token or len(token) > 100:
            return None
        key, now = hash_session(token), self.now_ms()
        found = self.store.session(key, now)
        if found is None:
            return None
        account, seen, _expires = found
        if now - seen >= RENEW_AFTER_MS:
            self.store.extend_session(key, now, now + SESSION_MS)
        return account

    def sign_out(self, token: str) -> None:
        self.store.end_session(hash_session(token))

    def sign_out_everywhere(self, account: Account) -> int:
        return self.store.end_sessions(account.id)

    def delete_account(self, account: Account, confirm: object) -> int:
        """Deletes the account for good once ``confirm`` is its nickname (ignoring case and accents, as
        nicknames are compared); returns how many seats of its games now show a deleted player. Raises
        AccountError ``bad_confirm``, ``not_signed_in`` (deleted meanwhile from another session)."""
        typed = confirm.strip() if isinstance(confirm, str) and len(confirm) <= 40 else None
        if typed is None or fold(typed) != fold(account.nickname):
            raise AccountError("bad_confirm", "type the account's nickname to confirm its deletion")
        marked = self.erasure.delete(account.id, self.now_ms())
        if marked is None:
            raise AccountError("not_signed_in", "sign in first", status=401)
        return marked

    # -- passkeys of a signed-in account ------------------------------------------------------------------
    def passkey_options(self, site: Site, account: Account) -> Ceremony:
        ch = self._challenge("passkey", account_id=account.id)
        exclude = [c.id for c in self.store.credentials(account.id)]
        return Ceremony(
            ch.id,
            passkeys.creation_options(
                site, _raw(ch.challenge), _raw(account.user_handle), account.nickname, exclude
            ),
        )

    def add_passkey(
        self, site: Site, account: Account, ceremony: object, credential: object, name: object
    ) -> Credential:
        """Raises AccountError ``bad_challenge`` (also one begun for another account), ``bad_credential``,
        ``passkey_exists``, ``bad_name``."""
        ch = self._take(ceremony, "passkey")
        if ch.account_id != account.id:
            raise AccountError("bad_challenge", "this step was begun for another account")
        label = _passkey_name(name, len(self.store.credentials(account.id)) + 1)
        key = passkeys.verify_new(site, ch.challenge, credential)
        cred = _credential(key, account.id, label, self.now_ms())
        self.store.add_credential(cred)
        return cred

    def rename_passkey(self, account: Account, credential_id: object, name: object) -> None:
        if not isinstance(credential_id, str) or not self.store.rename_credential(
            account.id, credential_id, _passkey_name(name, 0)
        ):
            raise AccountError("no_such_passkey", "this account has no such passkey", status=404)

    def remove_passkey(self, account: Account, credential_id: object) -> None:
        if not isinstance(credential_id, str):
            raise AccountError("no_such_passkey", "this account has no such passkey", status=404)
        self.store.remove_credential(account.id, credential_id)

    # -- recovery ----------------------------------------------------------------------------------------
    def recovery_options(self, site: Site, nickname: object, code: object) -> Ceremony:
        """A ceremony adding a passkey to the account a recovery code belongs to (the code is spent now).
        Raises AccountError ``bad_recovery`` for any wrong nickname or code, in the same time whether the
        nickname exists or not."""
        account = None
        if isinstance(nickname, str) and len(nickname) <= 40:
            account = self.store.by_nickname(fold(nickname))
        salt = account.recovery_salt if account is not None else "0" * 32
        typed = code.strip().lower().replace("-", "").replace(" ", "") if isinstance(code, str) else ""
        digest = _hash_code(salt, typed[:40])  # a KDF run even for an unknown nickname: same timing
        if account is None or not self.store.use_recovery_code(account.id, digest, self.now_ms()):
            raise AccountError("bad_recovery", "this nickname and recovery code do not match", status=401)
        return self.passkey_options(site, account)

    def recover(self, site: Site, ceremony: object, credential: object, agent: str) -> SignedIn:
        """Registers the new passkey of a recovery and signs in. Raises as :meth:`add_passkey`."""
        ch = self._take(ceremony, "passkey")
        account = self.store.account(ch.account_id or "")
        if account is None:
            raise AccountError("bad_challenge", "this step was begun for no account")
        key = passkeys.verify_new(site, ch.challenge, credential)
        label = _passkey_name(None, len(self.store.credentials(account.id)) + 1)
        self.store.add_credential(_credential(key, account.id, label, self.now_ms()))
        return SignedIn(account, self._open_session(account, agent))

    # -- seats -------------------------------------------------------------------------------------------
    def claim(self, account: Account, seats: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
        """Attaches seats (whose tokens the caller proved) to the account; returns those now its own."""
        now = self.now_ms()
        return [(t, s) for t, s in seats if self.store.claim_seat(t, s, account.id, now)]

    # -- helpers -----------------------------------------------------------------------------------------
    def _challenge(self, kind: str, **fields: str) -> Challenge:
        now = self.now_ms()
        ch = Challenge(
            id=secrets.token_urlsafe(16),
            kind=kind,
            challenge=passkeys.bytes_to_base64url(secrets.token_bytes(32)),
            account_id=fields.get("account_id"),
            nickname=fields.get("nickname"),
            user_handle=fields.get("user_handle"),
            expires_ms=now + CEREMONY_MS,
        )
        self.store.put_challenge(ch, now)
        return ch

    def _take(self, ceremony: object, kind: str) -> Challenge:
        if not isinstance(ceremony, str) or len(ceremony) > 64:
            raise AccountError("bad_challenge", "this sign-in step is unknown or was already used")
        return self.store.take_challenge(ceremony, kind, self.now_ms())

    def _open_session(self, account: Account, agent: str) -> str:
        token = secrets.token_urlsafe(32)
        now = self.now_ms()
        self.store.add_session(hash_session(token), account.id, now, now + SESSION_MS, agent)
        return token


def _raw(b64: str) -> bytes:
    return passkeys.base64url_to_bytes(b64)


def _new_id() -> str:
    return secrets.token_urlsafe(12)


def _recovery_code() -> str:
    raw = "".join(secrets.choice(RECOVERY_ALPHABET) for _ in range(RECOVERY_LEN))
    return f"{raw[:4]}-{raw[4:8]}-{raw[8:]}"


def _hash_code(salt: str, code: str) -> str:
    plain = code.replace("-", "").lower()
    return hashlib.scrypt(plain.encode(), salt=bytes.fromhex(salt), **_SCRYPT).hex()


def _credential(key: passkeys.NewPasskey, account_id: str, name: str, now: int) -> Credential:
    return Credential(
        key.credential_id, account_id, key.public_key, key.sign_count, key.transports, name, now, None
    )


def _passkey_name(raw: object, n: int) -> str:
    if raw is None or raw == "":
        return f"Passkey {n}"
    if not isinstance(raw, str) or len(raw) > PASSKEY_NAME_MAX or not raw.isprintable():
        raise AccountError(
            "bad_name", f"a passkey's name has at most {PASSKEY_NAME_MAX} printable characters"
        )
    return raw.strip() or f"Passkey {n}"


__all__ = ["Accounts", "Ceremony", "SignedIn", "hash_session"]
