"""Profiles: what the history (relay/accounts/history.py) says of one account, and its live games.

Every query reads ``game_players`` through ``seat_accounts``: an account's games are the seats it claimed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import engine
from relay.accounts.db import Db
from relay.accounts.history import PAGE, SeatResult
from relay.accounts.ratings import RatedGame, RatingBook
from relay.ratings import RatingChange

# Issue 31: a player sits at this many correspondence games at once at most (``too_many_games`` beyond).
CORRESPONDENCE_MAX: Final = 50
# "My games" lists this many games not finished yet at most (every correspondence game, and then some).
LIVE_LIMIT: Final = 100
# A game's last move is looked for among its last events (refused plays are journaled too: ten at most in a
# row, the reserve).
LAST_EVENTS: Final = 16
MOVE_TYPES: Final = frozenset({"placed", "swapped", "passed", "timed_out"})


@dataclass(frozen=True, slots=True)
class LiveSeat:
    """A seat of an account at a game not finished yet: the table, the seat, ``waiting`` or ``playing``,
    when the table last changed (ms) and its turn time (s)."""

    table_id: str
    seat: int
    status: str
    updated_ms: int
    turn_seconds: int


@dataclass(frozen=True, slots=True)
class Stats:
    games: int
    wins: int
    average: float | None
    best_score: int | None
    best_play: tuple[str, int] | None
    bingos: int


@dataclass(frozen=True, slots=True)
class Player:
    """One seat of a finished game as a profile lists it (``nickname``: the account that claimed it;
    ``deleted``: an account that sat there was deleted since, relay/accounts/erasure.py)."""

    seat: int
    name: str
    bot: str | None
    score: int
    won: bool
    nickname: str | None
    deleted: bool = False


@dataclass(frozen=True, slots=True)
class Game:
    table_id: str
    ended_ms: int
    seat: int
    players: tuple[Player, ...]

    @property
    def me(self) -> Player:
        return next(p for p in self.players if p.seat == self.seat)

    @property
    def result(self) -> str:
        """``win``, ``draw`` (a shared top score) or ``loss``."""
        me = self.me
        if not me.won:
            return "loss"
        return "draw" if any(p.won and p.seat != me.seat for p in self.players) else "win"


_COLUMNS = (
    "table_id, seat, name, bot, score, rank, won, bingos, best_word, best_score, moves, ended_ms, variant"
)


class Profiles:
    """Queries; each method is one transaction (raises as relay.accounts.store.AccountStore)."""

    def __init__(self, db: Db, ratings: RatingBook) -> None:
        self.db = db
        self.ratings = ratings

    # -- writing the history --------------------------------------------------------------------------------
    def add_results(
        self, rows: Sequence[SeatResult], rated: RatedGame | None = None
    ) -> tuple[RatingChange, ...]:
        """Records a finished game's rows; a game already recorded is left as it is. A rated game's ratings
        move in the same transaction, only when its rows are new: once per game (returns the changes; ()
        for a casual game or one recorded before)."""
        with self.db.transaction() as tx:
            added = 0
            for r in rows:
                added += tx.run(
                    f"INSERT INTO game_players ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT DO NOTHING",
                    (r.table_id, r.seat, r.name, r.bot, r.score, r.rank, int(r.won), r.bingos, r.best_word,
                     r.best_score, r.moves, r.ended_ms, r.variant),
                )  # fmt: skip
            if rated is None or not rows or added != len(rows):
                return ()
            return self.ratings.apply(tx, rated)

    def unrecorded_ended(self, limit: int) -> list[str]:
        """Ended tables of the journal without history rows (oldest first)."""
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT t.id FROM tables t WHERE t.status = 'ended'"
                " AND NOT EXISTS (SELECT 1 FROM game_players g WHERE g.table_id = t.id)"
                " ORDER BY t.updated_ms LIMIT ?",
                (limit,),
            )
        return [str(r[0]) for r in rows]

    # -- reading a profile ----------------------------------------------------------------------------------
    def stats(self, account_id: str) -> Stats:
        with self.db.transaction() as tx:
            n, wins, avg, top, bingos = tx.rows(
                # A win is a top score not shared: a shared one is a draw (as Game.result says).
                "SELECT COUNT(*), COALESCE(SUM(CASE WHEN g.won = 1 AND NOT EXISTS"
                " (SELECT 1 FROM game_players o WHERE o.table_id = g.table_id AND o.seat <> g.seat"
                " AND o.won = 1) THEN 1 ELSE 0 END), 0),"
                " AVG(g.score), MAX(g.score),"
                " COALESCE(SUM(g.bingos), 0) FROM game_players g"
                " JOIN seat_accounts s ON s.table_id = g.table_id AND s.seat = g.seat WHERE s.account_id = ?",
                (account_id,),
            )[0]
            best = tx.rows(
                "SELECT g.best_word, g.best_score FROM game_players g"
                " JOIN seat_accounts s ON s.table_id = g.table_id AND s.seat = g.seat"
                " WHERE s.account_id = ? AND g.best_score IS NOT NULL"
                " ORDER BY g.best_score DESC, g.ended_ms LIMIT 1",
                (account_id,),
            )
        return Stats(
            games=int(n),
            wins=int(wins),
            average=None if avg is None else round(float(avg), 1),
            best_score=None if top is None else int(top),
            best_play=(str(best[0][0]), int(best[0][1])) if best else None,
            bingos=int(bingos),
        )

    def games(self, account_id: str, page: int, *, versus: str | None = None) -> tuple[list[Game], bool]:
        """One page of the account's finished games, newest first, and whether there are more; ``versus``:
        only those against that account."""
        sql = (
            "SELECT g.table_id, g.seat, g.ended_ms FROM game_players g"
            " JOIN seat_accounts s ON s.table_id = g.table_id AND s.seat = g.seat WHERE s.account_id = ?"
        )
        params: list[object] = [account_id]
        if versus is not None:
            sql += (
                " AND EXISTS (SELECT 1 FROM seat_accounts o"
                " WHERE o.table_id = g.table_id AND o.account_id = ?)"
            )
            params.append(versus)
        sql += " ORDER BY g.ended_ms DESC, g.table_id LIMIT ? OFFSET ?"
        params += [PAGE + 1, page * PAGE]
        with self.db.transaction() as tx:
            mine = tx.rows(sql, params)
            more = len(mine) > PAGE
            mine = mine[:PAGE]
            players: dict[str, list[Player]] = {str(r[0]): [] for r in mine}
            if players:
                marks = ", ".join("?" for _ in players)
                for r in tx.rows(
                    "SELECT g.table_id, g.seat, g.name, g.bot, g.score, g.won, a.nickname, d.seat"
                    " FROM game_players g"
                    " LEFT JOIN seat_accounts s ON s.table_id = g.table_id AND s.seat = g.seat"
                    " LEFT JOIN accounts a ON a.id = s.account_id"
                    " LEFT JOIN deleted_seats d ON d.table_id = g.table_id AND d.seat = g.seat"
                    f" WHERE g.table_id IN ({marks})"
                    " ORDER BY g.table_id, g.seat",
                    list(players),
                ):
                    players[str(r[0])].append(
                        Player(
                            int(r[1]),
                            str(r[2]),
                            r[3],
                            int(r[4]),
                            bool(r[5]),
                            None if r[6] is None else str(r[6]),
                            r[7] is not None,
                        )
                    )
        games = [Game(str(r[0]), int(r[2]), int(r[1]), tuple(players[str(r[0])])) for r in mine]
        return games, more

    def versus(self, account_id: str, other_id: str) -> tuple[int, int, int]:
        """(wins, draws, losses) of ``account_id`` in the games both accounts played."""
        wins = draws = losses = 0
        page = 0
        while True:
            games, more = self.games(account_id, page, versus=other_id)
            for g in games:
                outcome = g.result
                wins += outcome == "win"
                draws += outcome == "draw"
                losses += outcome == "loss"
            if not more:
                return wins, draws, losses
            page += 1

    def finished(self, account_id: str) -> list[tuple[str, int]]:
        """(table, ended_ms) of every finished game of the account, oldest first: what its export holds."""
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT g.table_id, g.ended_ms FROM game_players g"
                " JOIN seat_accounts s ON s.table_id = g.table_id AND s.seat = g.seat"
                " WHERE s.account_id = ? ORDER BY g.ended_ms, g.table_id",
                (account_id,),
            )
        return [(str(r[0]), int(r[1])) for r in rows]

    def live(self, account_id: str, limit: int = LIVE_LIMIT) -> list[LiveSeat]:
        """The account's games not finished yet (waiting or playing), last moved first, at most ``limit``."""
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT s.table_id, s.seat, t.status, t.updated_ms, e.body"
                " FROM seat_accounts s JOIN tables t ON t.id = s.table_id"
                " JOIN events e ON e.table_id = s.table_id AND e.seq = 1"
                " WHERE s.account_id = ? AND t.status IN ('waiting', 'playing')"
                " ORDER BY t.updated_ms DESC, s.table_id LIMIT ?",
                (account_id, limit),
            )
        return [LiveSeat(str(r[0]), int(r[1]), str(r[2]), int(r[3]), _turn_seconds(r[4])) for r in rows]

    def correspondence_count(self, account_id: str) -> int:
        """How many correspondence games (turns counted in days) the account sits at, not finished yet:
        what the limit of :data:`CORRESPONDENCE_MAX` games at once counts."""
        with self.db.transaction() as tx:
            rows = tx.rows(
                "SELECT e.body FROM seat_accounts s JOIN tables t ON t.id = s.table_id"
                " JOIN events e ON e.table_id = s.table_id AND e.seq = 1"
                " WHERE s.account_id = ? AND t.status IN ('waiting', 'playing')",
                (account_id,),
            )
        return sum(1 for r in rows if engine.is_correspondence(_turn_seconds(r[0])))

    def last_moves(self, table_ids: Sequence[str]) -> dict[str, dict[str, object]]:
        """The last move of each table (its journaled event: ``placed``, ``swapped``, ``passed`` or
        ``timed_out``), read among its last :data:`LAST_EVENTS` events; a table with none is left out."""
        if not table_ids:
            return {}
        marks = ", ".join("?" for _ in table_ids)
        with self.db.transaction() as tx:
            rows = tx.rows(
                f"SELECT e.table_id, e.seq, e.body FROM events e WHERE e.table_id IN ({marks})"
                " AND e.seq > (SELECT MAX(m.seq) FROM events m WHERE m.table_id = e.table_id) - ?"
                " ORDER BY e.table_id, e.seq",
                (*table_ids, LAST_EVENTS),
            )
        out: dict[str, dict[str, object]] = {}
        for r in rows:
            try:
                body = json.loads(r[2]) if isinstance(r[2], str | bytes) else r[2]
            except ValueError:
                continue
            if isinstance(body, dict) and body.get("type") in MOVE_TYPES:
                out[str(r[0])] = body  # ordered by seq: the last one stays
        return out


def _turn_seconds(body: object) -> int:
    """A table's turn time, from its first event (TableCreated) as journaled; 0 if unreadable."""
    try:
        data = json.loads(body) if isinstance(body, str | bytes) else body
    except ValueError:
        return 0
    secs = data.get("turn_seconds") if isinstance(data, dict) else None
    return secs if isinstance(secs, int) and not isinstance(secs, bool) else 0
