"""Ratings kept per account and speed class (docs/ratings.md): read for the tables, the profiles and the
leaderboards, and moved once per rated game, in the transaction that records the game's history.

Exactly once: a rated game's ratings move in the same transaction that inserts its history rows
(:meth:`relay.accounts.profiles.Profiles.add_results`), and only if that transaction inserted them. A replay
of the end (the relay's own retry, the history filled in at start-up after a crash, a takeover in a cluster)
finds the rows there and moves nothing; a crash before the commit loses nothing (the history, and with it the
rating, is filled in from the journal at the next start).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import engine
from relay.accounts.db import Db, Tx
from relay.ratings import Rating, RatingChange, SpeedClass, rate_game, speed_class

ACTIVE_DAYS = 30  # a leaderboard lists players with a rated game of its class in the last 30 days
LEADERBOARD_SIZE = 100
LEADERBOARD_PAGE = 20
DAY_MS = 86_400_000


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A rated game's end: its class, the account of each seat and the final scores, in seat order."""

    table_id: str
    speed: SpeedClass
    accounts: tuple[str, ...]
    scores: tuple[int, ...]
    ended_ms: int


def rated_game(table_id: str, state: engine.GameState) -> RatedGame | None:
    """The rated game a finished fold holds; None for a casual table, or a game not ended."""
    result = state.result
    if not state.rated or state.status != "ended" or result is None:
        return None
    accounts = tuple(s.account for s in state.seats)
    if any(a is None for a in accounts):
        return None  # the engine seats only accounts at a rated table: a journal from elsewhere
    return RatedGame(
        table_id,
        speed_class(state.turn_seconds),
        tuple(str(a) for a in accounts),
        tuple(result.scores),
        result.at,
    )


@dataclass(frozen=True, slots=True)
class Standing:
    """One account's rating in one class, as of now, and how many rated games it played there."""

    rating: Rating
    games: int


@dataclass(frozen=True, slots=True)
class Leader:
    rank: int
    nickname: str
    rating: Rating
    games: int


@dataclass(frozen=True, slots=True)
class Leaderboard:
    speed: SpeedClass
    rows: tuple[Leader, ...]  # this page's
    page: int
    more: bool
    total: int  # how many are listed (at most LEADERBOARD_SIZE)
    mine: Leader | None  # the viewer's row, wherever it is (None: not listed)


class RatingBook:
    """Raises JournalUnavailable (PostgreSQL unreachable) or sqlite3.Error (SQLite I/O)."""

    def __init__(self, db: Db, now_ms: Callable[[], int]) -> None:
        self.db = db
        self.now_ms = now_ms

    # -- the update, inside the history's transaction -------------------------------------------------------
    def apply(self, tx: Tx, game: RatedGame) -> tuple[RatingChange, ...]:
        """Moves the seats' ratings by the game's result and writes each seat's number before and after in
        its history row. Call it inside the transaction that inserted the game's history rows."""
        lock = " FOR UPDATE" if self.db.kind == "postgresql" else ""  # two games ending at once, one player
        before: dict[str, Rating] = {}
        for account in game.accounts:
            rows = tx.rows(
                "SELECT mu, sigma, played_ms FROM ratings WHERE account_id = ? AND speed = ?" + lock,
                (account, game.speed.value),
            )
            before[account] = _rating(rows[0]) if rows else Rating()
        changes = rate_game([before[a] for a in game.accounts], game.scores, game.ended_ms / 1000)
        for seat, (account, change) in enumerate(zip(game.accounts, changes, strict=True)):
            after = change.after
            tx.run(
                "INSERT INTO ratings (account_id, speed, mu, sigma, played_ms, games)"
                " VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT (account_id, speed) DO UPDATE SET"
                " mu = excluded.mu, sigma = excluded.sigma, played_ms = excluded.played_ms,"
                " games = ratings.games + 1",
                (account, game.speed.value, after.mu, after.sigma, game.ended_ms),
            )
            tx.run(
                "UPDATE game_players SET speed = ?, rating_before = ?, rating_after = ?, provisional = ?"
                " WHERE table_id = ? AND seat = ?",
                (
                    game.speed.value, change.before.display, after.display, int(after.provisional),
                    game.table_id, seat,
                ),
            )  # fmt: skip
        return changes

    # -- reading ------------------------------------------------------------------------------------------
    def current(self, account_ids: Sequence[str], speed: SpeedClass) -> dict[str, Rating]:
        """Each account's rating in ``speed`` as of now (time away counted); a newcomer's is the prior."""
        now = self.now_ms() / 1000
        out = {a: Rating() for a in account_ids}
        if not account_ids:
            return out
        marks = ", ".join("?" for _ in account_ids)
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT account_id, mu, sigma, played_ms FROM ratings"
                f" WHERE speed = ? AND account_id IN ({marks})",
                (speed.value, *account_ids),
            )
        for r in rows:
            out[str(r[0])] = _rating(r[1:]).as_of(now)
        return out

    def game_changes(self, table_id: str) -> dict[int, tuple[int, int, bool]]:
        """A rated game's recorded numbers by seat: (before, after, provisional after); {} if none yet."""
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT seat, rating_before, rating_after, provisional FROM game_players"
                " WHERE table_id = ? AND rating_after IS NOT NULL ORDER BY seat",
                (table_id,),
            )
        return {int(r[0]): (int(r[1]), int(r[2]), bool(r[3])) for r in rows}

    def reserved(self, table_id: str) -> frozenset[str] | None:
        """The accounts of the "play now" offer that formed ``table_id`` (only they may sit); None: any."""
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT s.account_id FROM offers o JOIN offer_seats s ON s.offer_id = o.id"
                " WHERE o.table_id = ?",
                (table_id,),
            )
        return frozenset(str(r[0]) for r in rows) if rows else None

    def standings(self, account_id: str) -> dict[SpeedClass, Standing]:
        """The account's rating in each class it played rated games in, as of now."""
        now = self.now_ms() / 1000
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT speed, mu, sigma, played_ms, games FROM ratings WHERE account_id = ?", (account_id,)
            )
        out: dict[SpeedClass, Standing] = {}
        for r in rows:
            if r[0] in SpeedClass.__members__.values():
                out[SpeedClass(r[0])] = Standing(_rating(r[1:4]).as_of(now), int(r[4]))
        return out

    def history(self, account_id: str, limit: int = 500) -> list[tuple[SpeedClass, int, int, bool]]:
        """The account's rated games, oldest first: (class, end in ms, number after, provisional after)."""
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT g.speed, g.ended_ms, g.rating_after, g.provisional FROM game_players g"
                " JOIN seat_accounts s ON s.table_id = g.table_id AND s.seat = g.seat"
                " WHERE s.account_id = ? AND g.rating_after IS NOT NULL"
                " ORDER BY g.ended_ms DESC LIMIT ?",
                (account_id, limit),
            )
        return [
            (SpeedClass(str(r[0])), int(r[1]), int(r[2]), bool(r[3]))
            for r in reversed(rows)
            if r[0] in SpeedClass.__members__.values()
        ]

    def leaderboard(self, speed: SpeedClass, page: int, viewer: str | None) -> Leaderboard:
        """The top :data:`LEADERBOARD_SIZE` of ``speed``: accounts with a rated game of the class in the
        last :data:`ACTIVE_DAYS` days, not provisional, not banned; highest number first (ties: more games,
        then the nickname). ``page`` counts from 0; ``viewer``: an account id whose row is returned apart."""
        now = self.now_ms()
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT r.account_id, a.nickname, r.mu, r.sigma, r.played_ms, r.games FROM ratings r"
                " JOIN accounts a ON a.id = r.account_id"
                " WHERE r.speed = ? AND r.played_ms >= ?"
                " AND NOT EXISTS (SELECT 1 FROM bans b WHERE b.account_id = r.account_id"
                " AND b.lifted_ms IS NULL AND b.until_ms > ?)",
                (speed.value, now - ACTIVE_DAYS * DAY_MS, now),
            )
        rated = [(str(r[0]), str(r[1]), _rating(r[2:5]).as_of(now / 1000), int(r[5])) for r in rows]
        rated = [x for x in rated if not x[2].provisional]
        rated.sort(key=lambda x: (-x[2].display, -x[3], x[1].casefold()))
        top = [Leader(i + 1, nick, rating, games) for i, (_, nick, rating, games) in enumerate(rated)]
        top = top[:LEADERBOARD_SIZE]
        ids = [x[0] for x in rated[:LEADERBOARD_SIZE]]
        mine = top[ids.index(viewer)] if viewer is not None and viewer in ids else None
        start = page * LEADERBOARD_PAGE
        return Leaderboard(
            speed,
            tuple(top[start : start + LEADERBOARD_PAGE]),
            page,
            start + LEADERBOARD_PAGE < len(top),
            len(top),
            mine,
        )


def _rating(r: Sequence[object]) -> Rating:
    played = r[2]
    return Rating(float(str(r[0])), float(str(r[1])), None if played is None else int(str(played)) / 1000)


__all__ = ["Leaderboard", "RatedGame", "RatingBook", "Standing", "rated_game"]
