"""The relay's Prometheus metrics (docs/protocol.md, "GET /metrics"), exposed by prometheus_client.

The hot path only bumps plain Python numbers (an int, a Counter entry, a histogram bucket): a
prometheus_client metric object costs several times more per update, even with its labelled children
cached. At scrape time a custom collector turns those numbers, and the figures only read then (tables,
sockets, garbage collections, group commits), into metric families; the library writes the exposition.
"""

from __future__ import annotations

import bisect
import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from prometheus_client.core import (
    CollectorRegistry,
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
# The ``le`` label values, spelled as the hand-written exposition did (and as Prometheus parses them).
_BOUNDS = (*(str(bound) for bound in LATENCY_BUCKETS), "+Inf")
# Always exposed, even at zero, so a dashboard's series exist from the relay's start.
TABLE_STATES = ("waiting", "playing", "ended")


class Histogram:
    """Counts per LATENCY_BUCKETS bound (plus one overflow), with sum and count, in seconds."""

    def __init__(self) -> None:
        self.counts = [0] * (len(LATENCY_BUCKETS) + 1)
        self.sum = 0.0
        self.n = 0

    def observe(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1
        self.sum += seconds
        self.n += 1

    def family(self, name: str, documentation: str) -> HistogramMetricFamily:
        """Histogram ``name`` as of now: cumulative buckets (the overflow lands in +Inf), sum and count."""
        buckets = list(zip(_BOUNDS, itertools.accumulate(self.counts), strict=True))
        return HistogramMetricFamily(name, documentation, buckets=buckets, sum_value=self.sum)


@dataclass(frozen=True, slots=True)
class Readings:
    """The figures /metrics reads when it is scraped, rather than counting them as they change."""

    tables_by_state: Mapping[str, int]
    sockets: int
    # Cluster mode only: (batches, appends), the group commit's transactions sent and the appends they
    # carried (relay/journal/groupcommit.py).
    journal: tuple[int, int] | None = None


def _nothing_read() -> Readings:
    return Readings({}, 0)


class Metrics:
    """One relay's metrics and the prometheus_client registry that exposes them.

    Each relay has its own registry, not prometheus_client's global one: a process may run several relays
    (the tests do), and each must expose only its own figures.
    """

    def __init__(self) -> None:
        self.actions: Counter[str] = Counter()
        self.rejections: Counter[str] = Counter()
        self.events = 0
        self.http_requests = 0
        self.latency = Histogram()
        self.loop_lag = 0.0
        self.lag = Histogram()
        # Set by whoever knows the referee (it is built after this object): read at each scrape.
        self.readings: Callable[[], Readings] = _nothing_read
        self.registry = CollectorRegistry()
        self.registry.register(_Collector(self))

    def observe_latency(self, seconds: float) -> None:
        self.latency.observe(seconds)

    def observe_loop_lag(self, seconds: float) -> None:
        self.loop_lag = seconds
        self.lag.observe(seconds)


class _Collector:
    """Metric families built from a :class:`Metrics` at scrape time.

    No ``describe()``: the registry would otherwise learn the names by scraping at registration, before
    the referee exists. Counter families carry no ``_created`` sample (none is given), as before.
    """

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    def collect(self) -> Iterator[Metric]:
        """Raises what ``Metrics.readings`` raises."""
        m = self._metrics
        now = m.readings()
        tables = GaugeMetricFamily("lexio_tables", "Tables held by the relay, by state.", labels=["state"])
        for state in TABLE_STATES:
            tables.add_metric([state], now.tables_by_state.get(state, 0))
        yield tables
        yield GaugeMetricFamily("lexio_sockets", "Open WebSocket connections.", value=now.sockets)
        actions = CounterMetricFamily("lexio_actions_total", "Actions applied, by type.", labels=["type"])
        for kind, n in sorted(m.actions.items()):
            actions.add_metric([kind], n)
        yield actions
        rejections = CounterMetricFamily(
            "lexio_rejections_total", "Client frames refused, by error code.", labels=["code"]
        )
        for code, n in sorted(m.rejections.items()):
            rejections.add_metric([code], n)
        yield rejections
        yield CounterMetricFamily("lexio_events_total", "Events committed to the journal.", value=m.events)
        yield m.lag.family(
            "lexio_loop_lag_seconds", "How late the event loop ran its timer ticks (stalls, starvation)."
        )
        yield CounterMetricFamily("lexio_http_requests_total", "HTTP requests served.", value=m.http_requests)
        yield m.latency.family(
            "lexio_action_latency_seconds", "Client action frame received to ack/answer sent."
        )
        yield CounterMetricFamily(
            "lexio_gc_full_collections_total",
            "Full garbage collections (each pauses the loop).",
            value=GC_STATS["full_collections"],
        )
        yield CounterMetricFamily(
            "lexio_gc_full_seconds_total",
            "Time spent in full garbage collections.",
            value=GC_STATS["full_seconds"],
        )
        if now.journal is not None:
            batches, appends = now.journal
            yield CounterMetricFamily(
                "lexio_journal_batches_total",
                "Group-commit transactions sent (committed or failed).",
                value=batches,
            )
            yield CounterMetricFamily(
                "lexio_journal_batched_appends_total",
                "Actions' appends those transactions carried.",
                value=appends,
            )


# -- garbage collection --------------------------------------------------------------------------------
_gc_started = 0.0


def gc_timer(phase: str, info: dict[str, int]) -> None:
    """Count full collections and their pauses (exported in /metrics)."""
    global _gc_started
    if info.get("generation") != 2:
        return
    if phase == "start":
        _gc_started = time.perf_counter()
    else:
        GC_STATS["full_collections"] += 1
        GC_STATS["full_seconds"] += time.perf_counter() - _gc_started


# Process-wide, like the collector's callbacks: every relay in the process exposes the same figures.
GC_STATS: dict[str, float] = {"full_collections": 0, "full_seconds": 0.0}
