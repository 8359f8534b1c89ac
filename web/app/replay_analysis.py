"""The replay viewer's own-move analysis (issue 13, point 5): at each of your moves, the expert's choice.

Shown only when this browser holds the table's seat token (the table of ``/t/{id}/replay``, or the one a
dropped file names in its ``#id lexio <table>`` pragma): from the analysis this browser was served
(:mod:`app.analysis_store`), or asked for here (``POST /api/tables/{id}/analysis`` with the token, by the
glue). The analysis must belong to the record: each entry's turn falls on a move of the seat's nick, of the
same kind and (a placement) the same notation; otherwise nothing is shown.

Pure: :func:`attach` decides what the viewer offers, :func:`panel` draws it for the step shown,
:func:`lost_cell` the score sheet's extra column.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from app import analysis_store
from app.analysis import move_text, rack_text
from app.i18n import Translator
from app.markup import escape
from engine.errors import LexioError
from engine.moves import Place
from engine.notation import parse_move

if TYPE_CHECKING:
    from app.payloads import AnalysisMove, Tile, View
    from app.replay import Replay, ReplayState

__all__ = [
    "ReplayAnalysis",
    "attach",
    "best_view",
    "by_step",
    "lost_cell",
    "panel",
    "rack_at",
    "received",
    "refused",
    "toggle_best",
]

SAME = 0.05  # below this, the move played was the expert's choice (as on the end screen)


def _e(value: object) -> str:
    return escape(str(value), quote=True)


@dataclass
class ReplayAnalysis:
    """``steps``: replay step -> analysis entry, once known; ``pending``: asked, not answered."""

    table: str
    seat: int | None = None
    steps: dict[int, AnalysisMove] = field(default_factory=dict)
    pending: bool = False
    error: str | None = None  # a refusal's code
    show_best: bool = False  # the board shows the expert's choice instead of the move played

    @property
    def ready(self) -> bool:
        return self.seat is not None


def _turn_steps(rp: Replay) -> dict[int, int]:
    """Turn number (as the relay counts them: placements, exchanges and passes) -> replay step."""
    out: dict[int, int] = {}
    turn = 0
    for k, st in enumerate(rp.steps):
        if st.move is not None and st.move.kind in ("place", "swap", "pass"):
            turn += 1
            out[turn] = k
    return out


def by_step(rp: Replay, seat: int, moves: list[AnalysisMove]) -> dict[int, AnalysisMove] | None:
    """The entries placed on their replay steps, or None if they do not belong to this record."""
    if not 0 <= seat < len(rp.seat_nicks):
        return None
    nick = rp.seat_nicks[seat]
    turns = _turn_steps(rp)
    out: dict[int, AnalysisMove] = {}
    for m in moves:
        turn = m.get("turn")
        played = m.get("played")
        if not isinstance(turn, int) or turn not in turns or not isinstance(played, dict):
            return None
        step = turns[turn]
        mv = rp.steps[step].move
        assert mv is not None
        if mv.nick != nick or mv.kind != played.get("kind"):
            return None
        if mv.kind == "place" and played.get("notation") != f"{mv.position} {mv.word}":
            return None
        out[step] = m
    return out


def attach(rs: ReplayState, storage: Mapping[str, str]) -> None:
    """After a record loads: its table, if this browser holds a seat there; the analysis kept, if any."""
    rs.analysis = None
    rp = rs.replay
    if rp is None:
        return
    table = rs.table or rp.record_id
    if not table or not storage.get("lexio:" + table):
        return  # not a seat of that table (or a file from elsewhere): nothing private to show
    ra = ReplayAnalysis(table)
    got = analysis_store.load(storage, table)
    if got is not None:
        steps = by_step(rp, got[0], got[1])
        if steps is None:
            return  # kept for another record of that id: never shown against this one
        ra.seat, ra.steps = got[0], steps
    rs.analysis = ra


def received(rs: ReplayState, seat: int, moves: list[AnalysisMove]) -> bool:
    """The relay's answer to the viewer's request; False if it does not fit the record."""
    ra, rp = rs.analysis, rs.replay
    if ra is None or rp is None:
        return False
    ra.pending = False
    steps = by_step(rp, seat, moves)
    if steps is None:
        ra.error = "analysis_unavailable"
        return False
    ra.seat, ra.steps, ra.error = seat, steps, None
    return True


def refused(rs: ReplayState, code: str) -> None:
    if rs.analysis is not None:
        rs.analysis.pending, rs.analysis.error = False, code


def _lost(m: AnalysisMove) -> float:
    try:
        return float(m.get("lost", 0) or 0)
    except (TypeError, ValueError):
        return 0.0


def _best_place(rs: ReplayState) -> Place | None:
    """The expert's placement at the step shown, where it is not the move played (else None)."""
    ra, rp = rs.analysis, rs.replay
    if ra is None or rp is None or rs.step < 1:
        return None
    m = ra.steps.get(rs.step)
    before = rp.steps[rs.step - 1].position
    if m is None or before is None or _lost(m) < SAME:
        return None
    best = m.get("best") or {}
    if best.get("kind") != "place":
        return None
    try:
        move = parse_move(str(best.get("notation", "")), before)
    except (LexioError, ValueError):
        return None
    return move if isinstance(move, Place) else None


def best_view(rs: ReplayState) -> View | None:
    """While asked for: the board before the seat's move with the expert's choice on it, marked as such."""
    ra, rp = rs.analysis, rs.replay
    if ra is None or rp is None or not ra.show_best:
        return None
    move = _best_place(rs)
    before = rp.steps[rs.step - 1].position if rs.step >= 1 else None
    if move is None or before is None:
        return None
    board = before.with_tiles(move.tiles)
    return {
        "variant": rp.variant,
        "board": cast("list[Tile]", board.to_json()),
        "journal": [{"type": "placed", "tiles": [cast("Tile", t.to_dict()) for t in move.tiles]}],
        "status": "ended",
        "last_label": "ra_sq_best",
    }


def rack_at(rs: ReplayState, step: int) -> str | None:
    """The whole rack the analysed seat held at ``step`` (None: not one of its analysed moves). The record's
    own rack field shows only the tiles played: the rest is private until the end, and is the seat's own."""
    ra = rs.analysis
    m = ra.steps.get(step) if ra is not None else None
    rack = rack_text(m.get("rack")) if m is not None else ""
    return rack or None


def toggle_best(rs: ReplayState) -> None:
    if rs.analysis is not None:
        rs.analysis.show_best = not rs.analysis.show_best


def lost_cell(rs: ReplayState, step: int, tr: Translator) -> str | None:
    """The sheet's "Equity lost" cell for ``step`` (None: no such column; "" on others' moves)."""
    ra = rs.analysis
    if ra is None or not ra.ready:
        return None
    m = ra.steps.get(step)
    if m is None:
        return ""
    lost = _lost(m)
    # The column says "lost": the amount needs no minus sign (no double negative).
    return tr.t("ra_best_short") if lost < SAME else tr.num(lost)


def panel(rs: ReplayState, tr: Translator) -> str:
    """The region under the board: the analysis of the move shown, the button asking for it, or nothing."""
    ra, rp = rs.analysis, rs.replay
    if ra is None or rp is None:
        return ""
    title = f'<h2 id="ra-title" tabindex="-1">{_e(tr.t("ra_title"))}</h2>'
    head = '<section class="card replay-analysis" aria-labelledby="ra-title" data-testid="replay-analysis">'
    if not ra.ready:
        parts = [f'<p class="muted">{_e(tr.t("ra_offer"))}</p>']
        label = tr.t("analysis_pending" if ra.pending else "analysis_ask")
        # aria-disabled, not disabled: the focus stays on the button while the relay computes. Offline it
        # says why it cannot be used; a click asks again whether the network is back (the glue).
        busy = ' aria-disabled="true" aria-busy="true"' if ra.pending else ""
        if rs.offline and not ra.pending:
            busy = ' aria-disabled="true" aria-describedby="ra-offline"'
        parts.append(
            '<button type="button" id="replay-ask-analysis" data-act="replay-analyse"'
            f"{busy}>{_e(label)}</button>"
        )
        if rs.offline and not ra.pending:
            parts.append(
                '<p class="muted" id="ra-offline" data-testid="replay-analysis-offline">'
                f"{_e(tr.t('ra_offline'))}</p>"
            )
        if ra.error:
            parts.append(
                '<p class="error" role="alert" data-testid="replay-analysis-error">'
                f"{_e(tr.error(ra.error))}</p>"
            )
        return head + title + "".join(parts) + "</section>"
    m = ra.steps.get(rs.step)
    mine = sorted(ra.steps)
    if m is None:
        body = f'<p data-testid="ra-none">{_e(tr.t("ra_not_yours", n=len(mine)))}</p>'
    else:
        played, best = m.get("played") or {}, m.get("best") or {}
        lost = _lost(m)
        before = rp.steps[rs.step - 1].position if rs.step >= 1 else None
        rack = rack_text(m.get("rack"))
        rows = [(tr.t("analysis_rack"), rack)] if rack else []
        rows += [
            (
                tr.t("analysis_played"),
                f"{move_text(played, tr, before)} — {tr.t('ra_points', n=played.get('score', 0))}",
            )
        ]
        if lost < SAME:
            rows.append((tr.t("analysis_best"), tr.t("ra_same")))
        else:
            rows.append(
                (
                    tr.t("analysis_best"),
                    f"{move_text(best, tr, before)} — {tr.t('ra_points', n=best.get('score', 0))}",
                )
            )
            rows.append((tr.t("analysis_lost"), tr.num(lost)))
        body = (
            '<dl class="ra-move" data-testid="ra-move">'
            + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in rows)
            + "</dl>"
        )
    # Jump to your own moves: the way to find them without stepping through the others'.
    prev = [k for k in mine if k < rs.step]
    nxt = [k for k in mine if k > rs.step]

    def jump(bid: str, to: int | None, label: str) -> str:
        off = " disabled" if to is None else ""
        arg = f' data-arg="{to}"' if to is not None else ""
        return f'<button type="button" id="{bid}" data-act="replay-go"{arg}{off}>{_e(label)}</button>'

    show = ""
    if _best_place(rs) is not None:
        on = "true" if ra.show_best else "false"
        show = (
            f'<button type="button" id="ra-show-best" data-act="replay-best" aria-pressed="{on}">'
            f"{_e(tr.t('ra_show_best'))}</button>"
        )
    nav = (
        f'<div class="actions" role="group" aria-label="{_e(tr.t("ra_jump"))}">'
        + jump("ra-prev", prev[-1] if prev else None, "◀ " + tr.t("ra_prev"))
        + jump("ra-next", nxt[0] if nxt else None, tr.t("ra_next") + " ▶")
        + "</div>"
    )
    # Polite: stepping onto one of your moves reads its analysis after the step's own announcement.
    return head + title + f'<div aria-live="polite">{body}</div>' + show + nav + "</section>"
