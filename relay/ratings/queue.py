"""The "play now" queue in the accounts database: seeks, the offers the pairing makes, their confirmations.

Several relays share one PostgreSQL database (docs/ratings.md, "Play now across relays"): the queue lives
there, not in one relay's memory, so that a seek is paired once whichever relay its socket reached. Every
method is one short transaction (relay/accounts/db.py), run by the relay through ``Accounts.call`` (in a
thread on PostgreSQL); time comes from ``now_ms`` (the cluster's clock) and ids from ``new_id``.

* **A round** (:meth:`SeekQueue.pair`), about every second on every relay, holds the pairing lock for its
  transaction: PostgreSQL's ``pg_try_advisory_xact_lock(PAIRING_LOCK)`` (a relay that does not get it skips
  the round: another is pairing), SQLite's ``BEGIN IMMEDIATE`` (one writer at a time). It drops the seeks
  of dead relays (unseen for :data:`UNSEEN_MS`), fails the offers past their deadline (the seats that had
  not confirmed lose their seek, the others wait again with their original enqueue time), then groups the
  waiting seeks with the one pure pairing function, :func:`relay.ratings.pairing.match`, and writes an offer
  for each group.
* **Each relay** refreshes the ``seen_ms`` heartbeat of its live sockets' seeks at the start of its round's
  transaction (whether or not it gets the lock), then reads them (:meth:`SeekQueue.poll`) and tells the
  players what changed.
* **Confirmations** (:meth:`SeekQueue.confirm`) count on the offer's row, locked first, so that exactly one
  confirmation is the last: the relay that made it creates the table and writes its id
  (:meth:`SeekQueue.started`); each seeker's relay sees it at its next poll.

Refusals raise :class:`relay.ratings.errors.RatingError` and change nothing (the transaction is rolled
back). Every method may also raise JournalUnavailable (PostgreSQL unreachable) or sqlite3.Error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from relay.accounts.db import Db, Tx
from relay.ratings.classes import SpeedClass, parse_class
from relay.ratings.errors import RatingError
from relay.ratings.pairing import CONFIRM_SECONDS, Seek, SizePref, blocked_pairs, match, parse_size

# The pairing round's advisory lock (7341 is the accounts' migration lock).
PAIRING_LOCK: Final = 7342
# A seek whose relay has not refreshed it for this long belongs to a dead relay (or a socket whose close
# was never recorded): dropped at the next round.
UNSEEN_MS: Final = 10_000
CONFIRM_MS: Final = round(CONFIRM_SECONDS * 1000)
# An offer every seat confirmed, whose table no relay recorded this long after the deadline (the relay
# creating it died): its players wait again.
START_GRACE_MS: Final = 10_000
# An offer that formed a table is kept this long: only its accounts may sit at that table meanwhile
# (relay/accounts/ratings.py: reserved), far longer than an unjoined table lives.
OFFER_KEPT_MS: Final = 24 * 3600 * 1000
# The classes "play now" pairs, and the turn time of the tables it forms (a class's bounds are in
# relay/ratings/classes.py; correspondence is not played "now").
TURN_SECONDS: Final = {SpeedClass.RAPIDE: 60, SpeedClass.NORMAL: 120, SpeedClass.LENT: 300}
# Sockets refreshed per statement (the heartbeat's IN list).
_CHUNK = 200


def parse_seek(speed: object, size: object) -> tuple[SpeedClass, SizePref]:
    """A seek's class and size as a client names them. Raises RatingError ``unknown_class`` (not a class
    "play now" pairs, or not a string), ``bad_size``."""
    if not isinstance(speed, str):
        raise RatingError("unknown_class", "the speed class must be rapide, normal or lent")
    parsed = parse_class(speed)
    if parsed not in TURN_SECONDS:
        raise RatingError("unknown_class", f"no play now in the class {parsed.value!r}")
    if not isinstance(size, str):
        raise RatingError("bad_size", "table size must be 2, 3-4 or any")
    return parsed, parse_size(size)


@dataclass(frozen=True, slots=True)
class OfferSeat:
    nickname: str
    rating: str  # as shown: "1523", "1346?"


@dataclass(frozen=True, slots=True)
class OfferState:
    """An offer as its seats' relays see it: ``table`` once every seat confirmed and the table exists."""

    id: str
    deadline_ms: int
    players: tuple[OfferSeat, ...]
    table: str | None


@dataclass(frozen=True, slots=True)
class SeekState:
    """One socket's seek: waiting (``offer`` None), or offered a table."""

    speed: SpeedClass
    offer: OfferState | None


@dataclass(frozen=True, slots=True)
class Poll:
    """A relay's sockets' seeks (a socket missing from ``seeks`` has none: never made, or dropped by a
    round), and how many seek in each class, cluster-wide."""

    seeks: dict[str, SeekState]
    counts: dict[SpeedClass, int]


@dataclass(frozen=True, slots=True)
class Round:
    """What a pairing round did; ``ran`` False: another relay held the lock (nothing done)."""

    ran: bool
    offered: tuple[tuple[str, ...], ...] = ()  # each new offer's accounts, its anchor first
    failed: int = 0  # offers past their deadline, undone
    expired: int = 0  # seeks of dead relays dropped


class SeekQueue:
    """The queue's transactions. ``now_ms``: the cluster's clock; ``new_id``: a fresh offer id."""

    def __init__(self, db: Db, now_ms: Callable[[], int], new_id: Callable[[], str]) -> None:
        self.db = db
        self.now_ms = now_ms
        self.new_id = new_id

    # -- a player's own seek -----------------------------------------------------------------------------
    def seek(
        self, account_id: str, socket: str, node: str, speed: SpeedClass, size: SizePref, rating: int,
        label: str,
    ) -> None:  # fmt: skip
        """Queues the account's seek, made on ``socket`` of relay ``node``; ``rating`` is paired on,
        ``label`` shown to the others. Raises RatingError ``seek_twice`` if the account already seeks (on
        any socket of any relay, waiting or offered)."""
        now = self.now_ms()
        with self.db.transaction() as tx:
            added = tx.run(
                "INSERT INTO seeks (account_id, socket, node, speed, size, rating, label, enqueued_ms,"
                " seen_ms, offer_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL) ON CONFLICT DO NOTHING",
                (account_id, socket, node, speed.value, size.value, rating, label, now, now),
            )
            if added != 1:
                raise RatingError("seek_twice", "you are already looking for a game", status=409)

    def cancel(self, account_id: str, socket: str) -> str | None:
        """Withdraws the socket's seek; an offer it was in fails (the others wait again). Returns the table
        already formed for it, if any (too late to cancel: the seek is gone, the seat is theirs). Raises
        RatingError ``no_seek``."""
        with self.db.transaction() as tx:
            rows = tx.rows(
                "DELETE FROM seeks WHERE account_id = ? AND socket = ? RETURNING offer_id",
                (account_id, socket),
            )
            if not rows:
                raise RatingError("no_seek", "you are not looking for a game", status=409)
            offer = rows[0][0]
            return None if offer is None else _leave_offer(tx, str(offer))

    def leave(self, socket: str) -> None:
        """The socket closed: its seek goes at once; an offer it was in fails (the others wait again)."""
        with self.db.transaction() as tx:
            rows = tx.rows("DELETE FROM seeks WHERE socket = ? RETURNING offer_id", (socket,))
            if rows and rows[0][0] is not None:
                _leave_offer(tx, str(rows[0][0]))

    def confirm(self, account_id: str, socket: str, offer_id: str) -> bool:
        """The seat accepts the offer; True when this confirmation is the last one (the caller creates the
        table, then calls :meth:`started`). Confirming again changes nothing (False). Raises RatingError
        ``not_offered``: not this socket's offer, past its deadline, undone, or its table made already."""
        now = self.now_ms()
        with self.db.transaction() as tx:
            _own_offer(tx, account_id, socket, offer_id, now)
            first = tx.run(
                "UPDATE offer_seats SET confirmed_ms = ? WHERE offer_id = ? AND account_id = ?"
                " AND confirmed_ms IS NULL",
                (now, offer_id, account_id),
            )
            if first != 1:
                return False
            row = tx.rows(
                "UPDATE offers SET confirmed = confirmed + 1 WHERE id = ? RETURNING confirmed, seats",
                (offer_id,),
            )[0]
            return int(row[0]) == int(row[1])

    def decline(self, account_id: str, socket: str, offer_id: str) -> None:
        """The seat refuses the offer: its seek goes, the others wait again. Raises RatingError
        ``not_offered`` as :meth:`confirm`."""
        with self.db.transaction() as tx:
            _own_offer(tx, account_id, socket, offer_id, self.now_ms())
            _undo(tx, offer_id, drop=(account_id,))

    # -- the table ---------------------------------------------------------------------------------------
    def started(self, offer_id: str, table_id: str) -> bool:
        """Records the table made for a confirmed offer; False if the offer was undone meanwhile (a seat
        cancelled or left: the table stays empty and is dropped unjoined)."""
        with self.db.transaction() as tx:
            return (
                tx.run(
                    "UPDATE offers SET table_id = ? WHERE id = ? AND table_id IS NULL AND confirmed = seats",
                    (table_id, offer_id),
                )
                == 1
            )

    def abandon(self, offer_id: str) -> None:
        """The table of a confirmed offer could not be made: every seat waits again."""
        with self.db.transaction() as tx:
            if _lock_pending(tx, offer_id):
                _undo(tx, offer_id, drop=())

    def delivered(self, socket: str, offer_id: str) -> None:
        """The seeker was told its table: its seek is done."""
        with self.db.transaction() as tx:
            tx.run("DELETE FROM seeks WHERE socket = ? AND offer_id = ?", (socket, offer_id))

    # -- every relay, every second -----------------------------------------------------------------------
    def poll(self, node: str) -> Poll:
        """The seeks of relay ``node``'s sockets, and how many seek in each class."""
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT s.socket, s.speed, s.offer_id, o.deadline_ms, o.table_id FROM seeks s"
                " LEFT JOIN offers o ON o.id = s.offer_id WHERE s.node = ?",
                (node,),
            )
            seats = tx.rows(
                "SELECT offer_id, nickname, label FROM offer_seats WHERE offer_id IN (SELECT offer_id"
                " FROM seeks WHERE node = ? AND offer_id IS NOT NULL) ORDER BY offer_id, seat",
                (node,),
            )
            counts = _counts(tx)
        players: dict[str, list[OfferSeat]] = {}
        for offer_id, nickname, label in seats:
            players.setdefault(str(offer_id), []).append(OfferSeat(str(nickname), str(label)))
        out: dict[str, SeekState] = {}
        for socket, speed, offer_id, deadline, table in rows:
            if speed not in TURN_SECONDS:
                continue  # a class this relay does not know (a newer relay's seek)
            offer = None
            if offer_id is not None and deadline is not None:
                offer = OfferState(
                    str(offer_id),
                    int(deadline),
                    tuple(players.get(str(offer_id), ())),
                    None if table is None else str(table),
                )
            out[str(socket)] = SeekState(SpeedClass(speed), offer)
        return Poll(out, counts)

    def counts(self) -> dict[SpeedClass, int]:
        """How many seek in each class (waiting or offered), cluster-wide."""
        with self.db.transaction() as tx:
            return _counts(tx)

    def pair(self, node: str, sockets: Sequence[str]) -> Round:
        """Refreshes the heartbeat of relay ``node``'s live ``sockets``, then one pairing round (see the
        module's docstring) if this relay gets the pairing lock. The heartbeat comes first, in the same
        transaction: a relay never finds its own live seeks unseen."""
        now = self.now_ms()
        with self.db.transaction() as tx:
            for i in range(0, len(sockets), _CHUNK):
                chunk = sockets[i : i + _CHUNK]
                marks = ", ".join("?" for _ in chunk)
                tx.run(f"UPDATE seeks SET seen_ms = ? WHERE socket IN ({marks})", (now, *chunk))
            # SQLite: the transaction is BEGIN IMMEDIATE, the one writer; PostgreSQL: one round at a time
            # across the relays, and a relay that finds another pairing skips this round.
            locked = f"SELECT pg_try_advisory_xact_lock({PAIRING_LOCK})"
            if self.db.kind == "postgresql" and not tx.rows(locked)[0][0]:
                return Round(ran=False)
            expired = tx.run("DELETE FROM seeks WHERE seen_ms < ?", (now - UNSEEN_MS,))
            failed = _expire_offers(tx, now)
            old = now - OFFER_KEPT_MS
            tx.run(
                "DELETE FROM offer_seats WHERE offer_id IN"
                " (SELECT id FROM offers WHERE table_id IS NOT NULL AND created_ms < ?)",
                (old,),
            )
            tx.run("DELETE FROM offers WHERE table_id IS NOT NULL AND created_ms < ?", (old,))
            waiting, names = _waiting(tx)
            blocks = tx.rows(
                "SELECT b.blocker_id, b.blocked_id FROM blocks b"
                " JOIN seeks s1 ON s1.account_id = b.blocker_id JOIN seeks s2 ON s2.account_id = b.blocked_id"
                " WHERE s1.offer_id IS NULL AND s2.offer_id IS NULL"
            )
            apart = blocked_pairs((str(a), str(b)) for a, b in blocks)
            offered = []
            for group in match(waiting, now / 1000, apart):
                if self._offer(tx, group, names, now):
                    offered.append(tuple(s.player for s in group))
        return Round(True, tuple(offered), failed, expired)

    def _offer(self, tx: Tx, group: Sequence[Seek], names: dict[str, tuple[str, str]], now: int) -> bool:
        offer_id = self.new_id()
        # Each seek is claimed first: on PostgreSQL one cancelled on another relay since it was read (read
        # committed) is no longer there, and the group is given up (its others wait for the next round).
        claimed = sum(
            tx.run(
                "UPDATE seeks SET offer_id = ? WHERE account_id = ? AND offer_id IS NULL",
                (offer_id, s.player),
            )
            for s in group
        )
        if claimed != len(group):
            tx.run("UPDATE seeks SET offer_id = NULL WHERE offer_id = ?", (offer_id,))
            return False
        # Never dated before the seeks it pairs: on PostgreSQL a seek committed after this round read the
        # clock is still read by it (read committed), and would otherwise get less than CONFIRM_MS to confirm.
        now = max(now, *(round(s.enqueued_at * 1000) for s in group))
        tx.run(
            "INSERT INTO offers (id, speed, seats, confirmed, created_ms, deadline_ms, table_id)"
            " VALUES (?, ?, ?, 0, ?, ?, NULL)",
            (offer_id, group[0].speed.value, len(group), now, now + CONFIRM_MS),
        )
        for seat, s in enumerate(group):
            nickname, label = names[s.player]
            tx.run(
                "INSERT INTO offer_seats (offer_id, account_id, seat, nickname, label, confirmed_ms)"
                " VALUES (?, ?, ?, ?, ?, NULL)",
                (offer_id, s.player, seat, nickname, label),
            )
        return True


def _counts(tx: Tx) -> dict[SpeedClass, int]:
    rows = tx.rows("SELECT speed, COUNT(*) FROM seeks GROUP BY speed")
    return {SpeedClass(speed): int(n) for speed, n in rows if speed in TURN_SECONDS}


def _waiting(tx: Tx) -> tuple[list[Seek], dict[str, tuple[str, str]]]:
    """The seeks not offered a table, oldest first (ties by account, so every relay orders them alike),
    and each one's nickname and shown rating."""
    rows = tx.rows(
        "SELECT s.account_id, a.nickname, s.speed, s.size, s.rating, s.label, s.enqueued_ms FROM seeks s"
        " JOIN accounts a ON a.id = s.account_id WHERE s.offer_id IS NULL"
        " ORDER BY s.enqueued_ms, s.account_id"
    )
    seeks: list[Seek] = []
    names: dict[str, tuple[str, str]] = {}
    for account, nickname, speed, size, rating, label, enqueued in rows:
        if speed not in TURN_SECONDS or size not in SizePref.__members__.values():
            continue  # written by a newer relay: left to it
        seeks.append(Seek(str(account), SpeedClass(speed), SizePref(size), int(rating), int(enqueued) / 1000))
        names[str(account)] = (str(nickname), str(label))
    return seeks, names


def _expire_offers(tx: Tx, now: int) -> int:
    """Undoes the offers past their deadline (a confirmation at the deadline still counts), and the
    confirmed ones whose table nobody recorded within the grace; returns how many."""
    due = " table_id IS NULL AND ((confirmed < seats AND deadline_ms < ?) OR deadline_ms < ?)"
    times = (now, now - START_GRACE_MS)
    failed = 0
    for (offer_id,) in tx.rows("SELECT id FROM offers WHERE" + due, times):
        # Locked and looked at again: on PostgreSQL a last confirmation may have been committed since the
        # read (the offer then waits for its table, within the grace).
        if not tx.rows("UPDATE offers SET confirmed = confirmed WHERE id = ? AND" + due + " RETURNING id",
                       (offer_id, *times)):  # fmt: skip
            continue
        late = tx.rows(
            "SELECT account_id FROM offer_seats WHERE offer_id = ? AND confirmed_ms IS NULL", (offer_id,)
        )
        _undo(tx, str(offer_id), drop=tuple(str(r[0]) for r in late))
        failed += 1
    return failed


def _own_offer(tx: Tx, account_id: str, socket: str, offer_id: object, now: int) -> None:
    """Locks the offer (PostgreSQL: its row, so that two last confirmations are one after the other).
    Raises RatingError ``not_offered`` unless the socket's seek is a seat of that offer, still pending at
    ``now`` (the deadline included)."""
    if not isinstance(offer_id, str) or len(offer_id) > 64:
        raise RatingError("not_offered", "this table was not offered to you", status=409)
    pending = tx.rows(
        "UPDATE offers SET confirmed = confirmed WHERE id = ? AND table_id IS NULL AND deadline_ms >= ?"
        " RETURNING id",
        (offer_id, now),
    )
    mine = tx.rows(
        "SELECT 1 FROM seeks WHERE account_id = ? AND socket = ? AND offer_id = ?",
        (account_id, socket, offer_id),
    )
    if not pending or not mine:
        raise RatingError(
            "not_offered", "this table was not offered to you (or the offer is over)", status=409
        )


def _lock_pending(tx: Tx, offer_id: str) -> bool:
    """Locks an offer with no table yet; False if there is none (undone, or its table made meanwhile)."""
    return bool(
        tx.rows(
            "UPDATE offers SET confirmed = confirmed WHERE id = ? AND table_id IS NULL RETURNING id",
            (offer_id,),
        )
    )


def _leave_offer(tx: Tx, offer_id: str) -> str | None:
    """A seat's seek left its offer: the offer fails unless its table exists (returned)."""
    if _lock_pending(tx, offer_id):
        _undo(tx, offer_id, drop=())
        return None
    rows = tx.rows("SELECT table_id FROM offers WHERE id = ?", (offer_id,))
    return str(rows[0][0]) if rows and rows[0][0] is not None else None


def _undo(tx: Tx, offer_id: str, drop: Sequence[str]) -> None:
    """Removes an offer: the seeks of ``drop`` go, the others wait again with their enqueue time."""
    for account in drop:
        tx.run("DELETE FROM seeks WHERE account_id = ? AND offer_id = ?", (account, offer_id))
    tx.run("UPDATE seeks SET offer_id = NULL WHERE offer_id = ?", (offer_id,))
    tx.run("DELETE FROM offer_seats WHERE offer_id = ?", (offer_id,))
    tx.run("DELETE FROM offers WHERE id = ?", (offer_id,))


__all__ = [
    "CONFIRM_MS",
    "PAIRING_LOCK",
    "TURN_SECONDS",
    "UNSEEN_MS",
    "OfferSeat",
    "OfferState",
    "Poll",
    "Round",
    "SeekQueue",
    "SeekState",
    "parse_seek",
]
