"""Cluster mode: correspondence games nobody serves are adopted (issue 31; docs/hosting.md, "Several
relays").

A table is claimed when a socket for it arrives (relay/cluster/ownership.py). A correspondence game (turns
of a day or more) must reach its deadline even when nobody connects for days, yet a drain releases its
tables and a dead node leaves them behind. So every :data:`ADOPT_SECONDS` each node asks PostgreSQL for
the games in progress with such turns that no live node owns, and claims them: its sweeper then holds their
deadlines (relay/tables/deadlines.py). The claim is the fenced one a socket makes, so two nodes looking at
once adopt each game once; a game lost this way for a while (every node down) is swept when one is back,
as after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from typing import TYPE_CHECKING

import engine
from relay.journal import JournalUnavailable
from relay.journal.sqlite import StoreError
from relay.logs import event as log_event

if TYPE_CHECKING:
    from relay.cluster.ownership import Ownership

log = logging.getLogger("lexio.relay")

# How often a node looks for unserved correspondence games, and how many it takes at a time (the rest wait
# for the next look, by it or by another node).
ADOPT_SECONDS = 10.0
ADOPT_BATCH = 200


class Adoption:
    """The periodic look for correspondence games no live node serves, for one node's :class:`Ownership`."""

    def __init__(self, ownership: Ownership) -> None:
        self.ownership = ownership
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(ADOPT_SECONDS)
            try:
                await self.adopt_unserved()
            except Exception:
                log.exception("adoption failed")

    async def adopt_unserved(self) -> int:
        """Claim the correspondence games in progress that no live node serves (:data:`ADOPT_BATCH` at
        most); returns how many this node took. Nothing while it is draining or unhealthy; a game another
        node claims first is left to it. PostgreSQL failing is logged, not raised."""
        own = self.ownership
        if own.draining or not own.healthy():
            return 0
        find = functools.partial(
            own.store.unserved_tables, min_turn_seconds=engine.DAY_SECONDS, limit=ADOPT_BATCH
        )
        try:
            ids = await own.call(find)
        except (JournalUnavailable, StoreError) as exc:
            log.warning("adoption skipped", extra={"fields": {"node": own.node_id, "error": str(exc)}})
            return 0
        taken = 0
        for table_id in ids:
            try:
                got = await own.acquire(table_id)
            except (JournalUnavailable, StoreError) as exc:
                log.warning("adoption failed", extra={"fields": {"table": table_id, "error": str(exc)}})
                if own.draining or not own.healthy():
                    break
                continue
            if got is not None and got is own.referee.tables.get(table_id):
                taken += 1
        if taken:
            log_event("unserved games adopted", node=own.node_id, tables=taken)
        return taken
