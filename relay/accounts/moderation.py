"""Moderation: blocks between players, players' reports, hosts' bans and renames (docs/hosting.md,
"Moderation"; docs/protocol.md, "Moderation").

- A signed-in player blocks another account: the blocked player's chat is hidden from the blocker (live and
  in the history sent at a welcome), the two are never paired, and the blocked player cannot sit at a private
  table where the blocker sits.
- A signed-in player reports someone seated at their table: the reason, a note, the table and the last lines
  of its chat are kept for the host, with the reported seat's account and client address (so that a guest can
  be banned by address).
- The host (``lexio admin``) bans an account or an address until a date, with a reason the player is told;
  a banned player cannot sit nor chat, and sign-ups from a banned address are refused. A ban can be lifted;
  an offensive nickname can be renamed.

Addresses are stored by their budget key (one IPv4 address, or one IPv6 /64: relay.http.limits.address_key),
computed by the caller. Every method is one transaction on the accounts' database (relay/accounts/db.py), so
that what one relay or the admin command writes, every relay reads at once.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from relay.accounts.db import Db, Row
from relay.accounts.errors import AccountError
from relay.accounts.nicknames import check_nickname, fold
from relay.accounts.store import Account
from relay.tables.table import Suspension

REASONS = ("insult", "cheating", "spam", "nickname", "other")
MAX_BLOCKS = 500
REPORTS_PER_DAY = 20
NOTE_MAX = 500
BAN_REASON_MAX = 200
EXCERPT_LINES = 30
DAY_MS = 24 * 3600 * 1000


@dataclass(frozen=True, slots=True)
class Blocked:
    account_id: str
    nickname: str
    created_ms: int


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One line of a report's chat excerpt, as it was shown at the table."""

    name: str | None
    text: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class NewReport:
    reporter_id: str
    table_id: str
    seat: int
    name: str  # the reported seat's name at the table
    account_id: str | None  # the reported seat's account; None: a guest
    address: str | None  # the reported seat's client address key, when it was connected
    reason: object
    note: object
    excerpt: tuple[ChatLine, ...]


@dataclass(frozen=True, slots=True)
class Report:
    id: str
    created_ms: int
    reporter: str | None  # the reporter's nickname; None once their account is deleted
    table_id: str
    seat: int
    name: str
    account: str | None  # the reported account's nickname now; None: a guest, or deleted
    address: str | None
    reason: str
    note: str
    excerpt: tuple[ChatLine, ...]
    closed_ms: int | None


@dataclass(frozen=True, slots=True)
class Ban:
    id: str
    account_id: str | None
    nickname: str | None
    address: str | None
    reason: str
    created_ms: int
    until_ms: int
    lifted_ms: int | None

    def to_json(self) -> dict[str, object]:
        """What the banned player is told (never the address, nor who asked for it)."""
        return {"reason": self.reason, "until": self.until_ms}

    def suspension(self) -> Suspension:
        return Suspension(self.reason, self.until_ms)


_BAN = (
    "SELECT b.id, b.account_id, a.nickname, b.address, b.reason, b.created_ms, b.until_ms, b.lifted_ms"
    " FROM bans b LEFT JOIN accounts a ON a.id = b.account_id"
)
_REPORT = (
    "SELECT r.id, r.created_ms, p.nickname, r.table_id, r.seat, r.name, a.nickname, r.address, r.reason,"
    " r.note, r.excerpt, r.closed_ms FROM reports r"
    " LEFT JOIN accounts p ON p.id = r.reporter_id LEFT JOIN accounts a ON a.id = r.account_id"
)


class Moderation:
    """Raises JournalUnavailable (PostgreSQL unreachable) or sqlite3.Error (SQLite I/O) besides the
    AccountErrors each method names."""

    def __init__(self, db: Db, now_ms: Callable[[], int]) -> None:
        self.db = db
        self.now_ms = now_ms

    # -- blocks ------------------------------------------------------------------------------------------
    def block(self, blocker_id: str, nickname: object) -> Blocked:
        """``blocker_id`` blocks the account ``nickname`` (blocking twice is one block). Raises AccountError
        ``no_such_player``, ``block_self``, ``too_many_blocks``."""
        target = self._account(nickname)
        if target.id == blocker_id:
            raise AccountError("block_self", "you cannot block yourself")
        now = self.now_ms()
        with self.db.transaction() as tx:
            count = int(tx.rows("SELECT COUNT(*) FROM blocks WHERE blocker_id = ?", (blocker_id,))[0][0])
            if count >= MAX_BLOCKS:
                raise AccountError("too_many_blocks", f"at most {MAX_BLOCKS} blocked players")
            tx.run(
                "INSERT INTO blocks (blocker_id, blocked_id, created_ms) VALUES (?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                (blocker_id, target.id, now),
            )
        return Blocked(target.id, target.nickname, now)

    def unblock(self, blocker_id: str, nickname: object) -> None:
        """Raises AccountError ``no_such_player``, ``not_blocked``."""
        target = self._account(nickname)
        with self.db.transaction() as tx:
            gone = tx.run(
                "DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?", (blocker_id, target.id)
            )
        if gone != 1:
            raise AccountError("not_blocked", "this player is not blocked", status=404)

    def blocked(self, blocker_id: str) -> list[Blocked]:
        """The accounts ``blocker_id`` blocks, by nickname."""
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT a.id, a.nickname, b.created_ms FROM blocks b JOIN accounts a ON a.id = b.blocked_id"
                " WHERE b.blocker_id = ? ORDER BY a.folded",
                (blocker_id,),
            )
        return [Blocked(str(r[0]), str(r[1]), int(r[2])) for r in rows]

    def blocked_ids(self, blocker_id: str) -> frozenset[str]:
        with self.db.transaction() as tx:
            rows = tx.rows("SELECT blocked_id FROM blocks WHERE blocker_id = ?", (blocker_id,))
        return frozenset(str(r[0]) for r in rows)

    def blockers(self, blocked_id: str) -> frozenset[str]:
        """The accounts that block ``blocked_id``."""
        with self.db.transaction() as tx:
            rows = tx.rows("SELECT blocker_id FROM blocks WHERE blocked_id = ?", (blocked_id,))
        return frozenset(str(r[0]) for r in rows)

    # -- reports -----------------------------------------------------------------------------------------
    def report(self, new: NewReport) -> str:
        """Keeps a report; returns its id. Raises AccountError ``bad_reason``, ``bad_note``,
        ``report_self``, ``too_many_reports`` (``REPORTS_PER_DAY`` a day and reporter)."""
        if new.reason not in REASONS:
            raise AccountError("bad_reason", f"the reason is one of {', '.join(REASONS)}")
        note = new.note if new.note is not None else ""
        if not isinstance(note, str) or len(note) > NOTE_MAX or not " ".join(note.split()).isprintable():
            raise AccountError("bad_note", f"a note has at most {NOTE_MAX} printable characters")
        if new.account_id == new.reporter_id:
            raise AccountError("report_self", "you cannot report yourself")
        now = self.now_ms()
        excerpt = json.dumps(
            [[line.name, line.text, line.at_ms] for line in new.excerpt[-EXCERPT_LINES:]], ensure_ascii=False
        )
        report_id = secrets.token_hex(4)
        with self.db.transaction() as tx:
            recent = tx.rows(
                "SELECT COUNT(*) FROM reports WHERE reporter_id = ? AND created_ms > ?",
                (new.reporter_id, now - DAY_MS),
            )
            if int(recent[0][0]) >= REPORTS_PER_DAY:
                raise AccountError(
                    "too_many_reports", f"at most {REPORTS_PER_DAY} reports a day", status=429,
                    retry_after=DAY_MS / 1000,
                )  # fmt: skip
            tx.run(
                "INSERT INTO reports (id, created_ms, reporter_id, table_id, seat, name, account_id, address,"
                " reason, note, excerpt, closed_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
                (
                    report_id, now, new.reporter_id, new.table_id, new.seat, new.name, new.account_id,
                    new.address, new.reason, " ".join(note.split()), excerpt,
                ),
            )  # fmt: skip
        return report_id

    def reports(self, *, closed: bool = False, limit: int = 100) -> list[Report]:
        """The open reports (``closed``: all), newest first."""
        where = "" if closed else " WHERE r.closed_ms IS NULL"
        with self.db.transaction() as tx:
            rows = tx.rows(_REPORT + where + " ORDER BY r.created_ms DESC LIMIT ?", (limit,))
        return [_report(r) for r in rows]

    def close_report(self, report_id: str) -> None:
        """Raises AccountError ``no_such_report``."""
        with self.db.transaction() as tx:
            done = tx.run(
                "UPDATE reports SET closed_ms = ? WHERE id = ? AND closed_ms IS NULL",
                (self.now_ms(), report_id),
            )
        if done != 1:
            raise AccountError("no_such_report", f"no open report {report_id!r}", status=404)

    # -- bans --------------------------------------------------------------------------------------------
    def ban(
        self, *, nickname: str | None = None, address: str | None = None, for_ms: int, reason: str
    ) -> Ban:
        """Bans an account (by nickname) or an address key for ``for_ms``. Raises AccountError
        ``no_such_player``, ``bad_ban`` (neither or both targets, a length not positive, an empty or long
        reason)."""
        if (nickname is None) == (address is None):
            raise AccountError("bad_ban", "ban either an account or an address")
        reason = " ".join(reason.split())
        if not reason or len(reason) > BAN_REASON_MAX or not reason.isprintable():
            raise AccountError("bad_ban", f"a ban's reason has 1 to {BAN_REASON_MAX} printable characters")
        if for_ms <= 0:
            raise AccountError("bad_ban", "a ban lasts some time")
        account = self._account(nickname) if nickname is not None else None
        now = self.now_ms()
        ban = Ban(
            secrets.token_hex(4),
            account.id if account else None,
            account.nickname if account else None,
            address,
            reason,
            now,
            now + for_ms,
            None,
        )
        with self.db.transaction() as tx:
            tx.run(
                "INSERT INTO bans (id, account_id, address, reason, created_ms, until_ms, lifted_ms)"
                " VALUES (?, ?, ?, ?, ?, ?, NULL)",
                (ban.id, ban.account_id, ban.address, ban.reason, ban.created_ms, ban.until_ms),
            )
        return ban

    def lift(self, ban_id: str) -> None:
        """Raises AccountError ``no_such_ban`` (unknown, lifted or over)."""
        now = self.now_ms()
        with self.db.transaction() as tx:
            done = tx.run(
                "UPDATE bans SET lifted_ms = ? WHERE id = ? AND lifted_ms IS NULL AND until_ms > ?",
                (now, ban_id, now),
            )
        if done != 1:
            raise AccountError("no_such_ban", f"no ban {ban_id!r} in force", status=404)

    def bans(self, *, ended: bool = False) -> list[Ban]:
        """The bans in force (``ended``: every ban), newest first."""
        now = self.now_ms()
        where = "" if ended else " WHERE b.lifted_ms IS NULL AND b.until_ms > ?"
        with self.db.transaction() as tx:
            rows = tx.rows(_BAN + where + " ORDER BY b.created_ms DESC", () if ended else (now,))
        return [_ban(r) for r in rows]

    def ban_on(self, account_id: str | None, address: str | None) -> Ban | None:
        """The ban in force on the account or the address that ends last; None: neither is banned."""
        if account_id is None and address is None:
            return None
        with self.db.transaction() as tx:
            rows = tx.rows(
                _BAN + " WHERE b.lifted_ms IS NULL AND b.until_ms > ? AND (b.account_id = ? OR b.address = ?)"
                " ORDER BY b.until_ms DESC LIMIT 1",
                (self.now_ms(), account_id, address),
            )
        return _ban(rows[0]) if rows else None

    # -- renames -----------------------------------------------------------------------------------------
    def rename(self, old: object, new: object) -> Account:
        """Gives the account ``old`` the nickname ``new``; its finished games show the new name too (the
        journal keeps what was played under). Raises AccountError ``no_such_player``, ``bad_nickname``,
        ``nickname_taken``."""
        account = self._account(old)
        name = check_nickname(new)
        with self.db.transaction() as tx:
            clash = tx.rows("SELECT id FROM accounts WHERE folded = ? AND id <> ?", (fold(name), account.id))
            if clash:
                raise AccountError("nickname_taken", "this nickname is taken", status=409)
            tx.run(
                "UPDATE accounts SET nickname = ?, folded = ? WHERE id = ?", (name, fold(name), account.id)
            )
            tx.run(
                "UPDATE game_players SET name = ? WHERE EXISTS (SELECT 1 FROM seat_accounts s"
                " WHERE s.table_id = game_players.table_id AND s.seat = game_players.seat"
                " AND s.account_id = ?)",
                (name, account.id),
            )
        return Account(account.id, name, account.user_handle, account.recovery_salt, account.created_ms)

    def _account(self, nickname: object) -> Account:
        if not isinstance(nickname, str) or len(nickname) > 40:
            raise AccountError("no_such_player", "no player has this nickname", status=404)
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT id, nickname, user_handle, recovery_salt, created_ms FROM accounts WHERE folded = ?",
                (fold(nickname.strip()),),
            )
        if not rows:
            raise AccountError("no_such_player", "no player has this nickname", status=404)
        return Account(*rows[0])


def _ban(r: Row) -> Ban:
    return Ban(
        str(r[0]), r[1], r[2], r[3], str(r[4]), int(r[5]), int(r[6]), None if r[7] is None else int(r[7])
    )


def _report(r: Row) -> Report:
    lines: Sequence[list[object]] = json.loads(r[10])
    return Report(
        id=str(r[0]),
        created_ms=int(r[1]),
        reporter=r[2],
        table_id=str(r[3]),
        seat=int(r[4]),
        name=str(r[5]),
        account=r[6],
        address=r[7],
        reason=str(r[8]),
        note=str(r[9]),
        excerpt=tuple(ChatLine(_opt_str(n), str(t), int(str(a))) for n, t, a in lines),
        closed_ms=None if r[11] is None else int(r[11]),
    )


def _opt_str(value: object) -> str | None:
    return None if value is None else str(value)


__all__ = ["REASONS", "Ban", "Blocked", "ChatLine", "Moderation", "NewReport", "Report"]
