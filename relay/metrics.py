"""A tiny Prometheus text exposition (no dependency): counters, one histogram, gauges read at scrape."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Mapping

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


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

    def lines(self, name: str) -> list[str]:
        """The sample lines of histogram ``name`` (cumulative buckets, +Inf, sum, count)."""
        out: list[str] = []
        cumulative = 0
        for bound, n in zip(LATENCY_BUCKETS, self.counts, strict=False):
            cumulative += n
            out.append(f'{name}_bucket{{le="{bound}"}} {cumulative}')
        out.append(f'{name}_bucket{{le="+Inf"}} {self.n}')
        out.append(f"{name}_sum {self.sum:.6f}")
        out.append(f"{name}_count {self.n}")
        return out


class Metrics:
    def __init__(self) -> None:
        self.actions: Counter[str] = Counter()
        self.rejections: Counter[str] = Counter()
        self.events = 0
        self.http_requests = 0
        self.latency = Histogram()
        self.loop_lag = 0.0
        self.lag = Histogram()

    def observe_latency(self, seconds: float) -> None:
        self.latency.observe(seconds)

    def observe_loop_lag(self, seconds: float) -> None:
        self.loop_lag = seconds
        self.lag.observe(seconds)

    def render(
        self, tables_by_state: Mapping[str, int], sockets: int, extra: Callable[[], str] | None = None
    ) -> str:
        lines = [
            "# HELP lexio_tables Tables held by the relay, by state.",
            "# TYPE lexio_tables gauge",
        ]
        for state in ("waiting", "playing", "ended"):
            lines.append(f'lexio_tables{{state="{state}"}} {tables_by_state.get(state, 0)}')
        lines += [
            "# HELP lexio_sockets Open WebSocket connections.",
            "# TYPE lexio_sockets gauge",
            f"lexio_sockets {sockets}",
            "# HELP lexio_actions_total Actions applied, by type.",
            "# TYPE lexio_actions_total counter",
        ]
        for kind, n in sorted(self.actions.items()):
            lines.append(f'lexio_actions_total{{type="{_label(kind)}"}} {n}')
        lines += [
            "# HELP lexio_rejections_total Client frames refused, by error code.",
            "# TYPE lexio_rejections_total counter",
        ]
        for code, n in sorted(self.rejections.items()):
            lines.append(f'lexio_rejections_total{{code="{_label(code)}"}} {n}')
        lines += [
            "# HELP lexio_events_total Events committed to the journal.",
            "# TYPE lexio_events_total counter",
            f"lexio_events_total {self.events}",
            "# HELP lexio_loop_lag_seconds How late the event loop ran its timer ticks (stalls, starvation).",
            "# TYPE lexio_loop_lag_seconds histogram",
            *self.lag.lines("lexio_loop_lag_seconds"),
            "# HELP lexio_http_requests_total HTTP requests served.",
            "# TYPE lexio_http_requests_total counter",
            f"lexio_http_requests_total {self.http_requests}",
            "# HELP lexio_action_latency_seconds Client action frame received to ack/answer sent.",
            "# TYPE lexio_action_latency_seconds histogram",
            *self.latency.lines("lexio_action_latency_seconds"),
        ]
        if extra is not None:
            lines.append(extra())
        return "\n".join(lines) + "\n"
