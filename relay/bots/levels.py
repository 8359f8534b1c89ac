"""The five bot levels as data: what each knows and how it judges, weakest first.

Each level is weaker than the next by handicaps a person would recognise, never by a random pick:

- ``vocabulary``: how many of the most frequent French words it knows (:mod:`relay.bots.vocab`; None: the
  whole word list) — every word of its play, crossings included, must be one it knows;
- ``max_tiles``: the most tiles it lays at once (it does not see longer plays);
- ``leave_weight``: how much it cares about the tiles it keeps (0: score only; 1: the full leave value);
- ``noise``: the standard deviation, in points, of its misjudgement of each option's equity;
- ``exchanges``: whether it weighs exchanging against placing (else it exchanges only with nothing to play);
- ``endgame``: whether it searches the endgame and guards the pre-endgame (else one-ply judgement);
- ``replies`` / ``reply_top`` / ``reply_weight``: how many racks it imagines the opponent holding, for how
  many of its best options, to see how much each option opens the board to them (0: it does not look).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["LEVELS", "LEVEL_NAMES", "Level", "get_level"]


@dataclass(frozen=True, slots=True)
class Level:
    name: str
    label: str
    vocabulary: int | None
    max_tiles: int
    leave_weight: float
    noise: float
    exchanges: bool
    endgame: bool
    replies: int = 0
    reply_top: int = 0
    reply_weight: float = 0.0
    # Off in every level (see docs/architecture.md, "Stuck endings"): while the bag holds 1 to ``open_bag``
    # tiles, the ``open_top`` best options each gain ``open_weight`` points per single-tile placement the
    # board takes after them (:func:`relay.bots.movegen.openness`; ``open_own``: of the letters they keep).
    # Between two bots that use it, fewer games end stuck; against one that does not, it loses points.
    open_weight: float = 0.0
    open_bag: int = 0
    open_top: int = 20
    open_own: bool = False


_ALL: Final = (
    Level("beginner", "débutant", 6_000, 5, 0.0, 4.0, False, False),
    Level("easy", "facile", 15_000, 6, 0.0, 3.0, False, False),
    Level("medium", "moyen", 40_000, 7, 0.15, 2.0, False, False),
    # Every word, but a hasty judgement: a glance at the leave, ~5 points of misjudgement per option (with
    # medium's 2 points it was as strong as the expert; 5 puts it midway between medium and expert).
    Level("strong", "fort", None, 7, 0.15, 5.0, False, False),
    # Half the fitted leave value played best against greedy (the fit is one turn ahead; in play a leave's
    # promise is shared with what the opponent does to the board). Three imagined racks for the next player
    # against its four best options, at half weight: of 1-4 racks and weights 0.5-1 the best against greedy.
    Level("expert", "expert", None, 7, 0.5, 0.0, True, True, replies=3, reply_top=4, reply_weight=0.5),
)
LEVELS: Final = {lv.name: lv for lv in _ALL}
LEVEL_NAMES: Final = tuple(LEVELS)


def get_level(name: str) -> Level | None:
    """The level called ``name`` (a protocol value), or None."""
    return LEVELS.get(name) if isinstance(name, str) else None
