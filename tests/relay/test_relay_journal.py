"""The journal interface, proved on both implementations (SQLite and a real PostgreSQL server): atomic
appends, no seq or table taken twice, rematch links, status, reading back after reopening, and versioned
schema migrations applied once (refusing a schema newer than the relay)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from harness.process import RelayProcess, free_port
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from relaykit import write_short_lexicon

import relay.journal.postgres
import relay.journal.sqlite
from relay.config import Config, ConfigError, config_from_args
from relay.journal import Journal, JournalUnavailable, open_journal
from relay.journal.postgres import JournalInUse, PostgresStore
from relay.journal.sqlite import RematchRow, Store, StoreError

REPO = Path(__file__).resolve().parents[2]

Opener = Callable[[], Journal]
STATUSES = ["waiting", "playing", "ended", "abandoned"]


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a journal lives: a SQLite file, or a fresh schema on the session's PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "j.sqlite3")
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def open_store(backend: str) -> Iterator[Opener]:
    """Opens the same journal again each call (a restart), closing every copy at the end."""
    opened: list[Journal] = []

    def opener() -> Journal:
        # Not open_journal for PostgreSQL: a relay's store holds the journal exclusively, and these tests
        # open a second copy while the first is still open.
        journal: Journal = PostgresStore(backend) if backend.startswith("postgresql://") else Store(backend)
        opened.append(journal)
        return journal

    yield opener
    for journal in opened:
        journal.close()


def _config(target: str) -> Config:
    if target.startswith("postgresql://"):
        return Config(journal_url=target, static=None)
    return Config(db=Path(target), static=None)


def test_both_journals_implement_the_interface_and_the_url_picks_postgresql(backend: str) -> None:
    journal = open_journal(_config(backend))
    try:
        assert isinstance(journal, Journal)
        expected = PostgresStore if backend.startswith("postgresql://") else Store
        assert type(journal) is expected
        assert journal.schema_version >= 1
    finally:
        journal.close()


def test_a_seats_analysis_is_claimed_once_durably_and_a_failed_one_released(open_store: Opener) -> None:
    store = open_store()
    assert store.claim_analysis("t1", 0, 1000)
    assert not store.claim_analysis("t1", 0, 2000)
    assert store.claim_analysis("t1", 1, 1000) and store.claim_analysis("t2", 0, 1000)
    again = open_store()  # a restart, or another node
    assert not again.claim_analysis("t1", 0, 3000)
    again.release_analysis("t1", 1)
    assert store.claim_analysis("t1", 1, 4000)


def test_events_survive_reopening(open_store: Opener) -> None:
    store = open_store()
    store.create_table("t1", created_ms=1, public=True, status="waiting", events=[{"type": "table_created"}])
    store.append("t1", 2, [({"type": "seat_joined", "name": "Zoé"}, "ab" * 32)], status=None, now_ms=2)
    again = open_store()
    assert [r.body for r in again.events("t1")] == [
        {"type": "table_created"},
        {"type": "seat_joined", "name": "Zoé"},
    ]
    assert again.events("t1")[1].token_hash == "ab" * 32
    store.checkpoint()
    store.append("t1", 3, [({"type": "game_started"}, None)], status="playing", now_ms=3)
    store.close()
    reopened = open_store()
    assert [r.seq for r in reopened.events("t1")] == [1, 2, 3]
    row = reopened.table("t1")
    assert row is not None and row.status == "playing" and row.public and row.updated_ms == 3
    assert [t.id for t in reopened.tables(unfinished=True)] == ["t1"]
    assert reopened.table("nope") is None and reopened.events("nope") == []


def test_a_seq_cannot_be_journaled_twice_and_a_failed_append_writes_nothing(open_store: Opener) -> None:
    store = open_store()
    store.create_table("t1", created_ms=1, public=False, status="waiting", events=[{"type": "table_created"}])
    with pytest.raises(StoreError):
        store.append("t1", 1, [({"type": "seat_joined"}, None)], status="playing", now_ms=2)
    store.append("t1", 2, [({"type": "a"}, None), ({"type": "b"}, None)], status=None, now_ms=2)
    with pytest.raises(StoreError):
        # A stale writer (same seqs): the whole batch and its status change are refused.
        store.append("t1", 2, [({"type": "c"}, None), ({"type": "d"}, None)], status="ended", now_ms=3)
    assert [r.body["type"] for r in store.events("t1")] == ["table_created", "a", "b"]
    row = store.table("t1")
    assert row is not None and row.status == "waiting" and not row.public
    with pytest.raises(StoreError):
        store.create_table("t1", created_ms=1, public=False, status="waiting", events=[])
    # The journal goes on after the refusals.
    store.append("t1", 4, [({"type": "c"}, None)], status="playing", now_ms=4)
    assert [r.seq for r in store.events("t1")] == [1, 2, 3, 4]


def test_chat_is_kept_beside_the_journal_per_channel_with_increasing_ids(open_store: Opener) -> None:
    store = open_store()
    ids = [store.add_chat("t1", "seats", i % 2, f"P{i}", f"salut {i} é", 10 + i) for i in range(5)]
    store.add_chat("t1", "watchers", None, None, "vu", 20)
    store.add_chat("t2", "seats", 0, "Zoé", "autre table", 21)
    assert ids == sorted(ids) and len(set(ids)) == 5
    last = open_store().chat("t1", "seats", 3)
    assert [(r.text, r.seat, r.name, r.at_ms) for r in last] == [
        ("salut 2 é", 0, "P2", 12), ("salut 3 é", 1, "P3", 13), ("salut 4 é", 0, "P4", 14),
    ]  # fmt: skip
    assert [r.text for r in store.chat("t1", "watchers", 10)] == ["vu"]
    assert [r.channel for r in store.chat("t2", "seats", 10)] == ["seats"]


def test_unfinished_tables_leave_out_ended_and_abandoned_ones(open_store: Opener) -> None:
    store = open_store()
    for i, status in enumerate(["waiting", "playing", "ended", "abandoned"]):
        store.create_table(f"t{i}", created_ms=10 + i, public=True, status=status, events=[{"i": i}])
    store.set_status("t0", "abandoned", 99)
    assert [t.id for t in store.tables(unfinished=True)] == ["t1"]
    assert [t.id for t in store.tables(unfinished=False)] == ["t0", "t1", "t2", "t3"]
    t0 = store.table("t0")
    assert t0 is not None and t0.status == "abandoned" and t0.updated_ms == 99


def test_a_rematch_is_linked_with_its_new_table_and_only_once(open_store: Opener) -> None:
    store = open_store()
    store.create_table("old", created_ms=1, public=True, status="ended", events=[{"a": 1}])
    link = RematchRow("old", "new", 1, "/t/new", (("Robot fort", "strong"),), 5)
    store.create_table("new", created_ms=5, public=True, status="waiting", events=[{"b": 1}], rematch=link)
    assert store.rematch_of("old") == link
    assert store.rematch_into("new") == link
    assert store.rematch_of("new") is None and store.rematch_into("old") is None
    second = RematchRow("old", "other", 0, "/t/other", (), 6)
    with pytest.raises(StoreError):
        store.create_table("other", created_ms=6, public=True, status="waiting", events=[{}], rematch=second)
    # The refused rematch took its table with it: one transaction.
    assert store.table("other") is None and store.events("other") == []


def test_the_schema_version_is_recorded_once_and_a_new_migration_runs_once(
    open_store: Opener, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = open_store()
    first.create_table("t1", created_ms=1, public=True, status="waiting", events=[{"a": 1}])
    base = first.schema_version
    first.close()
    add_column = ("ALTER TABLE tables ADD COLUMN note TEXT",)
    if backend.startswith("postgresql://"):
        pg = relay.journal.postgres
        monkeypatch.setattr(pg, "MIGRATIONS", (*pg.MIGRATIONS, add_column))
    else:
        lite = relay.journal.sqlite
        monkeypatch.setattr(lite, "MIGRATIONS", (*lite.MIGRATIONS, add_column))
    upgraded = open_store()
    assert upgraded.schema_version == base + 1
    # Opening again does not re-run it (ALTER TABLE ADD COLUMN twice would fail).
    again = open_store()
    assert again.schema_version == base + 1
    assert [r.body for r in again.events("t1")] == [{"a": 1}]
    assert _versions(backend) == list(range(1, base + 2))


def test_a_journal_from_a_newer_relay_is_refused(open_store: Opener, backend: str) -> None:
    open_store().close()
    _execute(backend, "INSERT INTO schema_version (version) VALUES (99)")
    with pytest.raises(StoreError, match="schema version 99"):
        open_store()


def test_a_sqlite_journal_made_before_schema_versions_adopts_version_1_then_migrates(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "old.sqlite3"
    legacy = sqlite3.connect(db)
    legacy.executescript(relay.journal.sqlite.SCHEMA)
    legacy.execute("INSERT INTO tables VALUES ('t1', 1, 1, 'playing', 1)")
    legacy.commit()
    legacy.close()
    store = Store(db)
    latest = 1 + len(relay.journal.sqlite.MIGRATIONS)
    assert store.schema_version == latest
    assert [t.id for t in store.tables(unfinished=True)] == ["t1"]
    store.add_chat("t1", "seats", 0, "Zoe", "hi", 5, "acct")  # version 2's column
    assert store.chat("t1", "seats", 10)[0].account == "acct"
    store.close()
    assert _versions(str(db)) == list(range(1, latest + 1))


def test_relays_starting_together_on_one_database_migrate_it_once(pg_url: str) -> None:
    stores: list[PostgresStore] = []
    failures: list[BaseException] = []

    def start() -> None:
        try:
            stores.append(PostgresStore(pg_url))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert not failures
        assert _versions(pg_url) == list(range(1, len(relay.journal.postgres.MIGRATIONS) + 1))
        stores[0].create_table("t1", created_ms=1, public=True, status="waiting", events=[{"a": 1}])
        assert [r.body for r in stores[3].events("t1")] == [{"a": 1}]
    finally:
        for s in stores:
            s.close()


def test_an_unreachable_postgresql_is_a_clear_journal_unavailable_error() -> None:
    url = f"postgresql://postgres@127.0.0.1:{free_port()}/lexio"
    with pytest.raises(JournalUnavailable, match=r"cannot reach the journal at postgresql://"):
        PostgresStore(url, timeout=0.5)


def test_a_lost_server_connection_is_journal_unavailable_then_the_pool_recovers(pg_url: str) -> None:
    store = PostgresStore(pg_url, min_size=1, max_size=1)
    try:
        store.create_table("t1", created_ms=1, public=True, status="waiting", events=[{"a": 1}])
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = 'lexio-relay'"
            )
        with pytest.raises(JournalUnavailable):
            store.append("t1", 2, [({"b": 2}, None)], status=None, now_ms=2)
        # The broken connection is replaced; nothing of the failed append was written.
        store.append("t1", 2, [({"c": 3}, None)], status=None, now_ms=3)
        assert [r.body for r in store.events("t1")] == [{"a": 1}, {"c": 3}]
    finally:
        store.close()


def test_db_flag_takes_a_file_or_a_postgresql_url_and_logs_no_password() -> None:
    assert config_from_args(["serve"]).journal_url is None
    config = config_from_args(["serve", "--db", "postgresql://lexio:s3cret@db.internal:5432/lexio"])
    assert config.journal_url == "postgresql://lexio:s3cret@db.internal:5432/lexio"
    assert config.db == Config.db
    assert "s3cret" not in config.journal_name and "***" in config.journal_name
    plain = config_from_args(["serve", "--db", "var/other.sqlite3"])
    assert plain.journal_url is None and plain.db == Path("var/other.sqlite3")
    with pytest.raises(ConfigError, match="postgresql://"):
        Config(journal_url="mysql://x/y")
    with pytest.raises(ConfigError, match="postgresql://"):
        config_from_args(["serve", "--db", "mysql://db.internal/lexio"])


def _versions(target: str) -> list[int]:
    return [int(r[0]) for r in _execute(target, "SELECT version FROM schema_version ORDER BY version")]


def _execute(target: str, sql: str) -> list[tuple[object, ...]]:
    if target.startswith("postgresql://"):
        with psycopg.connect(target, autocommit=True) as conn:
            cur = conn.execute(sql)
            return cur.fetchall() if cur.description else []
    import sqlite3

    db = sqlite3.connect(target, isolation_level=None)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def test_one_relay_at_a_time_serves_a_postgresql_journal(pg_url: str) -> None:
    first = PostgresStore(pg_url, exclusive=True)
    try:
        with pytest.raises(JournalInUse, match="another relay is serving the journal"):
            PostgresStore(pg_url, exclusive=True, timeout=0.5)
        # Reading it without serving it (tools, tests) is not refused.
        PostgresStore(pg_url).close()
    finally:
        first.close()
    PostgresStore(pg_url, exclusive=True, timeout=0.5).close()


def test_a_second_relay_process_on_the_same_postgresql_journal_exits_with_a_clear_error(
    pg_url: str, tmp_path: Path
) -> None:
    write_short_lexicon(tmp_path / "short.txt")
    args = ["--db", pg_url, "--lexicon", str(tmp_path / "short.txt"), "--static", ""]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    first = RelayProcess(args, log=tmp_path / "first.log", env=env, cwd=tmp_path, start_timeout=15)
    first.start()
    try:
        second = subprocess.run(
            [sys.executable, "-m", "relay", "serve", "--port", str(free_port()), *args],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60, check=False,
        )  # fmt: skip
        assert second.returncode == 2, second.stderr[-2000:]
        assert "another relay is serving the journal at postgresql://" in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        first.stop()


_op = st.one_of(
    st.tuples(st.just("create"), st.sampled_from("abc"), st.integers(0, 2), st.sampled_from(STATUSES)),
    st.tuples(st.just("append"), st.sampled_from("abc"), st.integers(1, 6), st.integers(1, 3), st.none()),
    st.tuples(
        st.just("append"),
        st.sampled_from("abc"),
        st.integers(1, 6),
        st.integers(1, 2),
        st.sampled_from(STATUSES),
    ),
    st.tuples(st.just("status"), st.sampled_from("abc"), st.sampled_from(STATUSES), st.integers(0, 99)),
)
_examples = itertools.count()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(_op, max_size=12))
def test_postgresql_answers_every_sequence_of_calls_as_sqlite_does(
    ops: list[tuple[Any, ...]], pg_url: str, tmp_path: Path
) -> None:
    """Same calls, same outcomes: each call succeeds or raises StoreError alike, and every read agrees."""
    n = next(_examples)
    sqlite, pg = Store(tmp_path / f"h{n}.sqlite3"), PostgresStore(pg_url, min_size=1, max_size=1)
    try:
        for i, op in enumerate(ops):
            outcomes = [_call(store, f"x{n}{op[1]}", op, i) for store in (sqlite, pg)]
            assert outcomes[0] == outcomes[1], op
        for name in "abc":
            tid = f"x{n}{name}"
            assert pg.table(tid) == sqlite.table(tid)
            # Neither store checks seqs against the table (the Referee numbers them): both refuse to
            # read back a journal with a hole in it.
            assert _events_or_error(pg, tid) == _events_or_error(sqlite, tid)
        mine = [t for t in pg.tables(unfinished=False) if t.id.startswith(f"x{n}")]
        assert mine == [t for t in sqlite.tables(unfinished=False)]
        assert [t.id for t in pg.tables(unfinished=True) if t.id.startswith(f"x{n}")] == [
            t.id for t in sqlite.tables(unfinished=True)
        ]
    finally:
        sqlite.close()
        pg.close()


def _events_or_error(store: Journal, tid: str) -> object:
    try:
        return store.events(tid)
    except StoreError:
        return "StoreError"


def _call(store: Journal, tid: str, op: tuple[Any, ...], i: int) -> str | None:
    try:
        if op[0] == "create":
            store.create_table(
                tid, created_ms=i, public=bool(i % 2), status=op[3], events=[{"i": k} for k in range(op[2])]
            )
        elif op[0] == "append":
            rows = [({"i": i, "k": k, "s": 'é\\n"'}, "ab" if k == 0 else None) for k in range(op[3])]
            store.append(tid, op[2], rows, status=op[4], now_ms=i)
        else:
            store.set_status(tid, op[2], op[3])
    except StoreError:
        return "StoreError"
    return None
