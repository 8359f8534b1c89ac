"""Issue 27, point 4: when the turn leaves a seat by a time-out, nothing of that turn stays on screen."""

from __future__ import annotations

import random

from app.state import UiState
from web_helpers import T0, run, snapshot, started

import engine as e


def _seated(state: e.GameState, seat: int = 0) -> UiState:
    ui = UiState(rng=random.Random(5))
    ui.enter_table("t1")
    ui.on_frame({"type": "welcome", "protocol": 1, "table": "t1", "seat": seat, "token": "k", "now": T0}, T0)
    ui.on_frame(snapshot(state, seat), T0)
    return ui


def _refused_play(ui: UiState) -> None:
    ui.cursor = "G7"
    ui.key(ui.rack.replace("?", "")[0])
    ui.key(ui.rack.replace("?", "")[1])
    ui.submit()
    fid = ui.outbox[-1]["id"]
    ui.on_frame({"type": "rejected", "id": fid, "words": ["XQZ"], "now": T0}, T0)


def _time_out(ui: UiState, state: e.GameState) -> e.GameState:
    state, events = run(state, e.TimeoutPass(0))
    ui.on_frame(
        {
            "type": "event",
            "seq": ui.seq + 1,
            "now": T0,
            "event": e.redact_event(events[0], 0),
            "clock": {"turn": 1},
        },
        T0,
    )
    return state


def test_a_time_out_clears_the_refusal_and_the_refused_plays_tiles() -> None:
    state = started()
    ui = _seated(state)
    _refused_play(ui)
    assert ui.rejected and ui.pending
    _time_out(ui, state)
    assert not ui.my_turn
    assert ui.rejected == [] and ui.pending == () and ui.preview is None and ui.error is None


def test_a_time_out_closes_an_open_pass_confirmation() -> None:
    state = started()
    ui = _seated(state)
    ui.open_dialog("pass")
    assert ui.dialog == "pass"
    _time_out(ui, state)
    assert ui.dialog is None
    # The confirm button is gone with it: nothing can pass the next turn by mistake.
    ui.confirm_dialog()
    assert not [f for f in ui.outbox if f.get("type") == "pass"]


def test_an_opponents_time_out_leaves_my_planned_tiles_alone() -> None:
    state = started()
    ui = _seated(state, seat=1)
    ui.place(ui.available()[0], "G6")
    assert ui.pending
    _time_out(ui, state)
    assert ui.pending
