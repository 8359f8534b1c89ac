"""The two-player endgame search finds the known best line on hand-built positions; the pre-endgame guard
sees the outs a move hands the opponent; a deadline always leaves a move to play."""

from __future__ import annotations

import random
import time

from engine.board import Board
from engine.moves import Tile
from relay.bots.endgame import out_risk, solve
from relay.bots.equity import Position
from relay.bots.graph import build_graph
from relay.bots.levels import LEVELS
from relay.bots.movegen import Candidate, generate
from relay.bots.player import MoveGenDriver
from relay.lexicon import WordList

# "LA" across on G7-H7. S hooks LAS at I7 (3 points); K makes KA down from H6 (11) or LAK at I7 (12),
# which takes the only square the S could use (without SKA in the list). Nothing in the list holds a U:
# a rack of U is blocked.
WORDS = ["LA", "LAS", "LAK", "KA", "SKA"]
BOARD = Board.empty("lexio").with_tiles([Tile("G7", "L"), Tile("H7", "A")])


def words_of(move: Candidate | None) -> set[str]:
    assert move is not None
    return {f"{sq}{letter}" for sq, letter, _ in move.tiles}


def square(name: str) -> int:
    return BOARD.variant.index[name]


def test_the_search_avoids_the_greedy_play_that_strands_a_tile_and_goes_out_in_two() -> None:
    graph = build_graph(w for w in WORDS if w != "SKA")
    moves = generate(BOARD, "KS", graph).moves
    greedy = max(moves, key=lambda m: m.score)
    assert words_of(greedy) == {f"{square('I7')}K"}  # LAK, 12: then the S is stuck
    result = solve(BOARD, "KS", "UU", graph, deadline=None)
    # KA then LAS (or LAS then KA): 11 + 3 points and out, gaining twice the blocked opponent's UU.
    assert result.value == 11 + 3 + 2 * 2
    assert words_of(result.move) in ({f"{square('H6')}K"}, {f"{square('I7')}S"})
    assert result.complete


def test_against_a_blocked_rack_the_search_takes_its_points_before_going_out() -> None:
    graph = build_graph(WORDS)
    # SKA (13: the S on a double letter) goes out at once; with the opponent stuck, KA (11) first, then the
    # S hooked in front (SKA again, 13) goes out a turn later for more.
    moves = generate(BOARD, "KS", graph).moves
    outs = [m for m in moves if m.size == 2]
    assert [m.score for m in outs] == [13]
    result = solve(BOARD, "KS", "UU", graph, deadline=None)
    assert words_of(result.move) == {f"{square('H6')}K"}
    assert result.value == 11 + 13 + 2 * 2


def test_the_expert_uses_the_search_once_the_bag_is_empty_and_strong_plays_greedy() -> None:
    bot = MoveGenDriver(WordList.from_words(WORDS, name="t"))
    pos = Position(BOARD, "KS", 0, "UU", (2,))
    expert = bot.decide(pos, LEVELS["expert"], random.Random(0))
    strong = bot.decide(pos, LEVELS["strong"], random.Random(0))
    assert expert.kind == "place" and expert.move is not None and expert.move.size == 1
    assert strong.kind == "place" and strong.move is not None and strong.move.size == 2  # SKA: out at once


def test_an_expired_deadline_still_answers_with_a_move() -> None:
    graph = build_graph(WORDS)
    result = solve(BOARD, "KS", "UU", graph, deadline=time.monotonic() - 1)
    assert result.move is not None and not result.complete


def test_the_pre_endgame_guard_counts_the_out_a_move_hands_over() -> None:
    graph = build_graph(WORDS)
    ka = next(m for m in generate(BOARD, "KS", graph).moves if words_of(m) == {f"{square('H6')}K"})
    # One tile in the bag; the opponent holds the other unseen tile. With an S, SKA (13) takes them out.
    rng = random.Random(4)
    risk = out_risk(BOARD, ka, "SS", 1, graph, rng, kept="S", samples=3)
    assert risk == 13 + 2 * (1 + 1)  # their SKA, and twice our S + the S we drew
    assert out_risk(BOARD, ka, "UU", 1, graph, rng, kept="S") == 0  # a U cannot go out
    assert out_risk(BOARD, ka, "SS", 2, graph, rng, kept="S") == 0  # tiles stay in the bag: no out yet
