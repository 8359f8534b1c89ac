"""Correspondence play (issue 31): a table's turn may last 30 to 600 s, or exactly 1, 2, 3 or 7 days; the
engine's check is the authority, and the rules do not change (time-outs pass, two rounds end the game)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine as e

DAY = e.DAY_SECONDS


def _run(state: e.GameState, cmd: e.Command, now_ms: int = 1_000) -> e.GameState:
    for ev in e.decide(state, cmd, now_ms=now_ms, rng=random.Random(1), lexicon=lambda words: ()):
        state = e.apply(state, ev)
    return state


@pytest.mark.parametrize("days", [1, 2, 3, 7])
def test_a_table_is_created_with_one_two_three_or_seven_days_a_turn(days: int) -> None:
    state = _run(e.new_state(), e.CreateTable(turn_seconds=days * DAY))
    assert state.turn_seconds == days * DAY and e.is_correspondence(state.turn_seconds)


@pytest.mark.parametrize("secs", [4 * DAY, 5 * DAY, 14 * DAY, DAY - 1, DAY + 1, 601, 3600, 0, -DAY])
def test_other_long_turn_times_are_refused_as_a_bad_setting(secs: int) -> None:
    with pytest.raises(e.BadSetting) as err:
        _run(e.new_state(), e.CreateTable(turn_seconds=secs))
    assert err.value.code == "bad_setting" and err.value.params["turn_seconds"] == str(secs)


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_allowed_turn_times_are_thirty_to_six_hundred_seconds_or_the_listed_days(secs: int) -> None:
    expected = 30 <= secs <= 600 or secs in {DAY, 2 * DAY, 3 * DAY, 7 * DAY}
    assert e.turn_seconds_allowed(secs) is expected
    if expected:
        assert _run(e.new_state(), e.CreateTable(turn_seconds=secs)).turn_seconds == secs
    else:
        with pytest.raises(e.BadSetting):
            _run(e.new_state(), e.CreateTable(turn_seconds=secs))


def test_a_boolean_or_a_float_is_no_turn_time() -> None:
    for bad in (True, float(DAY), "86400"):
        assert not e.turn_seconds_allowed(bad)


def test_speed_minutes_are_not_correspondence_and_days_are() -> None:
    assert not e.is_correspondence(600) and e.is_correspondence(DAY) and e.is_correspondence(7 * DAY)


def test_two_rounds_of_time_outs_end_a_days_game_as_any_other() -> None:
    state = _run(e.new_state(), e.CreateTable(turn_seconds=DAY))
    state = _run(_run(state, e.Join("Ann", account="a")), e.Join("Ben", account="b"))
    state = _run(state, e.Start(0))
    now = 1_000
    for _ in range(e.scoreless_limit(2)):
        assert state.status == "playing" and state.turn is not None
        now += DAY * 1000
        state = _run(state, e.TimeoutPass(state.turn), now_ms=now)
    assert state.status == "ended" and state.result is not None and state.result.reason == "scoreless"
