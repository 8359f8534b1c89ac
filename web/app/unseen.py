"""Unseen-tiles tracker: the tiles a seat cannot see (bag + others' racks), from public information only.

Everything comes from the seat's view: the variant's full tile set, minus every tile on the board (a placed
blank counts as a blank, whatever letter it names), minus the seat's own rack.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from engine.variants import BLANK, get_variant

if TYPE_CHECKING:
    from app.payloads import View


def unseen_counts(view: View) -> dict[str, int]:
    """Letter (``?`` = blank) -> copies not visible to this seat, in tile-table order, zeros dropped.

    Raises ``UnknownVariant`` for a view of an unknown variant.
    """
    variant = get_variant(str(view.get("variant", "lexio")))
    left = Counter(variant.full_bag())
    for tile in view.get("board") or ():
        left[BLANK if tile.get("blank") else str(tile["letter"]).upper()] -= 1
    for letter in view.get("rack") or "":
        left[letter] -= 1
    return {t.letter: left[t.letter] for t in variant.tiles if left[t.letter] > 0}


def unseen_total(view: View) -> int:
    """What the unseen count must equal: bag size + tiles on the other seats' racks."""
    you = view.get("you")
    others = sum(int(s.get("rack_size", 0)) for s in view.get("seats") or () if s.get("seat") != you)
    return int(view.get("bag_size", 0)) + others
