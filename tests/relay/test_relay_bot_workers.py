"""The bot worker processes as the relay reaches them (relay.bots.pool.Workers): from the event loop's own
I/O, with no thread in between (issue 13, point 4: thread hand-offs held up people's acks), errors coming
back as what they are, and a worker that dies replaced."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import threading

import pytest

from engine.board import Board
from engine.moves import Place
from relay.bots.player import BotError
from relay.bots.pool import ProcessDriver, WorkerLost
from relay.lexicon import WordList

WORDS = WordList.from_words(["AS", "SA", "ASE", "SE", "ES"], name="t")


def view(rack: str, variant: str = "lexio") -> dict[str, object]:
    return {
        "variant": variant,
        "board": Board.empty("lexio").to_json(),
        "rack": rack,
        "bag_size": 80,
        "you": 0,
    }


async def test_a_bot_move_is_computed_in_a_worker_process_and_awaited_without_any_thread() -> None:
    bots = ProcessDriver(WORDS, processes=2)
    try:
        await bots.workers().start()
        assert len(bots.workers().pids) == 2 and os.getpid() not in bots.workers().pids
        threads = {t.ident for t in threading.enumerate()}
        moves = await asyncio.gather(
            *(bots.choose_async(view("ASEKWXZ"), "strong", random.Random(i)) for i in range(6))
        )
        assert all(isinstance(m, Place) and {t.square for t in m.tiles} >= {"G7"} for m in moves)
        # No executor thread, no pool manager or queue feeder: the loop wrote and read the sockets itself.
        assert {t.ident for t in threading.enumerate()} == threads
    finally:
        bots.close()


async def test_a_worker_refusal_comes_back_as_the_bots_own_error() -> None:
    bots = ProcessDriver(WORDS)
    try:
        with pytest.raises(BotError) as err:
            await bots.choose_async(view("AS", variant="nope"), "easy", random.Random(0))
        assert err.value.code == "bad_view"
        with pytest.raises(BotError) as err:  # checked here, before any worker is asked
            await bots.choose_async(view("AS"), "genius", random.Random(0))
        assert err.value.code == "bad_level"
        # The worker is still serving.
        assert isinstance(await bots.choose_async(view("ASEKWXZ"), "strong", random.Random(0)), Place)
    finally:
        bots.close()


async def test_a_worker_killed_mid_move_fails_that_move_and_the_next_gets_a_fresh_worker() -> None:
    bots = ProcessDriver(WORDS)
    try:
        workers = bots.workers()
        await workers.start()
        (pid,) = workers.pids
        thinking = asyncio.ensure_future(bots.choose_async(view("ASEKWXZ"), "expert", random.Random(0)))
        await asyncio.sleep(0)  # the job is written to the worker
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(WorkerLost):
            await asyncio.wait_for(thinking, 30)
        move = await asyncio.wait_for(bots.choose_async(view("ASEKWXZ"), "strong", random.Random(0)), 60)
        assert isinstance(move, Place)
        assert workers.pids and workers.pids != [pid]
    finally:
        bots.close()


def test_the_blocking_driver_calls_still_work_without_an_event_loop() -> None:
    bots = ProcessDriver(WORDS)
    try:
        assert isinstance(bots.choose(view("ASEKWXZ"), "strong", random.Random(1)), Place)
    finally:
        bots.close()


def test_a_driver_used_from_a_second_event_loop_starts_workers_of_its_own() -> None:
    bots = ProcessDriver(WORDS)
    try:
        for seed in (0, 1):  # each asyncio.run is a new loop (the first one's sockets die with it)
            move = asyncio.run(bots.choose_async(view("ASEKWXZ"), "strong", random.Random(seed)))
            assert isinstance(move, Place)
    finally:
        bots.close()
