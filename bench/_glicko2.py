"""Glicko-2, by hand, for bench/ratings.py to compare with: Glickman, "Example of the Glicko-2 system"
(2013), steps 1 to 8, with the volatility found by the Illinois algorithm (step 5.1 to 5.5).

Parameters as Lichess uses them (docs/ratings.md, anchors): start 1500 / RD 500 / volatility 0.09,
tau 0.75, RD kept within 45..500, provisional while RD >= 110. A helper (the leading "_": bench/run_all.py
does not run it), not the product's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

SCALE: Final = 173.7178
START_RATING: Final = 1500.0
START_RD: Final = 500.0
START_VOLATILITY: Final = 0.09
TAU: Final = 0.75
MIN_RD: Final = 45.0
MAX_RD: Final = 500.0
PROVISIONAL_RD: Final = 110.0
EPSILON: Final = 1e-6


@dataclass(frozen=True, slots=True)
class Glicko:
    rating: float = START_RATING
    rd: float = START_RD
    volatility: float = START_VOLATILITY

    @property
    def provisional(self) -> bool:
        return self.rd >= PROVISIONAL_RD


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, the root of f by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (
            tau * tau
        )

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(
    player: Glicko,
    results: Sequence[tuple[Glicko, float]],
    *,
    tau: float = TAU,
    min_rd: float = MIN_RD,
    max_rd: float = MAX_RD,
) -> Glicko:
    """One rating period: ``results`` are (opponent before the period, score 1 / 0.5 / 0). With no
    results only the RD grows (step 6)."""
    mu = (player.rating - START_RATING) / SCALE
    phi = player.rd / SCALE
    if not results:
        phi_star = math.sqrt(phi * phi + player.volatility**2)
        return Glicko(player.rating, min(max_rd, phi_star * SCALE), player.volatility)
    inv_v = 0.0
    total = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - START_RATING) / SCALE
        g = _g(opponent.rd / SCALE)
        e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
        inv_v += g * g * e * (1.0 - e)
        total += g * (score - e)
    v = 1.0 / inv_v
    sigma = _volatility(phi, player.volatility, v, v * total, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * total
    rd = min(max_rd, max(min_rd, phi_new * SCALE))
    return Glicko(mu_new * SCALE + START_RATING, rd, sigma)


def self_check() -> None:
    """Glickman's worked example (tau 0.5): 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300,
    and becomes 1464.06 / 151.52 / 0.05999. Raises AssertionError otherwise."""
    out = update(
        Glicko(1500.0, 200.0, 0.06),
        [(Glicko(1400.0, 30.0), 1.0), (Glicko(1550.0, 100.0), 0.0), (Glicko(1700.0, 300.0), 0.0)],
        tau=0.5,
        min_rd=0.0,
    )
    assert abs(out.rating - 1464.06) < 0.01, out
    assert abs(out.rd - 151.52) < 0.01, out
    assert abs(out.volatility - 0.05999) < 0.00001, out
