"""Ratings (#30): per speed class Weng-Lin Plackett-Luce ratings for 2-4 players, provisional marks, win
chances before the start, and the "play now" matcher. Pure: no clock, no storage, no randomness; the relay
stores the ratings and passes the time in (docs/ratings.md)."""

from relay.ratings.classes import SpeedClass, parse_class, speed_class
from relay.ratings.errors import CODES, RatingError
from relay.ratings.model import (
    Rating,
    RatingChange,
    predict_win,
    ranks_from_scores,
    rate_game,
)
from relay.ratings.pairing import (
    Matcher,
    Outcome,
    Proposal,
    Seek,
    SizePref,
    blocked_pairs,
    match,
    parse_size,
    window,
)

__all__ = [
    "CODES",
    "Matcher",
    "Outcome",
    "Proposal",
    "Rating",
    "RatingChange",
    "RatingError",
    "Seek",
    "SizePref",
    "SpeedClass",
    "blocked_pairs",
    "match",
    "parse_class",
    "parse_size",
    "predict_win",
    "ranks_from_scores",
    "rate_game",
    "speed_class",
    "window",
]
