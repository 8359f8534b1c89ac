"""A person cannot take a name of the computer players' pattern ("Robot …"); computer players can."""

from __future__ import annotations

import random

import pytest

import engine as e
from engine.game import is_bot_name


@pytest.mark.parametrize("name", ["Robot", "robot 1", "ROBOT fort", " Robot  12 "])
def test_robot_names_are_kept_for_computer_players(name: str) -> None:
    assert is_bot_name(name)

    def decide(state: e.GameState, cmd: e.Command) -> list[e.Event]:
        return e.decide(state, cmd, now_ms=0, rng=random.Random(1), lexicon=lambda words: ())

    state = e.apply(e.new_state(), decide(e.new_state(), e.CreateTable())[0])
    with pytest.raises(e.BadName) as err:
        decide(state, e.Join(name))
    assert err.value.params["reason"] == "reserved"
    assert decide(state, e.Join(name, bot="easy"))


@pytest.mark.parametrize("name", ["Roboticist", "Robotte", "Mr Robot", "Alice"])
def test_other_names_are_free(name: str) -> None:
    assert not is_bot_name(name)
