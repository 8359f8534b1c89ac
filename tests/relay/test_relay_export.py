"""``lexio export-journal``: a SQLite journal written by real games is copied into PostgreSQL, replays there
through the engine to the same states, a relay on PostgreSQL restores its tables and plays on; a second copy
into the same database is refused and changes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import psycopg
import pytest
from accountkit import Browser
from relaykit import Player, play_to_end, seated_game, start_relay

import engine
from relay.accounts.db import PostgresDb
from relay.accounts.nicknames import fold
from relay.accounts.store import AccountStore
from relay.cli import main as lexio
from relay.journal import Journal
from relay.journal.postgres import PostgresStore
from relay.journal.sqlite import Store

REPO = Path(__file__).resolve().parents[2]


def replay(journal: Journal, table_id: str) -> Any:
    state = engine.new_state()
    for row in journal.events(table_id):
        state = engine.apply(state, engine.event_from_dict(row.body))
    return state


async def _write_sqlite_journal(tmp_path: Path) -> tuple[Path, str, list[str | None]]:
    """Real games on a relay on SQLite: one played to the end with a rematch proposed, one 3-seat game in
    progress. Returns the file, the live table and its players' tokens."""
    relay = await start_relay(tmp_path / "a")
    try:
        async with aiohttp.ClientSession() as session:
            _, players = await seated_game(session, relay)
            await play_to_end(players)
            assert (await players[0].send({"type": "rematch"}))["type"] == "ack"
            live_id, live = await seated_game(session, relay, seats=3)
            for _ in range(5):
                mover = live[live[0].turn or 0]
                await mover.wait_seq(live[0].seq)
                assert (await mover.send(mover.choose()))["type"] == "ack"
            for p in live:
                await p.wait_seq(live[0].seq)
            tokens = [p.token for p in live]
            member = Browser.at(relay.url)
            try:  # a player who signed up and claimed their seat: accounts go with the games
                await member.signup("Exporté", seats=[{"table": live_id, "token": str(tokens[0])}])
            finally:
                await member.close()
            for p in [*players, *live]:
                await p.close()
    finally:
        await relay.stop()
    return tmp_path / "a" / "lexio.sqlite3", live_id, tokens


async def test_an_exported_journal_replays_to_the_same_states_and_a_relay_plays_on(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db, live_id, tokens = await _write_sqlite_journal(tmp_path)

    assert lexio(["export-journal", "--from", str(db), "--to", pg_url]) == 0
    assert "exported" in capsys.readouterr().out

    sqlite, pg = Store(db), PostgresStore(pg_url)
    try:
        rows = sqlite.tables(unfinished=False)
        assert len(rows) == 3 and pg.tables(unfinished=False) == rows
        assert pg.tables(unfinished=True) == sqlite.tables(unfinished=True)
        statuses = set()
        for row in rows:
            assert pg.table(row.id) == row
            assert pg.events(row.id) == sqlite.events(row.id)
            assert replay(pg, row.id) == replay(sqlite, row.id)
            assert pg.rematch_of(row.id) == sqlite.rematch_of(row.id)
            assert pg.rematch_into(row.id) == sqlite.rematch_into(row.id)
            statuses.add(replay(pg, row.id).status)
            # Its turn time, which SQLite keeps only in the first event (relay/cluster/adoption.py reads it).
            with psycopg.connect(pg_url) as conn:
                got = conn.execute("SELECT turn_seconds FROM tables WHERE id = %s", (row.id,)).fetchone()
            assert got is not None and got[0] == replay(pg, row.id).turn_seconds
        assert {"ended", "playing"} <= statuses
        assert any(pg.rematch_of(r.id) is not None for r in rows)
    finally:
        sqlite.close()
        pg.close()
    accounts = AccountStore(PostgresDb(pg_url))
    try:
        member = accounts.by_nickname(fold("exporte"))
        assert member is not None and member.nickname == "Exporté"
        assert accounts.seats(member.id) == [(live_id, 0)] and len(accounts.credentials(member.id)) == 1
    finally:
        accounts.db.close()

    # A relay on the PostgreSQL journal restores the live table and its seats' tokens, and the game goes on.
    relay = await start_relay(tmp_path / "b", journal_url=pg_url)
    try:
        assert live_id in relay.referee.tables
        async with aiohttp.ClientSession() as session:
            back = [await Player.connect(session, relay, live_id) for _ in tokens]
            for p, token in zip(back, tokens, strict=True):
                assert (await p.send({"type": "join", "token": token}))["type"] == "welcome"
            snap = await back[0].wait_for(lambda f: f["type"] == "snapshot")
            mover = back[back[0].turn or 0]
            await mover.wait_seq(snap["seq"])
            ans = await mover.send(mover.choose())
            assert ans["type"] == "ack" and ans["seq"] == snap["seq"] + 1
            for p in back:
                await p.close()
    finally:
        await relay.stop()
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT MAX(seq) FROM events WHERE table_id = %s", (live_id,)).fetchone()
        assert row is not None and row[0] == snap["seq"] + 1


async def test_exporting_into_a_database_that_holds_a_journal_is_refused_and_changes_nothing(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "j.sqlite3"
    store = Store(db)
    store.create_table("t1", created_ms=1, public=True, status="waiting", events=[{"type": "x"}])
    chat_ids = [store.add_chat("t1", "seats", 0, "Zoé", f"m{i}", i) for i in range(3)]
    store.close()
    assert lexio(["export-journal", "--from", str(db), "--to", pg_url]) == 0
    capsys.readouterr()
    assert lexio(["export-journal", "--from", str(db), "--to", pg_url]) == 2
    err = capsys.readouterr().err
    assert "target_not_empty" in err and "already holds a journal" in err
    pg = PostgresStore(pg_url)
    try:
        assert [r.body for r in pg.events("t1")] == [{"type": "x"}]
        assert len(pg.tables(unfinished=False)) == 1
        # Chat beside the journal is copied with its ids, and new messages get larger ones.
        assert [(r.id, r.text) for r in pg.chat("t1", "seats", 10)] == [
            (i, f"m{n}") for n, i in enumerate(chat_ids)
        ]
        assert pg.add_chat("t1", "seats", 0, "Zoé", "after", 9) > max(chat_ids)
    finally:
        pg.close()


def test_export_journal_errors_name_the_problem(tmp_path: Path, pg_url: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "relay", "export-journal", *args],
            capture_output=True, text=True, env=env, timeout=60, check=False,
        )  # fmt: skip

    missing = run("--from", str(tmp_path / "none.sqlite3"), "--to", pg_url)
    assert missing.returncode == 2 and "missing_source" in missing.stderr
    not_pg = run("--from", str(tmp_path / "none.sqlite3"), "--to", "var/other.sqlite3")
    assert not_pg.returncode == 2 and "postgresql://" in not_pg.stderr
    other = tmp_path / "other.sqlite3"
    import sqlite3

    sqlite3.connect(other).execute("CREATE TABLE notes (x)").connection.commit()
    wrong = run("--from", str(other), "--to", pg_url)
    assert wrong.returncode == 2 and "not_a_journal" in wrong.stderr
