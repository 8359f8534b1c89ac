"""Ownership and fencing in the PostgreSQL journal: two relays (two store instances, each its own node id)
on one real database. A live owner keeps its table; a dead one (no heartbeat) loses it to a claim that
raises the epoch; every append checks the epoch in its own transaction, so a stale owner writes nothing —
even when the claim lands in the middle of its stream of appends."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest
from clusterkit import kill_heartbeat

from relay.journal import JournalUnavailable
from relay.journal.postgres import DEAD_AFTER_SECONDS, NotOwner, PostgresStore
from relay.journal.sqlite import StoreError

REPO = Path(__file__).resolve().parents[2]


def test_a_live_owner_keeps_its_table_and_claiming_again_keeps_the_epoch(
    nodes: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = nodes
    a.create_table("t1", created_ms=1, public=True, status="waiting", events=[{"n": 1}])
    assert a.owner("t1") == (None, 0)
    assert a.claim("t1") == 1
    assert a.claim("t1") == 1
    with pytest.raises(NotOwner, match="owned by live node node-a") as refused:
        b.claim("t1")
    assert refused.value.code == "owned_elsewhere"
    assert a.owner("t1") == ("node-a", 1)
    with pytest.raises(StoreError, match="no such table"):
        a.claim("missing")


def test_a_dead_owners_table_is_claimed_with_a_new_epoch_and_its_stale_append_writes_nothing(
    nodes: tuple[PostgresStore, PostgresStore], pg_url: str
) -> None:
    a, b = nodes
    a.create_table("t1", created_ms=1, public=True, status="waiting", events=[{"n": 1}])
    ea = a.claim("t1")
    a.append("t1", 2, [({"by": "a"}, None)], status="playing", now_ms=2, epoch=ea)
    kill_heartbeat(pg_url, "node-a")
    eb = b.claim("t1")
    assert eb == ea + 1 and b.owner("t1") == ("node-b", eb)
    # The old owner comes back (SIGCONT) with its old epoch: refused, whole batch and status change.
    with pytest.raises(
        NotOwner, match=r"node node-a at epoch 1 no longer owns it \(owner node-b at epoch 2\)"
    ) as e:
        a.append("t1", 3, [({"by": "a"}, None), ({"by": "a"}, None)], status="ended", now_ms=3, epoch=ea)
    assert e.value.code == "stale_epoch"
    b.append("t1", 3, [({"by": "b"}, None)], status=None, now_ms=3, epoch=eb)
    assert [r.body for r in b.events("t1")] == [{"n": 1}, {"by": "a"}, {"by": "b"}]
    row = b.table("t1")
    assert row is not None and row.status == "playing"
    # And it cannot release what it lost either.
    with pytest.raises(NotOwner):
        a.release("t1", ea)


def test_a_released_table_is_claimed_at_once_even_though_its_owner_is_alive(
    nodes: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = nodes
    a.create_table("t1", created_ms=1, public=True, status="waiting", events=[{"n": 1}])
    ea = a.claim("t1")
    a.heartbeat()
    a.release("t1", ea)
    assert a.owner("t1") == (None, ea)
    assert b.claim("t1") == ea + 1
    with pytest.raises(NotOwner):
        a.append("t1", 2, [({"by": "a"}, None)], status=None, now_ms=2, epoch=ea)


def test_unserved_games_are_the_correspondence_ones_in_progress_that_no_live_node_owns(
    nodes: tuple[PostgresStore, PostgresStore], pg_url: str
) -> None:
    a, b = nodes
    day = 86_400
    for tid, secs, status in [
        ("days", day, "playing"),
        ("week", 7 * day, "playing"),
        ("timed", 600, "playing"),
        ("waiting", day, "waiting"),
        ("over", day, "ended"),
    ]:
        a.create_table(tid, created_ms=1, public=False, status=status, events=[{"turn_seconds": secs}])
    assert b.unserved_tables(min_turn_seconds=day) == ["days", "week"]
    a.heartbeat()
    epoch = a.claim("days")
    assert b.unserved_tables(min_turn_seconds=day) == ["week"], "a live owner serves it"
    a.release("days", epoch)
    assert b.unserved_tables(min_turn_seconds=day, limit=1) == ["days"]
    a.claim("days")
    kill_heartbeat(pg_url, "node-a")
    assert b.unserved_tables(min_turn_seconds=day) == ["days", "week"], "a dead owner serves nothing"


def test_two_nodes_racing_to_claim_the_same_tables_each_get_one_owner(
    nodes: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = nodes
    ids = [f"t{i}" for i in range(20)]
    for i in ids:
        a.create_table(i, created_ms=1, public=True, status="waiting", events=[{"n": 1}])
    wins: dict[str, list[str]] = {i: [] for i in ids}
    start = threading.Barrier(2)

    def race(store: PostgresStore) -> None:
        start.wait()
        for i in ids:
            try:
                store.claim(i)
            except NotOwner:
                continue
            wins[i].append(store.node_id)

    threads = [threading.Thread(target=race, args=(s,)) for s in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in ids:
        assert len(wins[i]) == 1, (i, wins[i])
        assert a.owner(i) == (wins[i][0], 1)


def test_a_takeover_in_the_middle_of_a_stream_of_appends_leaves_one_writer_per_seq(
    nodes: tuple[PostgresStore, PostgresStore], pg_url: str
) -> None:
    """Node A appends as fast as it can; node B declares it dead and claims mid-stream, then appends too.
    Every seq is written once, all of A's rows come before B's first, and A's first refusal is stale_epoch."""
    a, b = nodes
    a.create_table("t1", created_ms=1, public=True, status="playing", events=[{"n": 1}])
    ea = a.claim("t1")
    a_done: list[int] = []
    a_refused: list[BaseException] = []
    running = threading.Event()

    def writer_a() -> None:
        seq = 2
        while True:
            try:
                a.append("t1", seq, [({"by": "a", "seq": seq}, None)], status=None, now_ms=seq, epoch=ea)
            except StoreError as exc:
                a_refused.append(exc)
                return
            a_done.append(seq)
            running.set()
            seq += 1

    thread = threading.Thread(target=writer_a)
    thread.start()
    assert running.wait(5)
    kill_heartbeat(pg_url, "node-a")
    eb = b.claim("t1")
    first_b = len(b.events("t1")) + 1
    b.append("t1", first_b, [({"by": "b", "seq": first_b}, None)], status=None, now_ms=0, epoch=eb)
    thread.join(10)
    assert not thread.is_alive()
    assert len(a_refused) == 1 and isinstance(a_refused[0], NotOwner) and a_refused[0].code == "stale_epoch"
    rows = b.events("t1")
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    writers = [r.body.get("by") for r in rows[1:]]
    assert writers == ["a"] * len(a_done) + ["b"]
    assert [r.seq for r in rows if r.body.get("by") == "a"] == a_done


CHILD = """
import sys, time
from relay.journal.postgres import PostgresStore
store = PostgresStore(sys.argv[1], node_id="node-k")
print("claimed", store.claim("t1"), flush=True)
time.sleep(60)
"""


def test_a_killed_owner_loses_its_tables_at_once_without_waiting_out_its_heartbeat(
    nodes: tuple[PostgresStore, PostgresStore],
) -> None:
    """kill -9 of the owning process drops its connections, so its advisory lock: the table is claimable
    while its last heartbeat is still fresh, well within DEAD_AFTER_SECONDS."""
    a, b = nodes
    a.create_table("t1", created_ms=1, public=True, status="waiting", events=[{"n": 1}])
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, a.url],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    try:
        assert child.stdout is not None and child.stdout.readline().split() == ["claimed", "1"]
        with pytest.raises(NotOwner, match="owned by live node node-k"):
            b.claim("t1")
    finally:
        child.kill()
        child.wait(10)
    killed = time.monotonic()
    while True:
        try:
            epoch = b.claim("t1")
            break
        except NotOwner:
            assert time.monotonic() - killed < 2.0, "the killed node's table was not freed"
            time.sleep(0.02)
    assert epoch == 2 and time.monotonic() - killed < DEAD_AFTER_SECONDS
    assert b.owner("t1") == ("node-b", 2)


def test_a_node_whose_lock_connection_is_lost_is_dead_and_takes_its_lock_again(
    nodes: tuple[PostgresStore, PostgresStore], pg_url: str
) -> None:
    a, b = nodes
    a.create_table("t1", created_ms=1, public=True, status="waiting", events=[{"n": 1}])
    ea = a.claim("t1")
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'lexio-node'"
        )
    eb = b.claim("t1")
    assert eb == ea + 1
    with pytest.raises(NotOwner):
        a.append("t1", 2, [({"by": "a"}, None)], status=None, now_ms=2, epoch=ea)
    # A's next heartbeat fails once on the dead connection, then reconnects and holds its lock again.
    with pytest.raises(JournalUnavailable):
        a.heartbeat()
    a.heartbeat()
    a.create_table("t2", created_ms=1, public=True, status="waiting", events=[{"n": 1}])
    assert a.claim("t2") == 1
    with pytest.raises(NotOwner, match="owned by live node node-a"):
        b.claim("t2")


def test_a_journal_upgraded_to_version_8_reads_each_tables_turn_time_from_its_first_event(
    pg_url: str,
) -> None:
    store = PostgresStore(pg_url)
    try:
        store.create_table(
            "d", created_ms=1, public=False, status="playing", events=[{"turn_seconds": 172_800}]
        )
        store.create_table("s", created_ms=1, public=False, status="playing", events=[{"turn_seconds": 60}])
        version = store.schema_version
    finally:
        store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:  # back to version 7, as an older relay left it
        conn.execute("ALTER TABLE tables DROP COLUMN turn_seconds")
        conn.execute("DELETE FROM schema_version WHERE version = 8")
    upgraded = PostgresStore(pg_url)
    try:
        assert upgraded.schema_version == version == 8
        assert upgraded.unserved_tables(min_turn_seconds=86_400) == ["d"]
    finally:
        upgraded.close()
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT id, turn_seconds FROM tables ORDER BY id").fetchall()
    assert rows == [("d", 172_800), ("s", 60)]
