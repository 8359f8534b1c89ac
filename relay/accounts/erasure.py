"""Deleting an account (docs/protocol.md, "Accounts"): its passkeys, sessions, recovery codes, ceremonies in
progress, seat claims, blocks both ways, bans, ratings and seeks go, and the account itself (its nickname is
free again), in one transaction.

The games it played stay whole for the other players: the journal is never rewritten, the history rows
(``game_players``) are kept, and each seat the account had is marked in ``deleted_seats`` so that profiles
show that opponent as a deleted player, with no link to anyone (a new account taking the nickname later is
somebody else).
"""

from __future__ import annotations

from relay.accounts.db import Db


class Erasure:
    """One query; raises as relay.accounts.store.AccountStore."""

    def __init__(self, db: Db) -> None:
        self.db = db

    def delete(self, account_id: str, now_ms: int) -> int | None:
        """Deletes the account and everything that is its own; returns how many of its seats were marked
        deleted, or None if there was no such account (deleted meanwhile, from another session)."""
        with self.db.transaction() as tx:
            marked = tx.run(
                "INSERT INTO deleted_seats (table_id, seat, deleted_ms)"
                " SELECT table_id, seat, ? FROM seat_accounts WHERE account_id = ? ON CONFLICT DO NOTHING",
                (now_ms, account_id),
            )
            # Each table named, not left to ON DELETE CASCADE: SQLite only cascades with its foreign_keys
            # pragma on, and what a deletion removes should read here.
            own = ("seat_accounts", "sessions", "recovery_codes", "credentials", "challenges", "bans")
            for table in (*own, "ratings", "seeks", "offer_seats", "push_subscriptions", "push_pending"):
                tx.run(f"DELETE FROM {table} WHERE account_id = ?", (account_id,))
            tx.run("DELETE FROM blocks WHERE blocker_id = ? OR blocked_id = ?", (account_id, account_id))
            # Reports stay for the host (what was said at a table is not the account's to take back); they
            # no longer name the account, either as reporter or as reported (an address ban still can).
            tx.run("UPDATE reports SET reporter_id = NULL WHERE reporter_id = ?", (account_id,))
            tx.run("UPDATE reports SET account_id = NULL WHERE account_id = ?", (account_id,))
            if tx.run("DELETE FROM accounts WHERE id = ?", (account_id,)) != 1:
                return None
        return marked
