"""HTML for every screen, as strings, from a :class:`~app.state.UiState` (pure; also run at build time
to pre-render the static shell).

The page is split into regions (``id`` → HTML); the browser glue writes only the regions whose HTML changed,
and board squares one by one (``board_cells``), so placing a tile touches a few nodes, not the page.
Stable hooks for tests: every interactive element has an ``id`` or ``data-testid`` (see web/README.md).
"""

# ruff: noqa: RUF001  (multiplication signs and dashes are deliberate UI typography)

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from app import chat, ending, follow
from app.home_more import level_label, opening_table
from app.i18n import Translator
from app.markup import escape
from app.members import header_control, seat_name_html
from app.ratings_view import at_seat, chance_text, table_kind
from app.screens import duration as _duration  # noqa: F401  (re-exported: tests, older callers)
from app.screens import (  # noqa: F401  (home, invite, name_error, table_list: re-exported for the glue)
    h1,
    home,
    invite,
    name_error,
    names_at_each_event,
    seat_name,
    table_list,
    watchers_text,
)
from app.sheet import last_placement
from app.state import LEVELS, UiState
from app.timing import effective_deadline, format_countdown, remaining_ms, reserve_now, seconds_until
from app.unseen import unseen_counts, unseen_total
from engine.variants import BLANK, Kind, Variant

if TYPE_CHECKING:
    from app.payloads import GameEvent, SeatView, View
    from engine import WordScore

SEL = ' aria-selected="true"'
ON_TURN = ' class="on-turn"'
BOARD_SLOT = 'id="t-board" class="board-wrap">'
KIND_CODE = {
    Kind.WORD2: "word2",
    Kind.WORD3: "word3",
    Kind.LETTER2: "letter2",
    Kind.LETTER3: "letter3",
    Kind.CROSSING: "crossing",
    Kind.SOURCE: "source",
    Kind.PLAIN: "plain",
    Kind.WALL: "wall",
}


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _attr_t(tr: Translator, code: str, **params: object) -> str:
    return _e(tr.t(code, **params))


# -- header and banner ------------------------------------------------------------------------------------
def _presence(state: UiState, tr: Translator, seat: SeatView) -> tuple[str, str]:
    """(CSS class, text) of a seat's connection. While this client is itself cut off from the relay it
    knows nobody's, bots' included: saying "connected" then would be a guess presented as a fact."""
    if state.cut_off:
        return "unknown", f"? {tr.t('presence_unknown')}"
    if seat.get("bot") or state.presence.get(int(seat.get("seat", -1)), False):
        return "ok", f"● {tr.t('connected')}"
    return "bad", f"○ {tr.t('disconnected')}"


def shell_header(state: UiState, tr: Translator, extra: str = "", *, menu_open: bool = False) -> str:
    """``extra``: controls of the glue's own (the turn sound toggle), before the language switch; last, the
    account's ("Sign in", or the signed-in nickname and its menu: app.members)."""
    other = "en" if tr.lang == "fr" else "fr"
    # The word is said to screen readers only on a phone (lexio.css): the mark stays in sight.
    if state.conn == "online":
        word = f'<span class="conn-word">{_e(tr.t("connected"))}</span>'
        conn = f'<span class="conn ok" data-testid="conn-state">● {word}</span>'
    elif state.conn in ("connecting", "offline"):
        word = f'<span class="conn-word">{_e(tr.t("connecting"))}</span>'
        conn = f'<span class="conn bad" data-testid="conn-state">○ {word}</span>'
    else:
        conn = ""
    if state.demo:  # said in the header's line: it neither covers the page nor pushes it down
        conn = f'<span class="demo-badge" data-testid="demo-banner">{_e(tr.t("demo_mode"))}</span>'
    return (
        f'<a class="brand" href="/" id="home-link" data-act="home">{_e(tr.t("app_title"))}</a>'
        f'<span class="tagline">{_e(tr.t("tagline"))}</span>{conn}{extra}'
        f'<a class="rules-link" id="rules-link" href="rules.{tr.lang}.html" target="_blank" rel="noopener">'
        f"{_e(tr.t('rules'))}</a>"
        f'<button type="button" id="lang-switch" data-act="lang" data-arg="{other}" lang="{other}" '
        f'aria-label="{_attr_t(tr, "lang_switch_label")}">{_e(tr.t("lang_switch"))}</button>'
        # The offline demo table talks to no relay: nobody signs in there.
        + ("" if state.demo else header_control(state.member, menu_open, tr))
    )


def banner(state: UiState, tr: Translator, local_now: int) -> str:
    if state.conn == "offline":
        secs = int(max(0, ((state.retry_at or local_now) - local_now + 999) // 1000))
        return f'<p class="offline" data-testid="offline-banner">⚠ {_e(tr.t("offline", seconds=secs))}</p>'
    if state.conn == "stopped":
        reason = tr.t(state.stop_reason or "network_error")
        return f'<p class="offline" data-testid="offline-banner">⚠ {_e(tr.t("stopped", reason=reason))}</p>'
    parts = []
    # A name's problem is said next to its field (app.screens.name_error), not up here.
    if state.notice and not state.notice[0].startswith("name_"):
        code, params = state.notice
        parts.append(f'<p class="notice" data-testid="notice">{_e(tr.error(code, params))}</p>')
    return "".join(parts)


# -- home / lobby: app.screens (re-exported here) ----------------------------------------------------------
# -- waiting room -----------------------------------------------------------------------------------------
def waiting(state: UiState, tr: Translator, link: str) -> str:
    v = state.view or {}
    seats = v.get("seats") or []
    items = []
    for s in seats:
        marks = []
        if s.get("seat") == state.seat:
            marks.append(tr.t("you_marker"))
        if s.get("bot"):
            marks.append(f"{tr.t('bot_marker')} ({tr.t('level_' + str(s['bot']))})")
        rating = at_seat(state.ratings, s)
        if chance_text(tr, rating):
            marks.append(chance_text(tr, rating))
        cls, conn = _presence(state, tr, s)
        remove = ""
        if s.get("bot") and state.seat == 0:
            name = str(s.get("name", "?"))
            remove = (
                '<button type="button" class="small" data-act="remove-bot" '
                f'data-arg="{int(s.get("seat", 0))}" '
                f'aria-label="{_attr_t(tr, "remove_bot_label", name=name)}">{_e(tr.t("remove_bot"))}</button>'
            )
        items.append(
            f'<li data-testid="seat"{" data-bot" if s.get("bot") else ""}>'
            f'<span class="seatno">{int(s.get("seat", 0)) + 1}.</span> '
            f"<b>{seat_name_html(tr, s, bot_marker=False, rating=rating)}</b> {_e(' · '.join(marks))} "
            f'<span class="conn {cls}">{_e(conn)}</span>{remove}</li>'
        )
    host = state.seat == 0
    controls = []
    if host:
        enough = len(seats) >= 2
        controls.append(
            f'<button type="button" id="start-game" class="primary" data-act="start"'
            f"{'' if enough else ' disabled'}>{_e(tr.t('start_game'))}</button>"
        )
        if not enough:
            controls.append(f'<p class="muted">{_e(tr.t("need_players"))}</p>')
        if len(seats) < 4 and not v.get("rated"):  # a rated table seats no computer player
            opts = "".join(
                f'<option value="{lv}"{" selected" if lv == state.bot_level else ""}>'
                f"{_e(level_label(tr, lv))}</option>"
                for lv in LEVELS
            )
            controls.append(
                '<div class="row">'
                f'<label for="bot-level">{_e(tr.t("level"))}</label>'
                f'<select id="bot-level" data-bind="bot_level">{opts}</select>'
                f'<button type="button" id="add-bot" data-act="add-bot">{_e(tr.t("add_bot"))}</button></div>'
            )
    elif seats:
        controls.append(f"<p>{_e(tr.t('wait_for_host', name=seats[0].get('name', '?')))}</p>")
    if state.seat is not None:
        controls.append(
            f'<button type="button" id="leave-table" data-act="leave">{_e(tr.t("leave"))}</button>'
        )
    return (
        '<section class="waiting card" aria-labelledby="wait-title">'
        + h1("wait-title", tr.t("waiting_room"))
        + (f'<p class="rated-kind">{_e(table_kind(tr, state.ratings))}</p>' if v.get("rated") else "")
        + f'<div class="row"><input id="share-link" readonly value="{_e(link)}" '
        f'aria-label="{_attr_t(tr, "copy_link")}">'
        f'<button type="button" id="copy-link" data-act="copy-link">{_e(tr.t("copy_link"))}</button></div>'
        f'<h2>{_e(tr.t("seats"))}</h2><ol class="seats" id="seat-list">{"".join(items)}</ol>'
        f"{''.join(controls)}{_watchers(state, tr)}</section>"
    )


# -- table ------------------------------------------------------------------------------------------------
TABLE_REGIONS = ("t-status", "t-board", "t-rack", "t-preview", "t-players", "t-journal", "t-unseen")


def _watchers(state: UiState, tr: Translator) -> str:
    n = state.watchers
    return f'<p class="watchers muted" data-testid="watchers">{_e(watchers_text(tr, n))}</p>' if n else ""


def table_skeleton(tr: Translator, width: int = 13, *, watcher: bool = False) -> str:
    """The table screen's regions; ``width``: the board's columns (lexio.css sizes the board column by it);
    ``watcher``: a spectator's (no seat, so no reserve of refusals to explain)."""
    return (
        f'<div class="table-screen" style="--n:{width}">'
        + h1("table-title", tr.t("table_title")).replace("<h1 ", '<h1 class="sr" ', 1)
        + '<div class="col-board">'
        # The countdown ticks every second: no live region here (the clock has role=timer).
        '<div id="t-status" class="status"></div>'
        '<div id="t-announce" class="sr" aria-live="polite"></div>'
        '<div id="t-board" class="board-wrap"></div>'
        '<div id="t-rack" class="rack-area"></div>'
        "</div>"
        '<aside class="col-side">'
        '<div id="t-preview" class="preview card" aria-live="polite" data-testid="preview"></div>'
        '<div id="t-players" class="card players-card"></div>'
        # Secondary panels are drawers: folded on a phone, opened by the page on a wide screen. The score
        # sheet comes right under the players, always in view on a desktop; the chat folds below it.
        + drawer("d-journal", tr.t("journal"), '<div id="t-journal"></div>')
        + drawer("d-chat", tr.t("chat"), chat.panel())
        + drawer("d-unseen", tr.t("unseen"), '<div id="t-unseen"></div>')
        + drawer("d-legend", tr.t("legend"), legend(tr))
        + drawer("d-help", tr.t("help"), help_text(tr, watcher=watcher))
        + "</aside></div>"
    )


def drawer(did: str, title: str, body: str) -> str:
    return (
        f'<details class="card drawer" id="{did}" data-testid="{did}"><summary>{_e(title)}</summary>'
        f"{body}</details>"
    )


def help_text(tr: Translator, *, watcher: bool = False) -> str:
    """The keyboard, the reserve of refusals (a player's own: not for a spectator), the preview's promise,
    and the full rules."""
    reserve = "" if watcher else f'<p data-testid="help-reserve">{_e(tr.t("help_reserve"))}</p>'
    return (
        f'<p class="kbd-help" id="kbd-help">{_e(tr.t("keyboard_help"))}</p>'
        + reserve
        + f'<p data-testid="help-preview">{_e(tr.t("help_preview"))}</p>'
        f'<p><a href="rules.{tr.lang}.html" target="_blank" rel="noopener">{_e(tr.t("rules_full"))}</a></p>'
    )


def legend(tr: Translator) -> str:
    items = []
    for kind in (Kind.LETTER2, Kind.LETTER3, Kind.WORD2, Kind.WORD3, Kind.CROSSING, Kind.SOURCE):
        code = KIND_CODE[kind]
        items.append(
            f'<li><span class="sq k-{code} swatch" aria-hidden="true"><span class="lbl">'
            f"{_e(tr.t('abbr_' + code))}</span></span> {_e(tr.t('kind_' + code))}</li>"
        )
    items.append(
        f'<li><span class="sq k-wall swatch" aria-hidden="true"></span> {_e(tr.t("kind_wall"))}</li>'
    )
    return f'<ul class="legend" data-testid="legend">{"".join(items)}</ul>'


def value_html(value: int) -> str:
    """A tile's value, drawn by CSS from ``data-v``: not text of the page, so a square's or a rack tile's
    visible text is its letter alone, which its accessible name starts with (axe:
    label-content-name-mismatch); the name says the value in words."""
    return f'<sub data-v="{value}" aria-hidden="true"></sub>'


def _tile_html(letter: str, value: int, blank: bool, extra: str = "") -> str:
    cls = "tile blank" if blank else "tile"
    # A blank is worth nothing and shows no value: its dashed frame and italic letter say what it is.
    sub = "" if blank else value_html(value)
    return f'<span class="{cls}{extra}"><b>{_e(letter.upper())}</b>{sub}</span>'


class CellInputs(NamedTuple):
    """What of the local play the board's cells are drawn from (see board_cells), for one view."""

    view: View | None
    pending: dict[str, tuple[str, bool]]  # square -> (letter, blank) placed, not yet played
    words: frozenset[str]  # the previewed words' squares
    cursor: str | None
    across: bool

    def hot(self) -> set[str]:
        """Squares whose look depends on the local play: pending tiles, the cursor, the previewed words."""
        hot = set(self.pending) | self.words
        if self.cursor:
            hot.add(self.cursor)
        return hot


def cell_inputs(state: UiState) -> CellInputs:
    words = state.preview.squares() if state.preview is not None else frozenset()
    pending = {p.sq: (p.letter, p.blank) for p in state.pending}
    return CellInputs(state.view, pending, words, state.cursor, state.across)


def changed_squares(before: CellInputs, after: CellInputs) -> set[str]:
    """The squares whose cell may look different from ``before`` to ``after``: for the same view, those
    whose pending tile, place in a previewed word or cursor changed; across views, every hot square."""
    if before.view is not after.view:
        return before.hot() | after.hot()
    changed = {sq for sq, _ in before.pending.items() ^ after.pending.items()}
    changed |= before.words ^ after.words
    if (before.cursor, before.across) != (after.cursor, after.across):
        changed.update(sq for sq in (before.cursor, after.cursor) if sq)
    return changed


# The last placement's squares, for the last view asked about (views are replaced, never changed in place).
_LAST: list[tuple[View | None, frozenset[str]]] = [(None, frozenset())]


def _last_placement(view: View | None) -> frozenset[str]:
    if _LAST[0][0] is not view:
        _LAST[0] = (view, last_placement(view))
    return _LAST[0][1]


# Cells already drawn, by everything a cell is drawn from (see board_cells): moving the cursor or typing a
# letter draws a handful of squares, most of them seen before. Emptied when full.
_CELLS: dict[tuple[object, ...], str] = {}
_CELLS_MAX = 4096


def board_cells(
    state: UiState, tr: Translator, only: set[str] | None = None, inputs: CellInputs | None = None
) -> dict[str, str]:
    """Square name → the cell's HTML (walls included, so the grid keeps its shape); ``only``: just those;
    ``inputs``: :func:`cell_inputs` of ``state``, when the caller has it already."""
    variant = state.variant
    board = state.board_map()
    inputs = inputs or cell_inputs(state)
    pending, placed_words, cursor, across = inputs.pending, inputs.words, inputs.cursor, inputs.across
    cells: dict[str, str] = {}
    last = _last_placement(state.view)
    last_label = str((state.view or {}).get("last_label") or "sq_last_move")
    # Only the asked squares are visited (a key on the board asks for a handful), in the board's order.
    index = variant.index
    where = range(len(variant.names)) if only is None else sorted(map(index.__getitem__, only & index.keys()))
    for i in where:
        sq = variant.names[i]
        t = board.get(sq)
        p = pending.get(sq)
        key = (
            tr,
            variant.name,
            i,
            None if t is None else (str(t["letter"]), bool(t.get("blank"))),
            None if t is not None else p,
            sq in placed_words and p is None,
            None if sq != cursor else across,
            last_label if sq in last else None,
        )
        html = _CELLS.get(key)
        if html is None:
            if len(_CELLS) >= _CELLS_MAX:
                _CELLS.clear()
            html = _CELLS[key] = _cell(tr, variant, i, key[3], key[4], key[5], key[6], key[7])
        cells[sq] = html
    return cells


def _cell(
    tr: Translator,
    variant: Variant,
    i: int,
    tile: tuple[str, bool] | None,
    pend: tuple[str, bool] | None,
    in_word: bool,
    cursor: bool | None,
    last_label: str | None,
) -> str:
    """One square's cell: ``tile`` (letter, blank) on the board, else ``pend`` (letter, blank) placed and not
    yet played; ``in_word``: in a previewed word; ``cursor``: None off the cursor, else its direction
    (across or not); ``last_label``: the square is in the last placement, said so by this message."""
    sq = variant.names[i]
    kind = variant.kinds[i]
    code = KIND_CODE[kind]
    if kind is Kind.WALL:
        return (
            f'<div class="sq k-wall" id="sq-{sq}" role="gridcell" aria-label="{sq}, '
            f'{_attr_t(tr, "kind_wall")}"></div>'
        )
    classes = ["sq", f"k-{code}"]
    label_kind = tr.t("kind_" + code) if kind is not Kind.PLAIN else ""
    if tile is not None:
        letter, blank = tile
        value = 0 if blank else variant.values.get(letter.upper(), 0)
        inner = _tile_html(letter, value, blank)
        state_txt = (
            tr.t("sq_blank", letter=letter.upper())
            if blank
            else tr.t("sq_tile", letter=letter.upper(), value=value)
        )
        classes.append("filled")
    elif pend is not None:
        letter, blank = pend
        value = 0 if blank else variant.values.get(letter, 0)
        inner = _tile_html(letter, value, blank, " pending")
        state_txt = (
            (tr.t("sq_blank", letter=letter) if blank else tr.t("sq_tile", letter=letter, value=value))
            + ", "
            + tr.t("sq_pending")
        )
        classes.append("has-pending")
    else:
        lbl = tr.t("abbr_" + code) if kind is not Kind.PLAIN else ""
        inner = f'<span class="lbl" aria-hidden="true">{_e(lbl)}</span>' if lbl else ""
        state_txt = tr.t("sq_plain")
    if in_word:
        classes.append("in-word")
    if cursor is not None:
        classes.append("cursor")
        classes.append("dir-across" if cursor else "dir-down")
    # The name starts with what the square shows (its letter, or the premium's label), then where it is
    # and what it is: "M x3, C1, mot x3, vide", "G, 3 pt, E7" (axe: label-content-name-mismatch).
    if tile is not None or pend is not None:
        label = ", ".join(x for x in (state_txt, sq, label_kind) if x)
    else:
        label = ", ".join(x for x in (lbl, sq, label_kind, state_txt) if x)
    if last_label is not None:  # outlined and marked in CSS too: not colour alone
        classes.append("last-move")
        # The replay may show another move there (the expert's choice): the view names it.
        label += ", " + tr.t(last_label)
    return (
        f'<div class="{" ".join(classes)}" id="sq-{sq}" data-sq="{sq}" role="gridcell" '
        f'aria-label="{_e(label)}"{SEL if cursor is not None else ""}>{inner}</div>'
    )


def board(state: UiState, tr: Translator, cells: Mapping[str, str] | None = None) -> str:
    variant = state.variant
    cells = cells if cells is not None else board_cells(state, tr)
    rows = []
    for r in range(variant.height):
        row = "".join(cells[variant.names[r * variant.width + c]] for c in range(variant.width))
        rows.append(f'<div role="row" class="brow">{row}</div>')
    cols = "".join(f"<span>{chr(65 + c)}</span>" for c in range(variant.width))
    nums = "".join(f"<span>{r + 1}</span>" for r in range(variant.height))
    active = f' aria-activedescendant="sq-{state.cursor}"' if state.cursor else ""
    return (
        # --n on the frame: the column strip has as many columns as the board (13, or 15 for classic).
        f'<div class="board-frame" style="--n:{variant.width}"><span></span>'
        f'<div class="coords cols" aria-hidden="true">{cols}</div>'
        f'<div class="coords rows" aria-hidden="true">{nums}</div>'
        f'<div id="board" class="board" role="grid" tabindex="0" data-testid="board" '
        f'style="--n:{variant.width}" aria-label="{_attr_t(tr, "board_label")}"{active}>{"".join(rows)}</div>'
        "</div>"
    )


# Pieces of the rack's HTML already made (a tile, the row of buttons), by what they are made from: a key
# typed on the board redraws the rack from these. Emptied when full (a few languages x racks).
_RACK_PARTS: dict[tuple[object, ...], str] = {}
_RACK_PARTS_MAX = 512


def _rack_part(key: tuple[object, ...], html: str) -> str:
    """Keep ``html`` made for ``key``."""
    if len(_RACK_PARTS) >= _RACK_PARTS_MAX:
        _RACK_PARTS.clear()
    _RACK_PARTS[key] = html
    return html


def _rack_tile(tr: Translator, i: int, letter: str, value: int, sel: bool) -> str:
    blank = letter == BLANK
    label = tr.t("rack_blank") if blank else tr.t("rack_tile", letter=letter, value=value)
    return (
        '<button type="button" class="tile '
        f'rack-tile{" blank" if blank else ""}{" selected" if sel else ""}" '
        f'data-rack="{i}" data-testid="rack-tile" aria-pressed="{"true" if sel else "false"}" '
        f'aria-label="{_e(label)}"><b>{"?" if blank else _e(letter)}</b>{value_html(value)}</button>'
    )


def _rack_actions(tr: Translator, submit: str, recall: str, swap: str, dis: str, across: bool) -> str:
    direction = tr.t("direction_across") if across else tr.t("direction_down")
    return (
        '<div class="actions">'
        f'<button type="button" id="btn-submit" class="primary" data-act="submit"{submit}>'
        f"{_e(tr.t('submit'))}</button>"
        f'<button type="button" id="btn-recall" data-act="recall"{recall}>{_e(tr.t("recall"))}</button>'
        f'<button type="button" id="btn-shuffle" data-act="shuffle">{_e(tr.t("shuffle"))}</button>'
        # The visible arrow and word are the name (axe: label-content-name-mismatch); the title explains.
        '<button type="button" id="btn-direction" data-act="direction" '
        f'title="{_attr_t(tr, "toggle_direction")}">'
        f'<span aria-hidden="true">{_e(direction[:1])}</span> '
        f'<span class="dir-word">{_e(direction[2:])}</span>'
        "</button>"
        f'<button type="button" id="btn-swap" data-act="swap"{swap}>{_e(tr.t("swap"))}</button>'
        f'<button type="button" id="btn-pass" data-act="pass"{dis}>{_e(tr.t("pass"))}</button>'
        "</div>"
    )


def rack_area(state: UiState, tr: Translator) -> str:
    return "".join(rack_parts(state, tr))


def rack_parts(state: UiState, tr: Translator) -> tuple[str, str, str]:
    """The rack's region in three parts: ``#rack``'s opening tag, its tiles (the element's inner HTML), and
    what follows (its closing tag, the play's buttons); a spectator's line is all middle. The glue sends the
    tiles alone when the other two parts are what the page shows (a tile placed or taken back)."""
    if state.seat is None and not state.demo:
        # A spectator has no rack, no reserve and no play controls: only who is watching.
        return (
            "",
            f'<p class="watching" data-testid="watching">{_e(tr.t("watching_you"))} '
            f"{_e(watchers_text(tr, state.watchers)) if state.watchers else ''}</p>",
            "",
        )
    variant = state.variant
    rack = state.rack
    key: tuple[object, ...]
    swapping = state.dialog == "swap"
    chosen = (state.selected, tuple(sorted(state.swap_sel)) if swapping else None)
    # The row of tiles as a whole first: recalling the tiles or taking one back shows a row drawn before.
    row_key = ("row", tr, variant.name, rack, state.available(), chosen)
    tiles = _RACK_PARTS.get(row_key)
    if tiles is None:
        row = []
        values = variant.values
        for i in state.available():
            letter = rack[i]
            sel = state.selected == i or (swapping and i in state.swap_sel)
            key = ("tile", tr, variant.name, i, letter, sel)
            html = _RACK_PARTS.get(key)
            if html is None:
                html = _rack_part(key, _rack_tile(tr, i, letter, values.get(letter, 0), sel))
            row.append(html)
        tiles = _rack_part(row_key, "".join(row))
    mine = state.my_turn and not state.cut_off  # a move made offline could not be sent
    busy = bool(state.awaiting)
    dis = "" if mine and not busy else " disabled"
    swap_dis = "" if mine and state.can_swap() and not busy else " disabled"
    submit = dis if state.pending else " disabled"
    recall = "" if state.pending else " disabled"
    key = ("actions", tr, submit, recall, swap_dis, dis, state.across)
    actions = _RACK_PARTS.get(key) or _rack_part(
        key, _rack_actions(tr, submit, recall, swap_dis, dis, state.across)
    )
    head = _RACK_PARTS.get(("head", tr)) or _rack_part(
        ("head", tr),
        f'<div class="rack" id="rack" role="group" aria-label="{_attr_t(tr, "rack")}" data-testid="rack">',
    )
    return (head, tiles, "</div>" + actions)


def _word_factors(v: Variant, w: WordScore, tr: Translator) -> list[str]:
    """The word's multipliers, each stated once: word squares, then crossings.

    The engine's ``word_mult`` is the whole multiplier (word squares x 2 per crossing that applied), so the
    crossings are what is left after dividing out the word squares under the new tiles.
    """
    whole = w.word_mult
    squares = 1
    for lt in w.letters:
        i = v.index.get(lt.sq)
        if lt.new and i is not None:
            squares *= v.word_mult[i]
    crossings = 0
    if w.crossing and whole % squares == 0:
        rest = whole // squares
        while rest > 1 and rest % 2 == 0:
            rest //= 2
            crossings += 1
        if rest != 1:  # not this board's squares (a stale view): state only the whole multiplier
            squares, crossings = whole, 0
    else:
        squares = whole
    out = []
    if squares > 1:
        out.append(tr.t("mult_word", n=squares))
    if crossings == 1:
        out.append(tr.t("mult_crossing"))
    elif crossings > 1:
        out.append(tr.t("mult_crossings", k=crossings, n=2**crossings))
    return out


# Each previewed word's line, by what it is drawn from (the engine's word is a hashable named tuple): a key
# typed on the board draws only the words it changed. Emptied when full.
_WORD_LINES: dict[tuple[Translator, str, WordScore], str] = {}
_WORD_LINES_MAX = 256


def _word_line(v: Variant, w: WordScore, tr: Translator) -> str:
    key = (tr, v.name, w)
    html = _WORD_LINES.get(key)
    if html is None:
        letters = [
            f"{lt.letter}{lt.value}×{lt.letter_mult}" if lt.letter_mult > 1 else f"{lt.letter}{lt.value}"
            for lt in w.letters
        ]
        mults = _word_factors(v, w, tr)
        detail = " + ".join(letters) + (f" ; {', '.join(mults)}" if mults else "")
        html = (
            f'<li data-testid="preview-word"><b>{_e(w.word)}</b> {w.score} '
            f'<span class="muted">({_e(detail)})</span></li>'
        )
        if len(_WORD_LINES) >= _WORD_LINES_MAX:
            _WORD_LINES.clear()
        _WORD_LINES[key] = html
    return html


# The preview's fixed lines in each language: its title, the empty preview, the no-promise note.
_PREVIEW_LINES: dict[Translator, tuple[str, str, str]] = {}


def _preview_lines(tr: Translator) -> tuple[str, str, str]:
    lines = _PREVIEW_LINES.get(tr)
    if lines is None:
        lines = _PREVIEW_LINES[tr] = (
            f'<h2 class="sr-title">{_e(tr.t("preview"))}</h2>',
            f'<p class="muted">{_e(tr.t("preview_empty"))}</p>',
            f'<p class="note muted">{_e(tr.t("preview_note"))}</p>',
        )
    return lines


def preview(state: UiState, tr: Translator) -> str:
    if state.seat is None and not state.demo:
        return ""  # a spectator places nothing (the empty region is not shown)
    title, empty, note = _preview_lines(tr)
    parts = [title]
    if state.view is not None:
        parts.append(ending.scoreless_line(state.view, tr, where="below"))
    if state.rejected:
        parts.append(
            f'<p class="rejected" role="alert" data-testid="rejected">✖ '
            f"{_e(tr.t('rejected_words', words=', '.join(state.rejected)))}</p>"
        )
    if state.error:
        code, params = state.error
        parts.append(f'<p class="error" role="alert" data-testid="error">✖ {_e(tr.error(code, params))}</p>')
    prev = state.preview
    if prev is None:
        parts.append(empty)
    elif prev.breakdown is None:
        err = prev.error or {}
        parts.append(
            f'<p class="problem" data-testid="preview-problem" data-code="{_e(err.get("code", ""))}">⚠ '
            f"{_e(tr.error(str(err.get('code', '')), err.get('params') or {}))}</p>"
        )
    else:
        bd = prev.breakdown
        v = state.variant
        words = "".join([_word_line(v, w, tr) for w in bd.words])
        bingo = f"<li>{_e(tr.t('preview_bingo', n=bd.bingo))}</li>" if bd.bingo else ""
        parts.append(
            '<p class="total" data-testid="preview-total">'
            f"{_e(tr.t('preview_total', total=bd.total))}</p>"
            f'<ul class="words">{words}{bingo}</ul>{note}'
        )
    return "".join(parts)


def status_clock(state: UiState, server_now: int) -> tuple[object, ...]:
    """What of :func:`status` changes with time alone (the countdown's seconds and urgency, the reserve's
    tries and seconds to its refill): the glue draws the line again only when this or the view changed."""
    left = remaining_ms(effective_deadline(state.clock), server_now)
    tries, next_ms = reserve_now((state.view or {}).get("reserve"), server_now)
    urgent = left is not None and left < 15_000
    return format_countdown(left), urgent, tries, seconds_until(next_ms, server_now)


def status(state: UiState, tr: Translator, server_now: int) -> str:
    v = state.view or {}
    seats = v.get("seats") or []
    names = {int(s.get("seat", -1)): str(s.get("name", "?")) for s in seats}
    turn = v.get("turn")
    who = (
        tr.t("your_turn")
        if state.my_turn
        else tr.t("turn_of", name=names.get(turn if isinstance(turn, int) else -1, "?"))
    )
    deadline = effective_deadline(state.clock)
    left = remaining_ms(deadline, server_now)
    # Cut off from the relay, the deadline may have passed or moved (a timeout, a play): don't count down.
    offline = state.cut_off
    shown = f"–:–– ({tr.t('clock_unknown')})" if offline else format_countdown(left)
    urgent = not offline and left is not None and left < 15_000
    tries, next_ms = reserve_now(v.get("reserve"), server_now)
    refill = seconds_until(next_ms, server_now)
    reserve = tr.t("reserve", tries=tries if tries is not None else "–")
    if refill is not None:
        reserve += " · " + tr.t("reserve_refill", seconds=refill)
    watching = (
        f'<span class="watchers" data-testid="watchers">{_e(watchers_text(tr, state.watchers))}</span>'
        if state.watchers
        else ""
    )
    reserve_html = (
        f'<span class="reserve" data-testid="reserve">{_e(reserve)}</span>' if state.seat is not None else ""
    )
    return (
        f'<span class="turn{" mine" if state.my_turn else ""}" data-testid="turn">'
        f"{'▶ ' if state.my_turn else ''}{_e(who)}</span>"
        f'<span class="clock{" urgent" if urgent else ""}" role="timer" '
        f'aria-label="{_attr_t(tr, "time_left")}" '
        f'id="countdown" data-testid="countdown">{_e(tr.t("time_short"))} {_e(shown)}</span>'
        f'<span class="bag" data-testid="bag">{_e(tr.t("bag_n", n=v.get("bag_size", "?")))}</span>'
        f"{ending.scoreless_line(v, tr, where='status' if state.seat is not None else 'watching')}"
        f"{watching}{reserve_html}"
        f"{follow.last_action(v, tr, state.seat)}"
    )


def announce(state: UiState, tr: Translator) -> str:
    """Whose turn it is, for screen readers: changes only when the turn does (a live region)."""
    v = state.view or {}
    if v.get("status") != "playing":
        return ""
    before = follow.last_action_text(v, tr, state.seat)
    before = _e(before) + ". " if before else ""
    if state.my_turn:
        return before + _e(tr.t("your_turn"))
    names = {int(s.get("seat", -1)): str(s.get("name", "?")) for s in v.get("seats") or []}
    turn = v.get("turn")
    return before + _e(tr.t("turn_of", name=names.get(turn if isinstance(turn, int) else -1, "?")))


def players(state: UiState, tr: Translator) -> str:
    v = state.view or {}
    rows = []
    for s in v.get("seats") or []:
        seat = int(s.get("seat", -1))
        on_turn = v.get("turn") == seat and v.get("status") == "playing"
        cls, conn = _presence(state, tr, s)
        you = f" {_e(tr.t('you_marker'))}" if seat == state.seat else ""
        rows.append(
            f'<tr data-testid="player" data-seat="{seat}"{ON_TURN if on_turn else ""}>'
            f'<td>{"▶" if on_turn else ""}<span class="sr">'
            f"{_e(tr.t('on_turn')) if on_turn else ''}</span></td>"
            f'<th scope="row">{seat_name_html(tr, s, rating=at_seat(state.ratings, s))}{you}</th>'
            f'<td class="num" data-testid="player-score">{int(s.get("score", 0))}</td>'
            f'<td class="tiles">{_e(tr.t("tiles_n", n=s.get("rack_size", 0)))}</td>'
            f'<td class="conn {cls}">{_e(conn)}</td></tr>'
        )
    kind = table_kind(tr, state.ratings)
    rated = f'<p class="rated-kind" data-testid="rated-kind">{_e(kind)}</p>' if kind else ""
    return (
        f'<h2>{_e(tr.t("players"))}</h2>{rated}<table class="players" data-testid="players">'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _seat_name(names: Mapping[int, str], seat: object) -> str:
    return names.get(seat if isinstance(seat, int) else -1, "?")


def journal_line(ev: GameEvent, names: Mapping[int, str], tr: Translator, you: int | None) -> str:
    kind = ev.get("type")
    name = _seat_name(names, ev.get("seat"))
    if kind == "table_created":
        return tr.t("j_created")
    if kind == "seat_joined":
        return tr.t("j_joined", name=ev.get("name", name))
    if kind == "seat_left":
        return tr.t("j_left", name=name)
    if kind == "game_started":
        return tr.t("j_started")
    if kind == "placed":
        words = ev.get("words") or []
        shown = ", ".join(str(w.get("word", "")) if isinstance(w, dict) else str(w) for w in words)
        return tr.t("j_placed", name=name, words=shown, score=ev.get("score", 0))
    if kind == "swapped":
        count = ev.get("count")
        if count is None:
            count = len(str(ev.get("returned") or ""))
        return tr.t("j_swapped", name=name, n=count)
    if kind == "passed":
        return tr.t("j_passed", name=name)
    if kind == "timed_out":
        return tr.t("j_timedout", name=name)
    if kind == "rejected":
        unknown = ev.get("unknown")
        if ev.get("seat") == you and unknown:
            return tr.t("j_rejected_own", words=", ".join(map(str, unknown)))
        return tr.t("j_rejected", name=name)
    if kind == "game_ended":
        return tr.t("j_ended")
    return str(kind)


def journal(state: UiState, tr: Translator) -> str:
    """The journal, as a score sheet (app.follow): one row per turn, the seat's own refused tries apart."""
    return follow.score_sheet(state.view, tr, state.seat, state.ratings)


def unseen(state: UiState, tr: Translator) -> str:
    v = state.view or {}
    if not v:
        return ""
    counts = unseen_counts(v)
    cells = "".join(f"<li><b>{_e(letter)}</b><span>{n}</span></li>" for letter, n in counts.items())
    return (
        f'<h2>{_e(tr.t("unseen"))}</h2><p class="muted" data-testid="unseen-total">'
        f'{_e(tr.t("unseen_total", n=unseen_total(v)))}</p><ul class="unseen" data-testid="unseen">'
        f"{cells}</ul>"
    )


def dialog(state: UiState, tr: Translator) -> str:
    if state.dialog == "blank":
        keys = "".join(
            f'<button type="button" data-act="blank-letter" data-arg="{c}" aria-label="{c}">{c}</button>'
            for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        )
        return _modal(
            "blank-dialog", tr.t("blank_dialog"), f'<div class="letters">{keys}</div>', tr, confirm=False
        )
    if state.dialog == "pass":
        return _modal("pass-dialog", tr.t("pass_dialog"), "", tr)
    if state.dialog == "swap":
        bag = int((state.view or {}).get("bag_size", 0))
        n = len(state.swap_sel)
        body = rack_area_swap(state, tr)
        if n > bag:
            body += f'<p class="error">{_e(tr.t("swap_bag_low", n=bag))}</p>'
        return _modal(
            "swap-dialog",
            tr.t("swap_dialog"),
            body,
            tr,
            confirm_label=tr.t("swap_confirm", n=n),
            confirm_ok=0 < n <= bag,
        )
    return ""


def rack_area_swap(state: UiState, tr: Translator) -> str:
    rack = state.rack
    out = []
    for i in state.rack_order:
        sel = i in state.swap_sel
        letter = rack[i]
        out.append(
            f'<button type="button" class="tile rack-tile{" selected" if sel else ""}" data-rack="{i}" '
            f'data-testid="swap-tile" aria-pressed="{"true" if sel else "false"}">'
            f"<b>{_e(letter)}</b></button>"
        )
    return f'<div class="rack">{"".join(out)}</div>'


def _modal(
    mid: str,
    title: str,
    body: str,
    tr: Translator,
    *,
    confirm: bool = True,
    confirm_label: str | None = None,
    confirm_ok: bool = True,
) -> str:
    buttons = (
        f'<button type="button" id="dialog-cancel" data-act="dialog-cancel">{_e(tr.t("cancel"))}</button>'
    )
    if confirm:
        buttons = (
            f'<button type="button" id="dialog-confirm" class="primary" data-act="dialog-confirm"'
            f"{'' if confirm_ok else ' disabled'}>{_e(confirm_label or tr.t('confirm'))}</button>" + buttons
        )
    return (
        f'<div class="backdrop"><div class="modal" role="dialog" aria-modal="true" id="{mid}" '
        f'aria-labelledby="{mid}-title"><h2 id="{mid}-title">{_e(title)}</h2>{body}'
        f'<div class="actions">{buttons}</div></div></div>'
    )


# -- end --------------------------------------------------------------------------------------------------
def end(state: UiState, tr: Translator, gcg_url: str, replay_url: str = "") -> str:
    from app.analysis import analysis_panel  # the end screen only: off the first path (app.loader)

    v = state.view or {}
    reason_txt = ending.end_reason(v, tr)  # why it ended, in plain words (issue 27)
    replay = (
        f'<a class="button" id="replay-link" href="{_e(replay_url)}" data-act="replay" '
        f'data-arg="{_e(state.table_id or "")}">{_e(tr.t("replay_link"))}</a>'
        if replay_url
        else ""
    )
    return (
        '<div class="end-screen"><section class="end card" aria-labelledby="end-title">'
        + h1("end-title", tr.t("game_over"))
        + f'<p class="winner-line" data-testid="winners">{_e(follow.winners_text(v, tr))}</p>'
        f'<p class="end-reason" data-testid="end-reason">{_e(reason_txt)}</p>'
        # Scrolled sideways on a phone (the racks): a region the keyboard can reach and scroll.
        f'<div class="final-scroll" tabindex="0" role="region" aria-label="{_attr_t(tr, "final_scores")}">'
        f'<table class="final" data-testid="final-scores"><caption>{_e(tr.t("final_scores"))}</caption>'
        f"{follow.final_rows(v, tr, _tile_html, state.ratings)}</table></div>"
        '<div class="actions">'
        f'<a class="button" id="download-gcg" href="{_e(gcg_url)}" download="lexio.gcg">'
        f"{_e(tr.t('download_gcg'))}</a>{replay}"
        f"{_rematch_button(state, tr)}"
        f'<button type="button" id="back-home" data-act="home">{_e(tr.t("back_home"))}</button>'
        f"</div>{_rematch_offer(state, tr)}{analysis_panel(state, tr)}</section>"
        f'<section class="end-board card" aria-labelledby="final-board-title">'
        f'<h2 id="final-board-title">{_e(tr.t("final_board"))}</h2>'
        f"{board(state, tr)}</section>"
        f'<div class="end-journal card">{journal(state, tr)}</div></div>'
    )


def _rematch_button(state: UiState, tr: Translator) -> str:
    # Only a seat may ask (docs/protocol.md); once a table is proposed, the offer below replaces it.
    if state.rematch is not None or state.seat is None:
        return ""
    off = ' disabled aria-busy="true"' if state.rematch_pending else (" disabled" if state.cut_off else "")
    return (
        f'<button type="button" id="new-table" class="primary" data-act="rematch"{off}>'
        f"{_e(tr.t('new_table_same'))}</button>"
    )


def _rematch_offer(state: UiState, tr: Translator) -> str:
    """The "X proposes a new table" line and its Join button (a normal join: data-act=join, the id)."""
    parts = []
    if state.rematch_error is not None and state.rematch is None:
        code, params = state.rematch_error
        parts.append(f'<p class="error" role="alert" data-testid="error">{_e(tr.error(code, params))}</p>')
    # Spectators are not offered the Join: the new table is for the players (seats go in arrival order).
    if state.rematch is not None and state.seat is not None:
        mine = state.rematch.get("by") == state.seat
        text = tr.t("rematch_mine") if mine else tr.t("rematch_by", name=state.rematch_proposer() or "?")
        parts.append(
            f'<p data-testid="rematch-offer">{_e(text)} '
            f'<button type="button" id="join-rematch" class="primary" data-act="join" '
            f'data-arg="{_e(state.rematch["table"])}">{_e(tr.t("join_rematch"))}</button></p>'
        )
    if not parts:
        return ""
    return f'<div class="rematch" role="status" aria-live="polite">{"".join(parts)}</div>'


def forget_drawn() -> None:
    """Empty every piece of HTML this module keeps (cells, rack parts, preview lines, the last placement):
    the next drawing is made from scratch (tests compare it with what the kept pieces made)."""
    _LAST[0] = (None, frozenset())
    for kept in (_CELLS, _RACK_PARTS, _WORD_LINES, _PREVIEW_LINES):
        kept.clear()


def shell_body(state: UiState, tr: Translator) -> str:
    """The pre-rendered static body: the lobby, plus for /t/… links what is known before Python runs: a
    table is opening (not "Game in progress" over an empty board: nobody may have started; issue 27)."""
    return (
        f'<div class="shell-home">{home(state, tr)}</div><div class="shell-table">{opening_table(tr)}</div>'
    )
