"""A table's turn is due (relay.tables.services.TableServices.due) exactly when the clock it broadcasts
(``clock``: the turn's deadline, the away player's grace) says the time ran out."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from relay.config import Config
from relay.tables.services import TableServices
from relay.tables.table import Table


def clock_says_due(clock: dict[str, Any], now: int) -> bool:
    if clock["turn"] is None:
        return False
    grace = clock["grace_deadline_ms"]
    return bool(now >= (clock["deadline_ms"] if grace is None else min(clock["deadline_ms"], grace)))


def accept_all(words: Any) -> list[str]:
    return []


@settings(max_examples=200, deadline=None)
@given(
    players=st.integers(2, 4),
    bots=st.integers(0, 1),
    turn_seconds=st.sampled_from([30, 120, 600, 86_400]),
    ended=st.booleans(),
    away=st.dictionaries(st.integers(0, 3), st.integers(900_000, 1_100_000), max_size=4),
    now=st.integers(950_000, 1_200_000) | st.integers(0, 200_000_000),
    grace=st.sampled_from([0.0, 10.0, 45.5]),
)
def test_a_turn_is_due_when_its_clock_says_so(
    players: int, bots: int, turn_seconds: int, ended: bool, away: dict[int, int], now: int, grace: float
) -> None:
    rng = random.Random(players)
    state = engine.new_state()
    commands: list[engine.Command] = [engine.CreateTable(turn_seconds=turn_seconds)]
    commands += [engine.Join(f"P{i}", bot="easy" if i < bots else None) for i in range(players)]
    if players < engine.MAX_SEATS:
        commands.append(engine.Start(0))
    for command in commands:
        for event in engine.decide(state, command, now_ms=1_000_000, rng=rng, lexicon=accept_all):
            state = engine.apply(state, event)
    if ended:
        for _ in range(2 * players):
            assert state.turn is not None
            for event in engine.decide(
                state, engine.Play(state.turn, engine.Pass()), now_ms=1_000_000, rng=rng, lexicon=accept_all
            ):
                state = engine.apply(state, event)
    services = TableServices(Config(grace_seconds=grace), store=None, lexicon=accept_all)  # type: ignore[arg-type]
    table = Table("t", True, 0, state, rng, away_since=dict(away))
    assert services.due(table, now) == clock_says_due(services.clock(table), now)
