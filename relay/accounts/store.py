"""The accounts' rows and every query on them, written once for SQLite and PostgreSQL (relay/accounts/db.py).

Secrets are never stored: sessions by the SHA-256 of their token, recovery codes by a slow KDF of the code
(relay/accounts/service.py). Binary values (user handles, credential ids, public keys) are base64url text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from relay.accounts.db import Db, Tx
from relay.accounts.errors import AccountError


@dataclass(frozen=True, slots=True)
class Account:
    id: str
    nickname: str
    user_handle: str
    recovery_salt: str
    created_ms: int


@dataclass(frozen=True, slots=True)
class Credential:
    id: str
    account_id: str
    public_key: str
    sign_count: int
    transports: tuple[str, ...]
    name: str
    created_ms: int
    used_ms: int | None


@dataclass(frozen=True, slots=True)
class Challenge:
    """A ceremony in progress: ``kind`` is ``signup``, ``signin`` or ``passkey`` (a new passkey for
    ``account_id``, signed in or recovering)."""

    id: str
    kind: str
    challenge: str
    account_id: str | None
    nickname: str | None
    user_handle: str | None
    expires_ms: int


@dataclass(frozen=True, slots=True)
class NewAccount:
    account: Account
    folded: str
    credential: Credential
    recovery_hashes: tuple[str, ...]


_ACCOUNT = "SELECT id, nickname, user_handle, recovery_salt, created_ms FROM accounts"
_CREDENTIAL = (
    "SELECT id, account_id, public_key, sign_count, transports, name, created_ms, used_ms FROM credentials"
)


class AccountStore:
    """Queries; each method is one transaction. Raises JournalUnavailable (PostgreSQL unreachable) or
    sqlite3.Error (SQLite I/O) besides the AccountErrors each names."""

    def __init__(self, db: Db) -> None:
        self.db = db

    # -- ceremonies --------------------------------------------------------------------------------------
    def put_challenge(self, ch: Challenge, now_ms: int) -> None:
        with self.db.transaction() as tx:
            tx.run("DELETE FROM challenges WHERE expires_ms < ?", (now_ms,))  # a few at most: cheap
            tx.run(
                "INSERT INTO challenges (id, kind, challenge, account_id, nickname, user_handle, expires_ms)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (ch.id, ch.kind, ch.challenge, ch.account_id, ch.nickname, ch.user_handle, ch.expires_ms),
            )

    def take_challenge(self, challenge_id: str, kind: str, now_ms: int) -> Challenge:
        """The ceremony ``challenge_id`` of ``kind``, deleted as it is read: a challenge serves once.
        Raises AccountError ``bad_challenge`` (unknown, used, of another ceremony or expired)."""
        with self.db.transaction() as tx:
            rows = tx.rows(
                "DELETE FROM challenges WHERE id = ? RETURNING"
                " id, kind, challenge, account_id, nickname, user_handle, expires_ms",
                (challenge_id,),
            )
        if not rows:
            raise AccountError("bad_challenge", "this sign-in step is unknown or was already used")
        ch = Challenge(*rows[0])
        if ch.kind != kind or ch.expires_ms < now_ms:
            raise AccountError("bad_challenge", "this sign-in step expired: start again")
        return ch

    # -- accounts ----------------------------------------------------------------------------------------
    def nickname_taken(self, folded: str) -> bool:
        with self.db.transaction() as tx:
            return bool(tx.rows("SELECT 1 FROM accounts WHERE folded = ?", (folded,)))

    def create(self, new: NewAccount) -> None:
        """Raises AccountError ``nickname_taken`` (someone took it since the options were given)."""
        a, c = new.account, new.credential
        with self.db.transaction() as tx:
            added = tx.run(
                "INSERT INTO accounts (id, nickname, folded, user_handle, recovery_salt, created_ms)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (a.id, a.nickname, new.folded, a.user_handle, a.recovery_salt, a.created_ms),
            )
            if added != 1:
                raise AccountError("nickname_taken", "this nickname is taken", status=409)
            _insert_credential(tx, c)
            for h in new.recovery_hashes:
                tx.run(
                    "INSERT INTO recovery_codes (hash, account_id, used_ms) VALUES (?, ?, NULL)", (h, a.id)
                )

    def account(self, account_id: str) -> Account | None:
        with self.db.transaction() as tx:
            rows = tx.rows(_ACCOUNT + " WHERE id = ?", (account_id,))
        return Account(*rows[0]) if rows else None

    def by_nickname(self, folded: str) -> Account | None:
        with self.db.transaction() as tx:
            rows = tx.rows(_ACCOUNT + " WHERE folded = ?", (folded,))
        return Account(*rows[0]) if rows else None

    # -- passkeys ----------------------------------------------------------------------------------------
    def credential(self, credential_id: str) -> Credential | None:
        with self.db.transaction() as tx:
            rows = tx.rows(_CREDENTIAL + " WHERE id = ?", (credential_id,))
        return _credential(rows[0]) if rows else None

    def credentials(self, account_id: str) -> list[Credential]:
        with self.db.transaction() as tx:
            rows = tx.rows(_CREDENTIAL + " WHERE account_id = ? ORDER BY created_ms, id", (account_id,))
        return [_credential(r) for r in rows]

    def add_credential(self, credential: Credential) -> None:
        """Raises AccountError ``passkey_exists`` (this authenticator is registered already)."""
        with self.db.transaction() as tx:
            _insert_credential(tx, credential)

    def used(self, credential_id: str, old_count: int, new_count: int, now_ms: int) -> None:
        """Records a sign-in with the credential. Raises AccountError ``bad_counter`` if another sign-in
        moved its counter meanwhile (a cloned authenticator racing this one)."""
        with self.db.transaction() as tx:
            changed = tx.run(
                "UPDATE credentials SET sign_count = ?, used_ms = ? WHERE id = ? AND sign_count = ?",
                (new_count, now_ms, credential_id, old_count),
            )
        if changed != 1:
            raise AccountError("bad_counter", "this passkey's counter went backwards", status=401)

    def rename_credential(self, account_id: str, credential_id: str, name: str) -> bool:
        with self.db.transaction() as tx:
            return (
                tx.run(
                    "UPDATE credentials SET name = ? WHERE id = ? AND account_id = ?",
                    (name, credential_id, account_id),
                )
                == 1
            )

    def remove_credential(self, account_id: str, credential_id: str) -> None:
        """Raises AccountError ``no_such_passkey``, ``last_passkey`` (an account keeps one at least)."""
        with self.db.transaction() as tx:
            ids = [r[0] for r in tx.rows("SELECT id FROM credentials WHERE account_id = ?", (account_id,))]
            if credential_id not in ids:
                raise AccountError("no_such_passkey", "this account has no such passkey", status=404)
            if len(ids) == 1:
                raise AccountError("last_passkey", "an account keeps at least one passkey", status=409)
            tx.run("DELETE FROM credentials WHERE id = ? AND account_id = ?", (credential_id, account_id))

    # -- recovery codes ----------------------------------------------------------------------------------
    def use_recovery_code(self, account_id: str, code_hash: str, now_ms: int) -> bool:
        """Spends one unused recovery code; False if it is not one of the account's, or was used."""
        with self.db.transaction() as tx:
            return (
                tx.run(
                    "UPDATE recovery_codes SET used_ms = ?"
                    " WHERE hash = ? AND account_id = ? AND used_ms IS NULL",
                    (now_ms, code_hash, account_id),
                )
                == 1
            )

    def recovery_codes_left(self, account_id: str) -> int:
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT COUNT(*) FROM recovery_codes WHERE account_id = ? AND used_ms IS NULL", (account_id,)
            )
        return int(rows[0][0])

    # -- sessions ----------------------------------------------------------------------------------------
    def add_session(self, token_hash: str, account_id: str, now_ms: int, expires_ms: int, agent: str) -> None:
        with self.db.transaction() as tx:
            tx.run(
                "INSERT INTO sessions (hash, account_id, created_ms, seen_ms, expires_ms, agent)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (token_hash, account_id, now_ms, now_ms, expires_ms, agent[:200]),
            )

    def session(self, token_hash: str, now_ms: int) -> tuple[Account, int, int] | None:
        """(account, seen_ms, expires_ms) of a live session; None for an unknown or expired one."""
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT a.id, a.nickname, a.user_handle, a.recovery_salt, a.created_ms,"
                " s.seen_ms, s.expires_ms FROM sessions s JOIN accounts a ON a.id = s.account_id"
                " WHERE s.hash = ? AND s.expires_ms > ?",
                (token_hash, now_ms),
            )
        if not rows:
            return None
        r = rows[0]
        return Account(*r[:5]), int(r[5]), int(r[6])

    def extend_session(self, token_hash: str, now_ms: int, expires_ms: int) -> None:
        with self.db.transaction() as tx:
            tx.run(
                "UPDATE sessions SET seen_ms = ?, expires_ms = ? WHERE hash = ?",
                (now_ms, expires_ms, token_hash),
            )

    def end_session(self, token_hash: str) -> None:
        with self.db.transaction() as tx:
            tx.run("DELETE FROM sessions WHERE hash = ?", (token_hash,))

    def end_sessions(self, account_id: str) -> int:
        with self.db.transaction() as tx:
            return tx.run("DELETE FROM sessions WHERE account_id = ?", (account_id,))

    # -- seats -------------------------------------------------------------------------------------------
    def claim_seat(self, table_id: str, seat: int, account_id: str, now_ms: int) -> bool:
        """Attaches a seat to the account unless an account has it already; True if it is this account's
        now (idempotent)."""
        with self.db.transaction() as tx:
            tx.run(
                "INSERT INTO seat_accounts (table_id, seat, account_id, claimed_ms) VALUES (?, ?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                (table_id, seat, account_id, now_ms),
            )
            rows = tx.rows(
                "SELECT account_id FROM seat_accounts WHERE table_id = ? AND seat = ?", (table_id, seat)
            )
        return bool(rows) and rows[0][0] == account_id

    def seat_deleted(self, table_id: str, seat: int) -> bool:
        with self.db.transaction() as tx:
            return bool(
                tx.rows("SELECT 1 FROM deleted_seats WHERE table_id = ? AND seat = ?", (table_id, seat))
            )

    def seats(self, account_id: str) -> list[tuple[str, int]]:
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT table_id, seat FROM seat_accounts WHERE account_id = ? ORDER BY claimed_ms DESC",
                (account_id,),
            )
        return [(str(r[0]), int(r[1])) for r in rows]


def _insert_credential(tx: Tx, c: Credential) -> None:
    added = tx.run(
        "INSERT INTO credentials"
        " (id, account_id, public_key, sign_count, transports, name, created_ms, used_ms)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, NULL) ON CONFLICT DO NOTHING",
        (
            c.id,
            c.account_id,
            c.public_key,
            c.sign_count,
            json.dumps(list(c.transports)),
            c.name,
            c.created_ms,
        ),
    )
    if added != 1:
        raise AccountError("passkey_exists", "this passkey is registered already", status=409)


def _credential(r: tuple[object, ...]) -> Credential:
    transports = json.loads(str(r[4]))
    used = r[7]
    return Credential(
        id=str(r[0]),
        account_id=str(r[1]),
        public_key=str(r[2]),
        sign_count=int(str(r[3])),
        transports=tuple(str(t) for t in transports),
        name=str(r[5]),
        created_ms=int(str(r[6])),
        used_ms=None if used is None else int(str(used)),
    )
