"""Following the game (issue 12): the last move on the board, the last turn in the status line, the score
sheet, the end screen's details. Real engine games folded into the UI state, as the relay would send them."""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser
from typing import Any

from app import render, sheet
from app.i18n import Translator
from app.state import UiState
from web_helpers import T0, first_word, run, snapshot, started

import engine as e

FR, EN = Translator("fr"), Translator("en")


class Cells(HTMLParser):
    """Every board square's (id, class, aria-label); and the text of each sheet row."""

    def __init__(self) -> None:
        super().__init__()
        self.squares: dict[str, tuple[str, str]] = {}
        self.rows: list[list[str]] = []
        self._in_row = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("role") == "gridcell" and a.get("data-sq"):
            self.squares[str(a["data-sq"])] = (str(a.get("class")), str(a.get("aria-label")))
        if tag == "tr" and a.get("data-testid") == "sheet-row":
            self._in_row = True
            self.rows.append([])
        elif tag in ("td", "th") and self._in_row:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "tr":
            self._in_row = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def parsed(html: str) -> Cells:
    c = Cells()
    c.feed(html)
    return c


def ui_for(state: e.GameState, seat: int | None) -> UiState:
    ui = UiState()
    ui.enter_table("t1")
    ui.on_frame(snapshot(state, seat), T0)
    return ui


def event_frame(state: e.GameState, seq: int, ev: Any, seat: int | None) -> dict[str, Any]:
    return {
        "type": "event",
        "seq": seq,
        "now": T0,
        "event": e.redact_event(ev, seat),
        "clock": {"turn": state.turn, "deadline_ms": T0 + 60_000, "grace_deadline_ms": None},
    }


def test_last_placement_is_outlined_and_named_last_move_for_seats_and_watchers() -> None:
    state = started()
    move = first_word(state)
    state, _ = run(state, e.Play(0, move))
    squares = {t.square for t in move.tiles}
    for seat, tr, word in ((0, EN, "last move"), (1, FR, "dernier coup"), (None, EN, "last move")):
        cells = parsed(render.board(ui_for(state, seat), tr)).squares
        for sq, (cls, label) in cells.items():
            if sq in squares:
                assert "last-move" in cls.split() and label.endswith(", " + word), (sq, label)
            else:
                assert "last-move" not in cls.split() and word not in label


def test_the_highlight_moves_with_the_next_placement_and_stays_through_a_pass() -> None:
    state = started()
    first = first_word(state)
    state, _ = run(state, e.Play(0, first))
    ui = ui_for(state, 0)
    # A pass keeps the placement highlighted (until the next placement).
    state, evs = run(state, e.Play(1, e.Pass()))
    ui.on_frame(event_frame(state, state.version, evs[0], 0), T0)
    assert sheet.last_placement(ui.view) == {t.square for t in first.tiles}
    # The next placement (events folded by the client, as in play) takes the highlight.
    second = e.Place((e.Tile("F8", state.seats[0].rack[0].replace("?", "E"), state.seats[0].rack[0] == "?"),))
    state, evs = run(state, e.Play(0, second))
    ui.on_frame(event_frame(state, state.version, evs[0], 0), T0)
    assert sheet.last_placement(ui.view) == {"F8"}
    cells = parsed(render.board(ui, EN)).squares
    assert cells["F8"][1].endswith(", last move")
    assert not any(cells[t.square][1].endswith("last move") for t in first.tiles)


def test_a_swap_or_a_pass_by_the_player_before_is_said_in_the_status_line() -> None:
    state = started()
    state, evs = run(state, e.Play(0, e.Swap(state.seats[0].rack[:3])))
    ui = ui_for(state, 1)
    html = render.status(ui, EN, T0)
    assert 'data-testid="last-action"' in html and "P0 swaps 3 tiles" in html
    assert "P0 échange 3 jetons" in render.status(ui, FR, T0)
    assert render.announce(ui, EN).startswith("P0 swaps 3 tiles. Your turn")
    state, evs = run(state, e.Play(1, e.Pass()))
    ui.on_frame(event_frame(state, state.version, evs[0], 1), T0)
    assert "P1 passes" in render.status(ui, EN, T0)
    state, evs = run(state, e.TimeoutPass(0))
    ui.on_frame(event_frame(state, state.version, evs[0], 1), T0)
    assert "The table passes for P0 (time up)" in render.status(ui, EN, T0)


def _reject_all(words: Any) -> Any:
    return list(words)


def test_the_score_sheet_has_gcg_positions_words_points_running_totals_and_marks() -> None:
    state = started()
    move = first_word(state)
    state, _ = run(state, e.Play(0, move))
    state, _ = run(state, e.Play(1, e.Swap(state.seats[1].rack[:2])))
    state, _ = run(state, e.Play(0, e.Pass()))
    state, _ = run(state, e.TimeoutPass(1))
    ui = ui_for(state, 1)
    html = render.journal(ui, EN)
    assert "<table" in html and "<caption" in html and 'tabindex="0"' in html and 'role="region"' in html
    rows = parsed(html).rows
    # Seating and the start are not rows: four turns, oldest first.
    assert [r[0] for r in rows] == ["1", "2", "3", "4"]
    first = rows[0]
    placed = state.events[[type(x).__name__ for x in state.events].index("Placed")]
    assert first[1] == "P0" and first[2] == "7F"
    # One word, the blank (seed 3 deals one to P0) in lower case.
    assert first[3] == "".join(t.letter.lower() if t.blank else t.letter for t in move.tiles)
    assert any(t.blank for t in move.tiles)
    assert first[4] == f"+{placed.score}"  # type: ignore[attr-defined]
    assert first[5] == str(placed.score) and first[6] == ""  # type: ignore[attr-defined]
    # In words, no glyph a stock font may lack (issue 27, points 6 and 8).
    assert rows[1][3] == "swap 2" and rows[2][3] == "pass" and rows[3][3] == "time up (pass)"
    # The per-player column headers carry the totals.
    assert f"P0: {placed.score}" in html and "P1: 0" in html  # type: ignore[attr-defined]


def test_a_blank_is_lower_case_and_a_down_word_is_column_first() -> None:
    state = started()
    rack = state.seats[0].rack
    # Down through the source (G7): column then row.
    letters = [("?" if i == 0 else ch) for i, ch in enumerate(rack[:3])]
    tiles = tuple(
        e.Tile(sq, "Z" if ch == "?" else ch, ch == "?")
        for sq, ch in zip(("G6", "G7", "G8"), letters, strict=True)
    )
    view = e.view(state, 0, now_ms=T0)
    board = e.Board.empty("lexio")
    bd = e.analyse(board, tiles)
    ev = {
        "type": "placed",
        "seat": 0,
        "tiles": [t.to_dict() for t in tiles],
        "words": list(bd.word_list),
        "score": bd.total,
    }
    view["journal"] = [*view["journal"], ev]
    sh = sheet.build(view, 0)
    assert sh.rows[0].position == "G6"
    assert sh.rows[0].words[0].startswith("z")


def test_own_refused_attempts_are_listed_apart_to_that_player_only() -> None:
    state = started()
    move = first_word(state)
    evs = e.decide(state, e.Play(0, move), now_ms=T0, rng=random.Random(1), lexicon=_reject_all)
    for ev in evs:
        state = e.apply(state, ev)
    assert any(type(x).__name__ == "Rejected" for x in evs)
    mine = render.journal(ui_for(state, 0), EN)
    theirs = render.journal(ui_for(state, 1), EN)
    watcher = render.journal(ui_for(state, None), EN)
    assert 'data-testid="own-refused"' in mine and "turn 1: 7F" in mine
    for word in evs[0].unknown:  # type: ignore[attr-defined]
        assert word in mine
    assert "own-refused" not in theirs and "own-refused" not in watcher
    assert not parsed(mine).rows  # a refused try is not a turn


def _ended() -> e.GameState:
    state = started()
    state, _ = run(state, e.Play(0, first_word(state)))
    while state.status == "playing":
        state, _ = run(state, e.Play(state.turn, e.Pass()))  # type: ignore[arg-type]
    return state


def test_the_end_screen_shows_before_adjustment_with_reason_final_racks_board_and_replay() -> None:
    state = _ended()
    result = state.result
    assert result is not None
    ui = ui_for(state, 0)
    html = render.end(ui, EN, "/api/tables/t1/gcg", "/t/t1/replay")
    for seat in range(len(state.seats)):
        adj = result.adjustments[seat]
        assert f'data-testid="before-end">{result.scores[seat] - adj}<' in html
        assert f'data-testid="final-score">{result.scores[seat]}<' in html
        if adj < 0:
            assert f"{adj:+d}: tiles left ({result.racks[seat]})" in html
    # The final board, with the last move marked, and the sheet with the end lines.
    cells = parsed(html).squares
    assert any(label.endswith(", last move") for _, label in cells.values())
    assert 'id="replay-link" href="/t/t1/replay"' in html and "Replay" in html
    assert 'id="download-gcg"' in html and 'id="new-table"' in html
    rows = parsed(html).rows
    assert any("left " in r[3] for r in rows)
    assert re.search(r"Winner: P\d|Shared win", html)


def test_a_tie_is_a_shared_victory_in_french() -> None:
    state = started()
    while state.status == "playing":
        state, _ = run(state, e.Play(state.turn, e.Pass()))  # type: ignore[arg-type]
    result = state.result
    assert result is not None
    html = render.end(ui_for(state, 0), FR, "/gcg", "/replay")
    if len(result.winners) > 1:
        assert "Victoire partagée" in html
    else:
        assert "Vainqueur" in html
    assert "Revoir la partie" in html


def test_four_players_each_have_a_total_column_and_their_running_totals() -> None:
    state = e.new_state()
    for cmd in [e.CreateTable(), *(e.Join(f"P{i}") for i in range(4))]:  # the fourth starts the game
        state, _ = run(state, cmd, seed=3)
    assert state.status == "playing"
    move = first_word(state)
    state, _ = run(state, e.Play(0, move))
    for seat in (1, 2, 3):
        state, _ = run(state, e.Play(seat, e.Pass()))
    html = render.journal(ui_for(state, 2), EN)
    score = state.seats[0].score
    for i in range(4):
        assert f'data-testid="sheet-total" data-seat="{i}">P{i}: {score if i == 0 else 0}<' in html
    rows = parsed(html).rows
    assert len(rows) == 4 and all(len(r) == 9 for r in rows)  # 5 columns + one total per player
    assert rows[0][5] == str(score) and rows[3][8] == "0" and rows[3][5] == ""
