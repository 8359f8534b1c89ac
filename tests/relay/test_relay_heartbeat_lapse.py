"""A relay's heartbeat decides when its tables may have moved: only when its row in PostgreSQL may have gone
unrenewed longer than other relays wait before calling it dead (relay/cluster/ownership.py)."""

from __future__ import annotations

from typing import Any

import pytest

from relay.cluster import ownership as ownership_module
from relay.cluster.ownership import Ownership


class Clock:
    """time.monotonic for the module under test; the fake store's heartbeat moves it by its round trip."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Store:
    """Just what Ownership's heartbeat touches; each call takes ``rtt`` seconds on the clock."""

    url = "postgresql://unused"
    node_id = "n/1"
    timeout = 1.0

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.rtt = 0.01

    def heartbeat(self) -> int:
        self.clock.now += self.rtt
        return 0


@pytest.fixture
def node(monkeypatch: pytest.MonkeyPatch) -> tuple[Ownership, Clock, Store]:
    clock = Clock()
    monkeypatch.setattr(ownership_module.time, "monotonic", clock)
    store = Store(clock)
    own = Ownership(Any, store, stale_after=2.0, dead_after=3.0)  # type: ignore[arg-type]
    return own, clock, store


def beat(node: tuple[Ownership, Clock, Store], *, after: float, rtt: float = 0.01) -> None:
    own, clock, store = node
    clock.now += after
    store.rtt = rtt
    own.beat()


def test_a_heartbeat_blocked_past_the_dead_limit_flags_a_lapse_as_soon_as_it_returns(
    node: tuple[Ownership, Clock, Store],
) -> None:
    """Sent 0.7 s after the last one (PostgreSQL cut) and back 2.6 s later: the row may have aged 3.3 s,
    past the 3 s after which another relay may claim this one's tables."""
    own = node[0]
    beat(node, after=0)
    beat(node, after=0.7, rtt=2.6)
    assert not own.healthy()
    assert own._lapsed


def test_a_late_heartbeat_whose_row_never_aged_past_the_dead_limit_is_no_lapse(
    node: tuple[Ownership, Clock, Store],
) -> None:
    """A heartbeat held 1.9 s through a cut, then the next one sent 2.05 s after it: the row was renewed at
    most 2.6 s and then 2.06 s apart, so no relay could have called this one dead; the node stays healthy
    (it once dropped every table here, closing the sockets of the game it had just been given back)."""
    own = node[0]
    beat(node, after=0)
    beat(node, after=0.7, rtt=1.9)
    assert own.healthy()
    beat(node, after=0.15)
    assert own.healthy()
    assert not own._lapsed


def test_a_node_without_a_heartbeat_for_the_stale_limit_is_unhealthy_without_a_lapse(
    node: tuple[Ownership, Clock, Store],
) -> None:
    own, clock, _ = node
    beat(node, after=0)
    clock.now += 2.01
    assert not own.healthy()
    assert not own._lapsed


def test_healthz_waits_for_a_fresh_heartbeat_after_one_held_through_a_cut(
    node: tuple[Ownership, Clock, Store],
) -> None:
    """A heartbeat held 1.9 s comes back with 1.9 of its 2 s of freshness spent: the node may still commit,
    but /healthz says ok only once the next one (sent at once) has landed, so that the front does not route
    a player whose first move would find the node stale a moment later (seen in CI: 200, rejoin, 1012)."""
    own = node[0]
    beat(node, after=0)
    assert own.health()["ok"]
    beat(node, after=0.7, rtt=1.9)
    assert own.healthy()
    assert not own.health()["ok"]
    beat(node, after=0.001)
    assert own.health()["ok"]


def test_healthz_stays_ok_between_heartbeats_a_little_late(node: tuple[Ownership, Clock, Store]) -> None:
    """Heartbeats a second apart, each up to 0.4 s late (a busy machine), never flap /healthz."""
    own, clock, _ = node
    beat(node, after=0)
    for _ in range(5):
        clock.now += 1.4
        assert own.health()["ok"]
        beat(node, after=0)
