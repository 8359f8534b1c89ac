"""An offline demo table built by the real engine in the page (``?demo=1`` or ``?demo=2``).

Used for screenshots and ``bench/browser.py`` without a relay: the snapshot is exactly what the relay would
send (``engine.view``); a word list that accepts everything stands in for the server's lexicon because the
demo never submits.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from app.payloads import ServerFrame, View


def _accept_all(words: Sequence[str]) -> Sequence[str]:
    return ()


def demo_snapshot(now_ms: int, level: int = 1, seed: int = 7) -> ServerFrame:
    """A ``snapshot`` frame for seat 0 of a two-player game (level 2: one word already on the board, the
    viewer is the player on turn). Raises a ``LexioError`` only if the engine itself refuses its own moves."""
    import engine as e

    rng = random.Random(seed)
    state = e.new_state()
    for cmd in (e.CreateTable(), e.Join("Alice"), e.Join("Bob"), e.Start(0)):
        for ev in e.decide(state, cmd, now_ms=now_ms, rng=rng, lexicon=_accept_all):
            state = e.apply(state, ev)
    you = 0
    if level >= 2:
        rack = state.seats[0].rack
        tiles = [
            {"sq": sq, "letter": "E" if ch == "?" else ch, "blank": ch == "?"}
            for sq, ch in zip(("E7", "F7", "G7", "H7"), rack, strict=False)
        ]
        move = e.Place(e.tiles_from_json(tiles))
        for ev in e.decide(state, e.Play(0, move), now_ms=now_ms, rng=rng, lexicon=_accept_all):
            state = e.apply(state, ev)
        you = 1
    view = cast("View", e.view(state, you, now_ms=now_ms))  # the engine gives it as plain JSON
    deadline = now_ms + state.turn_seconds * 1000
    return {
        "type": "snapshot",
        "seq": state.version,
        "now": now_ms,
        "view": view,
        "clock": {"turn": state.turn, "deadline_ms": deadline, "grace_deadline_ms": None},
        "presence": [{"seat": i, "connected": True} for i in range(len(state.seats))],
    }
