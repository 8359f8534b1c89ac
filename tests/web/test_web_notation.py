"""Issue 27, point 8: one human notation. The in-game score sheet and the replay word every turn alike: a
placement's whole word with the letters already on the board in parentheses (not the GCG's ".ALANTE"),
exchanges, passes and time-outs in the same words; the GCG form only in the downloaded file."""

from __future__ import annotations

import re
from typing import Any

from app import follow, render, replay, sheet
from app.i18n import Translator
from app.state import UiState
from web_helpers import first_word, run, snapshot, started

import engine as e
from engine.board import Board
from engine.gcg import write_gcg

FR = Translator("fr")


def _through(state: e.GameState) -> e.Place:
    """Two tiles of the seat on turn, down through G7 (a tile of the first word)."""
    rack = state.seats[state.turn or 0].rack.replace("?", "")
    return e.Place(e.tiles_from_json([{"sq": "G6", "letter": rack[0]}, {"sq": "G8", "letter": rack[1]}]))


def _game() -> e.GameState:
    state = started()
    for cmd in (e.Play(0, first_word(state)),):
        state, _ = run(state, cmd)
    state, _ = run(state, e.Play(1, _through(state)))
    state, _ = run(state, e.TimeoutPass(0))
    state, _ = run(state, e.Play(1, e.Pass()))
    return state


def _sheet_words(state: e.GameState) -> list[str]:
    ui = UiState(lang="fr")
    ui.table_id, ui.seat = "t1", 0
    ui.on_frame(snapshot(state, 0), 0)
    html = render.journal(ui, FR)
    return re.findall(r'<td class="words">([^<]*)</td>', html)


def _replay_words(state: e.GameState) -> list[str]:
    rs = replay.ReplayState()
    rs.open_text(write_gcg(state), "game.gcg")

    def board_html(view: Any) -> str:
        return ""

    html = replay.html(rs, FR, board_html)
    return re.findall(r'<td class="words">([^<]*)</td>', html)


def test_a_word_played_through_a_tile_shows_that_tile_in_parentheses() -> None:
    state = started()
    state, _ = run(state, e.Play(0, first_word(state)))
    g7 = state.board["G7"]
    move = _through(state)
    words = sheet.human_words(state.board, move)
    assert words[0] == f"{move.tiles[0].letter}({g7}){move.tiles[1].letter}"
    assert sheet.human_move(f"G6 {move.tiles[0].letter}.{move.tiles[1].letter}", state.board) == (
        f"G6 {words[0]}"
    )


def test_the_sheet_and_the_replay_word_every_turn_alike() -> None:
    state = _game()
    in_game, replayed = _sheet_words(state), _replay_words(state)
    assert in_game == replayed
    assert "(" in in_game[1] and "." not in in_game[1]  # the human form, never the GCG's dots
    assert in_game[2:] == ["temps écoulé (passe)", "passe"]


def test_the_gcg_form_stays_in_the_download() -> None:
    state = _game()
    text = write_gcg(state)
    assert re.search(r"G6 \w\.\w", text)  # the played-through tile as the GCG writes it
    assert follow.turn_words("passed", (), 0, FR) == "passe"


def test_a_blank_stays_in_lower_case_inside_the_human_form() -> None:
    board = Board.empty("lexio").with_tiles(
        e.tiles_from_json([{"sq": "G7", "letter": "A"}, {"sq": "H7", "letter": "S"}])
    )
    move = e.Place(e.tiles_from_json([{"sq": "F7", "letter": "E", "blank": True}]))
    assert sheet.human_words(board, move)[0] == "e(AS)"
