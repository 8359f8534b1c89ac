"""A new table with the same players (docs/protocol.md, "rematch"), mixed into :class:`app.state.UiState`:
asking for it from the end screen, and following the relay's answer."""

from __future__ import annotations

from typing import Any


class RematchState:
    """The end screen's "new table, same players"; the rest of the state is :class:`app.state.UiState`'s."""

    def request_rematch(self) -> bool:
        """The end screen's "new table, same players": ask the relay on this table's socket (it creates one
        table, tells every seat, and a second request gets the same one); once it answers, ``goto`` holds
        the new table. Already proposed: go there at once. Returns False when it cannot be asked now
        (game not over, a spectator, no connection)."""
        if self.screen != "end" or self.seat is None:
            return False
        if self.rematch is not None:
            self._prepare_rematch_join()
            self.goto = str(self.rematch["table"])
            return True
        if self.cut_off or self._rematch_asked:
            return False
        self._rematch_asked = True
        self.rematch_error = None
        self.send({"type": "rematch"})
        return True

    @property
    def rematch_pending(self) -> bool:
        """Asked for a new table; the relay has not answered yet."""
        return self._rematch_asked

    def rematch_proposer(self) -> str | None:
        """The name of whoever proposed the new table (None: nobody yet)."""
        if self.rematch is None:
            return None
        by = self.rematch.get("by")
        seats = (self.view or {}).get("seats") or ()
        for s in seats:
            if s.get("seat") == by:
                return str(s.get("name", "?"))
        return "?"

    def _prepare_rematch_join(self) -> None:
        # Joining the new table is a normal join by name: the stored one, else the name played under here.
        if self.valid_name() or self.seat is None:
            return
        seats = (self.view or {}).get("seats") or ()
        if 0 <= self.seat < len(seats):
            self.name = str(seats[self.seat].get("name", ""))

    def _on_rematch(self, frame: dict[str, Any]) -> None:
        table = frame.get("table")
        if not isinstance(table, str) or not table:
            return
        self.rematch = {"table": table, "link": frame.get("link"), "by": frame.get("by")}
        self._prepare_rematch_join()
        if self._rematch_asked:
            self._rematch_asked = False
            self.goto = table
