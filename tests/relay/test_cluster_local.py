"""``make cluster`` (python -m harness.localcluster): PostgreSQL, Redis, three relays and HAProxy come up, a
game is played through the front to its end, and Ctrl-C (SIGINT) stops every one of those processes."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp
from harness.process import free_port
from relaykit import Player, seated_game, write_short_lexicon

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Front:
    url: str


async def paced_play_to_end(players: list[Player]) -> None:
    """relaykit.play_to_end at most ~12 actions a second per socket, under the relay's frame budget."""
    by_seat = {p.seat: p for p in players}
    for _ in range(2000):
        p0 = players[0]
        if p0.status == "ended":
            return
        assert p0.turn is not None, "no one on turn in a running game"
        p = by_seat[p0.turn]
        await p.wait_seq(p0.seq)
        await asyncio.sleep(0.08)
        ans = await p.send(p.choose())
        assert ans["type"] == "ack", ans
        for q in players:
            await q.wait_seq(ans["seq"])
    raise AssertionError("game did not end")


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def test_make_cluster_serves_a_game_through_the_front_and_ctrl_c_stops_everything(
    tmp_path: Path,
) -> None:
    write_short_lexicon(tmp_path / "short.txt")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<!doctype html><title>Lexio</title>")
    port = free_port()
    # As root PostgreSQL runs as postgres, which cannot enter pytest's 0700 directories.
    data = Path(tempfile.mkdtemp(prefix="lexio-make-cluster-"))
    data.chmod(0o755)
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.localcluster", "--port", str(port), "--data", str(data),
         "--static", str(tmp_path / "site"), "--", "--lexicon", str(tmp_path / "short.txt")],
        cwd=REPO, stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": f"{REPO / 'tests'}{os.pathsep}{REPO}"},
        stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    out: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            line = await asyncio.to_thread(proc.stdout.readline)
            if not line:
                break
            out.append(line)
            if line.startswith("Lexio: "):
                break
        text = "".join(out)
        assert f"Lexio: http://127.0.0.1:{port}/" in text, text
        pids = [int(p) for p in re.findall(r" pid (\d+)", text)]
        assert len(pids) == 6, text  # PostgreSQL, Redis, three relays, HAProxy
        front = Front(f"http://127.0.0.1:{port}")
        async with aiohttp.ClientSession() as session:
            async with session.get(front.url + "/") as page:
                assert page.status == 200 and "Lexio" in await page.text()
            _, players = await seated_game(session, front, seats=2, turn_seconds=600)
            await paced_play_to_end(players)
            assert players[0].status == "ended"
            for p in players:
                await p.close()
    finally:
        proc.send_signal(signal.SIGINT)
        rc = await asyncio.to_thread(proc.wait, 30)
        shutil.rmtree(data, ignore_errors=True)
    assert rc == 0
    assert [p for p in pids if alive(p)] == []
