"""Move generator benchmark: time to list every valid placement for one rack on mid-game Lexio boards.

Positions come from self-play: seeded games where a strong bot (best score) plays every seat with real racks
drawn from a shuffled 102-tile bag; every position after the opening with tiles still in the bag is kept. Then
``generate`` runs once per position, with the word graph warm. Also measured: building the word graph from the
list, loading it from its disk cache, and its size.

Prints a human header, then ``name<TAB>value<TAB>unit`` lines (medians; bench/run_all.py collects them).
Target: median <= 100 ms per rack in CPython.

Usage: .venv/bin/python bench/movegen.py [--lexicon fr] [--games 6] [--seed 1]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.board import Board  # noqa: E402
from engine.variants import get_variant  # noqa: E402
from relay.bots.graph import WordGraph, build_graph, load_graph  # noqa: E402
from relay.bots.movegen import generate  # noqa: E402
from relay.lexicon import load_lexicon  # noqa: E402


def self_play_positions(graph: WordGraph, games: int, seed: int) -> list[tuple[Board, str]]:
    """Mid-game (board, rack) pairs from 2-player best-score games with a real bag."""
    variant = get_variant("lexio")
    rng = random.Random(seed)
    positions: list[tuple[Board, str]] = []
    for _ in range(games):
        bag = list(variant.full_bag())
        rng.shuffle(bag)
        racks = ["".join(bag.pop() for _ in range(variant.rack_size)) for _ in range(2)]
        board = Board.empty(variant)
        scoreless = 0
        turn = 0
        while scoreless < 4 and all(racks):
            rack = racks[turn % 2]
            if not board.is_empty and bag:
                positions.append((board, rack))
            moves = generate(board, rack, graph).moves
            if moves:
                best = max(moves, key=lambda m: (m.score, m.tiles))
                board = board.with_tiles(best.to_place(variant).tiles)
                left = list(rack)
                for _, letter, blank in best.tiles:
                    left.remove("?" if blank else letter)
                while len(left) < variant.rack_size and bag:
                    left.append(bag.pop())
                racks[turn % 2] = "".join(left)
                scoreless = 0
            else:
                scoreless += 1
            turn += 1
    return positions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lexicon", default="fr", help="word list name or path (default: fr)")
    parser.add_argument("--games", type=int, default=6, help="self-play games to draw positions from")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    print(
        f"# movegen bench on {platform.python_implementation()} {platform.python_version()}", file=sys.stderr
    )
    words = load_lexicon(args.lexicon)
    t0 = time.perf_counter()
    graph = build_graph(words)
    build_s = time.perf_counter() - t0
    tracemalloc.start()
    build_graph(words)
    build_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    with tempfile.TemporaryDirectory() as tmp:
        load_graph(words, cache_dir=Path(tmp))  # builds and writes the cache
        loads = []
        for _ in range(5):
            t0 = time.perf_counter()
            load_graph(words, cache_dir=Path(tmp))
            loads.append(time.perf_counter() - t0)
    print(
        f"# {graph.words} words -> {graph.nodes} nodes, {graph.edges} edges; "
        f"{graph.nbytes() / 2**20:.2f} MiB resident once built",
        file=sys.stderr,
    )

    positions = self_play_positions(graph, args.games, args.seed)
    times: list[float] = []
    counts: list[int] = []
    blank_times: list[float] = []
    for board, rack in positions:
        t0 = time.perf_counter()
        result = generate(board, rack, graph)
        elapsed = time.perf_counter() - t0
        times.append(elapsed)
        counts.append(len(result.moves))
        if "?" in rack:
            blank_times.append(elapsed)
    times.sort()
    print(f"# {len(positions)} mid-game positions from {args.games} self-play games", file=sys.stderr)
    print(f"movegen_median\t{statistics.median(times) * 1000:.1f}\tms/rack")
    print(f"movegen_p90\t{times[int(len(times) * 0.9)] * 1000:.1f}\tms/rack")
    print(f"movegen_max\t{times[-1] * 1000:.1f}\tms/rack")
    if blank_times:
        print(f"movegen_median_with_blank\t{statistics.median(blank_times) * 1000:.1f}\tms/rack")
    print(f"moves_per_rack_median\t{statistics.median(counts):.0f}\tmoves")
    print(f"graph_build\t{build_s:.2f}\ts")
    print(f"graph_cache_load\t{statistics.median(loads) * 1000:.1f}\tms")
    print(f"graph_size\t{graph.nbytes() / 2**20:.2f}\tMiB")
    print(f"graph_build_peak\t{build_peak / 2**20:.1f}\tMiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
