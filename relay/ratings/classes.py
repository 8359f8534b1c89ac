"""Speed classes: every rated table belongs to one, derived from its turn time, and a player has one rating
per class (a fast player is not necessarily a good slow one, and the reverse).

The bounds live here and nowhere else (docs/ratings.md, "Speed classes"):

============== =====================================
class          turn time
============== =====================================
rapide         up to 60 s
normal         61 s to 180 s
lent           more than 180 s, less than a day
correspondance a day or more (tables counted in days)
============== =====================================
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from relay.ratings.errors import RatingError


class SpeedClass(StrEnum):
    """A rating pool. The value is the stable name used on the wire and in storage."""

    RAPIDE = "rapide"
    NORMAL = "normal"
    LENT = "lent"
    CORRESPONDANCE = "correspondance"


RAPIDE_MAX_SECONDS: Final = 60
NORMAL_MAX_SECONDS: Final = 180
# A table whose turn time is counted in days is correspondence, whatever the number of days.
CORRESPONDANCE_MIN_SECONDS: Final = 86_400


def speed_class(turn_seconds: float) -> SpeedClass:
    """The class of a table whose turns last ``turn_seconds``: ``rapide`` up to 60 s, ``normal`` up to
    180 s, ``lent`` above, ``correspondance`` from a day. Raises ValueError for a turn time that is not
    positive (no table has one)."""
    if not turn_seconds > 0:
        raise ValueError(f"turn time must be positive, got {turn_seconds!r}")
    if turn_seconds <= RAPIDE_MAX_SECONDS:
        return SpeedClass.RAPIDE
    if turn_seconds <= NORMAL_MAX_SECONDS:
        return SpeedClass.NORMAL
    if turn_seconds < CORRESPONDANCE_MIN_SECONDS:
        return SpeedClass.LENT
    return SpeedClass.CORRESPONDANCE


def parse_class(name: str) -> SpeedClass:
    """The class named ``name`` (as sent by a client). Raises RatingError ``unknown_class``."""
    try:
        return SpeedClass(name)
    except ValueError:
        shown = name if len(name) <= 40 else name[:40] + "..."
        raise RatingError("unknown_class", f"unknown speed class {shown!r}") from None
