"""The group commit's statement alone: relay CPU and wall time of ``PostgresStore.append_many`` per batch.

A throw-away PostgreSQL (relay.cluster.PostgresServer, as bench/cluster.py starts it) with ``--tables``
tables claimed by one node; batches of 1, 2, 3, 6 and 12 appends (one event each, a placement's size) are
committed in turn, ``--appends`` appends per size. CPU is this process's (``time.process_time``): what the
relay's journal thread spends per batch, PostgreSQL's own work excluded.

Output: ``#`` lines, then ``name<TAB>value<TAB>unit`` rows (bench/run_all.py).

Usage: .venv/bin/python bench/group_commit.py [--appends 300] [--tables 60]
"""

from __future__ import annotations

import argparse
import statistics
import time

from _relaybench import load_average, report

from relay.cluster import PostgresServer
from relay.groupcommit import Append
from relay.pgstore import PostgresStore

BODY = {
    "type": "placed",
    "seat": 1,
    "tiles": [[3, 4, "A", False], [3, 5, "B", False]],
    "score": 12,
    "words": ["AB"],
    "drawn": 2,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--appends", type=int, default=300, help="appends per batch size")
    parser.add_argument("--tables", type=int, default=60)
    args = parser.parse_args()
    server = PostgresServer()
    server.start()
    rows: list[tuple[str, object, str]] = []
    try:
        store = PostgresStore(server.new_database(), node_id="bench")
        epochs: dict[str, int] = {}
        for i in range(args.tables):
            tid = f"t{i}"
            store.create_table(tid, created_ms=1, public=True, status="waiting", events=[{"n": 1}])
            epochs[tid] = store.claim(tid)
        seq = dict.fromkeys(epochs, 2)
        ids = list(epochs)
        for size in (1, 2, 3, 6, 12):
            cpu: list[float] = []
            wall: list[float] = []
            for n in range(max(1, args.appends // size)):
                items = []
                for tid in (ids[(n * size + k) % len(ids)] for k in range(size)):
                    items.append(Append(tid, seq[tid], [(BODY, None)], "playing", 5, epochs[tid]))
                    seq[tid] += 1
                c0, w0 = time.process_time(), time.perf_counter()
                assert store.append_many(items) == [None] * size
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
            rows += [
                (f"batch{size}_cpu_us", round(statistics.mean(cpu) * 1e6), "us of relay CPU per batch (mean)"),
                (f"batch{size}_cpu_per_append_us", round(statistics.mean(cpu) / size * 1e6), "us per append"),
                (f"batch{size}_wall_ms", round(statistics.median(wall) * 1e3, 2), "ms per batch (median)"),
            ]
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
