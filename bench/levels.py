"""Bot level matrix: seeded two-player self-play between the levels, through the real level policies.

Pairings: each level against the one below (``beginner`` against a player choosing a uniformly random legal
move), ``expert`` against a plain greedy player (top score, random tie-break), and ``beginner`` and
``expert`` against themselves. Seats alternate between games. For each pairing: the first level's win rate
with its 95 % Wilson interval (ties count half), both mean scores and the mean spread; per level: bingos per
game and think time (median, p95, max, ms per move). Games go through :mod:`relay.bots.selfplay` (the
game's rules over the move generator, no relay).

Prints a human table on stderr, then ``name<TAB>value<TAB>unit`` lines (bench/run_all.py collects them).

Usage: nice -n 5 .venv/bin/python bench/levels.py [--games 8] [--seed 1] [--pairs expert:strong,...]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from relay.bots.equity import Position  # noqa: E402
from relay.bots.levels import LEVELS  # noqa: E402
from relay.bots.player import MoveGenDriver  # noqa: E402
from relay.bots.selfplay import Decision, GameRecord, Policy, play_game  # noqa: E402

PAIRS = [
    ("beginner", "random"),
    ("easy", "beginner"),
    ("medium", "easy"),
    ("strong", "medium"),
    ("expert", "strong"),
    ("expert", "greedy"),
    ("beginner", "beginner"),
    ("expert", "expert"),
]


def policies(driver: MoveGenDriver) -> dict[str, Policy]:
    graph = driver.warm()
    from relay.bots.movegen import generate

    def plain(pick_random: bool) -> Policy:
        def choose(pos: Position, rng: random.Random) -> Decision:
            moves = generate(pos.board, pos.rack, graph).moves
            if not moves:
                return driver._nothing_to_play(pos)
            if pick_random:
                moves.sort(key=lambda m: (m.score, m.tiles))
                return Decision("place", moves[rng.randrange(len(moves))])
            best = max(m.score for m in moves)
            top = sorted((m for m in moves if m.score == best), key=lambda m: m.tiles)
            return Decision("place", top[rng.randrange(len(top))])

        return choose

    out: dict[str, Policy] = {"random": plain(True), "greedy": plain(False)}
    for name, level in LEVELS.items():
        out[name] = lambda pos, rng, level=level: driver.decide(pos, level, rng)  # type: ignore[misc]
    return out


def wilson(p: float, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    z = 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games per pairing")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pairs", default="", help="a:b,c:d (default: the whole ladder)")
    args = parser.parse_args()
    pairs = [tuple(p.split(":")) for p in args.pairs.split(",")] if args.pairs else PAIRS
    driver = MoveGenDriver()
    pol = policies(driver)
    for a, b in pairs:
        driver.graph_for(LEVELS[a]) if a in LEVELS else None
        driver.graph_for(LEVELS[b]) if b in LEVELS else None
    rng = random.Random(args.seed)
    think: dict[str, list[float]] = defaultdict(list)
    bingos: dict[str, list[int]] = defaultdict(list)
    lines: list[tuple[str, str, str]] = []
    table: list[str] = []
    t_all = time.monotonic()
    for a, b in pairs:
        wins = 0.0
        scores_a: list[int] = []
        scores_b: list[int] = []
        scoreless = 0
        t0 = time.monotonic()
        for g in range(args.games):
            first = g % 2 == 0
            seats = [a, b] if first else [b, a]
            rec: GameRecord = play_game([pol[s] for s in seats], random.Random(rng.getrandbits(64)))
            ia, ib = (0, 1) if first else (1, 0)
            sa, sb = rec.scores[ia], rec.scores[ib]
            scores_a.append(sa)
            scores_b.append(sb)
            wins += 1.0 if sa > sb else 0.5 if sa == sb else 0.0
            scoreless += rec.reason == "scoreless"
            for seat, name in ((ia, a), (ib, b)):
                turns = [t for t in rec.turns if t.seat == seat]
                think[name].extend(t.think_ms for t in turns)
                bingos[name].append(sum(1 for t in turns if t.kind == "place" and t.size == 7))
        n = args.games
        rate = wins / n
        lo, hi = wilson(rate, n)
        key = f"{a}_vs_{b}"
        spread = statistics.mean(x - y for x, y in zip(scores_a, scores_b, strict=True))
        lines += [
            (f"{key}_win", f"{rate * 100:.0f}", f"% of {n} games (95% CI {lo * 100:.0f}-{hi * 100:.0f})"),
            (
                f"{key}_mean_scores",
                f"{statistics.mean(scores_a):.0f}/{statistics.mean(scores_b):.0f}",
                "points",
            ),
            (f"{key}_spread", f"{spread:+.0f}", "points/game"),
            (f"{key}_scoreless_end", f"{scoreless / n * 100:.0f}", "% of games"),
        ]
        table.append(
            f"# {a:>8} vs {b:<8} win {rate * 100:5.1f}% [{lo * 100:4.1f}-{hi * 100:5.1f}]  "
            f"scores {statistics.mean(scores_a):5.0f} / {statistics.mean(scores_b):5.0f}  "
            f"spread {spread:+6.1f}  "
            f"scoreless ends {scoreless}/{n}  ({time.monotonic() - t0:.0f} s)"
        )
        print(table[-1], file=sys.stderr, flush=True)
    for name in sorted(think, key=lambda x: list(LEVELS).index(x) if x in LEVELS else -1):
        ms = sorted(think[name])
        p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
        lines += [
            (f"{name}_bingos", f"{statistics.mean(bingos[name]):.2f}", "per game"),
            (f"{name}_think_median", f"{statistics.median(ms):.0f}", "ms/move"),
            (f"{name}_think_p95", f"{p95:.0f}", "ms/move"),
            (f"{name}_think_max", f"{ms[-1]:.0f}", "ms/move"),
        ]
        print(
            f"# {name:>8}: bingos {statistics.mean(bingos[name]):.2f}/game, think median "
            f"{statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, max {ms[-1]:.0f} ms over {len(ms)} moves",
            file=sys.stderr,
        )
    print(
        f"# {len(pairs)} pairings x {args.games} games in {time.monotonic() - t_all:.0f} s", file=sys.stderr
    )
    for row in lines:
        print("\t".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
