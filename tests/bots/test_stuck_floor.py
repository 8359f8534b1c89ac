"""The bench's out-seeker (``bench/levels.py``: how many stuck endings remain when both sides only try to go
out) plays first the tiles that would otherwise be stranded, even for fewer points."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

from engine.board import Board
from engine.moves import Tile
from relay.bots.equity import Position
from relay.bots.player import MoveGenDriver
from relay.lexicon import WordList

# "LA" across on G7-H7: K makes KA down from H6 (11) or LAK at I7 (12), which takes the only square the S
# could use (LAS at I7).
WORDS = ["LA", "LAS", "LAK", "KA"]
BOARD = Board.empty("lexio").with_tiles([Tile("G7", "L"), Tile("H7", "A")])


def bench_levels() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "bench" / "levels.py"
    spec = importlib.util.spec_from_file_location("bench_levels", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_out_seeker_gives_up_the_top_score_that_would_strand_a_tile() -> None:
    levels = bench_levels()
    seeker = levels.policies(MoveGenDriver(WordList.from_words(WORDS, name="t")))["seeker"]
    pos = Position(BOARD, "KS", 0, "UU", (2,))
    d = seeker(pos, random.Random(1))
    assert d.kind == "place" and d.move is not None
    # LAK (12) leaves the S nowhere to go; KA (11) then LAS goes out. Of the two ways out, the higher score.
    assert {(sq, letter) for sq, letter, _ in d.move.tiles} == {(BOARD.variant.index["H6"], "K")}


def test_the_out_seeker_counts_the_moves_a_rack_needs_to_go_out_alone() -> None:
    levels = bench_levels()
    graph = MoveGenDriver(WordList.from_words(WORDS, name="t")).warm()
    assert levels._out_in(BOARD, "KS", graph, {}) == 2
    assert levels._out_in(BOARD, "S", graph, {}) == 1
    assert levels._out_in(BOARD, "U", graph, {}) == levels._NEVER
