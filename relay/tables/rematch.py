"""Rematch: a new table for the same players, once per ended table."""

from __future__ import annotations

from collections.abc import Callable

from relay.journal.sqlite import RematchRow
from relay.logs import event as log_event
from relay.tables.registry import Registry
from relay.tables.services import TableServices
from relay.tables.table import (
    Conn,
    RelayError,
    Table,
    dumps,
)
from wire import server


class Rematches:
    """A new table proposed for the players of an ended one."""

    def __init__(self, services: TableServices, registry: Registry) -> None:
        self.s = services
        self.registry = registry

    async def rematch(
        self, table: Table, conn: Conn, msg_id: str | None, link_for: Callable[[str], str]
    ) -> None:
        """Propose (once per table) a new table for the players of the ended ``table``: same turn time,
        visibility and variant; tell every connection of ``table``, then ack the asker. A second request
        gets the same table back. ``link_for`` turns a table id into its shareable address.

        Raises RelayError not_a_seat (spectator), not_ended (the game is not over); StoreError /
        sqlite3.Error if the journal refuses the new table (nothing was created nor told).
        """
        async with table.lock:
            seat = conn.seat
            if seat is None:
                raise RelayError("not_a_seat", "only a player of this table can propose a new table")
            if table.status != "ended":
                raise RelayError("not_ended", "a new table can be proposed once the game has ended")
            now = self.s.now_ms()
            if table.rematch is None:
                st = table.state
                bots = tuple((str(s.name), str(s.bot)) for s in st.seats if s.bot)

                def link(new_id: str) -> RematchRow:
                    return RematchRow(table.id, new_id, seat, link_for(new_id), bots, now)

                new = await self.registry.acreate_table(
                    turn_seconds=int(st.turn_seconds),
                    public=table.public,
                    variant=str(st.variant),
                    rematch=link,
                    rated=st.rated,  # the same players, the same stakes
                )
                table.rematch = {"table": new.id, "link": link_for(new.id), "by": seat}
                frame = dumps(server.rematch(table.rematch, now))
                for c in list(table.all_conns()):
                    c.send(frame)
                self.s.metrics.actions["rematch"] += 1
                log_event("rematch", table=table.id, seat=seat, new_table=new.id)
            else:
                # Idempotent: the asker (e.g. a second player clicking at the same time) learns the same one.
                conn.send(dumps(server.rematch(table.rematch, now)))
            conn.send(dumps(server.ack(msg_id, table.state.version, now)))
