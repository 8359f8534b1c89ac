"""Rated tables (issue 30): a rated table seats signed-in players only, and its flag is an event's field that
round-trips through the journal (left out when false, so that every other table's events keep their form)."""

from __future__ import annotations

import random

import pytest

import engine as e


def _run(state: e.GameState, cmd: object) -> e.GameState:
    for ev in e.decide(state, cmd, now_ms=1_000, rng=random.Random(1), lexicon=lambda words: ()):
        state = e.apply(state, ev)
    return state


def test_a_rated_table_seats_signed_in_players_only_no_guest_no_computer_player() -> None:
    state = _run(e.new_state(), e.CreateTable(turn_seconds=60, rated=True))
    assert state.rated
    state = _run(state, e.Join("Ann", account="a1"))
    for refused in (e.Join("Guest"), e.Join("Robot 1", bot="easy")):
        with pytest.raises(e.RatedSeat) as err:
            _run(state, refused)
        assert err.value.code == "rated_accounts_only"
    state = _run(state, e.Join("Ben", account="b2"))
    assert [s.name for s in state.seats] == ["Ann", "Ben"]
    assert e.view(state, 0, now_ms=1_000)["rated"] is True


def test_a_casual_table_is_unchanged_guests_and_computers_sit_and_its_view_has_no_rated_key() -> None:
    state = _run(e.new_state(), e.CreateTable(turn_seconds=60))
    state = _run(_run(state, e.Join("Guest")), e.Join("Robot 1", bot="easy"))
    assert not state.rated and "rated" not in e.view(state, 0, now_ms=1_000)


def test_the_rated_flag_round_trips_through_the_journal_and_is_left_out_when_false() -> None:
    rated = e.TableCreated("lexio", 60, at=5, rated=True)
    assert e.event_to_dict(rated)["rated"] is True
    assert e.event_from_dict(e.event_to_dict(rated)) == rated
    casual = e.TableCreated("lexio", 60, at=5)
    assert "rated" not in e.event_to_dict(casual)
    assert e.event_from_dict(e.event_to_dict(casual)) == casual
    with pytest.raises(e.BadEvent):
        e.event_from_dict({**e.event_to_dict(rated), "rated": "yes"})


def test_a_rated_setting_that_is_not_a_boolean_is_refused_with_bad_setting() -> None:
    with pytest.raises(e.BadSetting):
        _run(e.new_state(), e.CreateTable(turn_seconds=60, rated="yes"))  # type: ignore[arg-type]
