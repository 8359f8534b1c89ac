"""A seat's view folded forward by one redacted event (engine.fold_view) equals the view of the next state:
``fold_view(view(s, seat), redact_event(e, seat)) == view(apply(s, e), seat)`` for every seat and spectator,
over the golden games and any scripted game; events a view cannot absorb ask for a snapshot."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st
from test_gcg_golden import GAMES, game_of, scripted_game

import engine
from engine.fold import FOLDED_EVENTS, fold_view

NOW = 0  # any fixed time: both sides of the equation compute the reserve at the same instant


def steps(final: engine.GameState) -> Iterator[tuple[engine.GameState, engine.Event, engine.GameState]]:
    """(state before, event, state after) for every event of a finished fold."""
    state = engine.new_state()
    for event in final.events:
        after = engine.apply(state, event)
        yield state, event, after
        state = after


def check_game(final: engine.GameState) -> int:
    """Compare fold and view at every event for every seat and a spectator; returns how many were folded."""
    folded = 0
    for before, event, after in steps(final):
        for seat in (None, *range(len(after.seats))):
            redacted = engine.redact_event(event, seat)
            got = fold_view(engine.view(before, seat, now_ms=NOW), redacted, turn=after.turn)
            if got is None:
                assert redacted["type"] not in FOLDED_EVENTS
                continue
            want = engine.view(after, seat, now_ms=NOW)
            if redacted["type"] == "rejected":
                # The reserve a refusal costs comes in the relay's "rejected" answer, not in the event.
                got, want = {**got, "reserve": None}, {**want, "reserve": None}
            assert got == want, (redacted["type"], seat)
            folded += 1
    return folded


def test_the_fold_of_every_move_of_the_golden_games_is_the_next_view_for_every_seat() -> None:
    total = sum(check_game(game_of(name)) for name in sorted(GAMES))
    assert total > 100  # the moves were folded, not all sent to a snapshot


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(2, 4))
def test_the_fold_of_any_scripted_game_is_the_next_view_for_every_seat(seed: int, players: int) -> None:
    names = ["Ana", "Bo", "Cy", "Di"][:players]
    check_game(scripted_game(names, seed, {"3": "swap", "5": "timeout", "7": "pass"}))


def refuse_all(words: Sequence[str]) -> list[str]:
    return list(words)


def test_a_rejected_play_only_lengthens_the_journal_and_seating_asks_for_a_snapshot() -> None:
    state, rng = engine.new_state(), random.Random(3)
    for command in (engine.CreateTable(), engine.Join("Ana"), engine.Join("Bo"), engine.Start(0)):
        for event in engine.decide(state, command, now_ms=1, rng=rng, lexicon=refuse_all):
            state = engine.apply(state, event)
    seat = state.turn
    assert seat is not None
    rack = state.seats[seat].rack.replace("?", "")
    tiles = (engine.Tile("G7", rack[0], False), engine.Tile("H7", rack[1], False))
    play = engine.Play(seat, engine.Place(tiles))
    (rejected,) = engine.decide(state, play, now_ms=2, rng=rng, lexicon=refuse_all)
    assert isinstance(rejected, engine.Rejected)
    after = engine.apply(state, rejected)
    before_view = engine.view(state, seat, now_ms=NOW)
    got = fold_view(before_view, engine.redact_event(rejected, seat), turn=after.turn)
    assert got is not None
    assert got["journal"][-1]["type"] == "rejected"
    assert {k: v for k, v in got.items() if k not in ("journal", "version")} == {
        k: v for k, v in before_view.items() if k not in ("journal", "version")
    }
    joined = engine.SeatJoined(2, "Cy", None, at=3)
    assert fold_view(before_view, engine.redact_event(joined, seat), turn=None) is None
