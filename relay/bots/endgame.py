"""Endgame and pre-endgame for two players: a search over both known racks, and "don't hand an easy out".

With the bag empty in a two-player game, the unseen tiles are the opponent's rack, so the game is one of
perfect information. :func:`solve` runs an iterative-deepening negamax with alpha-beta over placements and
the pass, maximising the final spread: going out ends the game and earns twice the other rack's value (the
finisher gains it, the other loses it); four scoreless turns in a row end it with both racks counted against
their holders. Positions past the depth reached are judged by the racks' values. The search stops at a
``deadline`` (a :func:`time.monotonic` instant given by the caller) and answers with the best line of the
deepest search it completed.

:func:`out_risk` is the pre-endgame guard: for a move that empties the bag, how many points it is expected
to hand the opponent by letting them go out at once (sampled over the racks they may hold).
"""

from __future__ import annotations

import random
import time
from typing import NamedTuple

from engine.board import Board
from relay.bots.equity import leave_of
from relay.bots.graph import WordGraph
from relay.bots.movegen import Candidate, generate

__all__ = ["EndgameResult", "out_risk", "solve"]

BRANCH_ROOT = 24
BRANCH = 8
MAX_DEPTH = 6
SCORELESS_END = 4  # two players: 2 x 2 turns without a placement


class EndgameResult(NamedTuple):
    """The move to play (None: pass), the spread it secures from here (mover's view) and the depth done."""

    move: Candidate | None
    value: float
    depth: int
    complete: bool


class _Timeout(Exception):
    pass


class _Search:
    def __init__(self, graph: WordGraph, deadline: float | None) -> None:
        self.graph = graph
        self.deadline = deadline
        self.moves_cache: dict[tuple[tuple[str | None, ...], str], list[Candidate]] = {}
        self.nodes = 0
        self.values: dict[str, int] = {}

    def rack_value(self, board: Board, rack: str) -> int:
        v = board.variant.values
        return sum(v.get(t, 0) for t in rack)

    def moves(self, board: Board, rack: str) -> list[Candidate]:
        key = (board.cells, rack)
        found = self.moves_cache.get(key)
        if found is None:
            found = generate(board, rack, self.graph).moves
            # Going out first, then by score: good moves first make alpha-beta cut more.
            found.sort(key=lambda m: (m.size != len(rack), -m.score, m.tiles))
            self.moves_cache[key] = found
        return found

    def negamax(
        self, board: Board, me: str, them: str, scoreless: int, depth: int, alpha: float, beta: float
    ) -> tuple[float, Candidate | None]:
        """Best spread (for the side to move, from now on) and the move reaching it."""
        self.nodes += 1
        if self.deadline is not None and self.nodes % 4 == 0 and time.monotonic() > self.deadline:
            raise _Timeout
        mine, theirs = self.rack_value(board, me), self.rack_value(board, them)
        if depth == 0:
            self.cut = True
            return float(theirs - mine), None
        options = self.moves(board, me)
        width = BRANCH_ROOT if depth == self.root_depth else BRANCH
        best: float = float("-inf")
        best_move: Candidate | None = None
        if len(options) > width:
            self.cut = True
        for m in options[:width]:
            if alpha >= beta:
                break
            left = leave_of(me, m)
            if not left:
                value = float(m.score + 2 * theirs)
            else:
                after = m.played_on(board)
                value = m.score - self.negamax(after, them, left, 0, depth - 1, -beta, -alpha)[0]
            if value > best:
                best, best_move = value, m
                alpha = max(alpha, best)
        if alpha < beta or best_move is None:
            # The pass (last: a placement worth as much is preferred); it ends the game if it completes
            # the scoreless run.
            if scoreless + 1 >= SCORELESS_END:
                pass_value: float = float(theirs - mine)
            else:
                pass_value = -self.negamax(board, them, me, scoreless + 1, depth - 1, -beta, -alpha)[0]
            if pass_value > best:
                best, best_move = pass_value, None
        return best, best_move

    root_depth = 0
    cut = False


def solve(
    board: Board,
    rack: str,
    opponent: str,
    graph: WordGraph,
    *,
    deadline: float | None,
    scoreless: int = 0,
    max_depth: int = MAX_DEPTH,
) -> EndgameResult:
    """The best move for the side with ``rack`` against ``opponent``'s rack, bag empty (see the module
    docstring). ``deadline``: a :func:`time.monotonic` instant (None: search to ``max_depth``)."""
    search = _Search(graph, deadline)
    result = EndgameResult(None, float("-inf"), 0, False)
    for depth in range(1, max_depth + 1):
        search.root_depth = depth
        search.cut = False
        try:
            value, move = search.negamax(board, rack, opponent, scoreless, depth, float("-inf"), float("inf"))
        except _Timeout:
            return result._replace(complete=False) if result.depth else _greedy(search, board, rack)
        result = EndgameResult(move, value, depth, True)
        if not search.cut:
            break  # every line reached the end of the game: deeper search changes nothing
    return result


def _greedy(search: _Search, board: Board, rack: str) -> EndgameResult:
    moves = search.moves_cache.get((board.cells, rack)) or generate(board, rack, search.graph).moves
    best = max(moves, key=lambda m: (m.score, m.tiles), default=None)
    return EndgameResult(best, float(best.score if best else 0), 0, False)


def out_risk(
    board: Board,
    move: Candidate,
    unseen: str,
    bag_size: int,
    graph: WordGraph,
    rng: random.Random,
    *,
    kept: str,
    samples: int = 3,
    deadline: float | None = None,
) -> float:
    """Expected points a move that takes the last tiles of the bag hands the opponent (two players): the
    chance they can then go out at once times what going out earns them (their score, twice our rack's
    value), sampled over the splits of ``unseen`` into bag and their rack. 0 if the move leaves tiles in the
    bag."""
    if move.size < bag_size or bag_size <= 0:
        return 0.0
    after = move.played_on(board)
    values = board.variant.values
    pool = list(unseen)
    total = 0.0
    done = 0
    for _ in range(samples):
        if deadline is not None and time.monotonic() > deadline:
            break
        rng.shuffle(pool)
        drawn, theirs = pool[:bag_size], "".join(sorted(pool[bag_size:]))
        if not theirs:
            continue
        mine = kept + "".join(drawn)
        outs = [m.score for m in generate(after, theirs, graph).moves if m.size == len(theirs)]
        if outs:
            total += max(outs) + 2 * sum(values.get(t, 0) for t in mine)
        done += 1
    return total / done if done else 0.0
