"""The soak's frame checker catches each broken invariant (so a clean soak means something), and a real
relay on 127.0.0.1 plays computer-only games to their end with none broken."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from harness.botclient import FrameChecker, run_table

from relay.app import create_app
from relay.bots.player import MoveGenDriver
from relay.config import Config
from relay.lexicon import WordList


def started(me: int | None = 0, dealt: str | None = "ABCDEFG") -> FrameChecker:
    checker = FrameChecker(me=me)
    checker.on_frame({"type": "event", "seq": 1, "event": {"type": "table_created"}})
    for seat in (0, 1):
        checker.on_frame({"type": "event", "seq": 2 + seat, "event": {"type": "seat_joined", "seat": seat}})
    game = {"type": "game_started", "rack_sizes": [7, 7], "bag_size": 88}
    if dealt is not None:
        game["rack"] = dealt
    checker.on_frame({"type": "event", "seq": 4, "event": game})
    return checker


def placed(seq: int, seat: int, tiles: int, score: int, size: int, bag: int, **extra: Any) -> dict[str, Any]:
    ev = {
        "type": "placed",
        "seat": seat,
        "tiles": [{}] * tiles,
        "score": score,
        "rack_size": size,
        "bag_size": bag,
    }
    return {"type": "event", "seq": seq, "event": {**ev, **extra}}


def test_a_consistent_game_passes_every_check() -> None:
    checker = started()
    checker.on_frame(placed(5, 0, 3, 12, 7, 85, rack="ABCDEFG", drawn="ABC"))
    checker.on_frame(placed(6, 1, 2, 8, 7, 83))
    assert checker.failures == []
    assert checker.scores == [12, 8]


def test_another_seats_rack_in_a_frame_is_caught() -> None:
    checker = started()
    checker.on_frame(placed(5, 1, 2, 8, 7, 86, rack="QWERTYU"))
    assert any("seat 1's rack shown to seat 0" in f for f in checker.failures)


def test_a_spectator_seeing_a_dealt_rack_is_caught() -> None:
    assert started(me=None, dealt=None).failures == []
    assert any("spectator" in f for f in started(me=None).failures)


def test_a_lost_or_created_tile_is_caught() -> None:
    checker = started()
    checker.on_frame(placed(5, 0, 3, 12, 7, 86))  # 3 tiles placed, 3 drawn, yet the bag lost only 2
    assert any("not 102" in f for f in checker.failures)


def test_a_score_that_is_not_the_journal_sum_is_caught() -> None:
    checker = started()
    checker.on_frame(placed(5, 0, 3, 12, 7, 85))
    ended = {"type": "game_ended", "adjustments": [0, 0], "scores": [13, 0], "racks": ["", ""]}
    checker.on_frame({"type": "event", "seq": 6, "event": ended})
    assert any("journal's sums" in f for f in checker.failures)


def test_a_snapshot_whose_scores_disagree_with_its_journal_is_caught() -> None:
    checker = FrameChecker(me=0)
    view = {
        "variant": "lexio",
        "status": "playing",
        "seats": [{"seat": 0, "score": 5, "rack_size": 7}, {"seat": 1, "score": 0, "rack_size": 7}],
        "board": [],
        "bag_size": 88,
        "journal": [],
    }
    checker.on_frame({"type": "snapshot", "seq": 4, "view": view})
    assert any("journal's sums" in f for f in checker.failures)


def test_a_gap_in_event_numbers_and_the_bag_in_a_frame_are_caught() -> None:
    checker = started()
    checker.on_frame({"type": "event", "seq": 9, "event": {"type": "passed", "seat": 0}, "bag": "ABC"})
    assert any("seq 9 after 4" in f for f in checker.failures)
    assert any("bag" in f for f in checker.failures)


@pytest.fixture
async def relay_url(tmp_path: Path, fr_words: WordList) -> AsyncIterator[str]:
    config = Config(port=0, db=tmp_path / "t.sqlite3", static=None, bot_delay_seconds=(0.0, 0.0))
    runner = web.AppRunner(create_app(config, lexicon=fr_words), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()


async def test_computer_only_games_through_the_relay_keep_every_invariant(
    relay_url: str, fr_words: WordList
) -> None:
    driver = MoveGenDriver(fr_words)
    async with aiohttp.ClientSession() as session:
        for seed, bots, scripted in [(1, ("easy", "strong"), ()), (2, ("medium",), ("strong",))]:
            report = await run_table(
                session,
                relay_url,
                driver=driver,
                bots=bots,
                scripted=scripted,
                rng=random.Random(seed),
                timeout=120,
            )
            assert report.failures == []
            assert report.result is not None and report.result["type"] == "game_ended"
            assert report.actions > 10
            async with session.get(f"{relay_url}/api/tables/{report.table}") as resp:
                summary = await resp.json()
            # Computer seats are shown as such, with their level.
            assert [s["bot"] for s in summary["seats"]] == [None, *bots, *(None for _ in scripted)]
