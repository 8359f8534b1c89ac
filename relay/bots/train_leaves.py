"""Fit Lexio's rack-leave values from seeded self-play and write ``relay/bots/leaves.json``.

Method (Quackle's superleaves, made compact and controlled for the board): play two-player games between
top-score players (ties at random). At every turn that follows a move made while the bag still refilled the
rack, the seat's top score with the rack it holds (the leave it kept plus what it drew) is compared with its
top score on the same board with a fresh rack of 7 tiles drawn at random from every tile not on the board.
That difference is what the leave was worth on that board; comparing on the same board removes what made
earlier fits overrate leaves (keeping few tiles means a long play was made, which also opened the board).
Top-score players spend a blank at once, so kept leaves seldom hold one (66 of 10 951 samples in 600
games); ``--blank-samples P`` also measures, at that share of the sampled turns, a made-up leave of a blank
and 0-5 unseen tiles (filled to 7 at random) against the same fresh rack.

The value is fitted by ridge regression on a few features per leave (``relay.bots.leaves.FEATURES`` of
the ``--format`` chosen: the mix of vowels and consonants kept, each tile kind, extra copies of a kind, each
pair of kinds kept together), so it composes for any leave of 1-6 tiles, blanks included. The file records
the seed, the number of games and samples, and the CPU and wall time.

Usage: nice -n 10 .venv/bin/python -m relay.bots.train_leaves [--games 600] [--seed 2026] [--jobs 2]
[--blank-samples 0.5] [--out PATH] [--samples RAW.json | --from-samples RAW.json]. A run is reproducible for
a given seed, game count and blank share (each game has its own seed, whatever the number of worker
processes); ``--samples`` keeps the raw samples so that ``--from-samples`` can refit them without playing.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

from relay.bots.equity import Position, leave_of
from relay.bots.graph import WordGraph, load_graph
from relay.bots.leaves import FEATURES, LEAVES_FILE, LeaveModel
from relay.bots.movegen import generate
from relay.bots.selfplay import Decision, Policy, play_game
from relay.lexicon import load_lexicon

MIN_PAIR = 40
RIDGE = {"B": 2.0, "1": 4.0, "2": 8.0, "P": 40.0}

_GRAPH: WordGraph | None = None
_BLANK_SHARE = 0.0


class Collector:
    """One seat's top-score policy that also records (leave kept, what it was worth at the next turn)."""

    def __init__(
        self,
        graph: WordGraph,
        control: random.Random,
        blank_share: float = 0.0,
        synth: random.Random | None = None,
    ) -> None:
        self.graph = graph
        self.control = control
        self.blank_share = blank_share
        self.synth = synth or random.Random(0)
        self.pending: str | None = None
        self.samples: list[tuple[str, float]] = []

    def _top(self, pos: Position, rack: str) -> int:
        return max((m.score for m in generate(pos.board, rack, self.graph).moves), default=0)

    def __call__(self, pos: Position, rng: random.Random) -> Decision:
        moves = generate(pos.board, pos.rack, self.graph).moves
        top = max((m.score for m in moves), default=0)
        if self.pending is not None:
            pool = list(pos.unseen + pos.rack)
            fresh = "".join(self.control.sample(pool, min(7, len(pool))))
            base = self._top(pos, fresh)
            self.samples.append((self.pending, float(top - base)))
            self.pending = None
            if self.blank_share and "?" in pool and self.synth.random() < self.blank_share:
                # Top-score players spend a blank at once, so few kept leaves hold one (66 of 10 951 in
                # 600 games): also measure a leave of the blank and 0-5 unseen tiles, filled at random.
                rest = list(pool)
                rest.remove("?")
                others = self.synth.sample(rest, self.synth.randint(0, 5))
                for t in others:
                    rest.remove(t)
                made = "?" + "".join(others)
                filled = made + "".join(self.synth.sample(rest, 7 - len(made)))
                self.samples.append((made, float(self._top(pos, filled) - base)))
        if not moves:  # change the whole rack (what the bag allows) or pass
            return Decision("swap", tiles=pos.rack[: pos.bag_size]) if pos.bag_size else Decision("pass")
        best = sorted((m for m in moves if m.score == top), key=lambda m: m.tiles)
        move = best[rng.randrange(len(best))]
        kept = leave_of(pos.rack, move)
        if kept and pos.bag_size - move.size >= 7:
            self.pending = kept
        return Decision("place", move)


def play_one(seed: int) -> list[tuple[str, float]]:
    """The samples of one seeded game (both seats)."""
    assert _GRAPH is not None
    rng = random.Random(seed)
    seats = [
        Collector(_GRAPH, random.Random(rng.getrandbits(64)), _BLANK_SHARE, random.Random(seed * 2 + i + 1))
        for i in range(2)
    ]
    pols: list[Policy] = list(seats)
    play_game(pols, rng)
    return [s for c in seats for s in c.samples]


def _init(lexicon: str, blank_share: float = 0.0) -> None:
    global _GRAPH, _BLANK_SHARE
    _GRAPH = load_graph(load_lexicon(lexicon))
    _BLANK_SHARE = blank_share


def fit(data: list[tuple[str, float]], format: int = 2) -> dict[str, float]:
    """Ridge regression of the leave's worth on the features of leave-file ``format`` (no intercept: an
    empty leave is worth 0)."""
    features = FEATURES[format]
    counts: dict[str, int] = defaultdict(int)
    for leave, _ in data:
        for name, _n in features(leave):
            counts[name] += 1
    names = sorted(n for n, c in counts.items() if n[0] != "P" or c >= MIN_PAIR)
    index = {n: i for i, n in enumerate(names)}
    size = len(names)
    ata = [[0.0] * size for _ in range(size)]
    atb = [0.0] * size
    for leave, y in data:
        row = [(index[n], float(k)) for n, k in features(leave) if n in index]
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


def _recorded(args: list[str]) -> list[str]:
    """The arguments that decide the values (the output paths do not)."""
    paths = ("--out", "--samples")
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in paths:
            skip = True
        elif not a.startswith(tuple(p + "=" for p in paths)):
            out.append(a)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600, help="self-play games")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (at most 2)")
    parser.add_argument("--lexicon", default="fr")
    parser.add_argument("--out", type=Path, default=LEAVES_FILE)
    parser.add_argument(
        "--format",
        type=int,
        choices=sorted(FEATURES),
        default=2,
        help="the leave file's features: 2 (the shipped file: blanks aside in the balance) or 3 (a blank "
        "counts on the side the leave lacks; measured weaker, docs/architecture.md)",
    )
    parser.add_argument(
        "--blank-samples",
        type=float,
        default=0.0,
        help="share of sampled turns that also measure a made-up leave holding a blank (0: none)",
    )
    parser.add_argument(
        "--samples", type=Path, help="also write the raw (leave, worth) samples there (JSON), to refit later"
    )
    parser.add_argument(
        "--from-samples", type=Path, help="refit from a --samples file instead of playing (keeps its record)"
    )
    args = parser.parse_args(argv)
    if args.from_samples:
        saved = json.loads(args.from_samples.read_text(encoding="utf-8"))
        samples = [(str(leave), float(y)) for leave, y in saved["samples"]]
        fitted = fit(samples, args.format)
        return _write(args.out, LeaveModel(fitted, saved["meta"], format=args.format))
    master = random.Random(args.seed)
    seeds = [master.getrandbits(64) for _ in range(args.games)]
    cpu0, wall0 = time.process_time(), time.monotonic()
    jobs = max(1, min(2, args.jobs))
    data: list[tuple[str, float]] = []
    child_cpu = 0.0
    if jobs == 1:
        _init(args.lexicon, args.blank_samples)
        for s in seeds:
            data.extend(play_one(s))
    else:
        import multiprocessing
        import os

        with multiprocessing.get_context("fork").Pool(
            jobs, _init, (args.lexicon, args.blank_samples)
        ) as pool:
            for i, part in enumerate(pool.imap(play_one, seeds, chunksize=4)):
                data.extend(part)
                if i % 100 == 99:
                    print(f"# {i + 1} games, {len(data)} samples", file=sys.stderr, flush=True)
        t = os.times()
        child_cpu = t.children_user + t.children_system
    weights = fit(data, args.format)
    cpu = time.process_time() - cpu0 + child_cpu
    meta = {
        "seed": args.seed,
        "lexicon": args.lexicon,
        "games": args.games,
        "samples": len(data),
        "cpu_seconds": round(cpu, 1),
        "wall_seconds": round(time.monotonic() - wall0, 1),
        "command": " ".join(["python -m relay.bots.train_leaves", *_recorded(argv or sys.argv[1:])]),
    }
    if args.samples:
        args.samples.write_text(json.dumps({"meta": meta, "samples": data}) + "\n", encoding="utf-8")
    return _write(args.out, LeaveModel(weights, meta, format=args.format))


def _write(out: Path, model: LeaveModel) -> int:
    out.write_text(json.dumps(model.to_json(), indent=0) + "\n", encoding="utf-8")
    m = model.meta
    print(f"# {m['games']} games, {m['samples']} samples, {m['cpu_seconds']:.0f} s CPU", file=sys.stderr)
    for leave in ("?", "S", "?S", "E", "Q", "QU", "EE", "EEE", "ERS", "VWK", "AEINRS", "AEIOU", "BCDFG"):
        print(f"# {leave}: {model.value(leave):+.1f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
