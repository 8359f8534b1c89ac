"""Every valid placement for a rack on a board: Appel & Jacobson's anchor-based generator over a DAWG.

Server side only (it walks the word list). For each direction, each line is cut into runs of playable squares
(walls end words exactly like the board's edge, so a run is a "line" of its own). An *anchor* is an empty
square touching a tile (on an empty board: the source only). For every anchor the generator

1. builds *left parts* from the rack over the empty non-anchor squares just left of it (those squares touch no
   tile, so they need no cross-check and each move is found from its leftmost anchor only), or takes the tiles
   already on the board to its left;
2. extends right through the anchor, walking the DAWG, placing rack tiles (blanks as any letter) that pass
   the square's *cross-check* (the letters that make a valid perpendicular word) and running over board tiles.

A move whose main word is a single tile is left to the other direction, where its perpendicular word is the
main word; a single tile making words both ways is kept by the across pass only, so no move is listed twice.
Scores follow the engine's rules (letter and word squares, crossings that double both words only when their
tile is in two words of the play, blanks worth 0, the bingo bonus); tests prove them equal to
:func:`engine.analyse` move by move and prove the move set equal to a brute-force search.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import Final, NamedTuple

from engine.board import Board
from engine.moves import Place, Tile
from engine.variants import Variant
from relay.bots.graph import ALL_LETTERS, TERMINAL, WordGraph

__all__ = ["Candidate", "GenerationResult", "generate"]

_ORD_A: Final = ord("A")
_LETTERS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Candidate(NamedTuple):
    """One valid placement: its total score and its tiles as ``(square number, letter, blank)``, by square."""

    score: int
    tiles: tuple[tuple[int, str, bool], ...]

    def to_place(self, variant: Variant) -> Place:
        """The engine move for this placement."""
        names = variant.names
        return Place(tuple(Tile(names[i], letter, blank) for i, letter, blank in self.tiles))

    @property
    def size(self) -> int:
        return len(self.tiles)

    def played_on(self, board: Board) -> Board:
        """``board`` with this placement's tiles on it (a blank as its lower-case letter). Unchecked: the
        candidate must have been generated on ``board``."""
        return board.with_cells_unchecked(
            (sq, letter.lower() if blank else letter) for sq, letter, blank in self.tiles
        )


class GenerationResult(NamedTuple):
    """The moves found, and whether the search ran to the end (False: the deadline cut it short)."""

    moves: list[Candidate]
    complete: bool


class _Deadline(Exception):
    """Raised inside the search when the time budget is spent."""


def _runs(variant: Variant, across: bool) -> list[list[int]]:
    """The runs of consecutive playable squares, row by row (across) or column by column (down)."""
    width, height, playable = variant.width, variant.height, variant.playable
    out: list[list[int]] = []
    outer, inner = (height, width) if across else (width, height)
    for a in range(outer):
        run: list[int] = []
        for b in range(inner):
            sq = a * width + b if across else b * width + a
            if playable[sq]:
                run.append(sq)
            elif run:
                out.append(run)
                run = []
        if run:
            out.append(run)
    return out


def _rack_counts(rack: str) -> tuple[list[int], int]:
    """Letter counts (A=0) and the number of blanks. Raises ValueError for a character that is not a tile."""
    counts = [0] * 26
    blanks = 0
    for ch in rack:
        if ch == "?":
            blanks += 1
        elif "A" <= ch <= "Z":
            counts[ord(ch) - _ORD_A] += 1
        else:
            raise ValueError(f"rack {rack!r} holds {ch!r}, which is not a tile (A-Z or ?)")
    return counts, blanks


def generate(
    board: Board,
    rack: str,
    graph: WordGraph,
    *,
    deadline: float | None = None,
) -> GenerationResult:
    """All valid placements of tiles from ``rack`` (letters, ``?`` for a blank) on ``board``.

    "Valid" means what :func:`engine.decide` would accept: the engine's shape rules (one line, no gap, the
    source covered by the first move, touching a tile afterwards, words of 2+ letters) and every word formed
    in ``graph``. ``deadline`` is a :func:`time.monotonic` instant after which the search stops and returns
    what it has (``complete=False``). Raises ValueError if ``rack`` holds a character other than A-Z or ``?``.
    """
    variant = board.variant
    counts, blanks = _rack_counts(rack)
    values_by_letter = variant.values
    letter_value = [values_by_letter.get(ch, 0) for ch in _LETTERS]
    board_letter, board_value = _board_arrays(board)
    anchors = {variant.source_index} if board.is_empty else _touching(board)
    moves: list[Candidate] = []
    # Both directions are searched anchor by anchor in turn (across, down, across, ...), so a deadline cuts
    # both evenly instead of dropping every down move when the across pass is slow (two blanks).
    searches = []
    for across in (True, False):
        ctx, runs = _direction_work(
            variant, graph, board_letter, board_value, letter_value, anchors, across, deadline
        )
        searches.append(_anchor_steps(ctx, runs, counts, blanks, moves))
    try:
        while searches:
            for steps in list(searches):
                if next(steps, _DONE) is _DONE:
                    searches.remove(steps)
    except _Deadline:
        return GenerationResult(moves, False)
    return GenerationResult(moves, True)


def openness(board: Board, graph: WordGraph, letters: int = ALL_LETTERS) -> int:
    """How many single-tile placements ``board`` takes: the (empty square, letter) pairs, letters limited to
    the bit mask ``letters`` (A = bit 0), where one tile forms only words of ``graph``. A measure of how open
    the board is (0 on an empty board, where no single tile may be played). Raises nothing."""
    board_letter, board_value = _board_arrays(board)
    squares = _touching(board)
    variant = board.variant
    down_ok, _ = _cross_checks(graph, board_letter, board_value, variant.up, variant.down, squares)
    across_ok, _ = _cross_checks(graph, board_letter, board_value, variant.left, variant.right, squares)
    both = (down_ok.get(sq, ALL_LETTERS) & across_ok.get(sq, ALL_LETTERS) for sq in squares)
    return sum((mask & letters).bit_count() for mask in both)


def _board_arrays(board: Board) -> tuple[list[int], list[int]]:
    """Each square's letter as an index (A = 0; -1: empty) and the value its tile scores (a blank: 0)."""
    values = board.variant.values
    cells = board.cells
    return (
        [-1 if c is None else ord(c.upper()) - _ORD_A for c in cells],
        [0 if c is None else values.get(c, 0) for c in cells],
    )


def _touching(board: Board) -> set[int]:
    """The empty playable squares next to a tile along a side."""
    variant = board.variant
    cells = board.cells
    playable = variant.playable
    neighbours = (variant.left, variant.right, variant.up, variant.down)
    return {
        sq
        for sq, c in enumerate(cells)
        if c is None and playable[sq] and any(n[sq] >= 0 and cells[n[sq]] is not None for n in neighbours)
    }


def _cross_checks(
    graph: WordGraph,
    board_letter: list[int],
    board_value: list[int],
    before: tuple[int, ...],
    after: tuple[int, ...],
    squares: Iterable[int],
) -> tuple[dict[int, int], dict[int, int]]:
    """For each empty square with a perpendicular neighbour: the letters that complete a word there (bit mask)
    and the score of the board tiles of that perpendicular word. Squares with no neighbour are left out."""
    masks = graph.masks
    bases = graph.bases
    targets = graph.targets
    allowed: dict[int, int] = {}
    sums: dict[int, int] = {}
    for sq in squares:
        up: list[int] = []
        total = 0
        p = before[sq]
        while p >= 0 and board_letter[p] >= 0:
            up.append(board_letter[p])
            total += board_value[p]
            p = before[p]
        down: list[int] = []
        p = after[sq]
        while p >= 0 and board_letter[p] >= 0:
            down.append(board_letter[p])
            total += board_value[p]
            p = after[p]
        if not up and not down:
            continue
        node = graph.root
        for letter in reversed(up):
            m = masks[node]
            bit = 1 << letter
            if not m & bit:
                node = -1
                break
            node = targets[bases[node] + (m & (bit - 1)).bit_count()]
        ok = 0
        if node >= 0:
            m0 = masks[node]
            kids = m0 & ALL_LETTERS
            while kids:
                low = kids & -kids
                kids ^= low
                n = targets[bases[node] + (m0 & (low - 1)).bit_count()]
                for letter in down:
                    m = masks[n]
                    bit = 1 << letter
                    if not m & bit:
                        n = -1
                        break
                    n = targets[bases[n] + (m & (bit - 1)).bit_count()]
                if n >= 0 and masks[n] & TERMINAL:
                    ok |= low
        allowed[sq] = ok
        sums[sq] = total
    return allowed, sums


class _Context(NamedTuple):
    """What the search of one direction reads (never writes) besides the rack."""

    graph: WordGraph
    variant: Variant
    board_letter: list[int]
    board_value: list[int]
    letter_value: list[int]
    anchors: set[int]
    allowed: dict[int, int]
    cross_sums: dict[int, int]
    across: bool
    deadline: float | None


def _direction_work(
    variant: Variant,
    graph: WordGraph,
    board_letter: list[int],
    board_value: list[int],
    letter_value: list[int],
    anchors: set[int],
    across: bool,
    deadline: float | None,
) -> tuple[_Context, list[list[int]]]:
    """The search context of one direction and its runs that hold an anchor (the only ones with moves)."""
    before, after = (variant.up, variant.down) if across else (variant.left, variant.right)
    empties = [sq for sq in anchors if board_letter[sq] < 0]
    allowed, cross_sums = _cross_checks(graph, board_letter, board_value, before, after, empties)
    ctx = _Context(
        graph,
        variant,
        board_letter,
        board_value,
        letter_value,
        anchors,
        allowed,
        cross_sums,
        across,
        deadline,
    )
    return ctx, [run for run in _runs(variant, across) if any(sq in anchors for sq in run)]


_DONE: Final = object()


def _anchor_steps(
    ctx: _Context, runs: list[list[int]], counts: list[int], blanks: int, moves: list[Candidate]
) -> Iterator[None]:
    """The search of one direction, one step per anchor (see :func:`_search_run`)."""
    for run in runs:
        yield from _search_run(ctx, run, counts, blanks, moves)


def _search_run(
    ctx: _Context, run: list[int], counts: list[int], blanks: int, moves: list[Candidate]
) -> Iterator[None]:
    """All moves whose main word lies in ``run`` (one row or column between walls/edges) for one direction,
    yielding after each anchor (so that two directions can take turns).

    ``counts`` (the rack's letters) is changed during the search and restored before each yield.
    """
    graph = ctx.graph
    masks = graph.masks
    bases = graph.bases
    targets = graph.targets
    variant = ctx.variant
    lmult = variant.letter_mult
    wmult = variant.word_mult
    crossing = variant.crossing
    bingo_size = variant.rack_size
    bingo_bonus = variant.bingo_bonus
    board_value = ctx.board_value
    letter_value = ctx.letter_value
    anchors = ctx.anchors
    allowed = ctx.allowed
    cross_sums = ctx.cross_sums
    across = ctx.across
    length = len(run)
    run_letter = [ctx.board_letter[sq] for sq in run]
    rack_mask = 0
    for letter in range(26):
        if counts[letter]:
            rack_mask |= 1 << letter
    tiles_in_rack = blanks + sum(counts)
    # The tiles of the move being built: (square, letter, blank); a left part's squares are set by _shift.
    placed: list[tuple[int, str, bool]] = []
    append = moves.append

    def record(main: int, wmul: int, cross: int) -> None:
        n = len(placed)
        if n == 1 and not across and placed[0][0] in cross_sums:
            return  # a lone tile with words both ways: already listed by the across pass
        score = main * wmul + cross + (bingo_bonus if n == bingo_size else 0)
        append(Candidate(score, tuple(sorted(placed))))

    def extend(pos: int, node: int, main: int, wmul: int, cross: int, start: int, anchor: int) -> None:
        nonlocal rack_mask, blanks
        if pos == length:
            if pos > anchor and masks[node] & TERMINAL and pos - start >= 2:
                record(main, wmul, cross)
            return
        here = run_letter[pos]
        mask = masks[node]
        if here >= 0:
            bit = 1 << here
            if mask & bit:
                child = targets[bases[node] + (mask & (bit - 1)).bit_count()]
                extend(pos + 1, child, main + board_value[run[pos]], wmul, cross, start, anchor)
            return
        if pos > anchor and mask & TERMINAL and pos - start >= 2:
            record(main, wmul, cross)
        sq = run[pos]
        fits = mask & allowed.get(sq, ALL_LETTERS) & (ALL_LETTERS if blanks else rack_mask)
        if not fits:
            return
        lm = lmult[sq]
        wm = wmult[sq]
        csum = cross_sums.get(sq, -1)
        doubles = crossing[sq] and csum >= 0
        base = bases[node]
        while fits:
            low = fits & -fits
            fits ^= low
            letter = low.bit_length() - 1
            child = targets[base + (mask & (low - 1)).bit_count()]
            ch = _LETTERS[letter]
            # The real tile first, then a blank naming the same letter: two different moves.
            for use_blank in (False, True):
                if use_blank:
                    if not blanks:
                        continue
                    value = 0
                    blanks -= 1
                else:
                    if not rack_mask & low:
                        continue
                    value = letter_value[letter]
                    counts[letter] -= 1
                    if not counts[letter]:
                        rack_mask ^= low
                new_wmul = wmul * wm
                new_cross = cross
                if csum >= 0:
                    word = (csum + value * lm) * wm
                    if doubles:
                        word *= 2
                        new_wmul *= 2
                    new_cross += word
                placed.append((sq, ch, use_blank))
                extend(pos + 1, child, main + value * lm, new_wmul, new_cross, start, anchor)
                placed.pop()
                if use_blank:
                    blanks += 1
                else:
                    if not counts[letter]:
                        rack_mask |= low
                    counts[letter] += 1

    def shift(size: int, anchor: int) -> None:
        # `placed` holds the left part in reading order; put it on the `size` squares just left of the anchor.
        first = anchor - size
        for k in range(size):
            _, ch, blank = placed[k]
            placed[k] = (run[first + k], ch, blank)

    def left_part(node: int, size: int, limit: int, anchor: int) -> None:
        nonlocal rack_mask, blanks
        # The left part's squares touch no tile: no cross-checks, only their letter and word bonuses.
        main = 0
        wmul = 1
        for k in range(size):
            sq, ch, blank = placed[k]
            main += (0 if blank else letter_value[ord(ch) - _ORD_A]) * lmult[sq]
            wmul *= wmult[sq]
        extend(anchor, node, main, wmul, 0, anchor - size, anchor)
        if size >= limit:
            return
        mask = masks[node]
        fits = mask & (ALL_LETTERS if blanks else rack_mask)
        base = bases[node]
        while fits:
            low = fits & -fits
            fits ^= low
            letter = low.bit_length() - 1
            child = targets[base + (mask & (low - 1)).bit_count()]
            ch = _LETTERS[letter]
            for use_blank in (False, True):
                if use_blank:
                    if not blanks:
                        continue
                    blanks -= 1
                else:
                    if not rack_mask & low:
                        continue
                    counts[letter] -= 1
                    if not counts[letter]:
                        rack_mask ^= low
                placed.append((0, ch, use_blank))
                shift(size + 1, anchor)
                left_part(child, size + 1, limit, anchor)
                placed.pop()
                shift(size, anchor)
                if use_blank:
                    blanks += 1
                else:
                    if not counts[letter]:
                        rack_mask |= low
                    counts[letter] += 1

    deadline = ctx.deadline
    for pos in range(length):
        if run[pos] not in anchors:
            continue
        if deadline is not None and time.monotonic() > deadline:
            raise _Deadline
        if pos > 0 and run_letter[pos - 1] >= 0:
            # Board tiles just left of the anchor are the left part: walk them, then extend from the anchor.
            start = pos - 1
            while start > 0 and run_letter[start - 1] >= 0:
                start -= 1
            node = graph.walk("".join(_LETTERS[run_letter[q]] for q in range(start, pos)))
            if node >= 0:
                main = sum(board_value[run[q]] for q in range(start, pos))
                extend(pos, node, main, 1, 0, start, pos)
            yield None
            continue
        limit = 0
        q = pos - 1
        while q >= 0 and run_letter[q] < 0 and run[q] not in anchors:
            limit += 1
            q -= 1
        left_part(graph.root, 0, min(limit, tiles_in_rack - 1), pos)
        yield None
