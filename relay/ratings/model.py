"""The rating model: Weng-Lin Plackett-Luce (``openskill``), one team of one per seat, ranked by final score.

Everything that sets what a rating means is in this module, once: the prior, the per-game dynamics, the
growth of the uncertainty while a player is away, the provisional threshold ("?") and the displayed number
(docs/ratings.md). The core is pure: no clock, no randomness, no storage; times are seconds on the caller's
clock (a journal's ``ended_ms / 1000``), and every value is a small frozen dataclass.

What the pinned ``openskill==6.2.0`` does, checked by tests/relay/test_ratings_model.py:

* equal ranks are true ties (the Plackett-Luce ``A_q`` counts); they are not broken by the prior ordinal
  as in some older versions, and the seat order does not matter;
* the tie "averaging" in 6.2.0's ``_compute`` compares each updated rating with itself (the objects are
  updated in place) and so changes nothing: in a draw the weaker player gains and the stronger loses;
* a tie shares each tied stage of the Plackett-Luce order, so with equal priors a better score never
  gains less, but not always more: four equal players, two tied on top, the third gains as much as they;
* ranks go through ``int()``: :func:`ranks_from_scores` always gives whole numbers;
* ``margin`` (score margins) stays 0: it behaves oddly for upsets in 6.2.0.
"""

from __future__ import annotations

import math
from collections.abc import Container, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Final

from openskill.models import PlackettLuce, PlackettLuceRating

from engine.game import MAX_SEATS, MIN_SEATS
from relay.ratings.errors import RatingError

# The prior and the dynamics: openskill's own defaults, written out so that a library release that changed
# them would not silently change what a rating means.
MU0: Final = 25.0
SIGMA0: Final = 25.0 / 3.0
BETA: Final = 25.0 / 6.0
# Added (in variance) to every seat's sigma before each game: keeps a settled rating able to move.
TAU: Final = 25.0 / 300.0

# Provisional ("?") while sigma is at or above this. Measured by bench/ratings.py (10,000 players, 200,000
# games of 2, 3 and 4 seats): a newcomer joining rated players leaves it after a median of 13 games (sigma
# falls faster against opponents who are already known); when everybody starts at once, as on the day
# ratings open, after 23 (docs/ratings.md).
PROVISIONAL_SIGMA: Final = 5.3
# The sigma a regular settles at (TAU added each game balances what a game teaches): bench/ratings.py, the
# median after about 900 games. Only used to size the idle growth.
SIGMA_SETTLED: Final = 1.6
# Away this long, a settled player is provisional again; sigma grows like a random walk (variance linear in
# days) and never above the prior.
IDLE_DAYS_TO_PROVISIONAL: Final = 365.0
IDLE_VARIANCE_PER_DAY: Final = (PROVISIONAL_SIGMA**2 - SIGMA_SETTLED**2) / IDLE_DAYS_TO_PROVISIONAL
SECONDS_PER_DAY: Final = 86_400.0

# The displayed number: 1500 + DISPLAY_SCALE * (mu - DISPLAY_Z * sigma - ORDINAL_AT_CENTRE).
DISPLAY_CENTRE: Final = 1500
# A conservative estimate, but only one sigma below the mean: an average player's number still climbs by
# about 190 points between leaving "?" and settling, from playing alone; with 3 sigmas (openskill's
# ordinal) it would climb by 565 (bench/ratings.py), an unfamiliar drift on an Elo-like scale.
DISPLAY_Z: Final = 1.0
# An average player reads 1500 as the "?" goes away.
ORDINAL_AT_CENTRE: Final = MU0 - DISPLAY_Z * PROVISIONAL_SIGMA
# Elo's scale: between two settled players, 400 points more is a 10:1 favourite in a two-player game
# (openskill's two-player win chance is Phi(d / (sqrt(2) * BETA)) when both sigmas are small).
DISPLAY_SCALE: Final = 400.0 / (math.sqrt(2.0) * BETA * NormalDist().inv_cdf(10.0 / 11.0))

# Stateless between calls (rate() is never given limit_sigma, the one argument it stores).
_MODEL: Final = PlackettLuce(
    mu=MU0, sigma=SIGMA0, beta=BETA, tau=TAU, margin=0.0, limit_sigma=False, balance=False
)


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's rating in one speed class: the Weng-Lin belief ``N(mu, sigma^2)`` about their skill and
    when they last played a rated game in that class (``played_at``, seconds; None: never).

    Read a stored rating through :meth:`as_of` before showing or using it: it adds the uncertainty of the
    time away. Raises ValueError (plain) for a sigma that is not positive or a value that is not finite."""

    mu: float = MU0
    sigma: float = SIGMA0
    played_at: float | None = None

    def __post_init__(self) -> None:
        if not (math.isfinite(self.mu) and math.isfinite(self.sigma) and self.sigma > 0):
            raise ValueError(f"not a rating: mu={self.mu!r}, sigma={self.sigma!r}")
        if self.played_at is not None and not math.isfinite(self.played_at):
            raise ValueError(f"not a time: {self.played_at!r}")

    def as_of(self, now: float) -> Rating:
        """This rating at ``now`` (seconds): sigma grows with the days since ``played_at``, its variance by
        :data:`IDLE_VARIANCE_PER_DAY` a day, never above :data:`SIGMA0`. ``played_at`` moves to ``now``;
        since the growth is additive in variance and capped, ``r.as_of(a).as_of(b) == r.as_of(b)`` (up to
        rounding) for ``a <= b``. A ``now`` before ``played_at`` (a clock step back) adds nothing."""
        if self.played_at is None or now <= self.played_at:
            return self
        days = (now - self.played_at) / SECONDS_PER_DAY
        variance = min(SIGMA0**2, self.sigma**2 + IDLE_VARIANCE_PER_DAY * days)
        return Rating(self.mu, max(self.sigma, math.sqrt(variance)), now)

    @property
    def ordinal(self) -> float:
        """The conservative skill estimate behind the displayed number: ``mu - DISPLAY_Z * sigma``."""
        return self.mu - DISPLAY_Z * self.sigma

    @property
    def display(self) -> int:
        """The number players see: ``round(1500 + DISPLAY_SCALE * (ordinal - ORDINAL_AT_CENTRE))``, about
        1500 for an average player leaving "?", 400 points between settled players a 10:1 favourite. A new
        player reads 1346, an average regular about 1690; time away lowers it (sigma grows), by about 70
        points after 90 days for a regular."""
        return round(DISPLAY_CENTRE + DISPLAY_SCALE * (self.ordinal - ORDINAL_AT_CENTRE))

    @property
    def provisional(self) -> bool:
        """True while sigma is at or above :data:`PROVISIONAL_SIGMA` (shown with "?")."""
        return self.sigma >= PROVISIONAL_SIGMA

    @property
    def label(self) -> str:
        """The display as shown: ``"1523"``, or ``"1346?"`` (a new player) while provisional."""
        return f"{self.display}?" if self.provisional else str(self.display)

    @property
    def pairing_value(self) -> int:
        """The number to pair on (:class:`relay.ratings.pairing.Seek`): the mean on the displayed scale,
        without the sigma penalty, so that a newcomer (1500) meets average players, not weak ones."""
        return round(DISPLAY_CENTRE + DISPLAY_SCALE * (self.mu - MU0))


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One seat's result: its rating before the game (``as_of`` the end, idle growth included), after it,
    and its rank (1 is the top score; equal scores share a rank)."""

    before: Rating
    after: Rating
    rank: int

    @property
    def display_delta(self) -> int:
        """The change of the displayed number, as the end screen shows it."""
        return self.after.display - self.before.display


def ranks_from_scores(scores: Sequence[int]) -> tuple[int, ...]:
    """Competition ranks, 1 for the top score; equal scores share a rank and the next rank skips
    (``[300, 410, 300, 120] -> (2, 1, 2, 4)``)."""
    return tuple(1 + sum(1 for other in scores if other > score) for score in scores)


def _check_seats(n: int) -> None:
    if not MIN_SEATS <= n <= MAX_SEATS:
        raise RatingError("bad_seats", f"a rated table has {MIN_SEATS} to {MAX_SEATS} seats, not {n}")


def rate_game(
    ratings: Sequence[Rating],
    scores: Sequence[int],
    now: float,
    *,
    table: str | None = None,
    rated: Container[str] = frozenset(),
) -> tuple[RatingChange, ...]:
    """Rate a finished game: ``ratings[i]`` and ``scores[i]`` (final scores, after the end adjustments) are
    seat i's; ``now`` is the end (seconds). Each rating is first brought ``as_of(now)``; the new ones carry
    ``played_at=now``. The update is exactly ``PlackettLuce().rate(teams, ranks=ranks_from_scores(scores))``
    with one team of one per seat. Returns one change per seat, in seat order.

    ``table`` and ``rated`` guard a replayed end: if ``table`` is in ``rated`` (the tables already rated),
    nothing is computed. Raises RatingError ``already_rated``, or ``bad_seats`` for fewer than 2 or more
    than 4 seats, or as many scores as seats."""
    if table is not None and table in rated:
        raise RatingError("already_rated", f"table {table} has been rated already", status=409)
    _check_seats(len(ratings))
    if len(scores) != len(ratings):
        raise RatingError("bad_seats", f"{len(scores)} scores for {len(ratings)} seats")
    before = [r.as_of(now) for r in ratings]
    ranks = ranks_from_scores(scores)
    teams = [[PlackettLuceRating(r.mu, r.sigma)] for r in before]
    updated = _MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    return tuple(
        RatingChange(b, Rating(team[0].mu, team[0].sigma, now), rank)
        for b, team, rank in zip(before, updated, ranks, strict=True)
    )


def predict_win(ratings: Sequence[Rating]) -> tuple[float, ...]:
    """Each seat's chance of the top score, before the start (openskill's ``predict_win``; they sum to 1).
    Pass ratings ``as_of`` the start. Raises RatingError ``bad_seats`` for fewer than 2 or more than 4."""
    _check_seats(len(ratings))
    return tuple(_MODEL.predict_win([[PlackettLuceRating(r.mu, r.sigma)] for r in ratings]))
