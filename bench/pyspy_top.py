"""Summarise py-spy's raw (collapsed) stacks: where a process's CPU went, by function.

    python bench/pyspy_top.py PROFILE.txt [--top 40] [--filter SUBSTRING]

Prints the share of samples per thread, then the functions with the most inclusive samples (the function
or something it called was on the CPU) and the most self samples (the innermost frame)."""

from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--filter", default="", help="only stacks with a frame containing this")
    args = parser.parse_args()
    inclusive: collections.Counter[str] = collections.Counter()
    self_: collections.Counter[str] = collections.Counter()
    threads: collections.Counter[str] = collections.Counter()
    total = 0
    for line in Path(args.path).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n = int(count)
        frames = stack.split(";")
        if args.filter and not any(args.filter in f for f in frames):
            continue
        total += n
        threads[frames[0]] += n
        names = [re.sub(r":\d+\)$", ")", f) for f in frames[1:]]
        for f in set(names):
            inclusive[f] += n
        if names:
            self_[names[-1]] += n
    print(f"# {total} samples")
    for t, n in threads.most_common():
        print(f"{100 * n / total:6.1f}%  thread {t}")
    print("# inclusive")
    for f, n in inclusive.most_common(args.top):
        print(f"{100 * n / total:6.1f}%  {f}")
    print("# self")
    for f, n in self_.most_common(args.top):
        print(f"{100 * n / total:6.1f}%  {f}")


if __name__ == "__main__":
    main()
