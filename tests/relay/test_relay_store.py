"""The journal: atomic appends, no seq taken twice, readable after reopening with or without a checkpoint."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from relay.journal.sqlite import Store, StoreError


def test_events_survive_reopening_before_and_after_a_checkpoint(tmp_path: Path) -> None:
    db = tmp_path / "j.sqlite3"
    store = Store(db)
    store.create_table("t1", created_ms=1, public=True, status="waiting", events=[{"type": "table_created"}])
    store.append("t1", 2, [({"type": "seat_joined"}, "ab" * 32)], status=None, now_ms=2)
    # Not checkpointed: the rows live in the WAL only, and a new connection still reads them.
    again = Store(db)
    assert [r.body["type"] for r in again.events("t1")] == ["table_created", "seat_joined"]
    assert again.events("t1")[1].token_hash == "ab" * 32
    store.checkpoint()
    store.append("t1", 3, [({"type": "game_started"}, None)], status="playing", now_ms=3)
    store.close()
    again.close()
    reopened = Store(db)
    assert [r.seq for r in reopened.events("t1")] == [1, 2, 3]
    row = reopened.table("t1")
    assert row is not None and row.status == "playing"
    assert [t.id for t in reopened.tables(unfinished=True)] == ["t1"]
    reopened.close()


def test_a_seq_cannot_be_journaled_twice_and_a_failed_append_writes_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "j.sqlite3")
    store.create_table("t1", created_ms=1, public=False, status="waiting", events=[{"type": "table_created"}])
    with pytest.raises(StoreError):
        store.append("t1", 1, [({"type": "seat_joined"}, None)], status="playing", now_ms=2)
    store.append("t1", 2, [({"type": "a"}, None), ({"type": "b"}, None)], status=None, now_ms=2)
    with pytest.raises(StoreError):
        # A stale writer (same seqs): the whole batch and its status change are refused.
        store.append("t1", 2, [({"type": "c"}, None), ({"type": "d"}, None)], status="ended", now_ms=3)
    assert [r.body["type"] for r in store.events("t1")] == ["table_created", "a", "b"]
    row = store.table("t1")
    assert row is not None and row.status == "waiting"
    with pytest.raises(StoreError):
        store.create_table("t1", created_ms=1, public=False, status="waiting", events=[])
    store.close()


def test_a_commit_sqlite_refuses_leaves_no_open_transaction_behind(tmp_path: Path) -> None:
    store = Store(tmp_path / "j.sqlite3")
    store.create_table("t0", created_ms=1, public=True, status="waiting", events=[{"a": 1}])
    store._db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 10_000)  # SQLITE_TOOBIG: a statement-level error
    big = {"pad": "x" * 20_000}
    with pytest.raises(sqlite3.DataError):
        store.create_table("t1", created_ms=1, public=True, status="waiting", events=[big])
    assert not store._db.in_transaction
    with pytest.raises(sqlite3.DataError):
        store.append("t0", 2, [(big, None)], status="playing", now_ms=2)
    assert not store._db.in_transaction
    # The journal goes on, and holds nothing of either failed commit.
    store.append("t0", 2, [({"b": 2}, None)], status="playing", now_ms=2)
    store.create_table("t1", created_ms=3, public=True, status="waiting", events=[{"c": 3}])
    t0 = store.table("t0")
    assert t0 is not None and t0.status == "playing"
    assert [r.body for r in store.events("t0")] == [{"a": 1}, {"b": 2}]
    assert [r.body for r in store.events("t1")] == [{"c": 3}]
    store.close()
