"""``engine.apply`` builds the state after a turn field by field (no ``dataclasses.replace``, issue 26's hot
path): every event of the golden games and of scripted games folds into exactly the state that replacing
the fields the event changes gives, and a placement of one tile keeps the ``Place`` it was given."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st
from test_gcg_golden import GAMES, game_of, scripted_game

import engine
from engine.game import GameState, SeatState


def by_replace(state: GameState, event: engine.Event) -> GameState | None:
    """The state after a turn-ending event as ``dataclasses.replace`` writes it (None: another event)."""
    events = (*state.events, event)
    if isinstance(event, engine.Placed):
        s = state.seats[event.seat]
        seat = dataclasses.replace(s, score=s.score + event.score, rack=event.rack)
        seats = (*state.seats[: event.seat], seat, *state.seats[event.seat + 1 :])
        board = state.board.with_cells_unchecked(
            (state.rules.index[t.square], t.letter.lower() if t.blank else t.letter) for t in event.tiles
        )
        return dataclasses.replace(
            state,
            board=board,
            seats=seats,
            bag=tuple(event.bag),
            turn=(event.seat + 1) % len(seats),
            turn_started_ms=event.at,
            scoreless_turns=0,
            turns_played=state.turns_played + 1,
            events=events,
        )
    if isinstance(event, engine.Swapped | engine.Passed | engine.TimedOut):
        seats, bag = state.seats, state.bag
        if isinstance(event, engine.Swapped):
            seat = dataclasses.replace(seats[event.seat], rack=event.rack)
            seats = (*seats[: event.seat], seat, *seats[event.seat + 1 :])
            bag = tuple(event.bag)
        return dataclasses.replace(
            state,
            seats=seats,
            bag=bag,
            turn=(event.seat + 1) % len(seats),
            turn_started_ms=event.at,
            scoreless_turns=state.scoreless_turns + 1,
            turns_played=state.turns_played + 1,
            events=events,
        )
    return None


def check(final: GameState) -> int:
    state, compared = engine.new_state(), 0
    for event in final.events:
        after = engine.apply(state, event)
        want = by_replace(state, event)
        if want is not None:
            assert after == want, type(event).__name__
            assert all(type(s) is SeatState for s in after.seats)
            compared += 1
        state = after
    return compared


def test_every_turn_of_the_golden_games_folds_into_the_state_replace_gives() -> None:
    assert sum(check(game_of(name)) for name in GAMES) > 50


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4))
def test_every_turn_of_a_scripted_game_folds_into_the_state_replace_gives(seed: int, players: int) -> None:
    check(scripted_game([f"P{i}" for i in range(players)], seed, {}))


def test_a_one_tile_placement_keeps_its_tiles_and_a_longer_one_is_sorted_by_square() -> None:
    one = (engine.Tile("G7", "A"),)
    assert engine.Place(one).tiles is one
    assert engine.Place([engine.Tile("G7", "A")]).tiles == one  # a list still becomes a tuple
    two = engine.Place((engine.Tile("H7", "B"), engine.Tile("G7", "A")))
    assert [t.square for t in two.tiles] == ["G7", "H7"]
    assert two == engine.Place((engine.Tile("G7", "A"), engine.Tile("H7", "B")))
