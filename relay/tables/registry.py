"""The tables a relay serves: creating them, looking them up, and rebuilding them from the journal."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import engine
from relay.config import MAX_TURN_SECONDS, MIN_TURN_SECONDS
from relay.journal.sqlite import RematchRow, StoreError
from relay.logs import event as log_event
from relay.tables import resend
from relay.tables.services import TableServices
from relay.tables.table import (
    LISTED_GRACE_MS,
    RelayError,
    Table,
    log,
)

# Games in progress the lobby lists (each costs a journal read when it changed: see relay/http/lobby.py).
LIVE_MAX = 20


class Registry:
    """Creating tables, finding them, and rebuilding them from their journal."""

    def __init__(self, services: TableServices) -> None:
        self.s = services
        self.tables = services.tables

    def restore(self) -> int:
        """Rebuild every unfinished table from its journal; seats start disconnected now. Returns count."""
        now = self.s.now_ms()
        count = 0
        for row in self.s.store.tables(unfinished=True):
            try:
                table = self.load(row.id, row.public, row.created_ms)
            except (ValueError, KeyError, TypeError, StoreError):
                # One unreadable journal (e.g. written by a newer engine) must not keep the others down.
                log.exception("cannot restore table", extra={"fields": {"table": row.id}})
                continue
            for seat in range(table.seat_count()):
                if not table.is_bot(seat):
                    table.away_since[seat] = now
            self.tables[row.id] = table
            count += 1
        return count

    def load(self, table_id: str, public: bool, created_ms: int) -> Table:
        """A table rebuilt from its journal (not kept). Raises StoreError / sqlite3.Error, and ValueError,
        KeyError or TypeError for a journal this engine cannot read."""
        state = engine.new_state()
        tokens: list[str | None] = []
        for row in self.s.store.events(table_id):
            ev = engine.event_from_dict(row.body)
            state = engine.apply(state, ev)
            _track_tokens(tokens, ev, row.token_hash)
        table = Table(table_id, public, created_ms, self.s.fold(state), self.s.rng(table_id), tokens)
        resend.remember(table.frames, self.s.store.frames(table_id))
        after = self.s.store.rematch_of(table_id)
        if after is not None:
            table.rematch = _rematch_frame(after)
        before = self.s.store.rematch_into(table_id)
        if before is not None:
            table.rematch_bots = before.bots
        return table

    async def acreate_table(
        self,
        *,
        turn_seconds: int,
        public: bool,
        variant: str = "lexio",
        rematch: Callable[[str], RematchRow] | None = None,
        rated: bool = False,
    ) -> Table:
        """Create and journal a new table; ``rematch`` builds, from the new id, the link that makes it the
        new table of a finished one (journaled in the same transaction). In cluster mode the table is
        journaled unclaimed (the node its first socket reaches claims it), off the event loop.

        Raises RelayError bad_turn_seconds, engine.LexioError, StoreError / sqlite3.Error,
        JournalUnavailable (nothing written).
        """
        table, events, link = self.new_table(
            turn_seconds=turn_seconds, public=public, variant=variant, rematch=rematch, rated=rated
        )
        if await self.s.host.journal_table(table, events, link):
            self.tables[table.id] = table
        self.s.metrics.events += len(events)
        log_event("table created", table=table.id, public=public, turn_seconds=turn_seconds, rated=rated)
        return table

    def new_table(
        self,
        *,
        turn_seconds: int,
        public: bool,
        variant: str = "lexio",
        rematch: Callable[[str], RematchRow] | None = None,
        rated: bool = False,
    ) -> tuple[Table, list[dict[str, Any]], RematchRow | None]:
        """A new table, its first events and its rematch link, not journaled yet. Raises RelayError
        bad_turn_seconds, engine.LexioError."""
        if not engine.turn_seconds_allowed(turn_seconds):
            shown = str(turn_seconds) if abs(turn_seconds) < 10**9 else "a huge number"
            raise RelayError(
                "bad_turn_seconds",
                f"turn_seconds must be {MIN_TURN_SECONDS}-{MAX_TURN_SECONDS}, or 1, 2, 3 or 7 days"
                f" ({engine.DAY_SECONDS} s each), got {shown}",
                turn_seconds=shown,
            )
        now = self.s.now_ms()
        table_id = secrets.token_urlsafe(16)
        rng = self.s.rng(table_id)
        state = engine.new_state()
        events = engine.decide(
            state,
            engine.CreateTable(variant=variant, turn_seconds=turn_seconds, rated=rated),
            now_ms=now,
            rng=rng,
            lexicon=self.s.lexicon,
        )
        for ev in events:
            state = engine.apply(state, ev)
        link = rematch(table_id) if rematch is not None else None
        table = Table(table_id, public, now, self.s.fold(state), rng)
        if link is not None:
            table.rematch_bots = link.bots
        return table, [engine.event_to_dict(e) for e in events], link

    def get(self, table_id: str) -> Table | None:
        return self.tables.get(table_id)

    def revive(self, table_id: str) -> Table | None:
        """A finished table back in memory from its journal (its players come back after a restart, or after
        its memory was freed: they see the end and any new table proposed). None unless it ended.

        Raises StoreError / sqlite3.Error if the journal cannot be read."""
        live = self.tables.get(table_id)
        if live is not None:
            return live
        row = self.s.store.table(table_id)
        if row is None or row.status != "ended":
            return None
        table = self.load(row.id, row.public, row.created_ms)
        self.tables[table_id] = table
        return table

    def read_table(self, table_id: str) -> Table | None:
        """A live table, or a finished one rebuilt from the journal (not kept)."""
        live = self.tables.get(table_id)
        if live is not None:
            return live
        row = self.s.store.table(table_id)
        if row is None or row.status == "abandoned":
            return None
        return self.load(row.id, row.public, row.created_ms)

    def open_tables(self) -> list[Table]:
        now = self.s.now_ms()
        out = []
        for t in self.tables.values():
            # Nobody seated: nobody to play with, and no name to show (issue 27: "— 4 free seats").
            if not t.public or t.status not in ("waiting", "empty") or not 0 < t.seat_count() < 4:
                continue
            if t.conns or t.watchers:
                out.append(t)
                continue
            since = t.empty_since if t.empty_since is not None else t.created_ms
            if now - since < LISTED_GRACE_MS:
                out.append(t)
        out.sort(key=lambda t: t.created_ms, reverse=True)
        return out[:100]

    def live_tables(self) -> list[Table]:
        """The public games in progress here, newest first (the lobby ranks them and keeps the first
        LIVE_MAX: the top game may be an old one)."""
        out = [t for t in self.tables.values() if t.public and t.status == "playing"]
        out.sort(key=lambda t: t.created_ms, reverse=True)
        return out

    def counts_by_state(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for t in self.tables.values():
            counts[t.status] = counts.get(t.status, 0) + 1
        return counts


def _rematch_frame(row: RematchRow) -> dict[str, Any]:
    return {"table": row.new_id, "link": row.link, "by": row.by_seat}


def _track_tokens(tokens: list[str | None], ev: engine.Event, token_hash: str | None) -> None:
    if isinstance(ev, engine.SeatJoined):
        tokens.append(token_hash)
    elif isinstance(ev, engine.SeatLeft) and 0 <= ev.seat < len(tokens):
        tokens.pop(ev.seat)
