"""Clock sync, countdowns and reconnection backoff: plain arithmetic on integer milliseconds.

The browser passes its own monotonic-ish clock (``performance.timeOrigin + performance.now()``) in; nothing
here reads a clock, so it is testable on CPython.
"""

# ruff: noqa: RUF001  (multiplication signs and dashes are deliberate UI typography)

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.payloads import Clock, Reserve


class ServerClock:
    """Estimates ``server_now - local_now`` from the ``now`` stamp of every server frame.

    A frame's stamp is taken when sent, so ``stamp - local_receive = offset - delay``; the largest value
    seen is the best estimate (least delayed). It is forgotten after ``window`` samples so a real jump of
    the server's clock (e.g. a restarted relay) is followed.
    """

    def __init__(self, window: int = 32) -> None:
        self.window = window
        self._samples: list[int] = []
        self.offset: int | None = None

    def observe(self, server_now: int, local_now: int) -> None:
        self._samples.append(int(server_now) - int(local_now))
        if len(self._samples) > self.window:
            self._samples.pop(0)
        self.offset = max(self._samples)

    def server_now(self, local_now: int) -> int:
        return int(local_now) + (self.offset or 0)


def effective_deadline(clock: Clock | None) -> int | None:
    """``min(deadline_ms, grace_deadline_ms)`` ignoring nulls (docs/protocol.md, ``clock`` frame)."""
    if not clock:
        return None
    values = [v for v in (clock.get("deadline_ms"), clock.get("grace_deadline_ms")) if isinstance(v, int)]
    return min(values) if values else None


def remaining_ms(deadline_ms: int | None, server_now: int) -> int | None:
    """Milliseconds left before ``deadline_ms`` (never negative); None without a deadline."""
    if deadline_ms is None:
        return None
    return max(0, int(deadline_ms) - int(server_now))


def format_countdown(ms: int | None) -> str:
    """``m:ss``, rounding up so the display reaches 0:00 exactly when time is up."""
    if ms is None:
        return "–:––"
    seconds = (max(0, ms) + 999) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def seconds_until(at_ms: int | None, server_now: int) -> int | None:
    if at_ms is None:
        return None
    return (max(0, int(at_ms) - int(server_now)) + 999) // 1000


@dataclass
class Backoff:
    """Exponential reconnection delay with full jitter, reset after a successful (re)join.

    ``next_delay`` returns ms in ``[base/2, min(cap, base * 2**attempt)]``; ``rng`` is passed in.
    """

    base_ms: int = 500
    cap_ms: int = 15_000
    attempt: int = 0
    rng: random.Random = field(default_factory=random.Random)

    def next_delay(self) -> int:
        ceiling = min(self.cap_ms, self.base_ms * (2**self.attempt))
        self.attempt = min(self.attempt + 1, 30)
        low = min(self.base_ms // 2, ceiling)
        return int(self.rng.uniform(low, ceiling))

    def reset(self) -> None:
        self.attempt = 0


# Close codes after which reconnecting is wrong (docs/protocol.md): abusive, too large, taken over, gone.
NO_RECONNECT = {1008: "kicked", 1009: "kicked", 4001: "taken_over", 4004: "table_gone"}


def should_reconnect(close_code: int) -> bool:
    return close_code not in NO_RECONNECT


def reserve_now(
    reserve: Reserve | None, server_now: int, *, max_tries: int = 10, refill_ms: int = 15_000
) -> tuple[int | None, int | None]:
    """The reserve as of ``server_now`` from a snapshot's ``{"tries", "next_refill_ms"}``: one try back every
    ``refill_ms`` while below ``max_tries`` (the engine's token bucket, replayed locally between frames).
    Returns ``(tries, next_refill_ms)``; ``(None, None)`` without a reserve (spectator)."""
    tries = reserve.get("tries") if reserve else None
    if not reserve or not isinstance(tries, int):
        return None, None
    nxt = reserve.get("next_refill_ms")
    if not isinstance(nxt, int):
        return tries, None
    while nxt <= server_now and tries < max_tries:
        tries += 1
        nxt += refill_ms
    return tries, (nxt if tries < max_tries else None)
