"""A new table with the same players (docs/protocol.md, "rematch"), for :class:`app.state.UiState`: asking
for it from the end screen, and following the relay's answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

import wire

if TYPE_CHECKING:
    from app.state import UiState


class RematchFlow:
    """The end screen's "new table, same players" on ``state`` (``rematch``, ``rematch_asked``, ``goto``)."""

    def __init__(self, state: UiState) -> None:
        self.state = state

    def request(self) -> bool:
        """The end screen's "new table, same players": ask the relay on this table's socket (it creates one
        table, tells every seat, and a second request gets the same one); once it answers, ``goto`` holds
        the new table. Already proposed: go there at once. Returns False when it cannot be asked now
        (game not over, a spectator, no connection)."""
        s = self.state
        if s.screen != "end" or s.seat is None:
            return False
        if s.rematch is not None:
            self._prepare_join()
            s.goto = str(s.rematch["table"])
            return True
        if s.cut_off or s.rematch_asked:
            return False
        s.rematch_asked = True
        s.rematch_error = None
        s.send(wire.Rematch())
        return True

    def proposer(self) -> str | None:
        """The name of whoever proposed the new table (None: nobody yet)."""
        s = self.state
        if s.rematch is None:
            return None
        by = s.rematch.get("by")
        for seat in (s.view or {}).get("seats") or ():
            if seat.get("seat") == by:
                return str(seat.get("name", "?"))
        return "?"

    def _prepare_join(self) -> None:
        # Joining the new table is a normal join by name: the stored one, else the name played under here.
        s = self.state
        if s.valid_name() or s.seat is None:
            return
        seats = (s.view or {}).get("seats") or ()
        if 0 <= s.seat < len(seats):
            s.name = str(seats[s.seat].get("name", ""))

    def on_rematch(self, table: object, link: str | None, by: int | None) -> None:
        """The relay's offer (a ``rematch`` frame, or the one a snapshot carries)."""
        s = self.state
        if not isinstance(table, str) or not table:
            return
        s.rematch = {"table": table, "link": link, "by": by}
        self._prepare_join()
        if s.rematch_asked:
            s.rematch_asked = False
            s.goto = table
