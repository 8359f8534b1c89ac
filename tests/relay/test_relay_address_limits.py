"""Per-address budgets (issue 16, problems 3 and 5): table creation keyed by address (IPv6 by /64) whose
buckets a flood of fresh addresses cannot reset; a relay-wide cap of waiting tables nobody is at; a short
life for tables nobody joined; and a budget of unknown-word refusals across every table and seat."""

from __future__ import annotations

import time
from typing import Any

import aiohttp
import pytest
from relaykit import FakeClock, Player, create_table, seated_game, start_relay

import engine
from relay.addresses import address_key
from relay.app import LIMITS_KEY
from relay.http.limits import Budget


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"),
        ("[2001:db8:1:3::1]", "2001:db8:1:3::/64"),
        ("::ffff:198.51.100.4", "198.51.100.4"),
        ("?", "?"),
    ],
)
def test_addresses_are_grouped_as_an_attacker_gets_them(address: str, key: str) -> None:
    assert address_key(address) == key


def test_a_budget_refills_and_a_flood_of_fresh_keys_keeps_an_exhausted_one_exhausted() -> None:
    budget = Budget(30, 0.5, capacity=10_000)
    now = 1000.0
    assert all(budget.allow("first", now) for _ in range(30))
    assert not budget.allow("first", now)
    for i in range(10_050):  # each fresh key spends one creation; the count passes the capacity
        assert budget.allow(f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}", now + i * 1e-4)
    assert len(budget) <= 10_000
    assert not budget.allow("first", now + 1.5)  # still exhausted: no fresh burst
    assert budget.allow("first", now + 2.0)  # one more every 2 s
    assert budget.wait("first", now + 2.0) == pytest.approx(2.0)


async def test_ten_thousand_fifty_addresses_do_not_buy_an_exhausted_address_a_new_burst(
    tmp_path: Any, session: aiohttp.ClientSession
) -> None:
    # Behind a trusted proxy (loopback here) each request says its client in X-Forwarded-For. The
    # relay-wide cap of waiting tables (50) refuses the flood's tables but each address still gets its
    # bucket: the count of buckets passes 10,000 without writing 10,050 tables.
    from relay.config import parse_networks

    relay = await start_relay(
        tmp_path,
        create_burst=30.0,
        create_per_second=0.01,  # nothing refills while the flood runs (seconds)
        max_waiting_tables=50,
        trusted_proxies=parse_networks(["127.0.0.1"]),
    )
    try:
        url = relay.url + "/api/tables"
        first = {"X-Forwarded-For": "198.51.100.1"}
        statuses = []
        for _ in range(31):
            async with session.post(url, json={}, headers=first) as resp:
                statuses.append(resp.status)
        assert statuses == [201] * 30 + [429]
        flood = {201: 0, 503: 0}
        for i in range(10_050):
            headers = {"X-Forwarded-For": f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}"}
            async with session.post(url, json={}, headers=headers) as resp:
                flood[resp.status] += 1
                if resp.status == 503:
                    assert (await resp.json())["code"] == "tables_busy"
        assert flood == {201: 20, 503: 10_030}  # 30 + 20 waiting tables: the cap
        assert len(relay.app[LIMITS_KEY].creations) <= 10_000  # bounded, yet not reset
        async with session.post(url, json={}, headers=first) as resp:
            assert resp.status == 429, "the exhausted address got a fresh burst"
            assert (await resp.json())["code"] == "rate_limited"
        # Addresses in one IPv6 /64 share one budget.
        statuses = []
        for i in range(31):
            headers = {"X-Forwarded-For": f"2001:db8:77:1::{i + 1:x}"}
            async with session.post(url, json={}, headers=headers) as resp:
                statuses.append(resp.status)
        assert statuses[-1] == 429
    finally:
        await relay.stop()


async def test_a_table_nobody_joined_is_dropped_after_ten_minutes(
    tmp_path: Any, session: aiohttp.ClientSession
) -> None:
    clock = FakeClock()
    relay = await start_relay(tmp_path, clock=clock)
    try:
        lonely = await create_table(session, relay)
        joined = await create_table(session, relay)
        p = await Player.connect(session, relay, joined)
        await p.join("Ann")
        await p.send({"type": "leave"})
        await p.close()
        clock.advance(601_000)
        relay.referee.lifecycle.collect(clock())
        assert lonely not in relay.referee.tables
        assert relay.referee.store.table(lonely).status == "abandoned"
        # Someone sat there once: it keeps the longer life of an emptied table.
        assert joined in relay.referee.tables
        async with session.get(f"{relay.url}/api/tables/{lonely}") as resp:
            assert resp.status == 404
    finally:
        await relay.stop()


def _four_letters(rack: str) -> list[dict[str, Any]]:
    """Four tiles across the centre: a four-letter word, never in the test word list (2-3 letters)."""
    return [
        {"sq": sq, "letter": "E" if ch == "?" else ch, "blank": ch == "?"}
        for sq, ch in zip(("F7", "G7", "H7", "I7"), rack, strict=False)
    ]


async def test_probing_the_word_list_through_several_tables_hits_one_budget_per_address(
    tmp_path: Any,
) -> None:
    relay = await start_relay(tmp_path, probe_burst=5.0, probe_refill_seconds=15.0)
    try:
        async with aiohttp.ClientSession() as session:
            tables = [await seated_game(session, relay) for _ in range(3)]
            answers = []
            for i in range(7):
                _tid, (p0, _p1) = tables[i % 3]
                ans = await p0.send({"type": "place", "tiles": _four_letters(p0.rack)})
                answers.append(ans["type"] if ans["type"] == "rejected" else ans["code"])
            # Each seat's reserve (10 tries) is far from empty: the address's budget (5) refuses.
            assert answers == ["rejected"] * 5 + ["probe_limit"] * 2, answers
            err = await tables[0][1][0].send({"type": "place", "tiles": _four_letters(tables[0][1][0].rack)})
            assert err["code"] == "probe_limit"
            assert 10 <= err["params"]["seconds"] <= 15
            assert err["params"]["next_try_ms"] > relay.referee.now_ms()
            # The socket, the turn and the seat's reserve (two tries spent at this table) are untouched.
            table = relay.referee.tables[tables[0][0]]
            tries, _ = engine.reserve_at(table.state, 0, relay.referee.now_ms())
            assert table.state.turn == 0 and tries == engine.RESERVE_MAX - 2
            assert (await tables[0][1][0].send({"type": "ping"}))["type"] == "pong"
            assert (await tables[0][1][0].send({"type": "pass"}))["type"] == "ack"
        # Another address is not concerned.
        connector = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
        async with aiohttp.ClientSession(connector=connector) as other:
            _tid, (q0, _q1) = await seated_game(other, relay)
            ans = await q0.send({"type": "place", "tiles": _four_letters(q0.rack)})
            assert ans["type"] == "rejected"
    finally:
        await relay.stop()


def test_the_probe_budget_refills_one_per_period() -> None:
    budget = Budget(30, 1 / 15)
    t = time.monotonic()
    for _ in range(30):
        assert budget.available("a", t)
        budget.charge("a", t)
    assert not budget.available("a", t + 14.9)
    assert budget.available("a", t + 15.0)
