"""Countdown math synced to the server's clock, the reserve's refill, and reconnection backoff."""

from __future__ import annotations

import random

from app.timing import (
    Backoff,
    ServerClock,
    effective_deadline,
    format_countdown,
    remaining_ms,
    reserve_now,
    should_reconnect,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from web_helpers import T0, first_word, started

import engine as e


def test_the_countdown_uses_the_servers_clock_not_the_browsers() -> None:
    clock = ServerClock()
    skew = -3_600_000  # the browser is an hour behind
    for delay in (80, 20, 50):
        clock.observe(T0, T0 + skew + delay)
    assert clock.server_now(T0 + skew + 20) == T0
    assert remaining_ms(T0 + 30_000, clock.server_now(T0 + skew + 20 + 1_000)) == 29_000


def test_the_effective_deadline_is_the_earlier_of_turn_and_grace() -> None:
    assert effective_deadline({"deadline_ms": 100, "grace_deadline_ms": 50}) == 50
    assert effective_deadline({"deadline_ms": 100, "grace_deadline_ms": None}) == 100
    assert effective_deadline({"turn": None, "deadline_ms": None, "grace_deadline_ms": None}) is None


def test_the_countdown_reads_zero_exactly_when_time_is_up() -> None:
    assert format_countdown(120_000) == "2:00"
    assert format_countdown(119_001) == "2:00"
    assert format_countdown(59_000) == "0:59"
    assert format_countdown(1) == "0:01"
    assert format_countdown(0) == "0:00"
    assert format_countdown(remaining_ms(10, 20)) == "0:00"


@settings(max_examples=40, deadline=None)
@given(rejections=st.integers(0, 10), wait=st.integers(0, 200_000))
def test_the_local_reserve_refill_matches_the_engines_token_bucket(rejections: int, wait: int) -> None:
    state = started()
    tiles = first_word(state).tiles
    now = T0
    for _ in range(rejections):
        events = e.decide(
            state,
            e.Play(0, e.Place(tiles)),
            now_ms=now,
            rng=random.Random(1),
            lexicon=lambda words: list(words),
        )
        for ev in events:
            state = e.apply(state, ev)
    tries, nxt = e.reserve_at(state, 0, now)
    assert reserve_now({"tries": tries, "next_refill_ms": nxt}, now + wait) == e.reserve_at(
        state, 0, now + wait
    )


def test_backoff_grows_to_a_cap_with_jitter_and_resets() -> None:
    b = Backoff(base_ms=500, cap_ms=8_000, rng=random.Random(1))
    delays = [b.next_delay() for _ in range(12)]
    assert all(250 <= d <= 8_000 for d in delays)
    assert max(delays[6:]) > max(delays[:2])
    b.reset()
    assert b.next_delay() <= 500


def test_no_reconnection_after_a_takeover_a_kick_or_a_closed_table() -> None:
    assert should_reconnect(1006) and should_reconnect(1012) and should_reconnect(4002)
    assert not any(should_reconnect(c) for c in (1008, 1009, 4001, 4004))
