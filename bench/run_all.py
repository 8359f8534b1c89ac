"""Run every benchmark under bench/ and print one table of figures.

Each bench script prints lines ``name<TAB>value<TAB>unit`` (anything else is commentary and is
echoed to stderr). Figures are medians measured in one run on a shared, noisy machine: compare
ratios within a run, not absolute numbers across runs.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
# Order: cheap and pure first, browser last.
ORDER = ["engine.py", "lexicon.py", "movegen.py", "relay_load.py", "soak.py", "browser.py"]


def scripts() -> list[Path]:
    # Names starting with "_" are helpers (bench/_relaybench.py), not benchmarks.
    mine = Path(__file__).name
    found = {p.name: p for p in BENCH.glob("*.py") if p.name != mine and not p.name.startswith("_")}
    ordered = [found.pop(n) for n in ORDER if n in found]
    return ordered + sorted(found.values())


def main() -> int:
    rows: list[tuple[str, str, str, str]] = []
    failed: list[str] = []
    for script in scripts():
        start = time.monotonic()
        print(f"== {script.name}", file=sys.stderr, flush=True)
        proc = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, cwd=BENCH.parent, check=False
        )
        sys.stderr.write(proc.stderr)
        for line in proc.stdout.splitlines():
            parts = line.split("\t")
            if len(parts) == 3 and not parts[0].startswith("#"):
                rows.append((script.stem, parts[0], parts[1], parts[2]))
            else:
                print(line, file=sys.stderr)
        if proc.returncode != 0:
            failed.append(f"{script.name} (exit {proc.returncode})")
        print(f"   {time.monotonic() - start:.1f} s", file=sys.stderr)
    header = ("bench", "figure", "value", "unit")
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    if failed:
        print("FAILED: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
