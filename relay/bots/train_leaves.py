"""Fit Lexio's rack-leave values from seeded self-play and write ``relay/bots/leaves.json``.

Method (Quackle's superleaves, made compact): play two-player games with the move generator; after every
placement or exchange made while the bag still refills the rack, record the tiles kept and the points the
same seat scores on its next turn. A leave's value is how much that next score beats the score after keeping
nothing; it is fitted by ridge regression on a few features per leave (its size, each tile kind kept,
extra copies of a kind, each pair of kinds kept together), so it composes for any leave of 1-6 tiles, blanks
included.

Two rounds: games between top-score players (ties at random) give a first fit, then games between equity
players using that fit (exchanges weighed) give the data of the final fit, so the values describe the
positions an equity player meets. The file records the seed, the games of each round and the CPU time.

Usage: nice -n 5 .venv/bin/python -m relay.bots.train_leaves [--minutes 12] [--seed 2026] [--out PATH]
(the shipped file came from the defaults; runs are reproducible for a given seed and game count:
``--games N,M`` replays a round-by-round game count instead of a time budget).
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from relay.bots.equity import Position, rank
from relay.bots.graph import WordGraph, load_graph
from relay.bots.leaves import LEAVES_FILE, LeaveModel, features
from relay.bots.movegen import generate
from relay.bots.selfplay import Decision, GameRecord, play_game
from relay.lexicon import load_lexicon

MIN_PAIR = 25
RIDGE = {"N": 1.0, "1": 3.0, "2": 5.0, "P": 25.0}


def policy(graph: WordGraph, model: LeaveModel | None):  # type: ignore[no-untyped-def]
    def choose(pos: Position, rng: random.Random) -> Decision:
        moves = generate(pos.board, pos.rack, graph).moves
        if model is None:
            if not moves:
                return Decision("swap", tiles=pos.rack[: pos.bag_size]) if pos.bag_size else Decision("pass")
            best = max(m.score for m in moves)
            top = sorted((m for m in moves if m.score == best), key=lambda m: m.tiles)
            return Decision("place", top[rng.randrange(len(top))])
        options = rank(moves, pos, model, with_exchanges=True)
        if not options:
            return Decision("pass")
        o = options[0]
        return Decision("place", o.move) if o.kind == "place" else Decision("swap", tiles=o.tiles)

    return choose


def samples(record: GameRecord) -> Iterable[tuple[str, int]]:
    """(leave, next score of that seat) for every move made while the bag still refilled the rack."""
    by_seat: dict[int, list[int]] = defaultdict(list)
    for i, t in enumerate(record.turns):
        by_seat[t.seat].append(i)
    for idxs in by_seat.values():
        for a, b in itertools.pairwise(idxs):
            t = record.turns[a]
            if t.kind in ("place", "swap") and t.bag_after >= 7 and t.leave:
                yield t.leave, record.turns[b].score
        # The last move of a seat has no next turn: no sample.


def fit(data: list[tuple[str, int]]) -> dict[str, float]:
    """Ridge regression of the next score on the leave's features (plus an unregularised intercept)."""
    counts: dict[str, int] = defaultdict(int)
    for leave, _ in data:
        for name, _n in features(leave):
            counts[name] += 1
    names = sorted(n for n, c in counts.items() if n[0] != "P" or c >= MIN_PAIR)
    index = {n: i + 1 for i, n in enumerate(names)}  # 0: intercept
    size = len(names) + 1
    ata = [[0.0] * size for _ in range(size)]
    atb = [0.0] * size
    for leave, y in data:
        row = [(0, 1.0)] + [(index[n], float(k)) for n, k in features(leave) if n in index]
        for i, xi in row:
            atb[i] += xi * y
            ai = ata[i]
            for j, xj in row:
                ai[j] += xi * xj
    for n, i in index.items():
        ata[i][i] += RIDGE[n[0]]
    w = _solve(ata, atb)
    return {n: w[i] for n, i in index.items()}


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the system is small and symmetric positive definite)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        pivot = m[c][c]
        rowc = m[c]
        for r in range(c + 1, n):
            f = m[r][c] / pivot
            if f:
                rowr = m[r]
                m[r] = [x - f * y for x, y in zip(rowr, rowc, strict=True)]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def run_round(
    graph: WordGraph, model: LeaveModel | None, rng: random.Random, seconds: float, games: int | None
) -> tuple[list[tuple[str, int]], int, list[GameRecord]]:
    pol = policy(graph, model)
    data: list[tuple[str, int]] = []
    records: list[GameRecord] = []
    t0 = time.process_time()
    played = 0
    while (games is not None and played < games) or (games is None and time.process_time() - t0 < seconds):
        rec = play_game([pol, pol], random.Random(rng.getrandbits(64)))
        records.append(rec)
        data.extend(samples(rec))
        played += 1
    return data, played, records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=12.0, help="CPU time budget of the two rounds")
    parser.add_argument("--games", default="", help="exact games per round, 'N,M' (overrides --minutes)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--lexicon", default="fr")
    parser.add_argument("--out", type=Path, default=LEAVES_FILE)
    args = parser.parse_args(argv)
    fixed = [int(x) for x in args.games.split(",")] if args.games else [None, None]
    graph = load_graph(load_lexicon(args.lexicon))
    rng = random.Random(args.seed)
    cpu0, wall0 = time.process_time(), time.monotonic()
    budget = args.minutes * 60
    data1, g1, _ = run_round(graph, None, rng, budget * 0.35, fixed[0])
    first = LeaveModel(fit(data1))
    print(
        f"# round 1: {g1} games, {len(data1)} samples, {time.process_time() - cpu0:.0f} s CPU",
        file=sys.stderr,
    )
    left = budget - (time.process_time() - cpu0)
    data2, g2, recs = run_round(graph, first, rng, left, fixed[1])
    weights = fit(data2 + data1)
    cpu = time.process_time() - cpu0
    mean = sum(sum(r.scores) / 2 for r in recs) / max(1, len(recs))
    print(
        f"# round 2: {g2} games, {len(data2)} samples, mean score {mean:.0f}; {cpu:.0f} s CPU",
        file=sys.stderr,
    )
    model = LeaveModel(
        {k: v for k, v in weights.items()},
        {
            "seed": args.seed,
            "lexicon": args.lexicon,
            "games": [g1, g2],
            "samples": len(data1) + len(data2),
            "cpu_seconds": round(cpu, 1),
            "wall_seconds": round(time.monotonic() - wall0, 1),
            "command": "python -m relay.bots.train_leaves " + " ".join(argv or sys.argv[1:]),
        },
    )
    import json

    args.out.write_text(json.dumps(model.to_json(), indent=0, sort_keys=False) + "\n", encoding="utf-8")
    for leave in ("?", "S", "E", "Q", "QU", "EE", "EEE", "ERS", "VWK", "AEINRS"):
        print(f"# {leave}: {model.value(leave):+.1f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
