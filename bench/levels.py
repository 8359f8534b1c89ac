"""Bot level matrix: seeded two-player self-play between the levels, through the real level policies.

Pairings: each level against the one below (``beginner`` against a player choosing a uniformly random legal
move), ``expert`` against a plain greedy player (top score, random tie-break), and ``beginner`` and ``expert``
against themselves. ``seeker`` (not a level: the expert until the bag is empty, then only ever the placement
after which it goes out soonest) measures how many stuck endings remain when both sides play the endgame only
to go out (``--pairs seeker:seeker``). Each deal is played twice with the seats swapped, and every pairing
plays the same deals (paired games cancel most of the luck of the draw, and two variants paired with the same
opponent meet the same deals). For each pairing: the first level's win rate with its 95 % Wilson interval
(ties count half), both mean scores, the mean spread with its 95 % interval, and the games ending by two
rounds without a placement; per level: bingos per game and think time (median, p95, max, ms per move).
Games go through :mod:`relay.bots.selfplay` (the game's rules over the move generator, no relay).

Prints a human table on stderr, then ``name<TAB>value<TAB>unit`` lines (bench/run_all.py collects them).

Usage: nice -n 10 .venv/bin/python bench/levels.py [--games 8] [--seed 1] [--jobs 2] [--slack 3]
[--pairs expert:strong,...] [--variant x=expert:endgame=0] [--leaves old=FILE] [--log FILE | --from-log FILE]
(think times are wall-clock per move: on a loaded machine they rise, and ``--slack`` raises the caps).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.board import Board  # noqa: E402
from relay.bots.equity import Position, leave_of  # noqa: E402
from relay.bots.graph import WordGraph  # noqa: E402
from relay.bots.leaves import LeaveModel  # noqa: E402
from relay.bots.levels import LEVELS, Level  # noqa: E402
from relay.bots.movegen import Candidate, generate  # noqa: E402
from relay.bots.player import DEFAULT_BUDGET_SECONDS, ENDGAME_SECONDS, MoveGenDriver  # noqa: E402
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

    def seeker(pos: Position, rng: random.Random) -> Decision:
        # The expert until the bag is empty, then only going out matters: the placement after which its
        # remaining tiles go out in the fewest moves of its own (the opponent's play and the score ignored,
        # ties by score): what is left of the stuck endings when nobody plays for points or to block.
        if pos.bag_size or pos.players != 2:
            return driver.decide(pos, LEVELS["expert"], rng)
        moves = generate(pos.board, pos.rack, graph).moves
        if not moves:
            return Decision("pass")
        cache: dict[tuple[object, str], list[Candidate]] = {}

        def steps(m: Candidate) -> int:
            left = leave_of(pos.rack, m)
            return 0 if not left else _out_in(m.played_on(pos.board), left, graph, cache)

        best = min(moves, key=lambda m: (steps(m), -m.score, m.tiles))
        return Decision("place", best)

    out: dict[str, Policy] = {"random": plain(True), "greedy": plain(False), "seeker": seeker}
    for name, level in {**LEVELS, **VARIANTS}.items():
        out[name] = lambda pos, rng, level=level: driver.decide(pos, level, rng)  # type: ignore[misc]
    return out


_NEVER: Final = 99
# Search nodes per option when looking for a way out (seed 62: p95 504 ms a move, 16.5 s at worst).
_SEEK_NODES: Final = 60


def _out_in(
    board: Board, rack: str, graph: WordGraph, cache: dict[tuple[object, str], list[Candidate]]
) -> int:
    """Moves ``rack`` needs to go out playing alone on ``board``: depth first, most tiles first, the first
    way found, within ``_SEEK_NODES`` nodes (``_NEVER``: none found). ``cache`` keeps the generations."""
    nodes = 0

    def walk(board: Board, rack: str) -> int:
        nonlocal nodes
        nodes += 1
        if nodes > _SEEK_NODES:
            return _NEVER
        key = (board.cells, rack)
        moves = cache.get(key)
        if moves is None:
            moves = sorted(generate(board, rack, graph).moves, key=lambda m: (-m.size, -m.score, m.tiles))
            cache[key] = moves
        for m in moves:
            left = leave_of(rack, m)
            if not left:
                return 1
            n = walk(m.played_on(board), left)
            if n < _NEVER:
                return n + 1
            if nodes > _SEEK_NODES:
                break
        return _NEVER

    return walk(board, rack)


VARIANTS: dict[str, Level] = {}


def parse_variant(spec: str) -> tuple[str, Level]:
    """``name=base:field=value:...`` — a level like ``base`` with some fields changed (for ablations)."""
    name, _, rest = spec.partition("=")
    base, *changes = rest.split(":")
    fields: dict[str, object] = {}
    for change in changes:
        key, _, value = change.partition("=")
        kind = type(getattr(LEVELS[base], key))
        fields[key] = (
            value in ("1", "true", "True")
            if kind is bool
            else None
            if value == "None"
            else float(value)
            if kind is float
            else int(value)
        )
    return name, dataclasses.replace(LEVELS[base], name=name, **fields)  # type: ignore[arg-type]


def wilson(p: float, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    z = 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_ci(xs: list[float]) -> tuple[float, float, float]:
    """Mean and its 95 % normal interval."""
    m = statistics.mean(xs)
    if len(xs) < 2:
        return m, float("-inf"), float("inf")
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, m - half, m + half


_POLICIES: dict[str, Policy] = {}


def _expert_with(driver: MoveGenDriver, level: Level) -> Policy:
    def choose(pos: Position, rng: random.Random) -> Decision:
        return driver.decide(pos, level, rng)

    return choose


def _init_worker(
    names: list[str], variants: list[str], slack: float = 1.0, leaves: list[str] | None = None
) -> None:
    VARIANTS.update(parse_variant(v) for v in variants)
    driver = MoveGenDriver(
        budget_seconds=DEFAULT_BUDGET_SECONDS * slack, endgame_seconds=ENDGAME_SECONDS * slack
    )
    _POLICIES.update(policies(driver))
    for spec in leaves or []:
        # ``name=PATH``: the expert with another leave file, under its own name (same graphs, same budgets).
        name, _, path = spec.partition("=")
        other = copy.copy(driver)
        other._leaves = LeaveModel.load(Path(path))
        _POLICIES[name] = _expert_with(other, dataclasses.replace(LEVELS["expert"], name=name))
    for n in names:
        known = LEVELS.get(n) or VARIANTS.get(n)
        if known is not None:
            driver.graph_for(known)


def _play(
    job: tuple[str, str, int, bool],
) -> tuple[str, str, list[int], str, dict[str, list[float]], dict[str, int]]:
    """One game of pairing (a, b): seed ``seed`` deals the bag; ``first``: a sits first. Game 2k and 2k+1 of a
    pairing share their deal with the seats swapped (paired games: the luck of the draw cancels out)."""
    a, b, seed, first = job
    seats = [a, b] if first else [b, a]
    rec: GameRecord = play_game([_POLICIES[s] for s in seats], random.Random(seed))
    ia, ib = (0, 1) if first else (1, 0)
    think: dict[str, list[float]] = {}
    bingos: dict[str, int] = {}
    for seat, key in ((ia, "a"), (ib, "b")):
        turns = [t for t in rec.turns if t.seat == seat]
        think[key] = [t.think_ms for t in turns]
        bingos[key] = sum(1 for t in turns if t.kind == "place" and t.size == 7)
    return a, b, [rec.scores[ia], rec.scores[ib]], rec.reason, think, bingos


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games per pairing (even: paired deals)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (at most 2)")
    parser.add_argument("--pairs", default="", help="a:b,c:d (default: the whole ladder)")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="name=level:field=value:... a changed level to pair by its name (e.g. x=expert:endgame=0)",
    )
    parser.add_argument(
        "--leaves",
        action="append",
        default=[],
        help="name=PATH: the expert with another leave file, paired by that name (e.g. old=leaves.json)",
    )
    parser.add_argument(
        "--log", type=Path, help="append one JSON line per finished game (a stopped run keeps its games)"
    )
    parser.add_argument(
        "--slack",
        type=float,
        default=1.0,
        help="multiply the bots' time budgets (strength on a loaded machine as on an idle one; the think "
        "times printed then exceed the product's caps)",
    )
    parser.add_argument("--from-log", type=Path, help="print the matrix of the games in this log, play none")
    args = parser.parse_args()
    pairs = [tuple(p.split(":")) for p in args.pairs.split(",")] if args.pairs else PAIRS
    names = sorted({n for pair in pairs for n in pair})
    jobs: list[tuple[str, str, int, bool]] = []
    rng = random.Random(args.seed)
    # Every pairing plays the same deals (common random numbers): two variants paired with the same
    # opponent differ by their play, not by their luck.
    # A pairing listed twice plays the next deals the second time.
    per = (args.games + 1) // 2
    deals = [rng.getrandbits(64) for _ in range(per * max(pairs.count(p) for p in pairs))]
    seen: dict[tuple[str, ...], int] = defaultdict(int)
    for a, b in pairs:
        first = per * seen[(a, b)]
        seen[(a, b)] += 1
        for g in range(args.games):
            jobs.append((a, b, deals[first + g // 2], g % 2 == 0))
    # Round-robin over the pairings: a run stopped early has games of every pairing.
    by_pair = [jobs[i * args.games : (i + 1) * args.games] for i in range(len(pairs))]
    jobs = [j for group in zip(*by_pair, strict=True) for j in group]
    t_all = time.monotonic()
    results: dict[tuple[str, str], list[tuple[list[int], str]]] = defaultdict(list)
    think: dict[str, list[float]] = defaultdict(list)
    bingos: dict[str, list[int]] = defaultdict(list)
    workers = max(1, min(2, args.jobs))
    done: Iterable[tuple[str, str, list[int], str, dict[str, list[float]], dict[str, int]]]
    if args.from_log:
        logged = [json.loads(line) for line in args.from_log.read_text(encoding="utf-8").splitlines() if line]
        done = (tuple(item) for item in logged)  # type: ignore[misc]
        pairs = list(dict.fromkeys((item[0], item[1]) for item in logged))
    elif workers == 1:
        _init_worker(names, args.variant, args.slack, args.leaves)
        done = map(_play, jobs)
    else:
        import multiprocessing

        pool = multiprocessing.get_context("fork").Pool(
            workers, _init_worker, (names, args.variant, args.slack, args.leaves)
        )
        done = pool.imap(_play, jobs, chunksize=1)
    log = args.log.open("a", encoding="utf-8") if args.log and not args.from_log else None
    for item in done:
        a, b, scores, reason, th, bi = item
        if log is not None:
            log.write(json.dumps(item) + "\n")
            log.flush()
        results[(a, b)].append((scores, reason))
        for key, name in (("a", a), ("b", b)):
            think[name].extend(th[key])
            bingos[name].append(bi[key])
    lines: list[tuple[str, str, str]] = []
    for a, b in dict.fromkeys(pairs):  # a pairing listed twice plays twice the games
        games = results[(a, b)]
        n = len(games)
        if not n:
            continue
        wins = sum(1.0 if s[0] > s[1] else 0.5 if s[0] == s[1] else 0.0 for s, _ in games)
        scoreless = sum(reason == "scoreless" for _, reason in games)
        rate = wins / n
        lo, hi = wilson(rate, n)
        slo, shi = wilson(scoreless / n, n)
        sa = [s[0] for s, _ in games]
        sb = [s[1] for s, _ in games]
        spread, dlo, dhi = mean_ci([float(x - y) for x, y in zip(sa, sb, strict=True)])
        key = f"{a}_vs_{b}"
        lines += [
            (f"{key}_win", f"{rate * 100:.1f}", f"% of {n} games (95% CI {lo * 100:.1f}-{hi * 100:.1f})"),
            (f"{key}_mean_scores", f"{statistics.mean(sa):.0f}/{statistics.mean(sb):.0f}", "points"),
            (f"{key}_spread", f"{spread:+.1f}", f"points/game (95% CI {dlo:+.1f} to {dhi:+.1f})"),
            (
                f"{key}_scoreless_end",
                f"{scoreless / n * 100:.1f}",
                f"% of games (95% CI {slo * 100:.1f}-{shi * 100:.1f})",
            ),
        ]
        print(
            f"# {a:>8} vs {b:<8} win {rate * 100:5.1f}% [{lo * 100:4.1f}-{hi * 100:5.1f}]  "
            f"scores {statistics.mean(sa):5.0f} / {statistics.mean(sb):5.0f}  "
            f"spread {spread:+6.1f} [{dlo:+.1f} {dhi:+.1f}]  "
            f"scoreless ends {scoreless}/{n} [{slo * 100:.0f}-{shi * 100:.0f}%]",
            file=sys.stderr,
            flush=True,
        )
    for name in sorted(think, key=lambda x: list(LEVELS).index(x) if x in LEVELS else -1):
        if not think[name]:
            continue
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
        f"# {len(pairs)} pairings x {args.games} games in {time.monotonic() - t_all:.0f} s "
        f"({workers} process{'es' if workers > 1 else ''})",
        file=sys.stderr,
    )
    for row in lines:
        print("\t".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
