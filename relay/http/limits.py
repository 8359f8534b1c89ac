"""Per-address budgets: table creation, and unknown-word refusals across all tables (probing the word list).

Addresses are grouped as an attacker gets them: one IPv4 address, or one IPv6 /64 (the smallest
allocation a customer gets; an address in it costs nothing). Each budget is a GCRA token bucket (the
"theoretical arrival time" form): per key one float, the time at which the bucket will be full again.
A key whose bucket is full again carries no information and is forgotten first; past ``capacity`` keys the
least restrictive are dropped, never all, so a flood of fresh addresses cannot buy an exhausted one a new
burst.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from relay.config import Config

DEFAULT_CAPACITY = 10_000


_SLACK = 1e-6


class Budget:
    """``burst`` uses at once per key, then one every ``1 / per_second`` seconds. Times are
    ``time.monotonic()`` seconds."""

    __slots__ = ("_full_at", "capacity", "interval", "tolerance")

    def __init__(self, burst: float, per_second: float, *, capacity: int = DEFAULT_CAPACITY) -> None:
        if burst < 1 or per_second <= 0:
            raise ValueError("a budget needs burst >= 1 and per_second > 0")
        self.interval = 1.0 / per_second
        # How far ahead of now the full-again time may be while a use is still allowed.
        self.tolerance = (burst - 1.0) * self.interval
        self.capacity = capacity
        self._full_at: dict[str, float] = {}

    def __len__(self) -> int:
        return len(self._full_at)

    def available(self, key: str, now: float) -> bool:
        """Whether ``key`` may use the budget now (nothing is consumed)."""
        # A microsecond of slack: the full-again time is a sum of many float intervals, and a use due
        # exactly now must not be refused for the rounding of that sum.
        return self._full_at.get(key, now) - now <= self.tolerance + _SLACK

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may use the budget again (0: now)."""
        return max(0.0, self._full_at.get(key, now) - now - self.tolerance - _SLACK)

    def charge(self, key: str, now: float) -> None:
        """Consume one use, allowed or not (the thing it pays for already happened)."""
        self._full_at[key] = max(self._full_at.get(key, now), now) + self.interval
        if len(self._full_at) > self.capacity:
            self._evict(now)

    def allow(self, key: str, now: float) -> bool:
        """Consume one use if available; False (nothing consumed) otherwise."""
        if not self.available(key, now):
            return False
        self.charge(key, now)
        return True

    def _evict(self, now: float) -> None:
        """Forget the keys whose bucket is full again; if that is not enough, keep the most restrictive
        half. Amortised: each pass frees at least half of the capacity."""
        live = {k: t for k, t in self._full_at.items() if t > now}
        if len(live) > self.capacity // 2:
            keep = sorted(live.items(), key=lambda kv: kv[1], reverse=True)[: self.capacity // 2]
            live = dict(keep)
        self._full_at = live


class _Tables(Protocol):
    @property
    def tables(self) -> Mapping[str, Any]: ...


def waiting_alone(table: Any) -> bool:
    """A table waiting for players (or never joined) with nobody connected to it."""
    return table.status in ("empty", "waiting") and not table.conns and not table.watchers


@dataclass
class Limits:
    """The relay's per-address budgets (one instance per app), and the relay-wide count of waiting
    tables nobody is connected to (recounted at most once a second; creations in between added)."""

    creations: Budget
    probes: Budget
    _waiting: tuple[float, int] = (-1e18, 0)

    def idle_waiting(self, referee: _Tables, now: float) -> int:
        """Waiting tables with nobody connected (``now``: ``time.monotonic()``)."""
        at, count = self._waiting
        if now - at >= 1.0:
            count = sum(1 for t in referee.tables.values() if waiting_alone(t))
            self._waiting = (now, count)
        return count

    def created(self) -> None:
        at, count = self._waiting
        self._waiting = (at, count + 1)

    @classmethod
    def from_config(cls, config: Config) -> Limits:
        return cls(
            creations=Budget(config.create_burst, config.create_per_second),
            probes=Budget(config.probe_burst, 1.0 / config.probe_refill_seconds),
        )


@dataclass
class AccountLimits:
    """Per-address budgets of the account API: guessing sign-ins or recovery codes, or taking nicknames by
    the thousand, costs an attacker time (answered 429 ``rate_limited`` with ``Retry-After``)."""

    signups: Budget
    signins: Budget
    recoveries: Budget

    @classmethod
    def from_config(cls, config: Config) -> AccountLimits:
        burst = config.account_burst
        return cls(
            signups=Budget(burst, 1 / 120), signins=Budget(burst, 1 / 6), recoveries=Budget(burst, 1 / 60)
        )
