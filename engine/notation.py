"""GCG-style move notation that round-trips with the move values.

- ``8D WORD``: row then column = across, starting at D8; ``D8 WORD``: column then row = down.
- In the word, ``.`` (or the letter itself, or letters in parentheses) stands for a tile already on the board;
  a lower-case letter is a blank naming that letter.
- ``-`` is a pass, ``-ABC`` a swap of A, B and C (``?`` for a blank).

:func:`format_move` writes played-through tiles as ``.``, so ``parse_move(format_move(m, b), b) == m`` and
``format_move(parse_move(t, b), b) == t`` for text in that canonical form.
"""

from __future__ import annotations

import re

from engine.board import Board
from engine.errors import BadLetter, BadNotation, EmptyPlay, Gap, InputError, Occupied, OffBoard
from engine.moves import Move, Pass, Place, Swap, Tile
from engine.scoring import line_is_across
from engine.variants import BLANK, LETTERS

__all__ = ["format_move", "parse_move"]

_ACROSS = re.compile(r"^([0-9]{1,2})([A-Za-z])$")
_DOWN = re.compile(r"^([A-Za-z])([0-9]{1,2})$")


def parse_move(text: str, board: Board) -> Move:
    """Parse notation against the board it is played on.

    Raises :class:`~engine.errors.BadNotation` for text that is not a move, :class:`~engine.errors.OffBoard`
    for a word running off the grid, :class:`~engine.errors.Occupied` for a letter that contradicts the tile
    already on its square, :class:`~engine.errors.EmptyPlay` for a word that places no tile.  The result is
    not checked against the rules: see :func:`engine.analyse` / :func:`engine.decide`.  A ``board`` that is
    not a :class:`Board` raises :class:`~engine.errors.InputError`.
    """
    _need_board(board)
    if not isinstance(text, str):
        raise BadNotation(f"move {text!r} is not text", text=repr(text)[:40])
    s = text.strip()
    if s == "-":
        return Pass()
    if s.startswith("-"):
        rest = s[1:]
        if not rest or any(ch not in LETTERS and ch != BLANK for ch in rest):
            raise BadNotation(f"{s!r} is not a swap: '-' then upper-case letters and '?' for blanks", text=s)
        return Swap(rest)
    parts = s.split()
    if len(parts) != 2:
        raise BadNotation(f"{s!r} is not a move: expected '8D WORD', 'D8 WORD', '-ABC' or '-'", text=s)
    pos, word = parts
    v = board.variant
    m = _ACROSS.match(pos)
    if m:
        row, col, across = int(m.group(1)), m.group(2).upper(), True
    else:
        m = _DOWN.match(pos)
        if not m:
            raise BadNotation(f"{pos!r} is not a position: '8D' goes across, 'D8' goes down", text=s)
        row, col, across = int(m.group(2)), m.group(1).upper(), False
    c, r = ord(col) - ord("A"), row - 1
    if not (0 <= c < v.width and 0 <= r < v.height):
        raise OffBoard(f"square {col}{row} is off the {v.name} board", square=f"{col}{row}")
    cells = board.cells
    tiles: list[Tile] = []
    through = False
    for ch in word:
        if ch == "(":
            if through:
                raise BadNotation(f"{word!r} nests parentheses", text=s)
            through = True
            continue
        if ch == ")":
            if not through:
                raise BadNotation(f"{word!r} closes a parenthesis it did not open", text=s)
            through = False
            continue
        if not (0 <= c < v.width and 0 <= r < v.height):
            name = f"{chr(ord('A') + c)}{r + 1}" if 0 <= c < 26 and r >= 0 else f"past {v.names[-1]}"
            raise OffBoard(f"{s!r} runs off the {v.name} board at {name}", square=name, text=s)
        i = r * v.width + c
        sq = v.names[i]
        cell = cells[i]
        if ch == "." or through:
            if cell is None:
                raise BadNotation(f"{s!r} plays through {sq}, which holds no tile", text=s, square=sq)
            if ch != "." and ch.upper() != cell.upper():
                raise Occupied(f"square {sq} holds {cell.upper()}, not {ch.upper()}", square=sq)
        elif ch.upper() in LETTERS:
            if cell is not None:
                if ch.upper() != cell.upper():
                    raise Occupied(f"square {sq} is already occupied by {cell.upper()}", square=sq)
            else:
                tiles.append(Tile(sq, ch.upper(), ch.islower()))
        else:
            raise BadNotation(f"{ch!r} in {word!r} is not a letter, '.' or a parenthesis", text=s)
        if across:
            c += 1
        else:
            r += 1
    if through:
        raise BadNotation(f"{word!r} leaves a parenthesis open", text=s)
    if not tiles:
        raise EmptyPlay(f"{s!r} places no tile", count=0)
    return Place(tuple(tiles))


def _need_board(board: Board) -> None:
    if not isinstance(board, Board):
        raise InputError(f"{board!r:.40} is not a Board", board=repr(board)[:40])


def format_move(move: Move, board: Board) -> str:
    """Write a move in canonical notation, given the board *before* it.

    A single tile is written across if it forms an across word, else down.  Raises
    :class:`~engine.errors.EmptyPlay`, :class:`~engine.errors.OffBoard`, :class:`~engine.errors.Occupied`,
    :class:`~engine.errors.NotInLine` or :class:`~engine.errors.Gap` for a placement notation cannot express;
    :class:`~engine.errors.BadNotation` for a tile that is not a :class:`Tile` or a swap that is not letters
    and ``?``; :class:`~engine.errors.BadLetter` for a tile letter that is not A-Z;
    :class:`~engine.errors.InputError` for a ``move`` that is not a move or a ``board`` that is not a Board.
    """
    if isinstance(move, Pass):
        return "-"
    if isinstance(move, Swap):
        tiles = move.tiles
        if not isinstance(tiles, str) or not tiles or any(ch not in LETTERS and ch != BLANK for ch in tiles):
            raise BadNotation(f"swap {tiles!r:.20} is not letters and '?'", text=repr(tiles)[:20])
        return "-" + tiles
    if not isinstance(move, Place):
        raise InputError(f"{move!r:.40} is not a move (Place, Swap or Pass)", move=repr(move)[:40])
    _need_board(board)
    v = board.variant
    cells = board.cells
    if not move.tiles:
        raise EmptyPlay("a placement needs at least one tile", count=0)
    placed: dict[int, Tile] = {}
    for t in move.tiles:
        if not isinstance(t, Tile):
            raise BadNotation(f"{t!r:.40} is not a Tile", text=repr(t)[:40])
        if not isinstance(t.letter, str) or t.letter.upper() not in LETTERS:
            raise BadLetter(
                f"{t.letter!r:.20} on {t.square!r:.10} is not a tile letter",
                square=str(t.square)[:10],
                letter=repr(t.letter)[:20],
            )
        i = v.index.get(t.square) if isinstance(t.square, str) else None
        if i is None:
            raise OffBoard(f"square {t.square} is off the {v.name} board", square=str(t.square))
        if cells[i] is not None:
            raise Occupied(f"square {t.square} is already occupied by {cells[i]}", square=t.square)
        placed[i] = t
    order = sorted(placed)
    first, last = order[0], order[-1]
    if len(order) == 1:
        left, right = v.left[first], v.right[first]
        across = (left != -1 and cells[left] is not None) or (right != -1 and cells[right] is not None)
        if not across:
            up, down = v.up[first], v.down[first]
            across = not ((up != -1 and cells[up] is not None) or (down != -1 and cells[down] is not None))
    else:
        across = line_is_across(v, order)
    back, fwd = (v.left, v.right) if across else (v.up, v.down)
    start = first
    while back[start] != -1 and cells[back[start]] is not None:
        start = back[start]
    out: list[str] = []
    j = start
    while True:  # up to the last placed tile, every square must hold a tile
        if j == -1 or (j not in placed and cells[j] is None):
            hole = "a wall" if j == -1 else v.names[j]
            raise Gap(
                f"tiles {v.names[first]}..{v.names[last]} leave {hole} empty",
                first=v.names[first],
                last=v.names[last],
            )
        p = placed.get(j)
        out.append("." if p is None else (p.letter.lower() if p.blank else p.letter.upper()))
        if j == last:
            break
        j = fwd[j]
    j = fwd[last]
    while j != -1 and cells[j] is not None:
        out.append(".")
        j = fwd[j]
    name = v.names[start]
    col, row = name[0], name[1:]
    return f"{row}{col} {''.join(out)}" if across else f"{col}{row} {''.join(out)}"
