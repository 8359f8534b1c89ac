"""HTML for following the game (issue 12): the score sheet, the last turn said in words, the end's details.

Each piece is a self-contained block (a heading and its content) so that the page layout can put it in a
side column, a tab or a drawer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from app import sheet as sheet_mod
from app.i18n import Translator
from app.markup import escape
from app.members import seat_name_html
from app.ratings_view import TableRatings, at_seat, change_html, rating_html
from engine.variants import get_variant

if TYPE_CHECKING:
    from app.payloads import GameEvent, View

WIN = ' class="winner"'
END_COLUMNS = ("end_player", "end_before", "end_adjust", "end_final", "end_rack")


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _names(view: View) -> dict[int, str]:
    return {int(s.get("seat", -1)): str(s.get("name", "?")) for s in view.get("seats") or ()}


# -- the last turn, in words ------------------------------------------------------------------------------
def last_action_text(view: View | None, tr: Translator, you: int | None = None) -> str:
    """What the player before did ("Bob échange 3 jetons", "Bob passe"; empty before the first turn), or a
    try refused since then, by name (its words to its own seat only, as the redaction gives them)."""
    ev = sheet_mod.last_action(view)
    if ev is None or view is None:
        return ""
    seat = ev.get("seat")
    name = _names(view).get(seat if isinstance(seat, int) else -1, "?")
    kind = ev.get("type")
    if kind == "rejected":
        if seat == you and ev.get("unknown"):
            return tr.t("last_rejected_own", words=", ".join(str(w) for w in ev["unknown"]))
        return tr.t("last_rejected", name=name)
    if kind == "swapped":
        n = ev.get("count") if isinstance(ev.get("count"), int) else len(str(ev.get("returned", "")))
        return tr.t("last_swapped_one" if n == 1 else "last_swapped", name=name, n=n)
    if kind == "passed":
        return tr.t("last_passed", name=name)
    if kind == "timed_out":
        return tr.t("last_timed_out", name=name)
    words = ", ".join(str(w) for w in ev.get("words") or ())
    return tr.t("last_placed", name=name, words=words, score=ev.get("score", 0))


def last_action(view: View | None, tr: Translator, you: int | None = None) -> str:
    text = last_action_text(view, tr, you)
    if not text:
        return ""
    kind = (sheet_mod.last_action(view) or {}).get("type", "")
    return f'<span class="last-action" data-testid="last-action" data-kind="{_e(kind)}">{_e(text)}</span>'


# -- the score sheet --------------------------------------------------------------------------------------
def turn_words(kind: str, words: tuple[str, ...], count: int, tr: Translator) -> str:
    """A turn's "words" cell, worded alike in the sheet and the replay (app.replay): the words in their
    human form (:func:`app.sheet.human_words`), or what was done instead, in words (no glyph a stock
    font may lack)."""
    if kind == "placed":
        return ", ".join(words)
    if kind == "swapped":
        return tr.t("sheet_swap", n=count)
    if kind == "timed_out":
        return tr.t("sheet_timeout")
    return tr.t("sheet_pass")


def _row_cells(row: sheet_mod.Row, tr: Translator) -> tuple[str, str, str]:
    """(position, words, points) cells' text for one row."""
    if row.kind == "placed":
        return row.position, turn_words(row.kind, row.words, 0, tr), f"+{row.score}"
    if row.kind in ("swapped", "passed", "timed_out"):
        return "—", turn_words(row.kind, row.words, row.count, tr), "0"
    key = "sheet_end_won" if row.score > 0 else "sheet_end_lost"
    return "—", tr.t(key, tiles=row.tiles), f"{row.score:+d}"


def score_sheet(
    view: View | None, tr: Translator, you: int | None, ratings: TableRatings | None = None
) -> str:
    """The journal as a score sheet: a captioned table in a keyboard-scrollable region (newest in view); a
    registered player's column header carries their rating."""
    view = view or {}
    rated = ratings.seats if ratings is not None else {}
    names = _names(view)
    sh = sheet_mod.build(view, you)
    seats = sorted(names)
    heads = "".join(
        f'<th scope="col" class="num" data-testid="sheet-total" data-seat="{s}">'
        f"{_e(tr.t('sheet_total_of', name=names[s], total=sh.totals[s] if s < len(sh.totals) else 0))}"
        f"{rating_html(tr, rated.get(s))}</th>"
        for s in seats
    )
    body = []
    for row in sh.rows:
        pos, words, pts = _row_cells(row, tr)
        totals = "".join(f'<td class="num">{row.total if s == row.seat else ""}</td>' for s in seats)
        turn = str(row.turn) if row.turn else tr.t("sheet_end")  # a row header is never empty (axe)
        body.append(
            f'<tr data-testid="sheet-row" data-kind="{row.kind}" data-seat="{row.seat}" class="k-{row.kind}">'
            f'<th scope="row" class="num">{turn}</th><td>{_e(names.get(row.seat, "?"))}</td>'
            f'<td class="pos">{_e(pos)}</td><td class="words">{_e(words)}</td>'
            f'<td class="num">{_e(pts)}</td>{totals}</tr>'
        )
    if not body:
        cols = 5 + len(seats)
        body.append(f'<tr><td colspan="{cols}" class="muted">{_e(tr.t("sheet_empty"))}</td></tr>')
    refused = ""
    if sh.refused:
        items = "".join(
            f'<li data-testid="own-refused">'
            f"{_e(tr.t('refused_line', turn=r.turn, position=r.position, words=', '.join(r.unknown)))}</li>"
            for r in sh.refused
        )
        title = _e(tr.t("refused_title"))
        refused = f'<h3 class="refused-title">{title}</h3><ul class="refused">{items}</ul>'
    return (
        f"<h2>{_e(tr.t('sheet'))}</h2>"
        f'<div class="sheet-scroll" tabindex="0" role="region" aria-label="{_e(tr.t("sheet_region"))}" '
        'data-testid="sheet-region">'
        f'<table class="sheet" data-testid="sheet"><caption class="sr">{_e(tr.t("sheet_caption"))}</caption>'
        f'<thead><tr><th scope="col" class="num">{_e(tr.t("sheet_turn"))}</th>'
        f'<th scope="col">{_e(tr.t("sheet_player"))}</th><th scope="col">{_e(tr.t("sheet_position"))}</th>'
        f'<th scope="col">{_e(tr.t("sheet_words"))}</th><th scope="col" class="num">'
        f"{_e(tr.t('sheet_points'))}</th>{heads}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table></div>{refused}"
    )


# -- the end screen's rows --------------------------------------------------------------------------------
def _per_seat(value: object, seat: int) -> object:
    # By seat: a list, or (an older record) an object keyed by the seat number.
    if isinstance(value, list):
        return value[seat] if 0 <= seat < len(value) else None
    if isinstance(value, dict):
        return value.get(str(seat), value.get(seat))
    return None


def adjustment_text(result: GameEvent, seat: int, tr: Translator) -> str:
    """The end's adjustment with its reason: the tiles left on one's rack, or those taken from the others."""
    adj = _per_seat(result.get("adjustments"), seat)
    if not isinstance(adj, int) or adj == 0:
        return tr.t("adj_none")
    racks = [str(r) for r in result.get("racks") or ()]
    if adj < 0:
        return tr.t("adj_left", n=f"{adj:+d}", tiles=_per_seat(racks, seat) or "")
    others = "".join(r for s, r in enumerate(racks) if s != seat)
    return tr.t("adj_gain", n=f"{adj:+d}", tiles=others)


def winners_text(view: View, tr: Translator) -> str:
    result = view.get("result") or {}
    names = _names(view)
    won = [names.get(int(s), "?") for s in result.get("winners") or ()]
    if not won:
        return ""
    if len(won) > 1:
        return tr.t("winners_tie", names=", ".join(won))
    return tr.t("winner", names=won[0])


def final_rows(
    view: View,
    tr: Translator,
    tile_html: Callable[[str, int, bool], str],
    ratings: TableRatings | None = None,
) -> str:
    """One row per seat: score before the end, the adjustment and why, the final score, the rack face up;
    a registered player's rating after the game, and a rated game's change of it."""
    result = view.get("result") or {}
    winners = {int(s) for s in result.get("winners") or ()}
    variant = get_variant(str(view.get("variant", "lexio")))
    rows = []
    for s in view.get("seats") or ():
        seat = int(s.get("seat", -1))
        final = _per_seat(result.get("scores"), seat)
        final = int(final) if isinstance(final, int) else int(s.get("score", 0))
        adj = _per_seat(result.get("adjustments"), seat)
        before = final - (adj if isinstance(adj, int) else 0)
        rack = _per_seat(result.get("racks"), seat) or s.get("rack") or ""
        tiles = "".join(tile_html(c, variant.values.get(c, 0), c == "?") for c in str(rack))
        win = seat in winners
        rating = at_seat(ratings, s)
        rows.append(
            f'<tr data-testid="final-row"{WIN if win else ""}>'
            f'<th scope="row">{"★ " if win else ""}{seat_name_html(tr, s, rating=rating)}'
            f"{change_html(tr, rating)}</th>"
            f'<td class="num" data-testid="before-end">{before}</td>'
            f'<td data-testid="adjustment">{_e(adjustment_text(result, seat, tr))}</td>'
            f'<td class="num" data-testid="final-score">{final}</td>'
            # The cell stays a table cell (its border in line); the tiles' flex row is inside it.
            f'<td><span class="rack-face" data-testid="final-rack">{tiles}</span></td></tr>'
        )
    head = "".join(f'<th scope="col">{_e(tr.t(k))}</th>' for k in END_COLUMNS)
    return f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
