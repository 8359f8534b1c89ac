"""The unseen-tiles tracker shows exactly the bag plus the other racks, from the seat's public view."""

from __future__ import annotations

import random
from collections import Counter

from app.unseen import unseen_counts, unseen_total
from hypothesis import given, settings
from hypothesis import strategies as st
from web_helpers import T0, accept_all

import engine as e


def _random_game(seed: int, moves: int) -> e.GameState:
    rng = random.Random(seed)
    state = e.new_state()
    for cmd in (e.CreateTable(), e.Join("A"), e.Join("B"), e.Join("C"), e.Start(0)):
        for ev in e.decide(state, cmd, now_ms=T0, rng=rng, lexicon=accept_all):
            state = e.apply(state, ev)
    for _ in range(moves):
        if state.status != "playing" or state.turn is None:
            break
        seat = state.turn
        rack = state.seats[seat].rack
        if not state.board.to_json():
            tiles = [
                {"sq": sq, "letter": "E" if c == "?" else c, "blank": c == "?"}
                for sq, c in zip(("G7", "H7", "I7"), rack, strict=False)
            ]
            move: e.Move = e.Place(e.tiles_from_json(tiles))
        elif len(state.bag) >= 2 and rng.random() < 0.6:
            move = e.Swap(rack[:2])
        else:
            move = e.Pass()
        for ev in e.decide(state, e.Play(seat, move), now_ms=T0, rng=rng, lexicon=accept_all):
            state = e.apply(state, ev)
    return state


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 8), seat=st.integers(0, 2))
def test_unseen_tiles_are_the_bag_plus_the_other_racks(seed: int, moves: int, seat: int) -> None:
    state = _random_game(seed, moves)
    view = e.view(state, seat, now_ms=T0)
    hidden = Counter(state.bag)
    for i, s in enumerate(state.seats):
        if i != seat:
            hidden.update(s.rack)
    assert unseen_counts(view) == {k: v for k, v in hidden.items() if v}
    assert sum(unseen_counts(view).values()) == unseen_total(view)


def test_a_placed_blank_counts_as_a_blank_not_as_its_letter() -> None:
    view = {
        "variant": "lexio",
        "board": [{"sq": "G7", "letter": "E", "blank": True}],
        "rack": "",
        "seats": [],
    }
    counts = unseen_counts(view)
    assert counts["?"] == 1 and counts["E"] == 14
