"""The replay viewer (issue 12, point 4): a GCG record stepped through in the browser, on the engine's GCG
reader, checked as it loads. Nothing is sent to the relay (a finished table's record is only fetched).

Pure: :func:`load` turns GCG text into a :class:`Replay` (the board and the scores after every move) or a
:class:`Refusal` (the line and the reason: a record that cannot be read, or whose scores do not add up —
nothing else is shown then). :class:`ReplayState` is the viewer's state; :func:`html` draws it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from app.follow import turn_words
from app.i18n import Translator
from app.markup import escape
from app.played import Played
from app.played import section as played_section
from app.replay_analysis import ReplayAnalysis, best_view, lost_cell, panel, rack_at
from app.sheet import human_words
from engine.board import Board
from engine.errors import LexioError
from engine.gcg import TIMEOUT_NOTE, GcgMove, GcgNote, GcgPragma, GcgRecord, parse_gcg, verify_gcg
from engine.moves import Place
from engine.notation import parse_move

if TYPE_CHECKING:
    from app.payloads import GameEvent, Tile, View

# Draws a board from a view (app.render.board on a state holding it).
BoardHtml = Callable[["View"], str]

MAX_BYTES = 1_000_000


def _e(value: object) -> str:
    return escape(str(value), quote=True)


@dataclass(frozen=True)
class Step:
    """The table after a move (step 0: before the first)."""

    board: tuple[Tile, ...]
    last: tuple[Tile, ...]  # the tiles of the last placement so far (highlighted)
    totals: tuple[int, ...]  # per player, in record order
    move: GcgMove | None
    position: Board | None = None  # the board itself (the analysis puts the expert's choice on it)
    words: tuple[str, ...] = ()  # a placement's words in the sheet's human form (app.sheet.human_words)
    timed_out: bool = False  # a pass the table made when the time ran out (the record's note says so)


@dataclass(frozen=True)
class Replay:
    variant: str
    names: tuple[str, ...]
    nicks: tuple[str, ...]
    steps: tuple[Step, ...]
    record_id: str | None = None  # the table a Lexio relay wrote this record for (#id lexio <table>)
    seat_nicks: tuple[str, ...] = ()  # #player1, #player2, …: seat 0, 1, …


@dataclass(frozen=True)
class Refusal:
    line: int  # 0: the record as a whole
    reason: str


def load(text: str) -> Replay | Refusal:
    """Read and check a GCG record (Lexio or classic); never raises."""
    if len(text) > MAX_BYTES:
        return Refusal(0, f"the file is larger than {MAX_BYTES // 1000} kB")
    try:
        record = parse_gcg(text)
    except LexioError as err:
        line = err.params.get("line", 0)
        return Refusal(line if isinstance(line, int) else 0, str(err.params.get("reason") or err.message))
    if not record.moves:
        return Refusal(0, "no move in this record")
    # A record without #variant (Quackle, Woogles) is a Lexio or a classic game: whichever adds up.
    names: list[str | None] = [None] if record.variant else ["lexio", "classic"]
    reports = [verify_gcg(record, variant=name) for name in names]
    report = next((r for r in reports if r.ok), None)
    if report is None:
        first = max((r.problems[0] for r in reports), key=lambda p: p.line)
        return Refusal(first.line, first.message)
    return _steps(record, report.variant)


def _steps(record: GcgRecord, variant: str) -> Replay | Refusal:
    nicks = [p.nick for p in record.players]
    for m in record.moves:
        if m.nick not in nicks:
            nicks.append(m.nick)
    names = tuple(next((p.name for p in record.players if p.nick == n and p.name), n) for n in nicks)
    board = Board.empty(variant)
    totals = [0] * len(nicks)
    last: tuple[Tile, ...] = ()
    history: list[tuple[Board, tuple[Tile, ...]]] = []
    steps = [Step((), (), tuple(totals), None, board)]
    timed_out = _timed_out(record)
    for k, m in enumerate(record.moves):
        words: tuple[str, ...] = ()
        if m.kind == "place":
            try:
                move = parse_move(f"{m.position} {m.word}", board)
            except LexioError as err:  # verified above: only a bug gets here
                return Refusal(m.line, err.message)
            if not isinstance(move, Place):
                return Refusal(m.line, "not a placement")
            words = human_words(board, move, (m.word,))
            history.append((board, last))
            board = board.with_tiles(move.tiles)
            last = tuple(cast("Tile", t.to_dict()) for t in move.tiles)
        elif m.kind == "withdraw" and history:
            board, last = history.pop()
        totals[nicks.index(m.nick)] = m.total
        steps.append(
            Step(
                tuple(cast("list[Tile]", board.to_json())),
                last,
                tuple(totals),
                m,
                board,
                words,
                k in timed_out,
            )
        )
    record_id = next(
        (
            i.value.split()[1]
            for i in record.items
            if isinstance(i, GcgPragma)
            and i.key == "id"
            and len(i.value.split()) == 2
            and i.value.split()[0] == "lexio"
        ),
        None,
    )
    seat_nicks = tuple(p.nick for p in sorted(record.players, key=lambda p: p.number))
    return Replay(variant, names, tuple(nicks), tuple(steps), record_id, seat_nicks)


def _timed_out(record: GcgRecord) -> set[int]:
    """Indexes (in ``record.moves``) of the passes a Lexio relay recorded as time-outs: a pass followed by
    its note (engine.gcg.TIMEOUT_NOTE)."""
    out: set[int] = set()
    k = -1
    for item in record.items:
        if isinstance(item, GcgMove):
            k += 1
        elif (
            isinstance(item, GcgNote)
            and item.text.startswith(TIMEOUT_NOTE)
            and k >= 0
            and record.moves[k].kind == "pass"
        ):
            out.add(k)
    return out


@dataclass
class ReplayState:
    """``table``: the finished table whose record this is (None: a file)."""

    table: str | None = None
    replay: Replay | None = None
    refusal: Refusal | None = None
    file_name: str = ""
    loading: bool = False
    step: int = 0
    problem: str | None = None  # could not fetch the table's record (a message code)
    offline: bool = False  # the browser had no network when the record was fetched (no analysis asked)
    analysis: ReplayAnalysis | None = None  # this browser's seat's analysis (app.replay_analysis)
    played: list[Played] = field(default_factory=list)  # the games this browser played (app.played)
    links: tuple[str, str] = ("/", "")  # the site's base and query string, for the games' links
    _seen: int = field(default=0, repr=False)

    def open_text(self, text: str, file_name: str = "") -> None:
        out = load(text)
        self.file_name, self.loading, self.problem = file_name, False, None
        if isinstance(out, Refusal):
            self.replay, self.refusal = None, out
            return
        self.replay, self.refusal = out, None
        self.step = len(out.steps) - 1  # the final position first, as the end screen left it

    @property
    def last_step(self) -> int:
        return len(self.replay.steps) - 1 if self.replay else 0

    def go(self, step: int) -> None:
        self.step = max(0, min(self.last_step, step))

    def key(self, key: str) -> bool:
        moves = {"ArrowLeft": self.step - 1, "ArrowRight": self.step + 1, "Home": 0, "End": self.last_step}
        if key not in moves or self.replay is None:
            return False
        self.go(moves[key])
        return True

    def view(self) -> View:
        """A view for :func:`app.render.board`: the board at this step, its last placement as a journal."""
        assert self.replay is not None
        alt = best_view(self)
        if alt is not None:
            return alt
        st = self.replay.steps[self.step]
        journal: list[GameEvent] = [{"type": "placed", "tiles": list(st.last)}] if st.last else []
        board = list(st.board)
        return {"variant": self.replay.variant, "board": board, "journal": journal, "status": "ended"}


# -- HTML -------------------------------------------------------------------------------------------------
def _move_text(st: Step, tr: Translator) -> tuple[str, str]:
    """(position, words) as the in-game sheet words them (app.follow.turn_words); GCG only in the file."""
    m = st.move
    assert m is not None
    if m.kind == "place":
        return m.position, turn_words("placed", st.words or (m.word,), 0, tr)
    if m.kind == "swap":
        n = int(m.tiles) if m.tiles.isdigit() else len(m.tiles)
        return "—", turn_words("swapped", (), n, tr)
    if m.kind == "pass":
        return "—", turn_words("timed_out" if st.timed_out else "passed", (), 0, tr)
    if m.kind == "end_rack":
        key = "sheet_end_lost" if m.rack else "sheet_end_won"
        return tr.t("sheet_end"), tr.t(key, tiles=m.tiles)
    return "—", m.kind


def loader(rs: ReplayState, tr: Translator) -> str:
    """The games this browser played, then a file picker in the page's language: the browser's own button
    ("Choose File") is hidden, the visible label is the button, and the keyboard's focus shows on it."""
    return (
        played_section(rs.played, tr, *rs.links)
        + '<div class="card replay-load" id="replay-drop" data-testid="replay-drop">'
        f"<h2>{_e(tr.t('replay_or_file'))}</h2>"
        '<input type="file" id="gcg-file" class="file-input" accept=".gcg,text/plain">'
        f'<label for="gcg-file" class="button file-button" data-testid="gcg-pick">{_e(tr.t("replay_pick"))}'
        "</label>"
        f'<p class="muted">{_e(tr.t("replay_drop"))}</p></div>'
    )


REGIONS = ("replay-msg", "replay-controls", "replay-slider-box", "replay-view")


def frame(rs: ReplayState, tr: Translator) -> str:
    """The viewer's frame: the file picker (no table) and its regions, each re-rendered apart (the slider's
    own region is left alone while it is dragged)."""
    return (
        '<section class="replay" id="replay" tabindex="-1" aria-labelledby="replay-title" '
        'data-testid="replay">'
        f'<h1 id="replay-title" tabindex="-1" data-screen-title>{_e(tr.t("replay_title"))}</h1>'
        f"{loader(rs, tr) if rs.table is None else ''}"
        + "".join(f'<div id="{r}"></div>' for r in REGIONS)
        + "</section>"
    )


def html(rs: ReplayState, tr: Translator, board_html: BoardHtml) -> str:
    """The whole viewer in one string (tests; the glue writes :func:`regions` into :func:`frame`)."""
    out = frame(rs, tr)
    for rid, inner in regions(rs, tr, board_html).items():
        out = out.replace(f'<div id="{rid}"></div>', f'<div id="{rid}">{inner}</div>', 1)
    return out


def _now(rs: ReplayState, tr: Translator) -> str:
    assert rs.replay is not None
    st = rs.replay.steps[rs.step]
    if st.move is None:
        return tr.t("replay_start")
    name = rs.replay.names[rs.replay.nicks.index(st.move.nick)]
    now = tr.t("replay_after", k=rs.step, n=rs.last_step, name=name)
    return now + (" — " + tr.t("ra_board_best") if best_view(rs) is not None else "")


def slider(rs: ReplayState, tr: Translator) -> str:
    if rs.replay is None:
        return ""
    return (
        f'<label for="replay-slider" class="sr">{_e(tr.t("replay_slider"))}</label>'
        f'<input type="range" id="replay-slider" min="0" max="{rs.last_step}" value="{rs.step}" '
        f'data-bind="replay-step" aria-valuetext="{_e(_now(rs, tr))}">'
    )


def regions(rs: ReplayState, tr: Translator, board_html: BoardHtml) -> dict[str, str]:
    """Region id -> HTML. ``board_html(view)`` draws a board (app.render.board on a view)."""
    msg = []
    if rs.loading:
        msg.append(f'<p role="status">{_e(tr.t("replay_loading"))}</p>')
    if rs.problem:
        msg.append(f'<p class="error" role="alert" data-testid="replay-error">{_e(tr.t(rs.problem))}</p>')
    if rs.refusal is not None:
        where = tr.t("replay_line", n=rs.refusal.line) if rs.refusal.line else tr.t("replay_record")
        msg.append(
            f'<p class="error" role="alert" data-testid="replay-error" data-line="{rs.refusal.line}">'
            f"{_e(tr.t('replay_refused', where=where, reason=rs.refusal.reason))}</p>"
        )
    out = {"replay-msg": "".join(msg), "replay-controls": "", "replay-slider-box": "", "replay-view": ""}
    if rs.replay is None:
        return out
    rp = rs.replay
    st = rp.steps[rs.step]
    n = rs.last_step
    first, last = rs.step == 0, rs.step == n

    def button(bid: str, to: int, label: str, off: bool) -> str:
        return (
            f'<button type="button" id="{bid}" data-act="replay-go" data-arg="{to}"'
            f"{' disabled' if off else ''}>{_e(label)}</button>"
        )

    name = f' <span class="muted">({_e(rs.file_name)})</span>' if rs.file_name else ""
    out["replay-controls"] = (
        f'<p class="replay-now" role="status" data-testid="replay-now">{_e(_now(rs, tr))}{name}</p>'
        f'<div class="replay-controls actions" role="group" aria-label="{_e(tr.t("replay_controls"))}">'
        + button("replay-first", 0, "« " + tr.t("replay_first"), first)
        + button("replay-prev", rs.step - 1, "◀ " + tr.t("replay_prev"), first)
        + button("replay-next", rs.step + 1, tr.t("replay_next") + " ▶", last)
        + button("replay-last", n, tr.t("replay_last") + " »", last)
        + f'</div><p class="kbd-help muted">{_e(tr.t("replay_keys"))}</p>'
    )
    out["replay-slider-box"] = slider(rs, tr)
    scores = "".join(
        f'<li data-testid="replay-score"><b>{_e(nm)}</b> {st.totals[i]}</li>' for i, nm in enumerate(rp.names)
    )
    rows = []
    for k, s in enumerate(rp.steps[1:], start=1):
        m = s.move
        assert m is not None
        pos, word = _move_text(s, tr)
        cur = ' class="current" aria-current="step"' if k == rs.step else ""
        lost = lost_cell(rs, k, tr)
        rows.append(
            f'<tr data-testid="replay-row"{cur}><th scope="row" class="num">'
            f'<button type="button" class="link" data-act="replay-go" data-arg="{k}">{k}</button></th>'
            f"<td>{_e(rp.names[rp.nicks.index(m.nick)])}</td><td>{_e(rack_at(rs, k) or m.rack)}</td>"
            f'<td class="pos">{_e(pos)}</td><td class="words">{_e(word)}</td>'
            f'<td class="num">{m.score:+d}</td><td class="num">{m.total}</td>'
            + ("" if lost is None else f'<td class="num">{_e(lost)}</td>')
            + "</tr>"
        )
    cols = ("sheet_turn", "sheet_player", "end_rack", "sheet_position", "sheet_words", "sheet_points")
    heads = "".join(f'<th scope="col">{_e(tr.t(c))}</th>' for c in cols)
    heads += f'<th scope="col">{_e(tr.t("replay_total"))}</th>'
    if lost_cell(rs, 0, tr) is not None:
        heads += f'<th scope="col">{_e(tr.t("analysis_lost"))}</th>'
    out["replay-view"] = (
        f'<div class="replay-body" style="--n:{Board.empty(rp.variant).variant.width}">'
        f'<div class="replay-board">{board_html(rs.view())}</div>'
        f'<div class="replay-side">{panel(rs, tr)}<div class="card"><h2>{_e(tr.t("players"))}</h2>'
        f'<ul class="replay-scores">{scores}</ul></div>'
        f'<div class="card"><h2>{_e(tr.t("sheet"))}</h2><div class="sheet-scroll" tabindex="0" role="region" '
        f'aria-label="{_e(tr.t("sheet_region"))}"><table class="sheet" data-testid="replay-sheet">'
        f'<caption class="sr">{_e(tr.t("sheet_caption"))}</caption><thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></div></div></div>"
    )
    return out
