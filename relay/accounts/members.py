"""The accounts as the tables see them (relay.tables.table.Members): who may sit and chat, whom a player
blocks, reports, the history and the ratings a finished game writes, the ratings shown at a table."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

import engine
from relay.accounts.errors import AccountError
from relay.accounts.history import seat_results
from relay.accounts.moderation import ChatLine, NewReport
from relay.accounts.nicknames import fold
from relay.accounts.profiles import CORRESPONDENCE_MAX
from relay.accounts.ratings import rated_game
from relay.accounts.service import Accounts
from relay.ratings import predict_win, speed_class
from relay.tables.table import ChatSaid, RelayError, SeatRating, Suspension, Table

log = logging.getLogger("lexio.relay")


async def correspondence_full(accounts: Accounts, account_id: str) -> bool:
    """Whether the account already sits at :data:`CORRESPONDENCE_MAX` games in days not finished (issue 31:
    it may neither create nor join another). Raises sqlite3.Error / JournalUnavailable."""
    count = await accounts.call(accounts.profiles.correspondence_count, account_id)
    return count >= CORRESPONDENCE_MAX


class TableMembers:
    """The accounts as the tables see them (relay.tables.table.Members)."""

    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts

    async def registered(self, name: str) -> bool:
        folded = fold(name.strip())
        return await self.accounts.call(self.accounts.store.nickname_taken, folded)

    async def seated(self, table_id: str, seat: int, account_id: str) -> None:
        await self.accounts.call(
            self.accounts.store.claim_seat, table_id, seat, account_id, self.accounts.now_ms()
        )

    async def game_ended(self, table_id: str, state: engine.GameState) -> tuple[SeatRating, ...]:
        game = rated_game(table_id, state)
        profiles = self.accounts.profiles
        changes = await self.accounts.call(profiles.add_results, seat_results(table_id, state), game)
        return tuple(
            SeatRating(seat, c.after.display, c.after.provisional, c.display_delta)
            for seat, c in enumerate(changes)
        )

    async def ratings(self, table: Table) -> tuple[SeatRating, ...]:
        state = table.state
        seats = [(i, s.account) for i, s in enumerate(state.seats) if s.account is not None]
        if not seats:
            return ()
        book = self.accounts.ratings
        if state.status == "ended" and state.rated:
            ended = await self.accounts.call(book.game_changes, table.id)
            if ended:
                return tuple(
                    SeatRating(i, after, prov, after - before) for i, (before, after, prov) in ended.items()
                )
        speed = speed_class(state.turn_seconds)
        now = await self.accounts.call(book.current, [a for _, a in seats], speed)
        chances: tuple[float, ...] = ()
        if state.rated and state.status == "waiting" and len(seats) == len(state.seats) >= 2:
            chances = predict_win([now[a] for _, a in seats])
        return tuple(
            SeatRating(i, now[a].display, now[a].provisional, None, chances[k] if chances else None)
            for k, (i, a) in enumerate(seats)
        )

    async def reserved(self, table_id: str) -> frozenset[str] | None:
        return await self.accounts.call(self.accounts.ratings.reserved, table_id)

    async def correspondence_full(self, account_id: str) -> bool:
        return await correspondence_full(self.accounts, account_id)

    async def suspension(self, account_id: str | None, address: str) -> Suspension | None:
        ban = await self.accounts.call(self.accounts.moderation.ban_on, account_id, address)
        return None if ban is None else ban.suspension()

    async def blockers(self, account_id: str) -> frozenset[str]:
        return await self.accounts.call(self.accounts.moderation.blockers, account_id)

    async def blocked(self, account_id: str) -> frozenset[str]:
        return await self.accounts.call(self.accounts.moderation.blocked_ids, account_id)

    async def seat_deleted(self, table_id: str, seat: int) -> bool:
        return await self.accounts.call(self.accounts.store.seat_deleted, table_id, seat)

    async def report(
        self, reporter_id: str, table: Table, seat: int, address: str | None, excerpt: Sequence[ChatSaid],
        reason: object, note: object,
    ) -> str:  # fmt: skip
        """Raises RelayError with the accounts' code (``bad_reason``, ``bad_note``, ``report_self``,
        ``too_many_reports``)."""
        said = table.state.seats[seat]
        new = NewReport(
            reporter_id, table.id, seat, said.name, said.account, address,
            reason, note, tuple(ChatLine(line.name, line.text, line.at_ms) for line in excerpt),
        )  # fmt: skip
        try:
            return await self.accounts.call(self.accounts.moderation.report, new)
        except AccountError as err:
            raise RelayError(err.code, err.message) from err

    async def backfill(
        self, read_state: Callable[[str], Awaitable[engine.GameState]], batch: int = 100
    ) -> int:
        """Records the ended games the history lacks (read back from the journal with ``read_state``);
        returns how many. A game whose journal cannot be read is skipped (logged)."""
        profiles = self.accounts.profiles
        done, skipped = 0, set[str]()
        while True:
            found = await self.accounts.call(profiles.unrecorded_ended, batch + len(skipped))
            ids = [t for t in found if t not in skipped]
            if not ids:
                return done
            for table_id in ids:
                try:
                    await self.game_ended(table_id, await read_state(table_id))
                    done += 1
                except Exception:
                    log.exception("cannot fill in a game's history", extra={"fields": {"table": table_id}})
                    skipped.add(table_id)


__all__ = ["TableMembers"]
