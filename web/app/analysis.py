"""The end screen's analysis of your moves (docs/protocol.md, "analyse"): the request and its panel.

After the end a seat may ask the relay, once, for the analysis of its own moves: for each of them, the
``expert`` computer player's choice with its score, and the equity (points now + value of the tiles kept)
the move played lost against it. :func:`request_analysis` sends the frame; :func:`on_analysis` keeps the
answer; :func:`analysis_panel` renders the button, then the table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import wire
from app.i18n import Translator
from app.markup import escape
from app.sheet import boards_before_turns, human_move
from engine.board import Board

if TYPE_CHECKING:
    from app.payloads import AnalysisPlay, Notice, ServerFrame
    from app.state import UiState

__all__ = ["analysis_panel", "move_text", "on_analysis", "on_analysis_error", "rack_text", "request_analysis"]


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def request_analysis(state: UiState) -> bool:
    """Ask for this seat's analysis (ended game, a seat, connected, not asked yet). Returns whether sent."""
    if state.screen != "end" or state.seat is None or state.cut_off:
        return False
    if state.analysis is not None or state.analysis_pending:
        return False
    state.analysis_pending = True
    state.analysis_error = None
    state.send(wire.Analyse())
    return True


def on_analysis(state: UiState, frame: ServerFrame) -> None:
    moves = frame.get("moves")
    if isinstance(moves, list) and frame.get("seat") == state.seat:
        state.analysis = [m for m in moves if isinstance(m, dict)]
        state.analysis_pending = False


def on_analysis_error(state: UiState, error: Notice) -> None:
    state.analysis_pending = False
    state.analysis_error = error


def rack_text(rack: object) -> str:
    """A rack as shown beside a move: its letters, a blank as "?" (the GCG's and the rules' sign)."""
    return str(rack) if isinstance(rack, str) else ""


def move_text(m: AnalysisPlay, tr: Translator, board: Board | None) -> str:
    """A move of the analysis as the score sheet words it: a placement's position and main word in the human
    form (app.sheet.human_move, on ``board``, the board it was played on), an exchange, a pass."""
    kind = m.get("kind")
    if kind == "swap":
        return tr.t("analysis_swap", tiles=m.get("tiles", ""))
    if kind == "pass":
        return tr.t("analysis_pass")
    return human_move(str(m.get("notation", "")), board, [str(w) for w in m.get("words") or ()])


def analysis_panel(state: UiState, tr: Translator) -> str:
    """The button asking for the analysis, or the analysis itself (empty for a spectator)."""
    if state.seat is None:
        return ""
    moves = state.analysis
    if moves is None:
        parts = []
        if state.analysis_error is not None:
            code, params = state.analysis_error
            parts.append(
                f'<p class="error" role="alert" data-testid="analysis-error">{_e(tr.error(code, params))}</p>'
            )
        # While it computes: aria-disabled (a disabled button would drop the focus to the page).
        busy = (
            ' aria-disabled="true" aria-busy="true"'
            if state.analysis_pending
            else (" disabled" if state.cut_off else "")
        )
        label = tr.t("analysis_pending" if state.analysis_pending else "analysis_ask")
        parts.insert(
            0,
            f'<button type="button" id="ask-analysis" data-act="analyse"{busy}>{_e(label)}</button>',
        )
        return (
            f'<section class="analysis" aria-label="{_e(tr.t("analysis_title"))}">{"".join(parts)}</section>'
        )
    rows = []
    lost_total = 0.0
    best_count = 0
    boards = boards_before_turns(state.view or {})
    for m in moves:
        turn = m.get("turn")
        board = boards.get(turn) if isinstance(turn, int) else None
        played, best = m.get("played") or {}, m.get("best") or {}
        lost = float(m.get("lost", 0) or 0)
        lost_total += lost
        same = lost < 0.05
        best_count += same
        best_cell = tr.t("analysis_same") if same else move_text(best, tr, board)
        # The rack held then (older analyses kept by the browser have none): why the choice was the best.
        rows.append(
            f'<tr data-testid="analysis-row"><td class="num">{_e(m.get("turn", ""))}</td>'
            f'<td class="rack-held" data-testid="analysis-rack">{_e(rack_text(m.get("rack")))}</td>'
            f'<td>{_e(move_text(played, tr, board))}</td><td class="num">{_e(played.get("score", 0))}</td>'
            f'<td>{_e(best_cell)}</td><td class="num">{"" if same else _e(best.get("score", 0))}</td>'
            # The column says "lost": the amount needs no minus sign (no double negative).
            f'<td class="num">{"" if same else _e(tr.num(lost))}</td></tr>'
        )
    summary = tr.t("analysis_summary", best=best_count, moves=len(moves), lost=tr.num(lost_total))
    head = "".join(
        f'<th scope="col">{_e(tr.t(k))}</th>'
        for k in (
            "analysis_turn",
            "analysis_rack",
            "analysis_played",
            "analysis_points",
            "analysis_best",
            "analysis_points",
            "analysis_lost",
        )
    )
    return (
        f'<section class="analysis" aria-labelledby="analysis-title" data-testid="analysis">'
        f'<h2 id="analysis-title" tabindex="-1">{_e(tr.t("analysis_title"))}</h2>'
        f'<p data-testid="analysis-summary">{_e(summary)}</p>'
        # Six columns do not fit a phone: the table scrolls sideways inside its own box.
        f'<div class="final-scroll" tabindex="0" role="region" aria-label="{_e(tr.t("analysis_table"))}">'
        f'<table class="final analysis-table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
        "</section>"
    )
