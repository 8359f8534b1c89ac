"""The web client resends an action whose answer was lost with its socket, with the same id, after the next
welcome (docs/protocol.md, "Resending an action"); answered actions are not resent."""

from __future__ import annotations

import random
from typing import Any

from app.state import UiState
from web_helpers import T0, snapshot, started


def _welcome() -> dict[str, Any]:
    return {"type": "welcome", "protocol": 1, "table": "t1", "seat": 0, "token": "tok", "now": T0}


def _seated() -> UiState:
    ui = UiState(rng=random.Random(5))
    ui.enter_table("t1")
    ui.on_frame(_welcome(), T0)
    ui.on_frame(snapshot(started(), 0), T0)
    return ui


def _play(ui: UiState) -> dict[str, Any]:
    ui.cursor = "G7"
    letters = ui.rack.replace("?", "")
    ui.key(letters[0])
    ui.key(letters[1])
    assert ui.submit()
    frame = next(f for f in ui.outbox if f["type"] == "place")
    ui.outbox.clear()
    return frame


def test_an_action_unanswered_when_the_socket_dropped_is_resent_with_the_same_id_after_the_welcome() -> None:
    ui = _seated()
    sent = _play(ui)
    ui.conn = "offline"  # the socket dropped before the ack came
    ui.on_frame(_welcome(), T0 + 1000)
    assert ui.outbox == [{**sent, "resent": True}]
    ui.outbox.clear()
    ui.on_frame({"type": "ack", "id": sent["id"], "seq": 7, "now": T0 + 1100}, T0 + 1100)
    ui.on_frame(_welcome(), T0 + 2000)
    assert ui.outbox == []


def test_an_answered_action_is_not_resent() -> None:
    ui = _seated()
    sent = _play(ui)
    ui.on_frame({"type": "ack", "id": sent["id"], "seq": 7, "now": T0 + 100}, T0 + 100)
    ui.on_frame(_welcome(), T0 + 1000)
    assert ui.outbox == []


def test_a_resent_action_refused_now_shows_no_stale_error() -> None:
    ui = _seated()
    sent = _play(ui)
    ui.on_frame(_welcome(), T0 + 1000)
    ui.on_frame({"type": "error", "id": sent["id"], "code": "not_your_turn", "message": "", "now": T0}, T0)
    assert ui.error is None
    # A fresh action's refusal is shown as before.
    ui.send({"type": "pass"})
    fid = ui.outbox[-1]["id"]
    ui.on_frame({"type": "error", "id": fid, "code": "not_your_turn", "message": "", "now": T0}, T0)
    assert ui.error == ("not_your_turn", {})


def test_frame_ids_differ_between_page_loads() -> None:
    a, b = _seated(), _seated()
    assert _play(a)["id"] != _play(b)["id"]


def test_a_new_table_forgets_the_old_tables_unanswered_actions() -> None:
    ui = _seated()
    _play(ui)
    ui.enter_table("t2")
    ui.on_frame({**_welcome(), "table": "t2"}, T0 + 1000)
    assert [f for f in ui.outbox if f["type"] == "place"] == []
