"""Web Push reminders (docs/protocol.md, "Web Push"; docs/hosting.md, "Web Push").

A signed-in player who subscribed gets a notification when their turn begins at a correspondence table (turns
of at least an hour) and again when 80 % of that turn's time is used: ``{"title", "body", "url", "table"}``,
nothing more than "your turn at table X, N hours left".

- :mod:`relay.push.vapid`: the relay's VAPID key pair, made once and kept in the accounts database.
- :mod:`relay.push.store`: subscriptions, pending reminders and the ledger of those sent (accounts schema 7).
- :mod:`relay.push.sender`: encryption (RFC 8291) and delivery (RFC 8030) with pywebpush.
- :mod:`relay.push.reminders`: what the tables call (:class:`PushHooks`).
"""

from __future__ import annotations

from typing import Final, Protocol

# Only correspondence turns push (an hour or more): a player at a 60 s table is at the table.
MIN_TURN_SECONDS: Final = 3600


class PushHooks(Protocol):
    """What the tables layer calls; :class:`relay.push.reminders.Reminders` is the real one, :data:`NO_PUSH`
    does nothing. No method raises: failures are logged and the game goes on."""

    async def turn_began(
        self, table_id: str, seat: int, account_id: str | None, deadline_ms: int, turn_seconds: int
    ) -> int: ...

    async def turn_ended(self, table_id: str, seat: int) -> None: ...

    async def sweep(self, now_ms: int) -> int: ...


class NoPush:
    """Push turned off (or not wired yet): every hook is a no-op."""

    async def turn_began(
        self, table_id: str, seat: int, account_id: str | None, deadline_ms: int, turn_seconds: int
    ) -> int:
        return 0

    async def turn_ended(self, table_id: str, seat: int) -> None:
        return None

    async def sweep(self, now_ms: int) -> int:
        return 0


NO_PUSH: PushHooks = NoPush()

__all__ = ["NO_PUSH", "NoPush", "PushHooks"]
