"""A tiny Prometheus text exposition (no dependency): counters, one histogram, gauges read at scrape."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Mapping

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Metrics:
    def __init__(self) -> None:
        self.actions: Counter[str] = Counter()
        self.rejections: Counter[str] = Counter()
        self.events = 0
        self.http_requests = 0
        self.latency_counts = [0] * (len(LATENCY_BUCKETS) + 1)
        self.latency_sum = 0.0
        self.latency_n = 0
        self.loop_lag = 0.0
        self.lag_counts = [0] * (len(LATENCY_BUCKETS) + 1)
        self.lag_sum = 0.0
        self.lag_n = 0

    def observe_latency(self, seconds: float) -> None:
        self.latency_counts[bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1
        self.latency_sum += seconds
        self.latency_n += 1

    def observe_loop_lag(self, seconds: float) -> None:
        self.loop_lag = seconds
        self.lag_counts[bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1
        self.lag_sum += seconds
        self.lag_n += 1

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
            "# HELP lexio_http_requests_total HTTP requests served.",
            "# TYPE lexio_http_requests_total counter",
            f"lexio_http_requests_total {self.http_requests}",
            "# HELP lexio_action_latency_seconds Client action frame received to ack/answer sent.",
            "# TYPE lexio_action_latency_seconds histogram",
        ]
        cumulative = 0
        for bound, n in zip(LATENCY_BUCKETS, self.latency_counts, strict=False):
            cumulative += n
            lines.append(f'lexio_action_latency_seconds_bucket{{le="{bound}"}} {cumulative}')
        lines.append(f'lexio_action_latency_seconds_bucket{{le="+Inf"}} {self.latency_n}')
        lines.append(f"lexio_action_latency_seconds_sum {self.latency_sum:.6f}")
        lines.append(f"lexio_action_latency_seconds_count {self.latency_n}")
        lag_index = lines.index("# TYPE lexio_loop_lag_seconds histogram") + 1
        lag_lines = []
        cumulative = 0
        for bound, n in zip(LATENCY_BUCKETS, self.lag_counts, strict=False):
            cumulative += n
            lag_lines.append(f'lexio_loop_lag_seconds_bucket{{le="{bound}"}} {cumulative}')
        lag_lines.append(f'lexio_loop_lag_seconds_bucket{{le="+Inf"}} {self.lag_n}')
        lag_lines.append(f"lexio_loop_lag_seconds_sum {self.lag_sum:.6f}")
        lag_lines.append(f"lexio_loop_lag_seconds_count {self.lag_n}")
        lines[lag_index:lag_index] = lag_lines
        if extra is not None:
            lines.append(extra())
        return "\n".join(lines) + "\n"
