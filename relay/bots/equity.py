"""Equity: a move's score plus the value of the tiles it keeps, for placements and exchanges alike.

A :class:`Position` is what one seat knows: board, rack, bag size, the unseen tiles (bag plus the other racks,
as a seat can count them) and the scores. :func:`rank` lists every option of that seat — each placement the
generator found and, when asked, every distinct exchange the bag allows (the rules: the bag must hold at least
as many tiles as are returned) — with its equity, best first.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from engine.board import Board
from engine.variants import Variant
from relay.bots.leaves import LeaveModel
from relay.bots.movegen import Candidate

__all__ = ["Option", "Position", "bag_weight", "exchanges", "leave_of", "rank", "unseen_tiles"]


class Position(NamedTuple):
    """What the seat on turn knows. ``unseen``: every tile not on the board nor on its rack (the bag plus the
    other racks); ``opponents``: the other seats' rack sizes; ``spread``: own score minus the best other."""

    board: Board
    rack: str
    bag_size: int
    unseen: str
    opponents: tuple[int, ...]
    spread: int = 0
    scoreless_turns: int = 0

    @property
    def players(self) -> int:
        return 1 + len(self.opponents)

    @property
    def variant(self) -> Variant:
        return self.board.variant


class Option(NamedTuple):
    """One thing the seat can do: ``kind`` ``place`` (``move`` set), ``swap`` (``tiles`` returned) or
    ``pass``; ``score`` its points now; ``leave`` the tiles kept; ``equity`` what it is judged worth."""

    kind: str
    equity: float
    score: int
    leave: str
    move: Candidate | None = None
    tiles: str = ""


def leave_of(rack: str, move: Candidate) -> str:
    """The rack tiles a placement keeps (``?`` for blanks)."""
    left = list(rack)
    for _, letter, blank in move.tiles:
        left.remove("?" if blank else letter)
    return "".join(sorted(left))


def unseen_tiles(variant: Variant, board: Board, rack: str) -> str:
    """The tiles a seat cannot see: the full bag less the board (a blank on the board counts as ``?``) and
    its own rack."""
    counts = Counter(variant.full_bag())
    for cell in board.cells:
        if cell is not None:
            counts["?" if cell.islower() else cell] -= 1
    for ch in rack:
        counts[ch] -= 1
    return "".join(sorted(ch * n for ch, n in counts.items() if n > 0))


def exchanges(rack: str, bag_size: int) -> list[tuple[str, str]]:
    """Every distinct (returned, kept) split of ``rack`` returning 1 tile or more, at most ``bag_size``,
    blanks always kept (a blank is the best tile there is: returning one never pays, and a leave table fitted
    on few two-blank racks may not say so)."""
    blanks = "?" * rack.count("?")
    tiles = sorted(rack.replace("?", ""))
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for n in range(1, min(len(tiles), bag_size) + 1):
        for idx in itertools.combinations(range(len(tiles)), n):
            returned = "".join(tiles[i] for i in idx)
            if returned in seen:
                continue
            seen.add(returned)
            chosen = set(idx)
            kept = blanks + "".join(t for i, t in enumerate(tiles) if i not in chosen)
            out.append((returned, kept))
    return out


def bag_weight(bag_after: int) -> float:
    """How much a leave counts given the tiles left in the bag after the move: fully while the next draws
    are normal, less as the bag runs out (a leave's promise is the racks it can still draw to)."""
    if bag_after >= 7:
        return 1.0
    return 0.4 + 0.6 * bag_after / 7


def rank(
    moves: Sequence[Candidate],
    pos: Position,
    leaves: LeaveModel | None,
    *,
    leave_weight: float = 1.0,
    with_exchanges: bool = True,
    noise: float = 0.0,
    rng: random.Random | None = None,
) -> list[Option]:
    """Every option of ``pos``, best equity first. Equity = score + ``leave_weight`` x leave value x
    :func:`bag_weight` (+ a Gaussian of s.d. ``noise`` drawn from ``rng``, the lower levels' handicap). With
    the bag empty, a leave is worth minus its tiles' values (they count against you at the end) and going out
    gains twice the unseen tiles' value. Exchanges are listed if ``with_exchanges`` and the bag allows."""
    variant = pos.variant
    values = variant.values
    out: list[Option] = []
    noisy = rng if noise > 0 else None

    def jitter() -> float:
        return noisy.gauss(0.0, noise) if noisy is not None else 0.0

    unseen_value = sum(values.get(t, 0) for t in pos.unseen)
    for m in moves:
        kept = leave_of(pos.rack, m)
        bag_after = max(0, pos.bag_size - m.size)
        if pos.bag_size == 0:
            if not kept:
                extra = 2.0 * unseen_value / max(1, len(pos.opponents))
            else:
                extra = -1.5 * sum(values.get(t, 0) for t in kept)
        elif leaves is not None and leave_weight:
            # Drawing refills the rack: a leave that empties the bag keeps its tiles to the end.
            extra = leave_weight * bag_weight(bag_after) * leaves.value(kept)
        else:
            extra = 0.0
        out.append(Option("place", m.score + extra + jitter(), m.score, kept, m))
    if with_exchanges and pos.bag_size > 0 and leaves is not None:
        for returned, kept in exchanges(pos.rack, pos.bag_size):
            eq = leave_weight * leaves.value(kept) + jitter()
            out.append(Option("swap", eq, 0, kept, None, returned))
    # Stable order for equal equity: the choice depends on the position (and rng), not generation order.
    out.sort(key=lambda o: (-o.equity, -o.score, o.kind, o.move.tiles if o.move else (), o.tiles))
    return out


def position_from_view(view: dict[str, object], board: Board, rack: str) -> Position:
    """The :class:`Position` of the seat whose engine view is ``view`` (board and rack already read)."""
    bag = view.get("bag_size", 0)
    bag = bag if isinstance(bag, int) else 0
    you = view.get("you")
    seats = view.get("seats") or []
    opponents: list[int] = []
    mine = 0
    best_other: int | None = None
    for s in seats if isinstance(seats, list) else []:
        if not isinstance(s, dict):
            continue
        score = s.get("score", 0) if isinstance(s.get("score"), int) else 0
        if s.get("seat") == you:
            mine = score
            continue
        size = s.get("rack_size", 0)
        opponents.append(size if isinstance(size, int) else 0)
        best_other = score if best_other is None else max(best_other, score)
    if not opponents:
        opponents = [7]
    scoreless = view.get("scoreless_turns", 0)
    return Position(
        board,
        rack,
        bag,
        unseen_tiles(board.variant, board, rack),
        tuple(opponents),
        mine - (best_other or 0),
        scoreless if isinstance(scoreless, int) else 0,
    )
