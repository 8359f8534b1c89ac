"""Fast seeded self-play for training and benches: the game's rules over the move generator, no relay.

Plays the engine's rules (draws after a placement; a swap draws first then returns; the game ends when a
player goes out with the bag empty or after 2 x players turns without a placement, rack values counted as
in :func:`engine.decide`) but skips the word checks: every placement comes from the generator, which only
lists valid ones. Policies are called with a :class:`~relay.bots.equity.Position` and return a
:class:`Decision`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.board import Board
from engine.variants import Variant, get_variant
from relay.bots.equity import Position, leave_of
from relay.bots.movegen import Candidate

__all__ = ["Decision", "GameRecord", "Policy", "Turn", "play_game"]


@dataclass(frozen=True, slots=True)
class Decision:
    """``kind`` ``place`` (with ``move``), ``swap`` (``tiles`` returned) or ``pass``."""

    kind: str
    move: Candidate | None = None
    tiles: str = ""


Policy = Callable[[Position, random.Random], Decision]


@dataclass(slots=True)
class Turn:
    seat: int
    kind: str
    score: int
    size: int
    leave: str
    bag_after: int
    think_ms: float


@dataclass(slots=True)
class GameRecord:
    scores: list[int]
    reason: str
    turns: list[Turn] = field(default_factory=list)

    @property
    def winners(self) -> list[int]:
        top = max(self.scores)
        return [i for i, s in enumerate(self.scores) if s == top]


def play_game(policies: Sequence[Policy], rng: random.Random, variant: Variant | None = None) -> GameRecord:
    """One game between ``policies`` (seat order), the bag shuffled by ``rng``."""
    v = variant or get_variant("lexio")
    n = len(policies)
    bag = list(v.full_bag())
    rng.shuffle(bag)
    size = v.rack_size
    racks = ["".join(bag[i * size : (i + 1) * size]) for i in range(n)]
    bag = bag[n * size :]
    board = Board.empty(v)
    scores = [0] * n
    turns: list[Turn] = []
    scoreless = 0
    seat = 0
    values = v.values
    while True:
        rack = racks[seat]
        unseen = sorted(bag + [t for i, r in enumerate(racks) if i != seat for t in r])
        others = tuple(len(racks[i]) for i in range(n) if i != seat)
        best_other = max(scores[i] for i in range(n) if i != seat)
        pos = Position(board, rack, len(bag), "".join(unseen), others, scores[seat] - best_other, scoreless)
        t0 = time.perf_counter()
        d = policies[seat](pos, rng)
        think = (time.perf_counter() - t0) * 1000
        if d.kind == "place" and d.move is not None:
            m = d.move
            board = board.with_tiles(m.to_place(v).tiles)
            kept = list(leave_of(rack, m))
            scores[seat] += m.score
            draw = bag[: size - len(kept)]
            bag = bag[len(draw) :]
            racks[seat] = "".join(kept + draw)
            turns.append(Turn(seat, "place", m.score, m.size, "".join(kept), len(bag), think))
            scoreless = 0
            if not racks[seat] and not bag:
                held = [sum(values[t] for t in r) for r in racks]
                for i in range(n):
                    scores[i] -= held[i]
                scores[seat] += sum(held)
                return GameRecord(scores, "out", turns)
        else:
            if d.kind == "swap" and d.tiles and len(d.tiles) <= len(bag):
                kept = list(rack)
                for t in d.tiles:
                    kept.remove(t)
                draw = bag[: len(d.tiles)]
                bag = bag[len(draw) :] + list(d.tiles)
                rng.shuffle(bag)
                racks[seat] = "".join(kept + draw)
                turns.append(Turn(seat, "swap", 0, 0, "".join(sorted(kept)), len(bag), think))
            else:
                turns.append(Turn(seat, "pass", 0, 0, rack, len(bag), think))
            scoreless += 1
            if scoreless >= 2 * n:
                for i in range(n):
                    scores[i] -= sum(values[t] for t in racks[i])
                return GameRecord(scores, "scoreless", turns)
        seat = (seat + 1) % n
