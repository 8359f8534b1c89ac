"""A game against the computer in one click from home (issue 27): the glue creates a private table and sits
at it as usual; then, as the host of that table, this browser seats the chosen computer player and starts the
game, each step once, as the relay's frames show the table ready for it (the same ``add_bot`` and ``start``
frames the waiting room's buttons send, docs/protocol.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import wire

if TYPE_CHECKING:
    from app.state import UiState


class QuickGame:
    """The computer game asked from home, until it has started (or the player went elsewhere)."""

    def __init__(self) -> None:
        self.table: str | None = None
        self.level = "medium"
        self.bot_asked = False

    def arm(self, table: str, level: str) -> None:
        self.table, self.level, self.bot_asked = table, level, False

    @property
    def armed(self) -> bool:
        return self.table is not None

    def next_frame(self, state: UiState) -> wire.AddBot | wire.Start | None:
        """The frame the table is ready for now: the computer player once this browser holds seat 0 of the
        waiting table, then the start once the computer sits; None otherwise (nothing more ever, once the
        game started or the player is at another table)."""
        if self.table is None:
            return None
        view = state.view
        if state.table_id != self.table or (
            view is not None and view.get("status") not in ("empty", "waiting")
        ):
            self.table = None  # elsewhere, or started (by this or by anyone): nothing left to do
            return None
        if view is None or state.seat != 0:
            return None
        seats = view.get("seats") or ()
        if not self.bot_asked:
            self.bot_asked = True
            return wire.AddBot(level=self.level)
        if any(s.get("bot") for s in seats) and len(seats) >= 2:
            self.table = None
            return wire.Start()
        return None
