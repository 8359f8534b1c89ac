"""SQLite group commit (relay/journal/tickcommit.py): the appends made in one turn of the event loop share one
transaction; none is answered before that transaction is committed; a batch that fails is replayed one
append per transaction, so each append gets the outcome it would have had alone; a waiter cancelled before
the commit writes nothing. On a real SQLite journal, then through a running relay."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import aiohttp
import pytest
from relaykit import RunningRelay, seated_game, settle

import engine
from relay.journal.sqlite import AppendRow, FrameRow, Store, StoreError
from relay.journal.tickcommit import TickCommit
from relay.tables import Table
from relay.tables.hosting import SingleHost


class SpyStore:
    """A real Store whose ``append_many`` calls are recorded (the table ids of each transaction tried), with
    what ``answered`` held at that moment."""

    def __init__(self, store: Store, answered: list[str]) -> None:
        self.store = store
        self.answered = answered
        self.calls: list[list[str]] = []
        self.answered_at_commit: list[list[str]] = []

    def append_many(self, items: Sequence[AppendRow]) -> None:
        self.calls.append([it.table_id for it in items])
        self.answered_at_commit.append(list(self.answered))
        self.store.append_many(items)


def _store(tmp_path: Path, tables: int) -> Store:
    store = Store(tmp_path / "j.sqlite3")
    for i in range(tables):
        store.create_table(f"t{i}", created_ms=1, public=True, status="playing", events=[{"n": 1}])
    return store


def _bodies(store: Store, table_id: str) -> list[object]:
    return [row.body for row in store.events(table_id)]


async def test_appends_of_several_tables_in_one_tick_are_committed_together_and_each_ack_follows_its_commit(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path, 3)
    answered: list[str] = []
    spy = SpyStore(store, answered)
    commits = TickCommit(spy)

    async def act(table_id: str) -> None:
        frame = FrameRow(2, "h" * 64, "b1", "d" * 32, {"type": "ack", "seq": 2})
        await commits.append(table_id, 2, [({"n": 2}, None)], status="ended", now_ms=5, frame=frame)
        answered.append(table_id)  # what the relay does next: fold, broadcast, ack

    await asyncio.gather(act("t0"), act("t1"), act("t2"))

    assert spy.calls == [["t0", "t1", "t2"]]  # one transaction
    assert spy.answered_at_commit == [[]]  # nobody answered before it
    assert sorted(answered) == ["t0", "t1", "t2"]
    assert (commits.batches, commits.appends) == (1, 3)
    for tid in ("t0", "t1", "t2"):
        assert _bodies(store, tid) == [{"n": 1}, {"n": 2}]
        assert [f.answer for f in store.frames(tid)] == [{"type": "ack", "seq": 2}]
        row = store.table(tid)
        assert row is not None and row.status == "ended" and row.updated_ms == 5


async def test_appends_made_after_a_commit_go_in_the_next_transaction(tmp_path: Path) -> None:
    store = _store(tmp_path, 2)
    spy = SpyStore(store, [])
    commits = TickCommit(spy)
    await commits.append("t0", 2, [({"n": 2}, None)], status=None, now_ms=2)
    await commits.append("t1", 2, [({"n": 2}, None)], status=None, now_ms=2)
    assert spy.calls == [["t0"], ["t1"]]


async def test_a_lone_append_with_nothing_else_ready_on_the_loop_is_committed_at_once(tmp_path: Path) -> None:
    store = _store(tmp_path, 1)
    spy = SpyStore(store, [])
    commits = TickCommit(spy)
    loop = asyncio.get_running_loop()
    for _ in range(10):  # let whatever the test's start left on the loop run
        await asyncio.sleep(0)
    assert not loop._ready  # type: ignore[attr-defined]
    step = commits.append("t0", 2, [({"n": 2}, None)], status=None, now_ms=2)
    with pytest.raises(StopIteration):
        step.send(None)  # runs to its end without waiting for the loop: committed in place
    assert spy.calls == [["t0"]]
    assert _bodies(store, "t0") == [{"n": 1}, {"n": 2}]


async def test_a_batch_larger_than_its_cap_is_committed_in_several_transactions(tmp_path: Path) -> None:
    store = _store(tmp_path, 5)
    spy = SpyStore(store, [])
    commits = TickCommit(spy, max_batch=2)
    await asyncio.gather(
        *(commits.append(f"t{i}", 2, [({"n": 2}, None)], status=None, now_ms=2) for i in range(5))
    )
    assert spy.calls == [["t0", "t1"], ["t2", "t3"], ["t4"]]
    assert all(_bodies(store, f"t{i}") == [{"n": 1}, {"n": 2}] for i in range(5))


async def test_a_clash_in_a_group_commit_fails_only_its_append_and_the_others_commit(tmp_path: Path) -> None:
    store = _store(tmp_path, 3)
    store.append("t1", 2, [({"other": True}, None)], status=None, now_ms=2)  # someone took t1's seq 2
    commits = TickCommit(store)

    results = await asyncio.gather(
        *(commits.append(f"t{i}", 2, [({"n": 2}, None)], status=None, now_ms=3) for i in range(3)),
        return_exceptions=True,
    )

    assert results[0] is None and results[2] is None
    assert isinstance(results[1], StoreError)
    assert _bodies(store, "t0") == _bodies(store, "t2") == [{"n": 1}, {"n": 2}]
    assert _bodies(store, "t1") == [{"n": 1}, {"other": True}]


async def test_a_failed_group_commit_acknowledges_none_of_its_actions_and_writes_nothing(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path, 3)
    store._db.execute("PRAGMA query_only = 1")  # as a disk remounted read-only
    commits = TickCommit(store)

    results = await asyncio.gather(
        *(commits.append(f"t{i}", 2, [({"n": 2}, None)], status="ended", now_ms=3) for i in range(3)),
        return_exceptions=True,
    )

    assert all(isinstance(r, sqlite3.Error) for r in results)
    assert len({id(r) for r in results}) == 3  # one exception object per waiter
    store._db.execute("PRAGMA query_only = 0")
    for i in range(3):
        assert _bodies(store, f"t{i}") == [{"n": 1}]
        row = store.table(f"t{i}")
        assert row is not None and row.status == "playing"
    # Nothing half-written stays behind: the same appends go through once the journal can be written.
    await asyncio.gather(
        *(commits.append(f"t{i}", 2, [({"n": 2}, None)], status=None, now_ms=4) for i in range(3))
    )
    assert all(_bodies(store, f"t{i}") == [{"n": 1}, {"n": 2}] for i in range(3))


async def test_an_append_cancelled_before_its_commit_writes_nothing(tmp_path: Path) -> None:
    store = _store(tmp_path, 2)
    spy = SpyStore(store, [])
    commits = TickCommit(spy)
    gone = asyncio.ensure_future(commits.append("t0", 2, [({"n": 2}, None)], status=None, now_ms=2))
    kept = asyncio.ensure_future(commits.append("t1", 2, [({"n": 2}, None)], status=None, now_ms=2))
    await asyncio.sleep(0)  # both queued; the commit is due at the end of the next turn
    gone.cancel()
    await kept
    with pytest.raises(asyncio.CancelledError):
        await gone
    assert spy.calls == [["t1"]]
    assert _bodies(store, "t0") == [{"n": 1}]


async def test_an_append_cancelled_after_its_commit_returns_and_the_cancellation_follows(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path, 1)
    commits = TickCommit(store)
    steps: list[str] = []

    async def step() -> None:
        await commits.append("t0", 2, [({"n": 2}, None)], status=None, now_ms=2)
        steps.append("folded")  # the table's memory follows its journal
        await asyncio.sleep(0)
        steps.append("not reached")

    task = asyncio.ensure_future(step())
    for _ in range(2):
        await asyncio.sleep(0)
    assert _bodies(store, "t0") == [{"n": 1}, {"n": 2}]  # committed, its waiter not yet resumed
    assert not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert steps == ["folded"]


# -- through a relay -----------------------------------------------------------------------------------------
def _spy_on_relay(relay: RunningRelay, answered: list[str]) -> SpyStore:
    host = relay.referee.services.host
    assert isinstance(host, SingleHost) and host.commits is not None
    spy = SpyStore(relay.referee.store, answered)  # type: ignore[arg-type]
    host.commits.store = spy
    return spy


async def test_a_relay_commits_the_actions_of_several_tables_in_one_turn_together_before_telling_anyone(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    games = [await seated_game(session, relay) for _ in range(3)]
    tables: list[Table] = [relay.referee.tables[tid] for tid, _ in games]
    versions = [t.state.version for t in tables]
    seen: list[str] = []
    spy = _spy_on_relay(relay, seen)

    def told() -> list[str]:
        # Whoever was told of the new events (seat 1 of each table): read when each commit is tried.
        return [tid for (tid, players), v in zip(games, versions, strict=True) if players[1].seq > v]

    def pass_turn(t: Table) -> list[engine.Command]:
        return [engine.Play(0, engine.Pass())]

    original = spy.append_many

    def checked(items: Sequence[AppendRow]) -> None:
        seen[:] = told()
        original(items)

    spy.append_many = checked  # type: ignore[method-assign]
    await asyncio.gather(*(relay.referee.turns.run(t, None, pass_turn, kind="pass") for t in tables))

    assert spy.calls == [[t.id for t in tables]]
    assert spy.answered_at_commit == [[]]
    for (tid, players), table, v in zip(games, tables, versions, strict=True):
        assert table.state.version == v + 1 and table.state.turn == 1
        await players[1].wait_seq(v + 1)
        assert len(relay.referee.store.events(tid)) == v + 1
    await settle(relay)


async def test_a_failed_group_commit_in_a_relay_leaves_every_table_as_it_was(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    games = [await seated_game(session, relay) for _ in range(2)]
    tables: list[Table] = [relay.referee.tables[tid] for tid, _ in games]
    versions = [t.state.version for t in tables]
    db = relay.referee.store._db  # type: ignore[attr-defined]
    db.execute("PRAGMA query_only = 1")

    answers = await asyncio.gather(*(players[0].send({"type": "pass"}) for _, players in games))

    assert [a["type"] for a in answers] == ["error", "error"]
    assert {a["code"] for a in answers} == {"internal_error"}
    assert [t.state.version for t in tables] == versions
    assert all(t.state.turn == 0 for t in tables)
    db.execute("PRAGMA query_only = 0")
    answers = await asyncio.gather(*(players[0].send({"type": "pass"}) for _, players in games))
    assert [a["type"] for a in answers] == ["ack", "ack"]
    assert [a["seq"] for a in answers] == [v + 1 for v in versions]
    for (tid, _), v in zip(games, versions, strict=True):
        assert len(relay.referee.store.events(tid)) == v + 1
