"""A new table with the same players, in the UI: the asker goes there at once, the others get a Join."""

from __future__ import annotations

import random
from html.parser import HTMLParser

from app import render
from app.i18n import Translator
from app.state import UiState
from web_helpers import T0, run, snapshot, started

import engine as e

EN = Translator("en")


def ended() -> e.GameState:
    state = started()
    for _ in range(4):  # two rounds of two seats without a placement end the game
        state, _ = run(state, e.Play(state.turn, e.Pass()))  # type: ignore[arg-type]
    assert state.status == "ended"
    return state


def at_table(state: e.GameState, seat: int | None, name: str = "") -> UiState:
    ui = UiState(rng=random.Random(5))
    ui.name = name
    ui.enter_table("old")
    welcome = {"type": "welcome", "protocol": 1, "table": "old", "seat": seat, "token": "tok", "now": T0}
    ui.on_frame(welcome, T0)
    ui.on_frame(snapshot(state, seat), T0)
    return ui


def buttons(html: str) -> dict[str, dict[str, str | None]]:
    found: dict[str, dict[str, str | None]] = {}

    class Collect(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            d = dict(attrs)
            if tag == "button" and d.get("id"):
                found[str(d["id"])] = d

    Collect().feed(html)
    return found


def proposal(by: int, table: str = "new1") -> dict[str, object]:
    return {"type": "rematch", "table": table, "link": f"http://relay/t/{table}", "by": by, "now": T0}


def test_the_asker_sends_one_rematch_frame_and_goes_to_the_new_table_at_once() -> None:
    ui = at_table(ended(), 0, "P0")
    assert ui.request_rematch()
    frames = [f for f in ui.outbox if f["type"] == "rematch"]
    assert len(frames) == 1 and set(frames[0]) == {"type", "id"}
    assert not ui.request_rematch()  # a second click while waiting sends nothing more
    assert len([f for f in ui.outbox if f["type"] == "rematch"]) == 1
    assert "disabled" in buttons(render.end(ui, EN, "/gcg"))["new-table"]
    ui.on_frame(proposal(0), T0)
    ui.on_frame({"type": "ack", "id": frames[0]["id"], "seq": ui.seq, "now": T0}, T0)
    assert ui.goto == "new1"


def test_the_other_players_are_told_who_proposes_and_offered_a_join_without_moving() -> None:
    ui = at_table(ended(), 1, "P1")
    ui.on_frame(proposal(0), T0)
    assert ui.goto is None and ui.screen == "end"
    html = render.end(ui, EN, "/gcg")
    assert "P0 proposes a new table." in html
    join = buttons(html)["join-rematch"]
    # A normal join by name: the glue's "join" action with the table id.
    assert join["data-act"] == "join" and join["data-arg"] == "new1"
    assert "new-table" not in buttons(html)
    # Clicking "new table" now goes to the one already proposed: no second table.
    assert ui.request_rematch() and ui.goto == "new1"
    assert not [f for f in ui.outbox if f["type"] == "rematch"]


def test_a_spectator_is_not_offered_the_players_new_table() -> None:
    ui = at_table(ended(), None)
    ui.on_frame(proposal(0), T0)
    html = render.end(ui, EN, "/gcg")
    assert "join-rematch" not in buttons(html) and "new-table" not in buttons(html)
    assert "proposes a new table" not in html


def test_a_player_without_a_stored_name_joins_under_the_name_played_here() -> None:
    ui = at_table(ended(), 1, "")
    ui.on_frame(proposal(0), T0)
    assert ui.name == "P1" and ui.valid_name()
    kept = at_table(ended(), 1, "Paula")
    kept.on_frame(proposal(0), T0)
    assert kept.name == "Paula"


def test_a_proposal_made_while_away_arrives_with_the_snapshot() -> None:
    state = ended()
    ui = at_table(state, 1, "P1")
    snap = {**snapshot(state, 1), "rematch": {"table": "new1", "link": "x", "by": 0}}
    ui.on_frame(snap, T0)
    assert ui.rematch is not None and ui.rematch["table"] == "new1" and ui.goto is None
    assert "P0 proposes a new table." in render.end(ui, EN, "/gcg")
    mine = at_table(state, 0, "P0")
    mine.on_frame({**snapshot(state, 0), "rematch": {"table": "new1", "link": "x", "by": 0}}, T0)
    assert "You proposed a new table." in render.end(mine, EN, "/gcg")


def test_a_refused_request_shows_why_and_may_be_asked_again() -> None:
    ui = at_table(ended(), 0, "P0")
    assert ui.request_rematch()
    fid = ui.outbox[-1]["id"]
    ui.on_frame(
        {"type": "error", "id": fid, "code": "internal_error", "message": "x", "params": {}, "now": T0}, T0
    )
    assert ui.goto is None and not ui.rematch_pending
    html = render.end(ui, EN, "/gcg")
    assert "Server error." in html and "disabled" not in buttons(html)["new-table"]
    assert ui.request_rematch()


def test_an_error_about_something_else_is_not_shown_as_a_refused_request() -> None:
    ui = at_table(ended(), 0, "P0")
    ui.on_frame(
        {"type": "error", "id": "p9", "code": "game_over", "message": "x", "params": {}, "now": T0}, T0
    )
    assert 'role="alert"' not in render.end(ui, EN, "/gcg")


def test_only_a_seat_at_an_ended_game_may_ask() -> None:
    playing = at_table(started(), 0, "P0")
    assert not playing.request_rematch()
    watcher = at_table(ended(), None)
    assert not watcher.request_rematch()
    assert "new-table" not in buttons(render.end(watcher, EN, "/gcg"))
    assert not [f for f in playing.outbox + watcher.outbox if f["type"] == "rematch"]


def test_leaving_the_table_forgets_the_proposal() -> None:
    ui = at_table(ended(), 1, "P1")
    ui.on_frame(proposal(0), T0)
    ui.enter_table("new1")
    assert ui.rematch is None and ui.goto is None
