"""Which tables the sweeper looks at, and when (issue 31, correspondence play; docs/architecture.md,
"Deadlines and the sweep").

A table whose turns last seconds or minutes is looked at every tick (its turn, the disconnect grace, a seat
left before the start). A correspondence table (turns counted in days: :func:`engine.is_correspondence`)
lives for weeks and there may be thousands of them: it is never scanned, but its next deadline waits in a
heap, and the sweeper pops only the deadlines that fell due. The deadline itself is not kept anywhere else:
it is the turn's start (an absolute time in the journal) plus the turn time, so it is the same after a
restart, after a takeover by another relay, or when the table is read back from the journal.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import engine
from relay.tables.table import Table


class TableIndex(dict[str, Table]):
    """Every live table of this relay by id (``TableServices.tables``), kept in two parts as well:
    ``timed`` (the tables the sweeper looks at every tick) and ``days`` (correspondence tables, swept by
    their deadline). A table's turn time never changes, so where it goes is decided once, when it is added;
    ``on_add`` is called for each table added (the sweeper schedules its deadline)."""

    def __init__(self) -> None:
        super().__init__()
        self.timed: dict[str, Table] = {}
        self.days: dict[str, Table] = {}
        self.on_add: Callable[[Table], None] = _nothing

    def __setitem__(self, key: str, table: Table) -> None:
        super().__setitem__(key, table)
        self.timed.pop(key, None)
        self.days.pop(key, None)
        if engine.is_correspondence(table.state.turn_seconds):
            self.days[key] = table
        else:
            self.timed[key] = table
        self.on_add(table)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self.timed.pop(key, None)
        self.days.pop(key, None)

    def clear(self) -> None:
        super().clear()
        self.timed.clear()
        self.days.clear()


class Deadlines:
    """The next deadline of each correspondence table, earliest first: a heap with lazy deletion (a table
    rescheduled leaves its old entry in the heap, skipped when popped). :meth:`schedule` is O(log n),
    :meth:`due` O(k log n) for the k deadlines that fell due."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, str]] = []
        self._at: dict[str, int] = {}  # table id -> its scheduled deadline (the heap entry that counts)

    def schedule(self, table_id: str, deadline_ms: int | None) -> None:
        """``table_id``'s next deadline is ``deadline_ms`` (None: it has none, e.g. waiting or ended)."""
        if deadline_ms is None:
            self._at.pop(table_id, None)
            return
        if self._at.get(table_id) == deadline_ms:
            return
        self._at[table_id] = deadline_ms
        heapq.heappush(self._heap, (deadline_ms, table_id))
        if len(self._heap) > 64 and len(self._heap) > 4 * len(self._at):
            # Mostly stale entries (every move leaves one): rebuild from the deadlines that count.
            self._heap = [(at, tid) for tid, at in self._at.items()]
            heapq.heapify(self._heap)

    def due(self, now_ms: int) -> list[str]:
        """The tables whose deadline is ``now_ms`` or earlier, earliest first; they leave the schedule (the
        sweeper schedules each one again after acting on it)."""
        out: list[str] = []
        while self._heap and self._heap[0][0] <= now_ms:
            at, table_id = heapq.heappop(self._heap)
            if self._at.get(table_id) == at:
                del self._at[table_id]
                out.append(table_id)
        return out

    def next_ms(self) -> int | None:
        """The earliest deadline scheduled (None: none)."""
        while self._heap and self._at.get(self._heap[0][1]) != self._heap[0][0]:
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else None

    def __len__(self) -> int:
        return len(self._at)

    def __contains__(self, table_id: object) -> bool:
        return table_id in self._at


def _nothing(table: Table) -> None:
    """No sweeper yet: nothing to schedule."""
