"""Group commit (relay/journal/groupcommit.py): the fenced appends of many tables share one PostgreSQL
transaction,
each still checked against its own table's epoch in it; a stale one is refused alone; nothing is answered
before its commit returned; a clash or an unreachable journal fails the appends it concerns, as each would
have failed on its own. Batches are committed on the event loop (relay/journal/pgloop.py, as the relay does)
or in a
worker thread; each behaviour is proved for both where both can show it. On a real database (the session's
throw-away PostgreSQL)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from clusterkit import kill_heartbeat

from relay.journal import JournalUnavailable
from relay.journal.groupcommit import Append, GroupCommit
from relay.journal.pgloop import LoopWriter
from relay.journal.postgres import NotOwner, PostgresStore
from relay.journal.sqlite import FrameRow, StoreError


def _tables(store: PostgresStore, n: int) -> dict[str, int]:
    """n waiting tables claimed by ``store``: their epochs by id."""
    out = {}
    for i in range(n):
        tid = f"t{i}"
        store.create_table(tid, created_ms=1, public=True, status="waiting", events=[{"n": 1}])
        out[tid] = store.claim(tid)
    return out


def _steal(url: str, thief: PostgresStore, table_id: str, victim: str) -> int:
    """``thief`` claims ``table_id`` after ``victim``'s heartbeat went stale."""
    kill_heartbeat(url, victim)
    return thief.claim(table_id)


def _bodies(store: PostgresStore, table_id: str) -> list[dict[str, object]]:
    return [r.body for r in store.events(table_id)]


@contextlib.asynccontextmanager
async def _on_the_loop(store: PostgresStore, url: str) -> AsyncIterator[GroupCommit]:
    """``store``'s group commit on the event loop (the relay's way); its connection is closed after."""
    writer = LoopWriter(url, store.node_id)
    try:
        yield GroupCommit(store, ThreadPoolExecutor(1), writer=writer)
    finally:
        await writer.close()


@pytest.fixture
async def loop_commits(nodes: tuple[PostgresStore, PostgresStore], pg_url: str) -> AsyncIterator[GroupCommit]:
    """Node A's group commit on the event loop."""
    async with _on_the_loop(nodes[0], pg_url) as commits:
        yield commits


@pytest.fixture(params=["on the event loop", "in a worker thread"])
async def commits(
    request: pytest.FixtureRequest, nodes: tuple[PostgresStore, PostgresStore], pg_url: str
) -> AsyncIterator[GroupCommit]:
    """Node A's group commit, committing on the loop or in a worker thread."""
    if request.param == "in a worker thread":
        yield GroupCommit(nodes[0], ThreadPoolExecutor(1))
        return
    async with _on_the_loop(nodes[0], pg_url) as on_loop:
        yield on_loop


def test_many_tables_appends_commit_in_one_transaction_and_a_stale_epoch_is_refused_alone(
    nodes: tuple[PostgresStore, PostgresStore], pg_url: str
) -> None:
    a, b = nodes
    epochs = _tables(a, 4)
    eb = _steal(pg_url, b, "t2", "node-a")
    frame = FrameRow(2, "who", "f1", "digest", {"type": "ack", "seq": 2})
    items = [
        Append(tid, 2, [({"by": "a", "t": tid}, None), ({"more": tid}, "th")], "playing", 5, epoch, frame)
        for tid, epoch in epochs.items()
    ]
    out = a.append_many(items)
    assert [o is None for o in out] == [True, True, False, True]
    refused = out[2]
    assert isinstance(refused, NotOwner) and refused.code == "stale_epoch"
    assert "owner node-b at epoch" in str(refused)
    for tid in ("t0", "t1", "t3"):
        assert _bodies(a, tid) == [{"n": 1}, {"by": "a", "t": tid}, {"more": tid}]
        assert [e.token_hash for e in a.events(tid)] == [None, None, "th"]
        row = a.table(tid)
        assert row is not None and row.status == "playing" and row.updated_ms == 5
        assert a.frames(tid) == [frame]
    # The stolen table got nothing of it: not its events, frame or status; its new owner writes on.
    assert _bodies(b, "t2") == [{"n": 1}] and b.frames("t2") == []
    row = b.table("t2")
    assert row is not None and row.status == "waiting"
    b.append("t2", 2, [({"by": "b"}, None)], status=None, now_ms=6, epoch=eb)
    assert _bodies(b, "t2") == [{"n": 1}, {"by": "b"}]


def test_a_seq_already_taken_refuses_the_whole_transaction_with_nothing_written(
    nodes: tuple[PostgresStore, PostgresStore],
) -> None:
    a, _ = nodes
    epochs = _tables(a, 2)
    items = [Append("t0", 2, [({"x": 0}, None)], None, 5, epochs["t0"]),
             Append("t1", 1, [({"x": 1}, None)], None, 5, epochs["t1"])]  # fmt: skip
    with pytest.raises(StoreError, match="already journaled"):
        a.append_many(items)
    assert _bodies(a, "t0") == [{"n": 1}] and _bodies(a, "t1") == [{"n": 1}]


class GatedStore:
    """A real store whose batches wait for ``gate`` before committing, recording each batch's tables."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.batches: list[list[str]] = []

    def append_many(self, items: Sequence[Append]) -> list[StoreError | None]:
        self.batches.append([it.table_id for it in items])
        self.entered.set()
        assert self.gate.wait(10)
        return self.store.append_many(items)

    def append(self, *args: object, **kwargs: object) -> None:
        self.store.append(*args, **kwargs)  # type: ignore[arg-type]


async def test_appends_arriving_during_a_commit_share_the_next_transaction_and_none_is_answered_before_it(
    nodes: tuple[PostgresStore, PostgresStore], pg_url: str
) -> None:
    a, _ = nodes
    epochs = _tables(a, 20)
    gated = GatedStore(a)
    commits = GroupCommit(gated, ThreadPoolExecutor(2))
    tids = list(epochs)
    first = asyncio.ensure_future(
        commits.append(Append(tids[0], 2, [({"x": 0}, None)], None, 5, epochs[tids[0]]))
    )
    await asyncio.to_thread(gated.entered.wait, 10)
    rest = [
        asyncio.ensure_future(commits.append(Append(tid, 2, [({"x": i}, None)], None, 5, epochs[tid])))
        for i, tid in enumerate(tids[1:], start=1)
    ]
    await asyncio.sleep(0.2)
    # The first commit is held: nobody has been answered, and nothing is in the journal yet.
    assert not first.done() and not any(f.done() for f in rest)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM events WHERE seq = 2").fetchone()
        assert row is not None and row[0] == 0
    gated.gate.set()
    await first
    # Answered only once committed: visible to any other connection at that moment.
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM events WHERE seq = 2 AND table_id = %s", (tids[0],)
        ).fetchone()
        assert row is not None and row[0] == 1
    await asyncio.gather(*rest)
    assert gated.batches == [tids[:1], tids[1:]]
    assert commits.batches == 2 and commits.appends == 20
    for i, tid in enumerate(tids):
        assert _bodies(a, tid) == [{"n": 1}, {"x": i}]


async def test_a_stale_table_in_a_group_commit_raises_not_owner_and_the_others_are_acknowledged(
    nodes: tuple[PostgresStore, PostgresStore], pg_url: str, commits: GroupCommit
) -> None:
    a, b = nodes
    epochs = _tables(a, 3)
    _steal(pg_url, b, "t1", "node-a")
    outcomes = await asyncio.gather(
        *(commits.append(Append(tid, 2, [({"x": tid}, None)], None, 5, e)) for tid, e in epochs.items()),
        return_exceptions=True,
    )
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], NotOwner) and outcomes[1].code == "stale_epoch"
    assert commits.batches == 1
    assert _bodies(a, "t0") == [{"n": 1}, {"x": "t0"}] and _bodies(a, "t1") == [{"n": 1}]


async def test_a_clash_in_a_group_commit_fails_only_the_clashing_append(
    nodes: tuple[PostgresStore, PostgresStore], commits: GroupCommit
) -> None:
    a, _ = nodes
    epochs = _tables(a, 3)
    seqs = {"t0": 2, "t1": 1, "t2": 2}  # t1's seq 1 is taken
    outcomes = await asyncio.gather(
        *(commits.append(Append(t, seqs[t], [({"x": t}, None)], None, 5, e)) for t, e in epochs.items()),
        return_exceptions=True,
    )
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], StoreError) and not isinstance(outcomes[1], NotOwner)
    assert _bodies(a, "t0") == [{"n": 1}, {"x": "t0"}] and _bodies(a, "t2") == [{"n": 1}, {"x": "t2"}]
    assert _bodies(a, "t1") == [{"n": 1}]


async def test_on_the_loop_appends_arriving_during_a_commit_share_the_next_one_and_none_is_answered_before_it(
    nodes: tuple[PostgresStore, PostgresStore], pg_url: str, loop_commits: GroupCommit
) -> None:
    """The first batch is held by another transaction's lock on its table's row, on the server itself."""
    a, _ = nodes
    epochs = _tables(a, 12)
    tids = list(epochs)
    with psycopg.connect(pg_url) as holder:
        holder.execute("SELECT 1 FROM tables WHERE id = %s FOR UPDATE", (tids[0],))
        first = asyncio.ensure_future(
            loop_commits.append(Append(tids[0], 2, [({"x": 0}, None)], None, 5, epochs[tids[0]]))
        )
        await asyncio.sleep(0.2)
        rest = [
            asyncio.ensure_future(loop_commits.append(Append(t, 2, [({"x": i}, None)], None, 5, epochs[t])))
            for i, t in enumerate(tids[1:], start=1)
        ]
        await asyncio.sleep(0.2)
        assert not first.done() and not any(f.done() for f in rest)
        assert loop_commits.batches == 0
        holder.rollback()
    await asyncio.wait_for(first, 10)
    await asyncio.wait_for(asyncio.gather(*rest), 10)
    assert loop_commits.batches == 2 and loop_commits.appends == 12
    for i, tid in enumerate(tids):
        assert _bodies(a, tid) == [{"n": 1}, {"x": i}]


async def test_on_the_loop_a_commit_connection_cut_by_the_server_fails_its_batch_and_the_next_reconnects(
    nodes: tuple[PostgresStore, PostgresStore], pg_url: str, loop_commits: GroupCommit
) -> None:
    a, _ = nodes
    epochs = _tables(a, 3)
    await loop_commits.append(Append("t0", 2, [({"x": 0}, None)], None, 5, epochs["t0"]))
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'lexio-commit'"
        )
    with pytest.raises(JournalUnavailable):
        await loop_commits.append(Append("t1", 2, [({"x": 1}, None)], None, 5, epochs["t1"]))
    await loop_commits.append(Append("t2", 2, [({"x": 2}, None)], None, 5, epochs["t2"]))
    assert _bodies(a, "t0") == [{"n": 1}, {"x": 0}] and _bodies(a, "t2") == [{"n": 1}, {"x": 2}]
    assert _bodies(a, "t1") == [{"n": 1}]


async def test_on_the_loop_an_unreachable_journal_fails_every_append_with_journal_unavailable(
    nodes: tuple[PostgresStore, PostgresStore],
) -> None:
    writer = LoopWriter("postgresql://lexio@127.0.0.1:9/none", "node-a", timeout=1)
    commits = GroupCommit(nodes[0], ThreadPoolExecutor(1), writer=writer)
    outcomes = await asyncio.gather(
        *(commits.append(Append(f"t{i}", 2, [({}, None)], None, 5, 1)) for i in range(3)),
        return_exceptions=True,
    )
    assert all(isinstance(o, JournalUnavailable) for o in outcomes)
    assert "127.0.0.1:9" in str(outcomes[0])


async def test_on_the_loop_a_cancelled_commit_answers_nobody_and_its_connection_is_never_reused(
    nodes: tuple[PostgresStore, PostgresStore], pg_url: str, loop_commits: GroupCommit
) -> None:
    a, _ = nodes
    epochs = _tables(a, 2)
    with psycopg.connect(pg_url) as holder:
        holder.execute("SELECT 1 FROM tables WHERE id = 't0' FOR UPDATE")
        held = asyncio.ensure_future(
            loop_commits.append(Append("t0", 2, [({"x": 0}, None)], None, 5, epochs["t0"]))
        )
        await asyncio.sleep(0.2)
        assert loop_commits._flusher is not None
        loop_commits._flusher.cancel()
        outcome = (await asyncio.gather(held, return_exceptions=True))[0]
        assert isinstance(outcome, JournalUnavailable)
        holder.rollback()
    await loop_commits.append(Append("t1", 2, [({"x": 1}, None)], None, 5, epochs["t1"]))
    assert _bodies(a, "t1") == [{"n": 1}, {"x": 1}]


class DownStore:
    def append_many(self, items: Sequence[Append]) -> list[StoreError | None]:
        raise JournalUnavailable("journal at postgresql://x: connection refused")

    def append(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("not retried one by one: nothing could be written")


async def test_an_unreachable_journal_fails_every_append_of_the_batch_with_journal_unavailable() -> None:
    commits = GroupCommit(DownStore(), ThreadPoolExecutor(1))
    outcomes = await asyncio.gather(
        *(commits.append(Append(f"t{i}", 2, [({}, None)], None, 5, 1)) for i in range(3)),
        return_exceptions=True,
    )
    assert all(isinstance(o, JournalUnavailable) for o in outcomes)
    assert len({id(o) for o in outcomes}) == 3  # one exception per waiter


async def test_appends_waiting_when_the_journal_worker_stops_are_not_acknowledged(
    nodes: tuple[PostgresStore, PostgresStore],
) -> None:
    a, _ = nodes
    epochs = _tables(a, 3)
    gated = GatedStore(a)
    executor = ThreadPoolExecutor(1)
    commits = GroupCommit(gated, executor)
    # The only worker is busy elsewhere: the batch is queued in the executor when it shuts down.
    busy = threading.Event()
    executor.submit(busy.wait, 10)
    waiting = [
        asyncio.ensure_future(commits.append(Append(t, 2, [({"x": t}, None)], None, 5, e)))
        for t, e in epochs.items()
    ]
    await asyncio.sleep(0.1)
    executor.shutdown(wait=False, cancel_futures=True)
    busy.set()
    outcomes = await asyncio.wait_for(asyncio.gather(*waiting, return_exceptions=True), 5)
    assert all(isinstance(o, JournalUnavailable) for o in outcomes)
    assert gated.batches == []


def test_a_takeover_in_the_middle_of_a_stream_of_grouped_appends_leaves_one_writer_per_seq(
    nodes: tuple[PostgresStore, PostgresStore], pg_url: str
) -> None:
    """Node A commits batches of three tables as fast as it can; node B declares it dead and claims one of
    them mid-stream, then appends to it. Every seq of that table is written once, all of A's rows come
    before B's, A's first refusal there is stale_epoch, and A's other tables go on committing."""
    a, b = nodes
    epochs = _tables(a, 3)
    done: dict[str, list[int]] = {tid: [] for tid in epochs}
    refused: list[StoreError] = []
    running = threading.Event()
    stop = threading.Event()

    def writer_a() -> None:
        seqs = dict.fromkeys(epochs, 2)
        while not stop.is_set():
            live = [t for t in epochs if not (t == "t1" and refused)]
            out = a.append_many(
                [Append(t, seqs[t], [({"by": "a", "seq": seqs[t]}, None)], None, 0, epochs[t]) for t in live]
            )
            for t, o in zip(live, out, strict=True):
                if o is None:
                    done[t].append(seqs[t])
                    seqs[t] += 1
                else:
                    refused.append(o)
            running.set()

    thread = threading.Thread(target=writer_a)
    thread.start()
    assert running.wait(5)
    eb = _steal(pg_url, b, "t1", "node-a")
    first_b = len(b.events("t1")) + 1
    b.append("t1", first_b, [({"by": "b", "seq": first_b}, None)], status=None, now_ms=0, epoch=eb)
    time.sleep(0.3)
    stop.set()
    thread.join(10)
    assert len(refused) == 1 and isinstance(refused[0], NotOwner) and refused[0].code == "stale_epoch"
    rows = b.events("t1")
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    assert [r.body.get("by") for r in rows[1:]] == ["a"] * len(done["t1"]) + ["b"]
    for t in ("t0", "t2"):
        assert len(done[t]) > len(done["t1"])  # still A's: kept committing after the steal
        assert [r.seq for r in a.events(t)] == [1, *done[t]]
