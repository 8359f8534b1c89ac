"""Cluster mode (``--bus``): several relays on one PostgreSQL journal, each table owned by one of them at a
time. A killed owner's tables resume on another within 5 s with nothing acknowledged lost; a paused or cut-off
owner cannot commit; clocks follow the journal's absolute deadlines whatever a relay's own clock says; a
drain releases everything in under a second; a killed node comes back without taking anything."""

from __future__ import annotations

import asyncio
import glob
import json
import signal
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from buskit import redis_server
from clusterkit import (
    Forwarder,
    health,
    journal,
    node,
    owner,
    rejoin,
    send_as,
    stopping,
    two_relays,
    wait_seconds,
)
from harness.services import RedisServer
from relaykit import Player, create_table, seated_game


def faketime(offset: str) -> dict[str, str]:
    """The environment that runs a process with its clock moved by ``offset`` (Debian's faketime)."""
    found = sorted(glob.glob("/usr/lib/*/faketime/libfaketime.so.1"))
    if not found:
        pytest.fail("libfaketime is not installed: run 'make cluster-tools' (apt-get install faketime)")
    return {"LD_PRELOAD": found[0], "FAKETIME": offset, "FAKETIME_DONT_FAKE_MONOTONIC": "1"}


# One Redis for the module (each test starts relays of its own on it).
redis = pytest.fixture(redis_server, scope="module", name="redis")


async def play(players: list[Player], moves: int) -> list[tuple[int, int, dict[str, Any]]]:
    """``moves`` scripted moves, each acknowledged; returns (seq, seat, move) of each."""
    acked = []
    by_seat = {p.seat: p for p in players}
    for _ in range(moves):
        p0 = players[0]
        mover = by_seat[p0.turn]
        await mover.wait_seq(p0.seq)
        move = mover.choose()
        ans = await mover.send(move)
        assert ans["type"] == "ack", ans
        acked.append((int(ans["seq"]), int(mover.seat or 0), move))
        for q in players:
            await q.wait_seq(ans["seq"])
    return acked


def assert_journaled(rows: list[dict[str, Any]], acked: list[tuple[int, int, dict[str, Any]]]) -> None:
    """Every acknowledged move is in the journal, once, at its seq, as the client sent it."""
    kinds = {"place": "placed", "swap": "swapped", "pass": "passed"}
    for seq, seat, move in acked:
        ev = rows[seq - 1]
        assert ev["seq"] == seq and ev["type"] == kinds[move["type"]] and ev["seat"] == seat, (ev, move)
        if move["type"] == "place":
            assert [t["sq"] for t in ev["tiles"]] == [t["sq"] for t in move["tiles"]]
    placed = [tuple(t["sq"] for t in r["tiles"]) for r in rows if r["type"] == "placed"]
    assert len(placed) == len(set(placed)), "a placement was applied twice"


async def test_a_killed_owners_table_resumes_on_another_relay_within_5_s_with_nothing_acked_lost(
    tmp_path: Path, pg_url: str, redis: RedisServer
) -> None:
    async with two_relays(tmp_path, pg_url, redis.url) as (a, b, session):
        table_id, players = await seated_game(session, a, turn_seconds=600)
        first_owner, epoch = owner(pg_url, table_id)
        assert first_owner is not None and first_owner.startswith("a/") and epoch == 1
        acked = await play(players, 6)
        # One more move on its way as the owner dies: committed or not, nobody can tell yet.
        mover = next(p for p in players if p.seat == players[0].turn)
        in_flight = {**mover.choose(), "id": "in-flight"}
        await mover.ws.send_str(json.dumps(in_flight))
        killed = time.monotonic()
        a.kill9()
        back = await asyncio.gather(*(rejoin(session, b, table_id, str(p.token)) for p in players))
        took = time.monotonic() - killed
        assert took < 5.0, f"takeover took {took:.2f} s"
        print(f"takeover: both players resumed on the other relay {took * 1000:.0f} ms after kill -9")
        new_owner, new_epoch = owner(pg_url, table_id)
        assert new_owner is not None and new_owner.startswith("b/") and new_epoch == 2
        assert all(p.seq >= acked[-1][0] for p in back)
        assert_journaled(journal(pg_url, table_id), acked)
        # The client resends it with the same id on the new owner: applied exactly once either way, and
        # if the dead owner had acknowledged it, the answer is that same ack.
        first = [f for f in mover.frames if f.get("id") == "in-flight"]
        again = await send_as(next(p for p in back if p.seat == mover.seat), {**in_flight, "resent": True})
        assert again["type"] == "ack", again
        assert not first or (first[0]["type"], first[0]["seq"]) == ("ack", again["seq"]), first
        acked.append((int(again["seq"]), int(mover.seat or 0), in_flight))
        for p in back:
            await p.wait_seq(again["seq"])
        rows = journal(pg_url, table_id)
        assert len(rows) == again["seq"]
        assert_journaled(rows, acked)
        # The game goes on at the next seq, on the new owner (and so does its chat).
        said = await back[0].send({"type": "chat", "text": "encore là"})
        assert said["type"] == "ack", said
        more = await play(back, 2)
        assert more[0][0] == len(rows) + 1
        assert_journaled(journal(pg_url, table_id), acked + more)
        for p in [*players, *back]:
            await p.close()


async def test_a_paused_owner_cannot_commit_after_it_resumes(
    tmp_path: Path, pg_url: str, redis: RedisServer
) -> None:
    """SIGSTOP the owner for 6 s: another relay takes the table once its heartbeat is 3 s old; after SIGCONT
    the old owner reads the move sent to it meanwhile and must neither commit nor acknowledge it."""
    async with two_relays(tmp_path, pg_url, redis.url) as (a, b, session):
        table_id, players = await seated_game(session, a, turn_seconds=600)
        acked = await play(players, 2)
        mover = next(p for p in players if p.seat == players[0].turn)
        assert a.proc is not None
        a.proc.send_signal(signal.SIGSTOP)
        paused = time.monotonic()
        stale = {**mover.choose(), "id": "while-paused"}
        await mover.ws.send_str(json.dumps(stale))
        back = await asyncio.gather(*(rejoin(session, b, table_id, str(p.token)) for p in players))
        new_owner, epoch = owner(pg_url, table_id)
        assert new_owner is not None and new_owner.startswith("b/") and epoch == 2
        await asyncio.sleep(max(0.0, 6.0 - (time.monotonic() - paused)))
        a.proc.send_signal(signal.SIGCONT)
        await wait_seconds("the old owner closes its socket", lambda: mover.closed is not None, 10)
        assert mover.closed == 1012
        assert not [f for f in mover.frames if f.get("id") == "while-paused" and f["type"] == "ack"]
        rows = journal(pg_url, table_id)
        assert len(rows) == back[0].seq == acked[-1][0], "the paused owner committed after SIGCONT"
        assert_journaled(rows, acked)
        # The new owner goes on; a socket through the old one is relayed to it, the table does not move.
        more = await play(back, 1)
        assert more[0][0] == len(rows) + 1
        via_a = await rejoin(session, a, table_id, str(back[0].token))
        await play([via_a, back[1]], 1)
        assert owner(pg_url, table_id) == (new_owner, 2)
        back.append(via_a)
        for p in [*players, *back]:
            await p.close()


async def test_a_relay_cut_from_postgresql_goes_unhealthy_and_acknowledges_nothing(
    tmp_path: Path, pg_cluster: Any, pg_url: str, redis: RedisServer
) -> None:
    """The relay reaches PostgreSQL through a forwarder the test freezes: /healthz turns 503 within the stale
    limit, the move sent meanwhile gets no ack and the socket is closed (1012); once thawed the relay is
    healthy again, and the client's resend of that move (same id) is applied exactly once."""
    fwd = Forwarder(pg_cluster.port)
    c = node(tmp_path, "c", pg_url.replace(f":{pg_cluster.port}/", f":{fwd.port}/"), redis.url)
    try:
        with stopping(c):
            await c.astart()
            async with aiohttp.ClientSession() as session:
                table_id, players = await seated_game(session, c, turn_seconds=600)
                acked = await play(players, 2)
                mover = next(p for p in players if p.seat == players[0].turn)
                fwd.freeze()
                frozen = time.monotonic()
                move = {**mover.choose(), "id": "while-cut"}
                await mover.ws.send_str(json.dumps(move))
                took = await wait_seconds("/healthz answers 503", lambda: health(c)[0] == 503, 8)
                assert time.monotonic() - frozen < 5.0, f"unhealthy only after {took:.1f} s"
                await wait_seconds("the cut relay closes its sockets", lambda: mover.closed is not None, 5)
                assert mover.closed == 1012
                await asyncio.sleep(0.5)
                assert not [f for f in mover.frames if f.get("id") == "while-cut" and f["type"] == "ack"]
                fwd.thaw()
                await wait_seconds("/healthz answers 200 again", lambda: health(c)[0] == 200, 10)
                back = await rejoin(session, c, table_id, str(mover.token))
                ans = await send_as(back, {**move, "resent": True})
                again = await send_as(back, {**move, "resent": True})
                assert ans["type"] == again["type"] == "ack" and ans["seq"] == again["seq"], (ans, again)
                rows = journal(pg_url, table_id)
                assert_journaled(rows, [*acked, (ans["seq"], int(mover.seat or 0), move)])
                assert len(rows) == ans["seq"]
                for p in [*players, back]:
                    await p.close()
    finally:
        fwd.close()


async def test_clock_skew_between_relays_does_not_move_a_deadline_and_the_grace_restarts_at_the_takeover(
    tmp_path: Path, pg_url: str, redis: RedisServer
) -> None:
    """B's own clock is 60 s ahead (faketime). Taking over a game A started, B keeps the journal's absolute
    turn deadline and tells the time by PostgreSQL's clock; the seat on turn, not back yet, gets the
    disconnect grace from the takeover on, and times out when that grace ends in real time (an unaligned B
    would time it out at once: for its clock the turn ran out long ago)."""
    grace = ["--grace-seconds", "4"]
    a = node(tmp_path, "a", pg_url, redis.url, extra=grace)
    # libfaketime preloaded into the relay itself (the faketime wrapper would be the child that SIGTERM
    # reaches, and the relay would outlive the test).
    b = node(tmp_path, "b", pg_url, redis.url, extra=grace, env=faketime("+60s"))
    with stopping(a, b):
        await asyncio.gather(a.astart(), b.astart())
        status, body = health(b)
        assert status == 200 and abs(body["clock_offset_ms"] + 60_000) < 2_000, body
        async with aiohttp.ClientSession() as session:
            table_id, players = await seated_game(session, a, turn_seconds=30)
            snapshot = next(f for f in reversed(players[0].frames) if "clock" in f)
            deadline = int(snapshot["clock"]["deadline_ms"])
            turn = int(snapshot["clock"]["turn"])
            a.kill9()
            waiting = next(p for p in players if p.seat != turn)
            claimed_ms = time.time() * 1000
            back = await rejoin(session, b, table_id, str(waiting.token))
            snap = next(f for f in back.frames if f["type"] == "snapshot")
            assert abs(snap["now"] - time.time() * 1000) < 1500, "B's frames do not tell PostgreSQL's time"
            assert snap["clock"]["deadline_ms"] == deadline and snap["clock"]["turn"] == turn
            grace_end = snap["clock"]["grace_deadline_ms"]
            assert grace_end is not None and claimed_ms + 3500 <= grace_end <= time.time() * 1000 + 4500
            timed_out = await back.wait_for(
                lambda f: f["type"] == "event" and f["event"]["type"] == "timed_out", timeout=15
            )
            real = time.time() * 1000
            assert timed_out["event"]["seat"] == turn
            assert grace_end - 300 <= real <= grace_end + 2500, (real - grace_end, grace_end - claimed_ms)
            assert timed_out["now"] >= grace_end
            for p in [*players, back]:
                await p.close()


async def test_sigterm_drains_a_relay_in_under_a_second_and_its_tables_move_at_once(
    tmp_path: Path, pg_url: str, redis: RedisServer
) -> None:
    async with two_relays(tmp_path, pg_url, redis.url) as (a, b, session):
        table_id, players = await seated_game(session, a, turn_seconds=600)
        acked = await play(players, 3)
        mover = next(p for p in players if p.seat == players[0].turn)
        move = {**mover.choose(), "id": "at-sigterm"}
        await mover.ws.send_str(json.dumps(move))  # in flight as the drain starts
        assert a.proc is not None
        t0 = time.monotonic()
        a.proc.send_signal(signal.SIGTERM)
        await wait_seconds("every socket closed", lambda: all(p.closed is not None for p in players), 5, 0.01)
        closed = time.monotonic() - t0
        assert all(p.closed == 1012 for p in players)
        assert owner(pg_url, table_id)[0] is None, "the drained relay did not release its table"
        assert closed < 1.0, f"drain took {closed:.2f} s"
        await asyncio.to_thread(a.proc.wait, 5)
        exited = time.monotonic() - t0
        # Released, not dead: the other relay claims at once (no 3 s wait for a stale heartbeat).
        t1 = time.monotonic()
        back = await asyncio.gather(*(rejoin(session, b, table_id, str(p.token)) for p in players))
        assert time.monotonic() - t1 < 2.0
        answer = [f for f in mover.frames if f.get("id") == "at-sigterm"]
        rows = journal(pg_url, table_id)
        if answer and answer[0]["type"] == "ack":
            acked.append((answer[0]["seq"], int(mover.seat or 0), move))
        assert_journaled(rows, acked)
        assert back[0].seq == len(rows)
        print(f"drain: sockets closed after {closed * 1000:.0f} ms, exited after {exited * 1000:.0f} ms")
        for p in [*players, *back]:
            await p.close()


async def test_a_killed_relay_that_comes_back_takes_nothing_and_serves_new_tables(
    tmp_path: Path, pg_url: str, redis: RedisServer
) -> None:
    async with two_relays(tmp_path, pg_url, redis.url) as (a, b, session):
        table_id, players = await seated_game(session, a, turn_seconds=600)
        acked = await play(players, 2)
        old_node = owner(pg_url, table_id)[0]
        a.kill9()
        back = await asyncio.gather(*(rejoin(session, b, table_id, str(p.token)) for p in players))
        await a.astart()  # same address, a fresh node id
        status, body = health(a)
        assert status == 200 and body["node"] != old_node and body["tables"] == 0
        # The table stays with its new owner: a player coming back through the returning relay is
        # relayed to it (relay/cluster/bus.py), and the game goes on there.
        b_node = health(b)[1]["node"]
        assert owner(pg_url, table_id) == (b_node, 2)
        via_a = await rejoin(session, a, table_id, str(back[0].token))
        more = await play([via_a, back[1]], 2)
        assert owner(pg_url, table_id) == (b_node, 2)
        back.append(via_a)
        assert_journaled(journal(pg_url, table_id), acked + more)
        # And it serves new tables as any node.
        new_id, fresh = await seated_game(session, a, turn_seconds=600)
        assert owner(pg_url, new_id) == (body["node"], 1)
        await play(fresh, 1)
        for p in [*players, *back, *fresh]:
            await p.close()


async def test_every_relay_lists_the_open_tables_of_the_whole_cluster(
    tmp_path: Path, pg_url: str, redis: RedisServer
) -> None:
    """The lobby (GET /api/tables, sent round robin by the front) is the same whichever relay answers."""
    async with two_relays(tmp_path, pg_url, redis.url) as (a, b, session):
        served = await create_table(session, a, turn_seconds=120, public=True)
        host = await Player.connect(session, a, served)
        await host.join("Hôte")  # claimed by A
        fresh = await create_table(session, b, turn_seconds=120, public=True)  # nobody claimed it yet
        # Issue 27: nobody sits at it yet either, so it is not listed (nobody to play with, no name).
        hidden = await create_table(session, b, turn_seconds=120, public=False)

        async def listed(relay: Any) -> list[str]:
            async with session.get(relay.url + "/api/tables") as resp:
                assert resp.status == 200
                return [t["id"] for t in (await resp.json())["tables"]]

        for relay in (a, b):
            ids = await listed(relay)
            assert served in ids and fresh not in ids and hidden not in ids, (relay.url, ids)
        async with session.get(f"{b.url}/api/tables") as resp:
            entry = next(t for t in (await resp.json())["tables"] if t["id"] == served)
        assert [s["name"] for s in entry["seats"]] == ["Hôte"] and entry["free"] == 3
        await host.close()


async def test_every_relay_lists_the_games_in_progress_of_the_whole_cluster(
    tmp_path: Path, pg_url: str, redis: RedisServer
) -> None:
    """Issue 27: the lobby's games to watch, whichever relay answers; the watcher count where it is known
    (the node serving the game), null elsewhere."""
    async with two_relays(tmp_path, pg_url, redis.url) as (a, b, session):
        game, players = await seated_game(session, a, turn_seconds=120, public=True)
        _private, private_players = await seated_game(session, a, turn_seconds=120, public=False)
        assert (await players[0].send({"type": "pass"}))["type"] == "ack"

        async def live(relay: Any) -> list[dict[str, Any]]:
            async with session.get(relay.url + "/api/tables") as resp:
                assert resp.status == 200
                return list((await resp.json())["live"])

        here, there = await live(a), await live(b)
        assert [g["id"] for g in here] == [game] and [g["id"] for g in there] == [game]
        assert here[0]["watchers"] == 0 and there[0]["watchers"] is None
        for entry in (here[0], there[0]):
            assert [s["name"] for s in entry["seats"]] == ["P0", "P1"] and entry["move"] == 2
        for p in [*players, *private_players]:
            await p.close()


async def test_metrics_count_the_group_commits_transactions_and_the_appends_they_carried(
    tmp_path: Path, pg_url: str, redis: RedisServer
) -> None:
    """appends / batches is how many actions share a PostgreSQL transaction (relay/journal/groupcommit.py)."""
    a = node(tmp_path, "a", pg_url, redis.url)

    async def counters(session: aiohttp.ClientSession) -> tuple[int, int]:
        async with session.get(a.url + "/metrics") as resp:
            lines = (await resp.text()).splitlines()
        values = dict(line.split(" ") for line in lines if line.startswith("lexio_journal_"))
        # Prometheus samples are floats ("3.0", as prometheus_client writes them)
        batches = values["lexio_journal_batches_total"]
        appends = values["lexio_journal_batched_appends_total"]
        return int(float(batches)), int(float(appends))

    with stopping(a):
        await a.astart()
        async with aiohttp.ClientSession() as session:
            _table_id, players = await seated_game(session, a, turn_seconds=600)
            batches0, appends0 = await counters(session)
            assert 1 <= batches0 <= appends0
            await play(players, 3)
            batches, appends = await counters(session)
            # One append per acknowledged move, each committed before its ack: one transaction each here,
            # as the moves come one at a time.
            assert (batches - batches0, appends - appends0) == (3, 3)
            for p in players:
                await p.close()
