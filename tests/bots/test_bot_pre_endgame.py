"""Near the end of the bag the expert minds the tiles it will still hold when the game stops: it plays out a
costly tile (Q, Z...) that would be stranded on a closing board rather than keep it for a point or two more,
and with the bag still allowing it, returns it; far from the end its leave judgement is unchanged."""

from __future__ import annotations

import pytest

from engine.board import Board
from relay.bots.equity import Position, rank, unseen_tiles
from relay.bots.leaves import LeaveModel
from relay.bots.levels import LEVELS
from relay.bots.movegen import Candidate

EXPERT = LEVELS["expert"]
# No leave promise at all: what is left is the end-of-game cost alone.
FLAT = LeaveModel({})


def pos(rack: str, bag: int, board: Board | None = None) -> Position:
    b = board or Board.empty("lexio")
    return Position(b, rack, bag, unseen_tiles(b.variant, b, rack), (7,))


def cand(score: int, tiles: str) -> Candidate:
    return Candidate(score, tuple((80 + i, ch, False) for i, ch in enumerate(tiles)))


def ranked(
    p: Position, moves: list[Candidate], end_weight: float, exchanges: bool = False
) -> list[Candidate | str]:
    options = rank(
        moves,
        p,
        FLAT,
        leave_weight=EXPERT.leave_weight,
        with_exchanges=exchanges,
        end_weight=end_weight,
        end_horizon=EXPERT.end_horizon,
    )
    return [o.move if o.move is not None else o.tiles for o in options]


def test_the_expert_level_minds_the_tiles_it_holds_at_the_end() -> None:
    assert EXPERT.end_weight > 0 and EXPERT.end_horizon >= 7
    assert all(LEVELS[n].end_weight == 0 for n in ("beginner", "easy", "medium", "strong"))


def test_near_the_end_the_expert_plays_out_the_q_rather_than_keep_it_for_two_points() -> None:
    rack = "QUEAIST"
    plays_q = cand(12, "QUE")  # keeps AIST
    keeps_q = cand(14, "EAI")  # two points more, keeps QUST... and the Q
    near = pos(rack, 3)
    assert ranked(near, [keeps_q, plays_q], EXPERT.end_weight)[0] == plays_q
    # Without the end cost (or far from the end) the two points win.
    assert ranked(near, [keeps_q, plays_q], 0.0)[0] == keeps_q
    assert ranked(pos(rack, 60), [keeps_q, plays_q], EXPERT.end_weight)[0] == keeps_q


def test_the_cost_of_a_kept_q_rises_as_the_bag_runs_out() -> None:
    rack = "QEEAIST"
    keeps_q = cand(10, "EE")

    def equity(bag: int) -> float:
        return rank(
            [keeps_q],
            pos(rack, bag),
            FLAT,
            with_exchanges=False,
            end_weight=EXPERT.end_weight,
            end_horizon=EXPERT.end_horizon,
        )[0].equity

    costs = [10 - equity(bag) for bag in (40, EXPERT.end_horizon + 2, 12, 8, 4, 2)]
    assert costs[0] == pytest.approx(0.0) and costs[1] == pytest.approx(0.0)
    assert costs[2:] == sorted(costs[2:]) and costs[-1] > costs[2] > 0


def test_with_the_bag_still_allowing_it_the_expert_returns_a_q_it_could_not_place() -> None:
    rack = "QEAIRST"
    options = ranked(pos(rack, 8), [], EXPERT.end_weight, exchanges=True)
    assert options and isinstance(options[0], str) and "Q" in options[0]
