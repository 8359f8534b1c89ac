"""Client frames as the relay reads them, and per-connection rate limiting.

The frames themselves (their types, their parsing, their codes) are :mod:`wire.client`'s, shared with the
browser; :func:`parse_frame` is its parser under the relay's historical name.
"""

from __future__ import annotations

from wire.client import (
    CLIENT_TYPES,
    LEVELS,
    MAX_CHAT_FRAME_TEXT,
    MAX_DEPTH,
    MAX_ID,
    MAX_NAME,
    MAX_TOKEN,
    MAX_VALUES,
    ClientFrame,
    ProtocolError,
    TileIn,
)
from wire.client import parse_client_frame as parse_frame

__all__ = [
    "CLIENT_TYPES",
    "LEVELS",
    "MAX_CHAT_FRAME_TEXT",
    "MAX_DEPTH",
    "MAX_ID",
    "MAX_NAME",
    "MAX_TOKEN",
    "MAX_VALUES",
    "ClientFrame",
    "ProtocolError",
    "RateLimiter",
    "TileIn",
    "parse_frame",
]


class RateLimiter:
    """Token bucket per connection; ``strikes`` counts refused frames so a flooder can be dropped."""

    __slots__ = ("_last", "_tokens", "burst", "rate", "strikes")

    def __init__(self, burst: float, rate: float, now: float) -> None:
        self.burst = burst
        self.rate = rate
        self._tokens = burst
        self._last = now
        self.strikes = 0

    def wait(self, now: float) -> float:
        """Seconds from ``now`` until a frame would be allowed (0: now)."""
        tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate

    def allow(self, now: float) -> bool:
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            self.strikes = 0
            return True
        self.strikes += 1
        return False
