"""Joins and seats: who sits or watches at a table, and who comes back."""

from __future__ import annotations

import hmac
import logging
import secrets

import engine
from relay.addresses import address_key
from relay.logs import event as log_event
from relay.tables.broadcast import Broadcaster
from relay.tables.services import TableServices
from relay.tables.table import (
    CLOSE_TAKEN_OVER,
    Conn,
    RelayError,
    Table,
    hash_token,
)
from relay.tables.turns import Turns, _timeout_pass

log = logging.getLogger("lexio.relay")


class Seating:
    """Taking a seat (by name, or back by token), watching, and leaving a table's connections."""

    def __init__(self, services: TableServices, turns: Turns, broadcaster: Broadcaster) -> None:
        self.s = services
        self.turns = turns
        self.tell = broadcaster

    async def join_by_name(self, table: Table, conn: Conn, name: str, msg_id: str | None, t0: float) -> None:
        """Sits a person: a signed-in player under their nickname (the name typed is not used), a guest
        under ``name`` unless it is a registered nickname. Raises RelayError ``banned`` (the host banned the
        account or the address), ``blocked`` (a player seated at this private table blocks the account),
        ``name_registered``, ``seat_reserved`` (a "play now" table formed for other players),
        ``not_signed_in`` (a guest at a table in days), ``too_many_games`` (issue 31: already at
        :data:`relay.accounts.profiles.CORRESPONDENCE_MAX` games in days)."""
        member, members = conn.member, self.s.members
        ban = await members.suspension(member.id if member else None, address_key(conn.peer))
        if ban is not None:
            raise ban.refusal()
        reserved = await members.reserved(table.id) if table.state.rated else None
        if reserved is not None and (member is None or member.id not in reserved):
            raise RelayError("seat_reserved", "this table was formed by Play now for other players")
        days = engine.is_correspondence(table.state.turn_seconds)
        if days and member is None:
            raise RelayError("not_signed_in", "a table in days seats signed-in players only: sign in first")
        if days and member is not None and await members.correspondence_full(member.id):
            raise RelayError("too_many_games", "you already play as many games in days as one may")
        if member is not None:
            name = member.nickname
            if not table.public:
                blockers = await members.blockers(member.id)
                if any(s.account in blockers for s in table.state.seats if s.account is not None):
                    raise RelayError("blocked", "a player at this private table has blocked you")
            conn.hides = await members.blocked(member.id)
        elif await members.registered(name):
            raise RelayError(
                "name_registered",
                f"{name.strip()[:24]!r} is a registered player's name: sign in, or pick another",
            )
        token = secrets.token_urlsafe(24)

        def welcome() -> None:
            conn.joined = True
            conn.table = table
            self.tell.welcome(table, conn, msg_id, token)
            self.tell.presence_changed(table, clock_changed=False)

        def commands(t: Table) -> list[engine.Command]:
            joins: list[engine.Command] = [engine.Join(name, account=member.id if member else None)]
            if t.rematch_bots and t.seat_count() == 0 and t.status in ("empty", "waiting"):
                # The new table of a rematch: the old table's computer players sit right after the first
                # person (seat 0 can start the game; a bot could not), in their old order.
                taken = {name.strip().casefold()}
                for bot_name, level in t.rematch_bots:
                    if bot_name.casefold() in taken:
                        bot_name = next(f"Robot {n}" for n in range(1, 6) if f"robot {n}" not in taken)
                    taken.add(bot_name.casefold())
                    joins.append(engine.Join(bot_name, bot=level))
            return joins

        await self.turns.run(
            table,
            conn,
            commands,
            kind="join",
            msg_id=msg_id,
            new_token=token,
            t0=t0,
            after=welcome,
        )
        if member is not None and conn.seat is not None and conn.table is table:
            await self.s.members.seated(table.id, conn.seat, member.id)
        if reserved is not None and conn.table is table:
            await self._start_when_all_sat(table, reserved)

    async def _start_when_all_sat(self, table: Table, reserved: frozenset[str]) -> None:
        """A "play now" table starts by itself once every player it was formed for sits (no one to wait
        for, nobody to press Start)."""
        async with table.lock:
            seated = {s.account for s in table.state.seats}
            if table.status == "waiting" and reserved <= seated and table.seat_count() >= 2:
                await self.turns.step(table, None, lambda t: [engine.Start(0)], kind="start")

    async def join_by_token(self, table: Table, conn: Conn, token: str, msg_id: str | None) -> None:
        """Seats a person back by their seat's token. Raises RelayError ``bad_token``, ``seat_deleted`` (the
        account that had the seat was deleted: its link seats nobody any more)."""
        if conn.member is not None:
            conn.hides = await self.s.members.blocked(conn.member.id)
        await self._known_ratings(table)
        async with table.lock:
            digest = hash_token(token)
            seat = next(
                (
                    s
                    for s, th in enumerate(table.tokens)
                    if th is not None and hmac.compare_digest(th, digest)
                ),
                None,
            )
            if seat is None:
                raise RelayError("bad_token", "this token holds no seat at this table")
            if table.state.seats[seat].account is not None and await self.s.members.seat_deleted(
                table.id, seat
            ):
                raise RelayError("seat_deleted", "the account that had this seat was deleted")
            if table.status == "playing" and self.s.due(table, self.s.now_ms()):
                # Back after the grace (or the turn) ran out but before the timer ticked: too late, the
                # table passes first; coming back must not revive a deadline that already expired.
                await self.turns.step(table, None, _timeout_pass, kind="timeout")
            old = table.conns.get(seat)
            if old is not None and old is not conn:
                old.seat = None
                old.close_soon(CLOSE_TAKEN_OVER, "seat taken over")
            conn.seat = seat
            conn.joined = True
            conn.table = table
            table.conns[seat] = conn
            table.watchers.discard(conn)
            table.empty_since = None
            was_away = table.away_since.pop(seat, None) is not None
            self.tell.welcome(table, conn, msg_id, token)
            self.tell.presence_changed(table, clock_changed=was_away and table.state.turn == seat)
            self.tell.watchers_changed(table)
            log_event("rejoin", table=table.id, seat=seat)

    async def watch(self, table: Table, conn: Conn, msg_id: str | None) -> None:
        if conn.member is not None:
            conn.hides = await self.s.members.blocked(conn.member.id)
        await self._known_ratings(table)
        async with table.lock:
            conn.joined = True
            conn.table = table
            conn.seat = None
            table.watchers.add(conn)
            table.empty_since = None
            self.tell.welcome(table, conn, msg_id, None)
            self.tell.watchers_changed(table)

    async def _known_ratings(self, table: Table) -> None:
        """A table back in memory (a restart, a takeover, a finished table revived) learns its players'
        ratings before its first welcome sends them."""
        if not table.ratings and any(s.account is not None for s in table.state.seats):
            try:
                table.ratings = await self.s.members.ratings(table)
            except Exception:
                log.exception("cannot read the ratings", extra={"fields": {"table": table.id}})

    async def disconnect(self, conn: Conn) -> None:
        table = conn.table
        if table is None:
            return
        async with table.lock:
            table.watchers.discard(conn)
            self.tell.watchers_changed(table)
            seat = conn.seat
            if seat is not None and table.conns.get(seat) is conn:
                del table.conns[seat]
                if table.status in ("waiting", "playing"):
                    table.away_since[seat] = self.s.now_ms()
                self.tell.presence_changed(table, clock_changed=table.state.turn == seat)
                log_event("disconnect", table=table.id, seat=seat)
            if not table.conns and not table.watchers:
                table.empty_since = self.s.now_ms()
