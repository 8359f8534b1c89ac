"""How strong each computer level is, as a rating on the players' displayed scale (#30).

The levels are rated once, offline: ``bench/bot_ratings.py --write`` has the five levels play each other,
rates them with the product's model (:mod:`relay.ratings.model`) and writes ``level_ratings.json`` next to
this module (with the date, games, seed and command it was computed with) and its copy for the browser,
``web/app/level_ratings.py``. The figures ship with the bots; nothing here plays or rates.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Final

__all__ = ["LEVEL_RATINGS_FILE", "level_rating", "level_ratings"]

LEVEL_RATINGS_FILE: Final = Path(__file__).with_name("level_ratings.json")


@functools.cache
def level_ratings() -> dict[str, int]:
    """Every level's figure, weakest level first, read from the shipped file once per process. Raises
    ValueError if the file is malformed, OSError if it is missing (a broken install)."""
    data = json.loads(LEVEL_RATINGS_FILE.read_text(encoding="utf-8"))
    ratings = data.get("ratings") if isinstance(data, dict) else None
    if not isinstance(ratings, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) for k, v in ratings.items()
    ):
        raise ValueError(f"{LEVEL_RATINGS_FILE}: no ratings object of level names to whole numbers")
    return dict(ratings)


def level_rating(level: str) -> int:
    """The displayed rating of computer ``level`` (``"medium"`` -> e.g. 1500). Raises KeyError for a name that
    is not a level."""
    return level_ratings()[level]
