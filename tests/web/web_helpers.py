"""Real engine games for the UI tests (no stubs): a word list that accepts everything stands in for the
relay's lexicon, which the UI never sees."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import engine as e

T0 = 1_764_000_000_000


def accept_all(words: Sequence[str]) -> Sequence[str]:
    return ()


def run(state: e.GameState, cmd: Any, now: int = T0, seed: int = 1) -> tuple[e.GameState, list[Any]]:
    events = e.decide(state, cmd, now_ms=now, rng=random.Random(seed), lexicon=accept_all)
    for ev in events:
        state = e.apply(state, ev)
    return state, events


def started(players: int = 2, seed: int = 3) -> e.GameState:
    state = e.new_state()
    for cmd in [e.CreateTable(), *(e.Join(f"P{i}") for i in range(players)), e.Start(0)]:
        state, _ = run(state, cmd, seed=seed)
    return state


def snapshot(state: e.GameState, seat: int | None, now: int = T0) -> dict[str, Any]:
    return {
        "type": "snapshot",
        "seq": state.version,
        "now": now,
        "view": e.view(state, seat, now_ms=now),
        "clock": {"turn": state.turn, "deadline_ms": now + 120_000, "grace_deadline_ms": None},
        "presence": [{"seat": i, "connected": True} for i in range(len(state.seats))],
    }


def first_word(state: e.GameState) -> e.Place:
    """Two to four rack tiles across through the source (blanks name E)."""
    rack = state.seats[state.turn or 0].rack
    sqs = ("F7", "G7", "H7", "I7")
    return e.Place(
        e.tiles_from_json(
            [
                {"sq": sq, "letter": "E" if ch == "?" else ch, "blank": ch == "?"}
                for sq, ch in zip(sqs, rack, strict=False)
            ]
        )
    )
