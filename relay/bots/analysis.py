"""Post-game analysis: for each move of one seat, the ``expert`` choice and the equity the move played lost.

Replays the finished game's journal; before each of the seat's turns it rebuilds what that seat knew (its
rack, the board, the bag's size, the unseen tiles) and ranks every option as the ``expert`` judges it over the
whole word list (:func:`relay.bots.equity.rank`: score + leave, exchanges weighed; with the bag empty, the
one-ply endgame judgement). The move played is judged by the same measure, so ``lost`` is never negative
when the search was complete. Runs on the relay (the word list never leaves it), in a worker thread.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Final

from engine.board import Board
from engine.events import Passed, Placed, Swapped, TimedOut
from engine.game import GameState, apply, new_state
from engine.moves import Move, Pass, Place, Swap
from engine.notation import format_move
from engine.scoring import analyse
from relay.bots.equity import Option, Position, leave_of, rank, unseen_tiles
from relay.bots.graph import WordGraph
from relay.bots.leaves import LeaveModel
from relay.bots.levels import LEVELS
from relay.bots.movegen import Candidate
from relay.bots.player import MoveGenDriver

if TYPE_CHECKING:
    from relay.journal.base import JsonObject

__all__ = ["AnalysisError", "analyse_seat"]

MOVE_BUDGET_SECONDS: Final = 0.5


class AnalysisError(ValueError):
    """``code`` ``not_ended`` (the game is not over) or ``bad_seat`` (no such seat)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _describe(option: Option | None, move: Move, board: Board) -> JsonObject:
    try:
        notation = format_move(move, board)
    except ValueError:
        notation = ""
    out: JsonObject = {
        "kind": "place" if isinstance(move, Place) else "swap" if isinstance(move, Swap) else "pass"
    }
    out["notation"] = notation
    if isinstance(move, Place):
        try:
            out["words"] = list(analyse(board, move.tiles).word_list)
        except ValueError:
            out["words"] = []
    elif isinstance(move, Swap):
        out["tiles"] = move.tiles
    out["score"] = option.score if option is not None else 0
    out["equity"] = round(option.equity, 1) if option is not None else 0.0
    return out


def _option_move(o: Option, pos: Position) -> Move:
    if o.kind == "place" and o.move is not None:
        return o.move.to_place(pos.variant)
    if o.kind == "swap":
        return Swap(o.tiles)
    return Pass()


def analyse_seat(
    state: GameState, seat: int, driver: MoveGenDriver, *, move_budget: float = MOVE_BUDGET_SECONDS
) -> list[JsonObject]:
    """The analysis of ``seat``'s moves in the ended game ``state`` (its full journal), one entry per move:
    ``turn`` (1-based, all seats counted), ``rack`` (the seat's rack before the move), ``played`` and
    ``best`` (kind, notation, words or tiles, score, equity) and ``lost`` (equity, >= 0).
    Raises AnalysisError ``not_ended`` / ``bad_seat``."""
    if state.status != "ended":
        raise AnalysisError("not_ended", "the analysis is ready once the game has ended")
    if not isinstance(seat, int) or not 0 <= seat < len(state.seats):
        raise AnalysisError("bad_seat", f"there is no seat {seat!r:.10} at this table")
    expert = LEVELS["expert"]
    leaves = driver.leaves
    graph = driver.graph_for(expert)
    rng = random.Random(0)
    out: list[JsonObject] = []
    s = new_state()
    turn = 0
    for ev in state.events:
        if isinstance(ev, Placed | Swapped | Passed | TimedOut) and s.status == "playing":
            turn += 1
            if ev.seat == seat:
                out.append(_judge(s, seat, ev, turn, driver, graph, leaves, rng, move_budget))
        s = apply(s, ev)
    return out


def _judge(
    s: GameState,
    seat: int,
    ev: Placed | Swapped | Passed | TimedOut,
    turn: int,
    driver: MoveGenDriver,
    graph: WordGraph,
    leaves: LeaveModel,
    rng: random.Random,
    budget: float,
) -> JsonObject:
    me = s.seats[seat]
    board = s.board
    others = [x for i, x in enumerate(s.seats) if i != seat]
    pos = Position(
        board,
        me.rack,
        len(s.bag),
        unseen_tiles(board.variant, board, me.rack),
        tuple(len(x.rack) for x in others),
        me.score - max(x.score for x in others),
        s.scoreless_turns,
    )
    expert = LEVELS["expert"]
    options = driver.options(pos, expert, rng, time.monotonic() + budget)
    best = options[0] if options else None
    played_move: Move
    if isinstance(ev, Placed):
        played_move = Place(ev.tiles)
        v = board.variant
        cand = Candidate(ev.score, tuple(sorted((v.index[t.square], t.letter, t.blank) for t in ev.tiles)))
        judged = rank([cand], pos, leaves, leave_weight=expert.leave_weight, with_exchanges=False)
        played = judged[0] if judged else None
    elif isinstance(ev, Swapped):
        played_move = Swap(ev.returned)
        kept = list(me.rack)
        for t in ev.returned:
            kept.remove(t)
        eq = expert.leave_weight * leaves.value("".join(kept))
        played = Option("swap", eq, 0, "".join(sorted(kept)), None, ev.returned)
    else:
        played_move = Pass()
        # A pass keeps the whole rack and draws nothing.
        rack_cost = -1.5 * board.variant.rack_value(me.rack)
        eq = expert.leave_weight * leaves.value(me.rack) if s.bag else rack_cost
        played = Option("pass", eq, 0, me.rack)
    if best is None or (played is not None and played.equity > best.equity):
        best = played
    lost = max(0.0, (best.equity if best else 0.0) - (played.equity if played else 0.0))
    entry: JsonObject = {
        "turn": turn,
        # The rack this seat held before the move: the analysis is its own, served after the end only.
        "rack": me.rack,
        "played": _describe(played, played_move, board),
        "best": _describe(best, _option_move(best, pos) if best is not None else Pass(), board),
        "lost": round(lost, 1),
    }
    if best is not None and best.kind == "place" and best.move is not None and played is not None:
        entry["best_leave"] = leave_of(me.rack, best.move)
    return entry
