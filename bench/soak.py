"""Soak: many computer-only games through a real relay over real WebSockets, checking invariants each step.

Starts the relay in this process on 127.0.0.1 (an ephemeral port, a temporary journal, bots without their
human-like pause), then plays games to their end. Seat 0 is always a scripted WebSocket client (the relay
seats bots only through seat 0's ``add_bot``) playing with the move generator; the other seats are, in turn,
relay bots (``add_bot``: the relay's own driver moves for them), more scripted clients, or a mix; a spectator
watches every table. Every connection checks every frame it receives (:mod:`harness.botclient`): seq numbers,
102 tiles conserved, scores equal to the journal's sums, and no other seat's rack (nor the bag) in any frame.
After each game the finished record (GCG) must be served.

Prints a human header, then ``name<TAB>value<TAB>unit`` lines; exits 1 if a game failed or an invariant broke.

Usage: .venv/bin/python bench/soak.py [--games 16] [--concurrency 2] [--lexicon fr] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the process harness

import aiohttp  # noqa: E402
from aiohttp import web  # noqa: E402
from harness.botclient import TableReport, run_table  # noqa: E402

from relay.app import create_app  # noqa: E402
from relay.bots.player import MoveGenDriver  # noqa: E402
from relay.config import Config  # noqa: E402
from relay.lexicon import load_lexicon  # noqa: E402

# (seat 0's level, relay bots' levels, other scripted seats' levels): 2, 3 and 4 seats, bots and scripts.
MIX: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [
    ("strong", ("easy",), ()),
    ("medium", ("strong", "medium"), ()),
    ("easy", ("easy", "medium", "strong"), ()),
    ("strong", (), ("strong",)),
    ("medium", (), ("easy", "strong", "medium")),
    ("strong", ("medium",), ("easy",)),
]


async def soak(games: int, concurrency: int, lexicon: str, seed: int) -> tuple[list[TableReport], list[str]]:
    words = load_lexicon(lexicon)
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(
            port=0,
            db=Path(tmp) / "soak.sqlite3",
            lexicon=lexicon,
            static=None,
            bot_delay_seconds=(0.0, 0.0),
        )
        app = create_app(config, lexicon=words)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        base = f"http://127.0.0.1:{port}"
        driver = MoveGenDriver(words)
        await asyncio.to_thread(driver.warm)
        rng = random.Random(seed)
        reports: list[TableReport] = []
        errors: list[str] = []
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int, session: aiohttp.ClientSession) -> None:
            seat0, bots, scripted = MIX[i % len(MIX)]
            async with gate:
                try:
                    report = await run_table(
                        session,
                        base,
                        driver=driver,
                        bots=bots,
                        scripted=scripted,
                        seat0_level=seat0,
                        rng=random.Random(rng.getrandbits(64)),
                        timeout=600,
                    )
                except Exception as exc:  # a game that cannot finish is a failure to report, not a crash
                    errors.append(f"game {i} ({seat0}+{bots}+{scripted}): {type(exc).__name__}: {exc}")
                    return
                async with session.get(f"{base}/api/tables/{report.table}/gcg") as resp:
                    if resp.status != 200:
                        errors.append(f"game {i}: GCG of a finished table answered {resp.status}")
                reports.append(report)
                seats = 1 + len(bots) + len(scripted)
                print(
                    f"# game {i}: {seats} seats ({seat0}; bots {list(bots)}; scripts {list(scripted)}) "
                    f"{report.actions} actions, {report.seconds:.1f} s, scores "
                    f"{(report.result or {}).get('scores')} ({(report.result or {}).get('reason')}), "
                    f"{len(report.failures)} failures",
                    file=sys.stderr,
                    flush=True,
                )

        try:
            async with aiohttp.ClientSession() as session:
                await asyncio.gather(*(one(i, session) for i in range(games)))
        finally:
            await runner.cleanup()
    return reports, errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--lexicon", default="fr", help="word list name or path (default: fr)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    t0 = time.monotonic()
    reports, errors = asyncio.run(soak(args.games, args.concurrency, args.lexicon, args.seed))
    elapsed = time.monotonic() - t0
    failures = errors + [f for r in reports for f in r.failures]
    finished = [r for r in reports if r.result is not None]
    actions = sum(r.actions for r in reports)
    think = [ms for r in reports for s in r.seats for ms in s.think_ms]
    for failure in failures[:40]:
        print(f"FAIL {failure}", file=sys.stderr)
    print(f"# {len(finished)}/{args.games} games finished in {elapsed:.1f} s", file=sys.stderr)
    print(f"soak_games\t{len(finished)}\tgames")
    print(f"soak_actions\t{actions}\tactions")
    print(f"soak_failures\t{len(failures)}\tfailures")
    if finished:
        print(f"soak_game_median\t{statistics.median(r.seconds for r in finished):.1f}\ts")
    if think:
        print(f"soak_scripted_move_median\t{statistics.median(think):.1f}\tms")
    return 0 if not failures and len(finished) == args.games else 1


if __name__ == "__main__":
    sys.exit(main())
