"""What the relay benchmarks share: a relay process with a throw-away journal, a short word list, the
relay's RSS and /metrics, quantiles, the machine's load, and the output format of bench/run_all.py
(``#`` commentary lines, then ``name<TAB>value<TAB>unit`` rows)."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import string
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import aiohttp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # the process harness

from harness.process import RelayProcess  # noqa: E402

Row = tuple[str, object, str]


def workdir(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=f"lexio-{prefix}-"))


def short_lexicon(tmp: Path, lengths: Iterable[int] = (2, 3)) -> Path:
    """Every string of capital letters of the given lengths: any placement of such words is accepted."""
    path = tmp / "short.txt"
    words = ("".join(p) for n in lengths for p in itertools.product(string.ascii_uppercase, repeat=n))
    path.write_text("\n".join(words) + "\n")
    return path


def relay_process(
    tmp: Path, args: Sequence[str] = (), *, env: dict[str, str] | None = None, start_timeout: float = 30
) -> RelayProcess:
    """``python -m relay serve`` with its journal in ``tmp``, no static site, and ``args``."""
    return RelayProcess(
        ["--db", str(tmp / "bench.sqlite3"), "--static", str(tmp / "none"), *args],
        log=tmp / "relay.log",
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        cwd=REPO,
        start_timeout=start_timeout,
    )


def rss_kib(pid: int) -> int:
    """A process's resident memory now (/proc, Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def schedstat(pid: int) -> tuple[float, float, int]:
    """(seconds on a CPU, seconds runnable but waiting for one, time slices) summed over the process's
    threads (/proc/PID/task/*/schedstat, Linux): how much of a latency is the machine's, not the code's."""
    run = wait = slices = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            a, b, c = (int(x) for x in (task / "schedstat").read_text().split()[:3])
        except (OSError, ValueError):
            continue
        run, wait, slices = run + a, wait + b, slices + c
    return run / 1e9, wait / 1e9, slices


def quantile(xs: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` (nearest rank; the largest for q = 1)."""
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


async def relay_metrics(session: aiohttp.ClientSession, url: str) -> dict[str, float]:
    """The relay's /metrics samples, by name with labels (``name{le="0.05"}``)."""
    async with session.get(url + "/metrics") as resp:
        text = await resp.text()
    out: dict[str, float] = {}
    for line in text.splitlines():
        m = re.match(r"^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?)\s+(\S+)$", line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


def histogram_quantile(metrics: dict[str, float], name: str, q: float) -> float:
    """The upper bound of the bucket holding the ``q`` quantile of histogram ``name`` (inf if past the
    last bound), from two /metrics snapshots' difference or one."""
    count = metrics.get(f"{name}_count", 0.0)
    bounds = sorted(
        (float(k.split('le="')[1].rstrip('"}')), v)
        for k, v in metrics.items()
        if k.startswith(f"{name}_bucket") and "+Inf" not in k
    )
    for bound, cumulative in bounds:
        if cumulative >= q * count:
            return bound
    return float("inf")


def difference(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {k: v - before.get(k, 0.0) for k, v in after.items()}


class LoopLag:
    """This client's own event-loop lateness (a ticker every ``period`` s): a figure measured on the
    client is the relay's only if this stays small."""

    def __init__(self, period: float = 0.01) -> None:
        self.period = period
        self.lags: list[float] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._tick())

    async def _tick(self) -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(self.period)
            self.lags.append(time.perf_counter() - t - self.period)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


def report(title: str, comments: Iterable[str], rows: Iterable[Row]) -> None:
    """Print the benchmark's output: a title and comment lines (``#``), then one row per figure."""
    print(f"# {title}")
    for line in comments:
        print(f"# {line}")
    for name, value, unit in rows:
        print(f"{name}\t{value}\t{unit}")
