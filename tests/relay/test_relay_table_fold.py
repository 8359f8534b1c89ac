"""What a table keeps of its state after each action (relay.tables.table.elide_journal): the same fold with
its journal elided, equal field for field to ``dataclasses.replace`` of it."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st
from test_relay_broadcast_frames import a_game

import engine
from relay.tables.table import elide_journal


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 100_000), players=st.integers(2, 4))
def test_an_elided_state_is_the_fold_with_a_none_per_event(seed: int, players: int) -> None:
    state = engine.new_state()
    for event in a_game(seed, players):
        state = engine.apply(state, event)
        elided = elide_journal(state)
        assert type(elided) is engine.GameState
        assert elided == dataclasses.replace(state, events=(None,) * state.version)  # type: ignore[arg-type]
        assert elided.version == state.version and elided.events == (None,) * state.version
        for field in dataclasses.fields(engine.GameState):
            if field.name != "events":
                assert getattr(elided, field.name) is getattr(state, field.name)
