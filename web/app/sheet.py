"""The score sheet: a table's journal (the view's redacted events) read as turns, and the last move.

Pure: folds the journal onto an engine :class:`~engine.board.Board` so each placement gets its GCG position
(``8D`` across, ``D8`` down: :func:`engine.format_move`) and its words as the engine scores them (main word
first, a blank in lower case, letters already on the board in parentheses: :func:`human_words`). Seating
and the start are not turns; a seat's refused attempts are its own (the redaction gives their tiles and
unknown words to that seat only) and are listed apart.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.board import Board
from engine.errors import LexioError
from engine.moves import Place, tiles_from_json
from engine.notation import format_move, parse_move
from engine.scoring import analyse

if TYPE_CHECKING:
    from app.payloads import GameEvent, View

TURN_EVENTS = ("placed", "swapped", "passed", "timed_out")


@dataclass(frozen=True)
class Row:
    """One line of the sheet. ``kind``: placed | swapped | passed | timed_out | end (a final adjustment).
    ``turn`` counts turns from 1 (0 for end lines); ``total`` is the seat's running total after the line."""

    turn: int
    seat: int
    kind: str
    position: str
    words: tuple[str, ...]
    score: int
    total: int
    count: int = 0  # tiles swapped; for an end line, the tiles behind the adjustment
    tiles: str = ""  # end line: the rack left (a loss) or the others' racks (a gain)


@dataclass(frozen=True)
class Refused:
    """One of this seat's own refused attempts: during which turn, where, and the unknown words."""

    turn: int
    position: str
    unknown: tuple[str, ...]


@dataclass(frozen=True)
class Sheet:
    rows: tuple[Row, ...]
    refused: tuple[Refused, ...]
    totals: tuple[int, ...]  # per seat, after the last row


def human_words(board: Board, place: Place, fallback: Sequence[str] = ()) -> tuple[str, ...]:
    """The words as scored (main first), in the one human form the sheet and the replay share: the whole
    word, a blank in lower case, the letters already on the board in parentheses ("(S)ALANTE", "W(A)TER":
    the tiles played are the others, and the marks are text, not a colour). The event's words if the engine
    disagrees (a journal from an older variant, say): the sheet must never fail to show a turn."""
    try:
        bd = analyse(board, place.tiles)
    except LexioError:
        return tuple(str(w) for w in fallback)
    out = []
    for w in bd.words:
        text, through = "", False
        for lt in w.letters:
            if through != (not lt.new):
                text += "(" if not lt.new else ")"
                through = not lt.new
            text += lt.letter.lower() if lt.blank else lt.letter
        out.append(text + (")" if through else ""))
    return tuple(out)


def human_move(notation: str, board: Board | None, words: Sequence[str] = ()) -> str:
    """A placement given in the engine's notation ("H3 .ALANTE"), in the sheet's human form: its position,
    then its main word ("H3 (S)ALANTE"). Without the board it was played on, the word and the notation."""
    if board is not None:
        try:
            move = parse_move(notation, board)
        except (LexioError, ValueError):
            move = None
        if isinstance(move, Place):
            shown = human_words(board, move)
            if shown:
                return f"{notation.split(' ')[0]} {shown[0]}"
    return f"{words[0]} ({notation})" if words else notation


def boards_before_turns(view: View) -> dict[int, Board]:
    """The board before each turn (numbered from 1, every seat's turns counted, as the analysis does)."""
    board = _empty(view)
    out: dict[int, Board] = {}
    turn = 0
    for ev in view.get("journal") or ():
        kind = str(ev.get("type", ""))
        if kind not in TURN_EVENTS:
            continue
        turn += 1
        out[turn] = board
        if kind == "placed":
            with contextlib.suppress(LexioError):  # a malformed event: the board as it was
                board = board.with_tiles(tiles_from_json(ev.get("tiles") or []))
    return out


def _empty(view: View) -> Board:
    try:
        return Board.empty(str(view.get("variant") or "lexio"))
    except LexioError:
        return Board.empty("lexio")


def _position(board: Board, place: Place) -> str:
    try:
        return format_move(place, board).split(" ")[0]
    except LexioError:
        return "?"


def build(view: View, you: int | None = None) -> Sheet:
    """The sheet of ``view`` (``engine.view``, possibly with events folded in by the client)."""
    board = _empty(view)
    seats = len(view.get("seats") or ())
    totals = [0] * seats
    rows: list[Row] = []
    refused: list[Refused] = []
    turn = 0
    for ev in view.get("journal") or ():
        kind = str(ev.get("type", ""))
        seat = ev.get("seat")
        if kind == "game_ended":
            rows.extend(_end_rows(ev, totals))
            continue
        if not isinstance(seat, int) or not 0 <= seat < seats:
            continue
        if kind == "rejected":
            if seat == you and ev.get("unknown"):
                try:
                    pos = _position(board, Place(tiles_from_json(ev.get("tiles") or [])))
                except LexioError:
                    pos = "?"
                refused.append(Refused(turn + 1, pos, tuple(str(w) for w in ev["unknown"])))
            continue
        if kind not in TURN_EVENTS:
            continue
        turn += 1
        score = int(ev.get("score", 0)) if kind == "placed" else 0
        totals[seat] += score
        position, count = "", 0
        words: tuple[str, ...] = ()
        if kind == "placed":
            try:
                place = Place(tiles_from_json(ev.get("tiles") or []))
                position = _position(board, place)
                words = human_words(board, place, ev.get("words") or ())
                board = board.with_tiles(place.tiles)
            except LexioError:
                words = tuple(str(w) for w in ev.get("words") or ())
        elif kind == "swapped":
            count = int(ev["count"]) if isinstance(ev.get("count"), int) else len(str(ev.get("returned", "")))
        rows.append(Row(turn, seat, kind, position, words, score, totals[seat], count))
    return Sheet(tuple(rows), tuple(refused), tuple(totals))


def _end_rows(ev: GameEvent, totals: list[int]) -> list[Row]:
    """The end's adjustments, as the GCG writes them: losses (tiles left) first, then the gain."""
    adjustments = list(ev.get("adjustments") or ())
    racks = [str(r) for r in ev.get("racks") or ()]
    out: list[Row] = []
    order = [s for s, a in enumerate(adjustments) if a < 0] + [s for s, a in enumerate(adjustments) if a > 0]
    for seat in order:
        if seat >= len(totals):
            continue
        adj = int(adjustments[seat])
        totals[seat] += adj
        tiles = racks[seat] if adj < 0 and seat < len(racks) else ""
        if adj > 0:
            tiles = "".join(r for s, r in enumerate(racks) if s != seat)
        out.append(Row(0, seat, "end", "", (), adj, totals[seat], len(tiles), tiles))
    return out


def last_placement(view: View | None) -> frozenset[str]:
    """Squares of the last placement on the board (until the next one), for every seat and watcher."""
    for ev in reversed((view or {}).get("journal") or ()):
        if ev.get("type") == "placed":
            return frozenset(str(t.get("sq", "")).upper() for t in ev.get("tiles") or ())
    return frozenset()


def last_action(view: View | None) -> GameEvent | None:
    """The last turn's event (placed, swapped, passed or timed out), or a refused try since, if any."""
    for ev in reversed((view or {}).get("journal") or ()):
        if ev.get("type") in (*TURN_EVENTS, "rejected"):
            return ev
    return None
