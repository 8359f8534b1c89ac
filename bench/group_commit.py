"""The group commit's statement alone: relay CPU and wall time of ``PostgresStore.append_many`` per batch.

A throw-away PostgreSQL (harness.services.PostgresServer, as bench/cluster.py starts it) with ``--tables``
tables claimed by one node; batches of 1, 2, 3, 6 and 12 appends (one event each, a placement's size) are
committed in turn, ``--appends`` appends per size. CPU is this process's (``time.process_time``): what the
relay's journal thread spends per batch, PostgreSQL's own work excluded.

Then the same batches through relay.journal.groupcommit.GroupCommit on an event loop, as the relay sends them:
committed in a worker thread (``thread_``) or on the loop (relay/journal/pgloop.py, ``loop_``, the relay's
way). This process's CPU per batch there includes the hand-offs between the loop and the thread.

Output: ``#`` lines, then ``name<TAB>value<TAB>unit`` rows (bench/run_all.py).

Usage: .venv/bin/python bench/group_commit.py [--appends 300] [--tables 60]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

from _relaybench import load_average, report
from harness.services import PostgresServer

from relay.journal.groupcommit import Append, GroupCommit
from relay.journal.pgloop import LoopWriter
from relay.journal.postgres import PostgresStore

BODY = {
    "type": "placed",
    "seat": 1,
    "tiles": [[3, 4, "A", False], [3, 5, "B", False]],
    "score": 12,
    "words": ["AB"],
    "drawn": 2,
}


class Batches:
    """Batches of ``size`` appends over the claimed tables, each with its table's next seq."""

    def __init__(self, epochs: dict[str, int]) -> None:
        self.epochs = epochs
        self.ids = list(epochs)
        self.seq = dict.fromkeys(epochs, 2)
        self.n = 0

    def next(self, size: int) -> list[Append]:
        items = []
        for k in range(size):
            tid = self.ids[(self.n * size + k) % len(self.ids)]
            items.append(Append(tid, self.seq[tid], [(BODY, None)], "playing", 5, self.epochs[tid]))
            self.seq[tid] += 1
        self.n += 1
        return items


async def through_group_commit(
    store: PostgresStore, url: str, batches: Batches, appends: int
) -> list[tuple[str, object, str]]:
    rows: list[tuple[str, object, str]] = []
    for mode in ("thread", "loop"):
        writer = LoopWriter(url, store.node_id) if mode == "loop" else None
        commits = GroupCommit(store, ThreadPoolExecutor(1), writer=writer)
        for size in (1, 3):
            cpu: list[float] = []
            for _ in range(max(1, appends // size)):
                items = batches.next(size)
                c0 = time.process_time()
                # Queued in one loop tick: one batch.
                await asyncio.gather(*(commits.append(it) for it in items))
                cpu.append(time.process_time() - c0)
            rows.append(
                (
                    f"{mode}_batch{size}_cpu_us",
                    round(statistics.mean(cpu) * 1e6),
                    "us of CPU per batch (mean)",
                )
            )
        if writer is not None:
            await writer.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--appends", type=int, default=300, help="appends per batch size")
    parser.add_argument("--tables", type=int, default=60)
    args = parser.parse_args()
    server = PostgresServer()
    server.start()
    rows: list[tuple[str, object, str]] = []
    try:
        url = server.new_database()
        store = PostgresStore(url, node_id="bench")
        epochs: dict[str, int] = {}
        for i in range(args.tables):
            tid = f"t{i}"
            store.create_table(tid, created_ms=1, public=True, status="waiting", events=[{"n": 1}])
            epochs[tid] = store.claim(tid)
        batches = Batches(epochs)
        for size in (1, 2, 3, 6, 12):
            cpu: list[float] = []
            wall: list[float] = []
            for _ in range(max(1, args.appends // size)):
                items = batches.next(size)
                c0, w0 = time.process_time(), time.perf_counter()
                assert store.append_many(items) == [None] * size
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
            mean = statistics.mean(cpu)
            rows += [
                (f"batch{size}_cpu_us", round(mean * 1e6), "us of relay CPU per batch (mean)"),
                (f"batch{size}_cpu_per_append_us", round(mean / size * 1e6), "us per append"),
                (f"batch{size}_wall_ms", round(statistics.median(wall) * 1e3, 2), "ms per batch (median)"),
            ]
        rows += asyncio.run(through_group_commit(store, url, batches, args.appends))
        store.close()
    finally:
        server.stop()
    report(
        "Group commit statement (bench/group_commit.py): PostgresStore.append_many on a local PostgreSQL",
        [f"{args.appends} appends per batch size, {args.tables} tables; load average {load_average()}"],
        rows,
    )


if __name__ == "__main__":
    main()
