"""Helpers for the bots' tests: a small walled board, a small word list and a brute-force generator.

The brute force is deliberately naive and independent of :mod:`relay.bots.movegen`: it tries every set of rack
tiles on every contiguous span of every line and keeps what :func:`engine.analyse` accepts and whose words are
all in the list. It is only fast enough on small boards and racks, which is what it is for.
"""

from __future__ import annotations

import itertools
import random
import string
from collections.abc import Collection

from engine.board import Board
from engine.errors import LexioError
from engine.moves import Tile
from engine.scoring import analyse
from engine.variants import Variant
from engine.variants import lexio as lexio_data
from relay.bots.graph import WordGraph
from relay.bots.movegen import generate

# 7x7, corner walls plus one wall inside row 3 (a wall mid-line ends words like an edge), every kind of
# square, a rack of 4 so that playing the whole rack (the bingo) happens often.
SMALL_LAYOUT = "\n".join(
    (
        "##.T.##",
        ".d...t.",
        "..X#..X",
        "T..*..D",
        "X..d...",
        ".t...d.",
        "##.D.##",
    )
)
SMALL = Variant.from_text("small", SMALL_LAYOUT, lexio_data.TILES, rack_size=4, bingo_bonus=30)

# Not all French; what matters is shared prefixes and suffixes, so that hooks and cross-words abound.
_SMALL_TEXT = """
AB AS AT BA BE BI ES ET IS RA RE RI SA SE SI TA TE TI ABS BAS BAT BIS ERS EST RAS RAT RATS RIS SAT SET
TAS TES TRI ABRI ABRIS BISE BRIE BETE BETES RATE RATES RISE SERA SETA STAR TARE TARES TIRE TIRES TRIE TRIES
ARBRE BRISE SABRE STRIE TIARE ETAIS IRAIT
"""
SMALL_WORDS = frozenset(_SMALL_TEXT.split())
SMALL_ALPHABET = "".join(sorted({c for w in SMALL_WORDS for c in w}))


Key = tuple[int, tuple[tuple[int, str, bool], ...]]


def brute_force(board: Board, rack: str, words: Collection[str]) -> set[Key]:
    """Every valid placement as (score, sorted (square, letter, blank) tiles), by exhaustive search."""
    lexicon = words
    # A blank naming a letter that no word holds makes no word; small lists try only their own letters.
    alphabet = sorted({c for w in words for c in w}) if len(words) < 10_000 else list(string.ascii_uppercase)
    v = board.variant
    cells = board.cells
    lines: list[list[int]] = [[r * v.width + c for c in range(v.width)] for r in range(v.height)]
    lines += [[r * v.width + c for r in range(v.height)] for c in range(v.width)]
    found: set[Key] = set()
    tried: set[tuple[int, ...]] = set()
    for line in lines:
        for i in range(len(line)):
            for j in range(i, len(line)):
                span = line[i : j + 1]
                if not v.playable[span[-1]]:
                    break
                empties = tuple(sq for sq in span if cells[sq] is None)
                if not empties or len(empties) > len(rack) or empties in tried:
                    continue
                tried.add(empties)
                for order in set(itertools.permutations(rack, len(empties))):
                    choices = [[(t, False)] if t != "?" else [(a, True) for a in alphabet] for t in order]
                    for combo in itertools.product(*choices):
                        tiles = [
                            Tile(v.names[sq], letter, blank)
                            for sq, (letter, blank) in zip(empties, combo, strict=True)
                        ]
                        try:
                            breakdown = analyse(board, tiles)
                        except LexioError:
                            continue
                        if all(w in lexicon for w in breakdown.word_list):
                            key = tuple(sorted((v.index[t.square], t.letter, t.blank) for t in tiles))
                            found.add((breakdown.total, key))
    return found


def random_board(variant: Variant, graph: WordGraph, seed: int, plays: int, alphabet: str) -> Board:
    """A board reached by ``plays`` random valid placements (racks of random letters from ``alphabet``)."""
    rng = random.Random(seed)
    board = Board.empty(variant)
    for _ in range(plays):
        for _attempt in range(20):
            rack = "".join(rng.choice(alphabet) for _ in range(variant.rack_size))
            moves = generate(board, rack, graph).moves
            if moves:
                move = moves[rng.randrange(len(moves))]
                board = board.with_tiles(move.to_place(variant).tiles)
                break
    return board
