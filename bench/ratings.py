"""Ratings bench: the rating model against a hand-written two-player Glicko-2, and the "play now" matcher.

(a) Rating. Simulated players with hidden true strengths (normal, sd ``SKILL_SD`` in units of the
per-game performance noise) play games of 2, 3 and 4 seats (equally likely), seats drawn at random; a seat's
final score is ``400 + 40 * (strength + noise)``, rounded (so equal scores happen, and are ties). Every game
goes through the product's :func:`relay.ratings.model.rate_game`, and through Glicko-2 (bench/_glicko2.py,
Lichess's parameters) with the game split into its pairs, each player's pairs one rating period. Games are
back to back: no idle time. Reported for both: the Spearman correlation of the rating order (the displayed
number; for openskill also the mean) with the true order, and the median number of games after which a
player is no longer provisional (openskill: sigma below ``PROVISIONAL_SIGMA``; Glicko-2: RD below 110),
among the players who left it. Then newcomers join the settled population and play until they leave
provisional (the figure a new player meets in production), and a few regulars play ~900 games each to find
the sigma a regular settles at (``SIGMA_SETTLED``) and how far the displayed number still climbs.

(b) Pairing. Seekers arrive at random (exponential gaps), spread over the speed classes and size
preferences, ratings around 1500; a few pairs are blocked; each offered seat confirms after 1 to 8 s, or
(1 in 20) never. The tables are formed by :func:`relay.ratings.pairing.match`, through the in-memory
``Matcher``: the same pure function the relay's queue calls in each pairing round (relay/ratings/queue.py),
so the figures are the relay's pairing (which runs its rounds about every second, and at once on a seek).
Reported: median and 90th percentile wait from seeking to the confirmed table, median rating gap of the
tables, tables by size, seekers dropped (did not confirm) and still waiting at the end.

Prints a human summary on stderr, then ``name<TAB>value<TAB>unit`` lines (bench/run_all.py collects them).
All randomness comes from ``random.Random(--seed)``.

Usage: nice -n 10 .venv/bin/python bench/ratings.py [--players 10000] [--games 200000] [--seekers 200]
[--seed 1]   (the defaults take about a minute; --players 1000 --games 20000 for a quick run)
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# bench/ (the script's own folder, after ROOT) holds the Glicko-2 helper.
import _glicko2  # noqa: E402
from _glicko2 import Glicko  # noqa: E402

from relay.ratings.classes import SpeedClass  # noqa: E402
from relay.ratings.model import (  # noqa: E402
    DISPLAY_SCALE,
    DISPLAY_Z,
    PROVISIONAL_SIGMA,
    SIGMA_SETTLED,
    Rating,
    rate_game,
)
from relay.ratings.pairing import Matcher, Outcome, Seek, SizePref, blocked_pairs  # noqa: E402

SKILL_SD: Final = 0.6
SCORE_MEAN: Final = 400.0
SCORE_PER_NOISE_SD: Final = 40.0
SIZES: Final = (2, 3, 4)
NEWCOMERS: Final = 1000
NEWCOMER_GAMES: Final = 30
REGULARS: Final = 100
REGULAR_GAMES: Final = 30_000
SIGMA_BY_GAMES: Final = (1, 5, 10, 12, 15, 20, 30, 50, 100, 150)


@dataclass
class Population:
    """Both systems' ratings of the same players, and when each left provisional."""

    strength: list[float]
    skill: list[Rating]
    glicko: list[Glicko]
    played: list[int]
    skill_left_at: list[int | None]
    glicko_left_at: list[int | None]
    sigma_at: dict[int, list[float]]
    # Sigmas are recorded for the players from this index on (the newcomers, once they come).
    track_from: int = 0

    @classmethod
    def new(cls, strength: list[float]) -> Population:
        n = len(strength)
        return cls(strength, [Rating()] * n, [Glicko()] * n, [0] * n, [None] * n, [None] * n, {})

    def add(self, strength: float) -> int:
        self.strength.append(strength)
        self.skill.append(Rating())
        self.glicko.append(Glicko())
        self.played.append(0)
        self.skill_left_at.append(None)
        self.glicko_left_at.append(None)
        return len(self.strength) - 1

    def play(self, seats: Sequence[int], rng: random.Random) -> None:
        """One game: scores drawn from the true strengths, both systems updated."""
        scores = [
            round(SCORE_MEAN + SCORE_PER_NOISE_SD * (self.strength[p] + rng.gauss(0.0, 1.0))) for p in seats
        ]
        changes = rate_game([self.skill[p] for p in seats], scores, 0.0)
        before = [self.glicko[p] for p in seats]
        for i, p in enumerate(seats):
            pairs = [
                (before[j], 1.0 if scores[i] > scores[j] else 0.5 if scores[i] == scores[j] else 0.0)
                for j in range(len(seats))
                if j != i
            ]
            self.glicko[p] = _glicko2.update(before[i], pairs)
            self.skill[p] = changes[i].after
            self.played[p] += 1
            n = self.played[p]
            if n in SIGMA_BY_GAMES and p >= self.track_from:
                self.sigma_at.setdefault(n, []).append(self.skill[p].sigma)
            if self.skill_left_at[p] is None and not self.skill[p].provisional:
                self.skill_left_at[p] = n
            if self.glicko_left_at[p] is None and not self.glicko[p].provisional:
                self.glicko_left_at[p] = n


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties given their average rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return out


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    return statistics.correlation(ranks(a), ranks(b))


def median_left(left_at: Sequence[int | None]) -> tuple[float, float]:
    """The median number of games to leave provisional among those who did, and the share who did."""
    done = [n for n in left_at if n is not None]
    return (statistics.median(done) if done else math.nan), len(done) / max(1, len(left_at))


def print_sigmas(sigma_at: dict[int, list[float]], who: str) -> None:
    for n in SIGMA_BY_GAMES:
        sigmas = sigma_at.get(n)
        if sigmas and len(sigmas) >= 10:
            deciles = statistics.quantiles(sigmas, n=10)
            print(
                f"#   {who} sigma after {n:3} games: median {statistics.median(sigmas):.2f} "
                f"(10% {deciles[0]:.2f}, 90% {deciles[-1]:.2f}; {len(sigmas)} players)",
                file=sys.stderr,
            )


def random_table(rng: random.Random, players: int) -> list[int]:
    return rng.sample(range(players), rng.choice(SIZES))


def bench_ratings(players: int, games: int, seed: int) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    pop = Population.new([rng.gauss(0.0, SKILL_SD) for _ in range(players)])
    started = time.monotonic()
    for _ in range(games):
        pop.play(random_table(rng, players), rng)
    elapsed = time.monotonic() - started
    rho_display = spearman([r.display for r in pop.skill], pop.strength)
    rho_mu = spearman([r.mu for r in pop.skill], pop.strength)
    rho_glicko = spearman([g.rating for g in pop.glicko], pop.strength)
    games_skill, share_skill = median_left(pop.skill_left_at)
    games_glicko, share_glicko = median_left(pop.glicko_left_at)
    mean_games = statistics.mean(pop.played)
    print(
        f"# {players} players, {games} games of 2-4 seats ({mean_games:.0f} games a player), "
        f"{elapsed:.0f} s for both systems",
        file=sys.stderr,
    )
    print(
        f"# openskill PL: Spearman {rho_display:.4f} (display), {rho_mu:.4f} (mu); leaves '?' "
        f"(sigma < {PROVISIONAL_SIGMA}) after a median {games_skill:g} games ({share_skill:.0%} did)",
        file=sys.stderr,
    )
    print(
        f"# Glicko-2 pairs: Spearman {rho_glicko:.4f}; leaves '?' (RD < {_glicko2.PROVISIONAL_RD:g}) "
        f"after a median {games_glicko:g} games ({share_glicko:.0%} did)",
        file=sys.stderr,
    )
    print_sigmas(pop.sigma_at, "player")

    # Newcomers among the settled population, one at a time (their sigmas counted apart).
    skill_new: list[int | None] = []
    glicko_new: list[int | None] = []
    pop.sigma_at, pop.track_from = {}, players
    for _ in range(NEWCOMERS):
        me = pop.add(rng.gauss(0.0, SKILL_SD))
        for _ in range(NEWCOMER_GAMES):
            others = rng.sample(range(players), rng.choice(SIZES) - 1)
            pop.play([me, *others], rng)
        skill_new.append(pop.skill_left_at[me])
        glicko_new.append(pop.glicko_left_at[me])
    new_skill, new_skill_share = median_left(skill_new)
    new_glicko, new_glicko_share = median_left(glicko_new)
    print(
        f"# {NEWCOMERS} newcomers then play {NEWCOMER_GAMES} games each among them: they leave '?' after a "
        f"median {new_skill:g} games (openskill, {new_skill_share:.0%} did) and {new_glicko:g} (Glicko-2, "
        f"{new_glicko_share:.0%})",
        file=sys.stderr,
    )
    print_sigmas(pop.sigma_at, "newcomer")

    # Regulars: where sigma settles when TAU is added every game.
    reg = Population.new([rng.gauss(0.0, SKILL_SD) for _ in range(REGULARS)])
    for _ in range(REGULAR_GAMES):
        reg.play(random_table(rng, REGULARS), rng)
    settled = statistics.median(r.sigma for r in reg.skill)
    regular_games = statistics.mean(reg.played)
    climb = DISPLAY_SCALE * DISPLAY_Z * (PROVISIONAL_SIGMA - settled)
    print(
        f"# {REGULARS} regulars after {regular_games:.0f} games each: median sigma {settled:.2f} "
        f"(SIGMA_SETTLED = {SIGMA_SETTLED}); an average player's display climbs {climb:.0f} points from "
        f"leaving '?' to settled (z = {DISPLAY_Z:g}; {climb * 3 / DISPLAY_Z:.0f} with z = 3)",
        file=sys.stderr,
    )
    better = "openskill" if rho_display > rho_glicko else "glicko2"
    print(
        f"# better rating order: {better} ({rho_display:.4f} against {rho_glicko:.4f}); "
        f"faster out of '?': {'openskill' if games_skill < games_glicko else 'glicko2'}",
        file=sys.stderr,
    )
    return [
        ("openskill_spearman_display", f"{rho_display:.4f}", "rho with the true order"),
        ("openskill_spearman_mu", f"{rho_mu:.4f}", "rho with the true order"),
        ("glicko2_spearman", f"{rho_glicko:.4f}", "rho with the true order"),
        (
            "openskill_games_to_leave_provisional",
            f"{games_skill:g}",
            f"games (median; {share_skill:.0%} left)",
        ),
        (
            "glicko2_games_to_leave_provisional",
            f"{games_glicko:g}",
            f"games (median; {share_glicko:.0%} left)",
        ),
        ("openskill_newcomer_games_to_leave_provisional", f"{new_skill:g}", "games (median)"),
        ("glicko2_newcomer_games_to_leave_provisional", f"{new_glicko:g}", "games (median)"),
        ("openskill_sigma_settled", f"{settled:.2f}", f"sigma after {regular_games:.0f} games (median)"),
        ("display_climb_after_provisional", f"{climb:.0f}", "points (average player)"),
        ("better_rating_order", better, "by Spearman rho"),
        ("rating_games_per_second", f"{games / elapsed:.0f}", "games/s (both systems)"),
    ]


CLASS_WEIGHTS: Final = {SpeedClass.RAPIDE: 3, SpeedClass.NORMAL: 5, SpeedClass.LENT: 2}
SIZE_WEIGHTS: Final = {SizePref.TWO: 5, SizePref.THREE_FOUR: 2, SizePref.ANY: 3}
ARRIVAL_MEAN_SECONDS: Final = 3.0
RATING_SD: Final = 250.0
BLOCKED_PAIRS: Final = 50
NEVER_CONFIRMS: Final = 0.05
STEP_SECONDS: Final = 0.5
DRAIN_SECONDS: Final = 600.0


def bench_pairing(seekers: int, seed: int) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    names = [f"s{i}" for i in range(seekers)]
    blocked = {tuple(rng.sample(names, 2)) for _ in range(BLOCKED_PAIRS)}
    matcher = Matcher(blocked=blocked_pairs((a, b) for a, b in blocked))
    arrivals: list[Seek] = []
    t = 0.0
    classes, class_w = list(CLASS_WEIGHTS), list(CLASS_WEIGHTS.values())
    sizes, size_w = list(SIZE_WEIGHTS), list(SIZE_WEIGHTS.values())
    for name in names:
        t += rng.expovariate(1.0 / ARRIVAL_MEAN_SECONDS)
        arrivals.append(
            Seek(
                name,
                rng.choices(classes, class_w)[0],
                rng.choices(sizes, size_w)[0],
                round(rng.gauss(1500.0, RATING_SD)),
                t,
            )
        )
    waits: list[float] = []
    gaps: list[int] = []
    by_size = {2: 0, 3: 0, 4: 0}
    dropped: list[str] = []
    # (when, player, proposal id) confirmations still to come.
    pending: list[tuple[float, str, str]] = []
    blocked_seated = 0

    def record(out: Outcome, now: float) -> None:
        nonlocal blocked_seated
        for proposal in out.offered:
            for player in proposal.players:
                if rng.random() >= NEVER_CONFIRMS:
                    pending.append((now + rng.uniform(1.0, 8.0), player, proposal.id))
        for proposal in out.started:
            by_size[len(proposal.seeks)] += 1
            gaps.append(proposal.gap)
            waits.extend(now - s.enqueued_at for s in proposal.seeks)
            seated = set(proposal.players)
            blocked_seated += sum(1 for a, b in blocked if a in seated and b in seated)
        dropped.extend(out.dropped)

    end = arrivals[-1].enqueued_at + DRAIN_SECONDS
    now, nxt = 0.0, 0
    while now <= end:
        while nxt < len(arrivals) and arrivals[nxt].enqueued_at <= now:
            record(matcher.seek(arrivals[nxt], now), now)
            nxt += 1
        due = sorted(p for p in pending if p[0] <= now)
        pending[:] = [p for p in pending if p[0] > now]
        for _, player, pid in due:
            offer = matcher.offer_of(player)
            if offer is not None and offer.id == pid:
                record(matcher.confirm(player, pid, now), now)
        record(matcher.tick(now), now)
        now += STEP_SECONDS
    left = len(matcher.waiting())
    assert blocked_seated == 0, "blocked players seated together"
    wait_med = statistics.median(waits) if waits else math.nan
    wait_p90 = statistics.quantiles(waits, n=10)[-1] if len(waits) >= 2 else math.nan
    gap_med = statistics.median(gaps) if gaps else math.nan
    print(
        f"# pairing: {seekers} seekers, one every {ARRIVAL_MEAN_SECONDS:g} s on average over 3 classes; "
        f"{sum(by_size.values())} tables (2: {by_size[2]}, 3: {by_size[3]}, 4: {by_size[4]}), wait median "
        f"{wait_med:.1f} s (p90 {wait_p90:.1f} s), gap median {gap_med:g}; {len(dropped)} dropped for not "
        f"confirming, {left} still waiting {DRAIN_SECONDS:g} s after the last arrival",
        file=sys.stderr,
    )
    return [
        ("pairing_wait_median", f"{wait_med:.1f}", "s from seek to confirmed table"),
        ("pairing_wait_p90", f"{wait_p90:.1f}", "s"),
        ("pairing_gap_median", f"{gap_med:g}", "rating points (highest - lowest seat)"),
        (
            "pairing_tables",
            str(sum(by_size.values())),
            f"tables (2/3/4: {by_size[2]}/{by_size[3]}/{by_size[4]})",
        ),
        ("pairing_dropped", str(len(dropped)), "seekers (did not confirm)"),
        ("pairing_unpaired", str(left), "seekers still waiting at the end"),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--seekers", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    _glicko2.self_check()
    lines = bench_ratings(args.players, args.games, args.seed)
    lines += bench_pairing(args.seekers, args.seed)
    for row in lines:
        print("\t".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
