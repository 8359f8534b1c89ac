"""The computer levels' ratings (#30): the five levels play each other and the product's model rates them.

A casual game against the computer shows the level's strength as a rating on the players' scale. The levels
are rated once, here, offline: each level is one rated player, all five start at the prior
(:class:`relay.ratings.model.Rating`), and every game goes through :func:`relay.ratings.model.rate_game`
(final scores, ties equal ranks), the same update a rated table makes.

Games: the schedule repeats a block of every pair of levels twice (the same deal, seats swapped: the luck of
the draw cancels out), every three of them and every four of them once each (seats rotated from one block to
the next). Each game's deal comes from ``random.Random(--seed)``; the bots play through the real level
policies (:class:`relay.bots.player.MoveGenDriver`) with the real word list, under the rules of
:mod:`relay.bots.selfplay`. The only wall clock is inside the bots' search, which stops at its budget:
``--slack`` multiplies the move budget and the endgame cap (the expert's endgame and pre-endgame checks), so
that on a loaded machine the expert searches about as far as on an idle one (the 0.15 s cap on its look at
the replies is a constant of relay/bots/player.py, not scaled); nothing else depends on time.

Ratings: a rating is sequential (with the model's ``tau`` the last games weigh most), so the games are rated
in ``--orders`` seeded shuffled orders and the figure is the mean of the final displayed numbers (the spread
over the orders and the figure of the chronological order are printed). Stability: the first and the second
half of the games, rated apart, must tell the same story, and every level must have left "?" (sigma below
``PROVISIONAL_SIGMA``). The figures are relative to each other: only the levels play, so their mean sits
where an average population of five players sits on the displayed scale.

Prints a table on stderr (level, rating, sigma, games, win rate against every other level in the two-player
games), checks that the figures rise with the levels (beginner weakest), prints each level's displayed gap to
the one below next to the gap its two-player win rate means on the scale (400 points: 10:1), then
``name<TAB>value<TAB>unit`` lines. ``--write`` writes ``relay/bots/level_ratings.json`` and its copy for
the browser, ``web/app/level_ratings.py`` (generated; tests/relay/test_bot_ratings.py checks that they
agree).

Usage: nice -n 10 .venv/bin/python bench/bot_ratings.py [--games 455] [--seed 1] [--jobs 2] [--slack 1]
[--orders 100] [--log FILE | --from-log FILE] [--write]   (--games 35 for a quick run: one block; the
shipped figures: --slack 3 --write, about 6 minutes on two shared cores; docs/ratings.md)
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from relay.bots.levels import LEVEL_NAMES, LEVELS  # noqa: E402
from relay.bots.player import DEFAULT_BUDGET_SECONDS, ENDGAME_SECONDS, MoveGenDriver  # noqa: E402
from relay.bots.selfplay import Policy, play_game  # noqa: E402
from relay.ratings.model import PROVISIONAL_SIGMA, Rating, rate_game  # noqa: E402

JSON_FILE: Final = ROOT / "relay" / "bots" / "level_ratings.json"
WEB_FILE: Final = ROOT / "web" / "app" / "level_ratings.py"
# Every pair twice (seats swapped), every three and every four once: 20 + 10 + 5 games.
BLOCK: Final = 35
DEFAULT_GAMES: Final = 13 * BLOCK
# Rated at the same instant: no idle growth of sigma between the bench's games.
NOW: Final = 0.0


@dataclass(frozen=True, slots=True)
class Game:
    seats: tuple[str, ...]
    scores: tuple[int, ...]
    reason: str


def schedule(games: int, seed: int) -> list[tuple[tuple[str, ...], int]]:
    """The first ``games`` tables of the repeated block: (seat order, deal seed). The two games of a pair
    share their deal with the seats swapped; tables of three and four rotate their seats block by block."""
    rng = random.Random(seed)
    out: list[tuple[tuple[str, ...], int]] = []
    block = 0
    while len(out) < games:
        pairs: list[tuple[tuple[str, ...], int]] = [
            table
            for a, b in itertools.combinations(LEVEL_NAMES, 2)
            for deal in (rng.getrandbits(64),)
            for table in (((a, b), deal), ((b, a), deal))
        ]
        groups = [
            (tuple(group[(block + i) % size] for i in range(size)), rng.getrandbits(64))
            for size in (3, 4)
            for group in itertools.combinations(LEVEL_NAMES, size)
        ]
        # Interleaved evenly (a pair's two games together), so that a short run has games of every kind.
        keyed = [((i // 2 + 0.5) / (len(pairs) // 2), t) for i, t in enumerate(pairs)]
        keyed += [((j + 0.5) / len(groups), t) for j, t in enumerate(groups)]
        out += [t for _, t in sorted(keyed, key=lambda kt: kt[0])]
        block += 1
    return out[:games]


_POLICIES: dict[str, Policy] = {}


def _init_worker(slack: float) -> None:
    driver = MoveGenDriver(
        budget_seconds=DEFAULT_BUDGET_SECONDS * slack, endgame_seconds=ENDGAME_SECONDS * slack
    )
    for name, level in LEVELS.items():
        driver.graph_for(level)
        _POLICIES[name] = lambda pos, rng, level=level: driver.decide(pos, level, rng)  # type: ignore[misc]


def _play(job: tuple[tuple[str, ...], int]) -> Game:
    seats, deal = job
    rec = play_game([_POLICIES[s] for s in seats], random.Random(deal))
    return Game(seats, tuple(rec.scores), rec.reason)


def rate(games: Sequence[Game], order: random.Random | None = None) -> dict[str, Rating]:
    """Every level's rating after ``games`` (in a shuffled order if ``order`` is given), from the prior."""
    ratings = {name: Rating() for name in LEVEL_NAMES}
    if order is not None:
        games = list(games)
        order.shuffle(games)
    for g in games:
        changes = rate_game([ratings[s] for s in g.seats], g.scores, NOW)
        for s, change in zip(g.seats, changes, strict=True):
            ratings[s] = change.after
    return ratings


@dataclass(frozen=True, slots=True)
class Figures:
    mean: dict[str, float]
    low: dict[str, int]
    high: dict[str, int]
    sigma: dict[str, float]


def figures(games: Sequence[Game], orders: int, seed: int) -> Figures:
    """The final displayed number of each level, over ``orders`` seeded shuffles of ``games``."""
    rng = random.Random(seed)
    runs = [rate(games, random.Random(rng.getrandbits(64))) for _ in range(orders)]
    return Figures(
        {n: statistics.mean(r[n].display for r in runs) for n in LEVEL_NAMES},
        {n: min(r[n].display for r in runs) for n in LEVEL_NAMES},
        {n: max(r[n].display for r in runs) for n in LEVEL_NAMES},
        {n: statistics.mean(r[n].sigma for r in runs) for n in LEVEL_NAMES},
    )


def head_to_head(games: Iterable[Game]) -> dict[tuple[str, str], tuple[float, int]]:
    """(a, b) -> a's wins (ties half) and the games, over the two-player games between them."""
    out: dict[tuple[str, str], tuple[float, int]] = defaultdict(lambda: (0.0, 0))
    for g in games:
        if len(g.seats) != 2:
            continue
        for i, j in ((0, 1), (1, 0)):
            a, b = g.seats[i], g.seats[j]
            won = 1.0 if g.scores[i] > g.scores[j] else 0.5 if g.scores[i] == g.scores[j] else 0.0
            wins, n = out[(a, b)]
            out[(a, b)] = (wins + won, n + 1)
    return out


def web_module(ratings: dict[str, int], meta: str) -> str:
    rows = "".join(f'    "{name}": {value},\n' for name, value in ratings.items())
    return (
        '"""The computer levels\' ratings on the players\' displayed scale, for the level select\n'
        "(the browser cannot read relay/bots/level_ratings.json, of which this is a copy).\n"
        '"""\n\n'
        "# Generated by bench/bot_ratings.py --write: do not edit.\n"
        "# tests/relay/test_bot_ratings.py checks that it agrees with relay/bots/level_ratings.json.\n"
        f"# {meta}\n\n"
        "from __future__ import annotations\n\n"
        f"LEVEL_RATINGS: dict[str, int] = {{\n{rows}}}\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, help=f"games in all ({BLOCK} a block)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (at most 2)")
    parser.add_argument("--slack", type=float, default=1.0, help="multiply the bots' time budgets")
    parser.add_argument("--orders", type=int, default=100, help="shuffled orders the games are rated in")
    parser.add_argument("--log", type=Path, help="append one JSON line per finished game")
    parser.add_argument(
        "--from-log",
        type=Path,
        help="rate the games of this log, play none (give the seed and slack it used)",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="write the figures (relay/bots/level_ratings.json, web/app/level_ratings.py)",
    )
    args = parser.parse_args()
    t0 = time.monotonic()
    games: list[Game] = []
    if args.from_log:
        for line in args.from_log.read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                games.append(Game(tuple(item["seats"]), tuple(item["scores"]), item["reason"]))
    else:
        jobs = schedule(args.games, args.seed)
        done: Iterable[Game]
        workers = max(1, min(2, args.jobs))
        if workers == 1:
            _init_worker(args.slack)
            done = map(_play, jobs)
        else:
            import multiprocessing

            pool = multiprocessing.get_context("fork").Pool(workers, _init_worker, (args.slack,))
            done = pool.imap(_play, jobs, chunksize=1)
        log = args.log.open("a", encoding="utf-8") if args.log else None
        for i, game in enumerate(done, 1):
            games.append(game)
            if log is not None:
                log.write(json.dumps({"seats": game.seats, "scores": game.scores, "reason": game.reason}))
                log.write("\n")
                log.flush()
            if i % BLOCK == 0 or i == len(jobs):
                print(f"# {i}/{len(jobs)} games, {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    if not games:
        print("no games", file=sys.stderr)
        return 1
    played = time.monotonic() - t0

    whole = figures(games, args.orders, args.seed)
    chrono = rate(games)
    half = len(games) // 2
    first, second = (
        figures(games[:half], args.orders, args.seed),
        figures(games[half:], args.orders, args.seed),
    )
    counts = {n: sum(n in g.seats for g in games) for n in LEVEL_NAMES}
    h2h = head_to_head(games)
    shipped = {n: round(whole.mean[n]) for n in LEVEL_NAMES}

    sizes = {k: sum(len(g.seats) == k for g in games) for k in (2, 3, 4)}
    scoreless = sum(g.reason == "scoreless" for g in games)
    print(
        f"# {len(games)} games ({sizes[2]} of two, {sizes[3]} of three, {sizes[4]} of four; "
        f"{scoreless} ended by passes), seed {args.seed}, slack {args.slack:g}, {played:.0f} s; "
        f"ratings: mean of {args.orders} shuffled orders",
        file=sys.stderr,
    )
    short = {n: n[:6] for n in LEVEL_NAMES}
    head = "".join(f" {'vs ' + short[n]:>10}" for n in LEVEL_NAMES)
    print(
        f"# {'level':<8} {'rating':>6} {'range':>11} {'chrono':>6} {'sigma':>5} {'games':>5} "
        f"{'1st half':>8} {'2nd half':>8}{head}",
        file=sys.stderr,
    )
    for n in LEVEL_NAMES:
        cells = ""
        for o in LEVEL_NAMES:
            wins, k = h2h.get((n, o), (0.0, 0))
            cells += f" {'-':>10}" if o == n or not k else f" {f'{wins / k * 100:.0f}% /{k}':>10}"
        print(
            f"# {n:<8} {shipped[n]:>6} {f'{whole.low[n]}-{whole.high[n]}':>11} {chrono[n].display:>6} "
            f"{whole.sigma[n]:>5.2f} {counts[n]:>5} {round(first.mean[n]):>8} {round(second.mean[n]):>8}"
            f"{cells}",
            file=sys.stderr,
        )
    values = [shipped[n] for n in LEVEL_NAMES]
    ordered = all(a < b for a, b in itertools.pairwise(values))
    halves = all(
        all(a < b for a, b in itertools.pairwise([h.mean[n] for n in LEVEL_NAMES])) for h in (first, second)
    )
    settled = all(whole.sigma[n] < PROVISIONAL_SIGMA for n in LEVEL_NAMES)
    print(
        f"# order {'OK' if ordered else 'WRONG'}: "
        + " < ".join(f"{n} {shipped[n]}" for n in LEVEL_NAMES)
        + f"; each half alone {'in order' if halves else 'NOT in order'}; "
        + f"every level {'settled' if settled else 'NOT settled'} (sigma < {PROVISIONAL_SIGMA})",
        file=sys.stderr,
    )
    # How far apart the displayed scale puts each level from the one below, against what their two-player
    # games alone say on that scale (400 points: a 10:1 favourite; win rate smoothed by half a game).
    gaps = []
    for weak, strong in itertools.pairwise(LEVEL_NAMES):
        wins, k = h2h.get((strong, weak), (0.0, 0))
        p = (wins + 0.5) / (k + 1)
        gaps.append(
            f"{strong} {shipped[strong] - shipped[weak]:+d} (wins {p * 100:.0f}%: "
            f"{round(400 * math.log10(p / (1 - p))):+d})"
        )
    print(
        "# gap to the level below, displayed (two-player win rate's Elo gap): " + ", ".join(gaps),
        file=sys.stderr,
    )
    for n in LEVEL_NAMES:
        print(f"{n}_rating\t{shipped[n]}\tdisplayed ({whole.low[n]}-{whole.high[n]} over the orders)")
        print(f"{n}_sigma\t{whole.sigma[n]:.2f}\tafter {counts[n]} games")
    print(f"levels_in_order\t{int(ordered)}\t1 if beginner < easy < medium < strong < expert")

    if args.write:
        meta = {
            "date": datetime.date.today().isoformat(),
            "games": len(games),
            "seed": args.seed,
            "slack": args.slack,
            "orders": args.orders,
            "command": f"nice -n 10 .venv/bin/python bench/bot_ratings.py --games {len(games)} "
            f"--seed {args.seed} --slack {args.slack:g} --orders {args.orders} --write",
        }
        JSON_FILE.write_text(json.dumps({"ratings": shipped, **meta}, indent=2) + "\n", encoding="utf-8")
        WEB_FILE.write_text(
            web_module(
                shipped, f"{meta['date']}: {len(games)} games, seed {args.seed}, slack {args.slack:g}."
            ),
            encoding="utf-8",
        )
        print(f"# wrote {JSON_FILE.relative_to(ROOT)} and {WEB_FILE.relative_to(ROOT)}", file=sys.stderr)
    return 0 if ordered else 2


if __name__ == "__main__":
    sys.exit(main())
