"""What the tables call: a turn began, a turn ended, and the periodic sweep of due 80 % reminders.

Only correspondence tables push: a turn of at least :data:`MIN_TURN_SECONDS` (an hour). A player at a 60 s
or 10 min table is looking at the board; a phone buzzing for it would only be noise.

Once across a cluster: the table's owner calls :meth:`Reminders.turn_began` (the "your turn" notice is
claimed in the ledger, so a repeat after a restart or an ownership move sends nothing), and whichever relay
sweeps first takes a due reminder out of ``push_pending`` (relay/push/store.py). At most once: a notice whose
post failed is not retried (the next one, or the board, tells the player).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from relay.accounts.db import Db
from relay.push import MIN_TURN_SECONDS
from relay.push.sender import Delivery, Sender, notice
from relay.push.store import Due, PushStore, Subscription, run_db

log = logging.getLogger("lexio.relay")

# The second notice goes when this share of the turn is used (the rest, 20 %, is left).
LATE_SHARE = 0.8


class Reminders:
    """The real :class:`relay.push.PushHooks`. ``now_ms``: the relay's clock (the referee's: journal time);
    ``link(table_id)``: the table's address for the notice's ``url``."""

    def __init__(
        self,
        db: Db,
        sender: Sender,
        *,
        now_ms: Callable[[], int],
        link: Callable[[str], str],
        min_turn_seconds: int = MIN_TURN_SECONDS,
    ) -> None:
        self.db = db
        self.store = PushStore(db)
        self.sender = sender
        self.now_ms = now_ms
        self.link = link
        self.min_turn_seconds = min_turn_seconds

    async def turn_began(
        self, table_id: str, seat: int, account_id: str | None, deadline_ms: int, turn_seconds: int
    ) -> int:
        """``seat``'s turn began at a table, ending at ``deadline_ms`` (journal time) after a turn of
        ``turn_seconds``; ``account_id`` is the account seated there (None: a guest or a bot, nothing to
        do). Sends "your turn" to the account's subscriptions (once per turn) and schedules the 80 %
        reminder. Returns how many notices were posted; never raises."""
        if account_id is None or turn_seconds < self.min_turn_seconds:
            return 0
        due_ms = deadline_ms - round(turn_seconds * 1000 * (1 - LATE_SHARE))
        try:
            due = await run_db(
                self.db, self.store.begin_turn, table_id, seat, account_id, deadline_ms, due_ms, self.now_ms()
            )
            return await self._deliver([due] if due is not None else [])
        except Exception:
            log.exception("push reminder failed", extra={"fields": {"table": table_id, "seat": seat}})
            return 0

    async def turn_ended(self, table_id: str, seat: int) -> None:
        """``seat``'s turn ended (a move, a pass, a timeout, the game's end, the seat left): its pending
        reminder is dropped. Never raises."""
        try:
            await run_db(self.db, self.store.end_turn, table_id, seat)
        except Exception:
            log.exception("push reminder failed", extra={"fields": {"table": table_id, "seat": seat}})

    async def sweep(self, now_ms: int) -> int:
        """Sends the 80 % reminders due at ``now_ms`` that no relay took yet; how many notices were posted.
        Never raises."""
        try:
            return await self._deliver(await run_db(self.db, self.store.claim_due, now_ms))
        except Exception:
            log.exception("push sweep failed")
            return 0

    async def _deliver(self, dues: list[Due]) -> int:
        now = self.now_ms()
        jobs = []
        for due in dues:
            left = max(0, due.deadline_ms - now)
            payload = notice(due.table_id, due.kind, left, self.link(due.table_id))
            urgency = "high" if due.kind == "late" else "normal"
            for sub in due.subscriptions:
                # Useless once the turn is over: the push service may drop it by then.
                jobs.append(self._one(sub, payload, left // 1000, urgency, due.table_id))
        return sum(await asyncio.gather(*jobs))

    async def _one(
        self, sub: Subscription, payload: dict[str, str], ttl: int, urgency: str, topic: str
    ) -> int:
        outcome = await self.sender.send(sub, payload, ttl_seconds=ttl, urgency=urgency, topic=topic)
        if outcome is Delivery.GONE:
            await run_db(self.db, self.store.forget_endpoint, sub.endpoint)
            log.info("push subscription gone", extra={"fields": {"table": topic}})
        return 1 if outcome is Delivery.SENT else 0
