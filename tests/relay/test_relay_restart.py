"""The relay as a real process: kill -9 loses nothing acknowledged; restarts restore tables and clocks;
graceful shutdown says "server restarting"; the test seed is refused without its safety flag."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from harness.process import RelayProcess
from relaykit import Player, create_table, seated_game

REPO = Path(__file__).resolve().parents[2]


async def test_kill_9_at_any_instant_loses_no_acknowledged_action(proc: RelayProcess) -> None:
    await proc.astart()
    async with aiohttp.ClientSession() as session:
        table_id, players = await seated_game(session, proc, turn_seconds=600)
        tokens = [p.token for p in players]
        acked: list[tuple[int, dict[str, Any]]] = []  # (seq, the move)

        # Play quickly and pull the plug while frames are in flight.
        async def play() -> None:
            while True:
                turn = players[0].turn
                mover = players[turn]
                await mover.wait_seq(players[0].seq)
                move = mover.choose()
                ans = await mover.send(move)
                assert ans["type"] == "ack"
                acked.append((ans["seq"], move))

        task = asyncio.create_task(play())
        for _ in range(400):
            if len(acked) >= 8 or task.done():
                break
            await asyncio.sleep(0.05)
        # Pull the plug at an arbitrary instant while frames are in flight.
        await asyncio.sleep(random.uniform(0, 0.05))
        proc.kill9()
        task.cancel()
        with pytest.raises((asyncio.CancelledError, ConnectionError, asyncio.TimeoutError, AssertionError)):
            await task
        assert len(acked) >= 5, "too few actions before the kill to mean anything"
        seen = {p.seat: [f for f in p.frames if f["type"] == "event"] for p in players}

    await proc.astart()
    async with aiohttp.ClientSession() as session:
        back = [await Player.connect(session, proc, table_id) for _ in range(2)]
        for p, token in zip(back, tokens, strict=True):
            ans = await p.send({"type": "join", "token": token})
            assert ans["type"] == "welcome"
        snaps = [await p.wait_for(lambda f: f["type"] == "snapshot") for p in back]
        last_ack = acked[-1][0]
        for seat, snap in enumerate(snaps):
            assert snap["seq"] >= last_ack
            journal = snap["view"]["journal"]
            # Every event a client was sent before the kill is in the restored journal, unchanged.
            for frame in seen[seat]:
                assert journal[frame["seq"] - 1] == frame["event"]
        # ... and the game goes on from there.
        assert back[0].turn is not None
        mover = back[back[0].turn]
        ans = await mover.send(mover.choose())
        assert ans["type"] == "ack" and ans["seq"] == snaps[0]["seq"] + 1


async def test_a_restart_restores_the_clock_time_spent_down_counts(proc: RelayProcess) -> None:
    await proc.astart("--grace-seconds", "1")
    async with aiohttp.ClientSession() as session:
        table_id, players = await seated_game(session, proc, turn_seconds=30)
        started = await players[1].wait_for(
            lambda f: f["type"] == "event" and f["event"]["type"] == "game_started"
        )
        deadline = started["clock"]["deadline_ms"]
        token = players[1].token
    proc.kill9()
    await asyncio.sleep(0.3)
    await proc.astart("--grace-seconds", "1")
    async with aiohttp.ClientSession() as session:
        p1 = await Player.connect(session, proc, table_id)
        await p1.send({"type": "join", "token": token})
        snap = await p1.wait_for(lambda f: f["type"] == "snapshot")
        # Same deadline as before the crash; seat 0 is away, so the grace runs from the restart.
        assert snap["clock"]["deadline_ms"] == deadline
        assert snap["clock"]["grace_deadline_ms"] is not None
        assert snap["clock"]["grace_deadline_ms"] <= snap["now"] + 1000
        ev = await p1.wait_for(
            lambda f: f["type"] == "event" and f["event"]["type"] == "timed_out", timeout=10
        )
        assert ev["event"]["seat"] == 0


async def test_graceful_shutdown_closes_sockets_with_server_restarting(proc: RelayProcess) -> None:
    await proc.astart()
    async with aiohttp.ClientSession() as session:
        table_id = await create_table(session, proc)
        p = await Player.connect(session, proc, table_id)
        await p.join("Solo")
        assert proc.proc is not None
        proc.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(p.reader, 10)  # type: ignore[arg-type]
        assert p.closed == 1012
    assert proc.proc.wait(10) == 0
    # --log-json: every line is one JSON object; one per HTTP request and one per table action.
    lines = [json.loads(line) for line in proc.log.read_text().splitlines() if line.strip()]
    requests = [x for x in lines if x["msg"] == "request"]
    actions = [x for x in lines if x["msg"] == "action"]
    assert any(r["method"] == "POST" and r["path"] == "/api/tables" and r["status"] == 201 for r in requests)
    assert [a["kind"] for a in actions] == ["join"] and actions[0]["table"] == table_id


def test_test_seed_is_refused_without_its_safety_flag(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
    env["PYTHONPATH"] = str(REPO)
    run = subprocess.run(
        [sys.executable, "-m", "relay", "serve", "--test-seed", "1", "--db", str(tmp_path / "x.sqlite3")],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 2
    assert "--allow-test-seed" in run.stderr
    assert not (tmp_path / "x.sqlite3").exists()
    env["LEXIO_TEST_SEED"] = "1"
    run = subprocess.run(
        [sys.executable, "-m", "relay", "serve"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
    )
    assert run.returncode == 2 and "LEXIO_ALLOW_TEST_SEED" in run.stderr
