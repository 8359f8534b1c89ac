"""A browser whose page and socket are on a relay that does not own its table plays through the owner over
Redis (relay/cluster/relaying.py); Redis killed then restarted: only that page drops, and it comes back by
itself
with the board and scores as they were (issue 15: the web app knows nothing of nodes)."""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from e2e_plan import Planner
from e2e_ui import ROOT, SEED, best, pick_table, place_and_submit, seat
from harness.services import PostgresServer, RedisServer, RelayNode
from playwright.sync_api import expect


@dataclass
class Pair:
    owner: RelayNode
    edge: RelayNode
    redis: RedisServer


@pytest.fixture
def pair(tmp_path: Path, words_file: Path, site: Path) -> Iterator[Pair]:
    pg, redis = PostgresServer(), RedisServer()
    nodes: list[RelayNode] = []
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
    env |= {"LEXIO_LEXICON_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    try:
        pg.start()
        redis.start()
        db = pg.new_database()
        extra = [
            "--lexicon", str(words_file), "--test-seed", str(SEED), "--allow-test-seed",
            "--grace-seconds", "60", "--create-burst", "1000", "--create-per-second", "100",
            "--probe-burst", "1000",
        ]  # fmt: skip
        nodes = [
            RelayNode(name, db=db, bus=redis.url, log=tmp_path / f"{name}.log", static=site, extra=extra,
                      env=env, cwd=ROOT)
            for name in ("owner", "edge")
        ]  # fmt: skip
        for node in nodes:
            node.start()
        yield Pair(nodes[0], nodes[1], redis)
    finally:
        for node in nodes:
            node.stop()
        for service in (redis, pg):
            service.cleanup()


def test_a_page_on_a_relay_that_does_not_own_the_table_plays_through_the_owner_and_survives_redis_restarting(
    players: Any, pair: Pair, planner: Planner
) -> None:
    def create() -> str:
        req = urllib.request.Request(
            pair.owner.url + "/api/tables",
            data=json.dumps({"turn_seconds": 120, "public": False}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=5) as r:
            return str(json.loads(r.read())["id"])

    names = ["Alice", "Bob"]
    table_id, _ = pick_table(None, planner, names, lambda st: best(planner, st), create=create)
    alice = players("Alice", base=pair.owner.url)  # on the owner: claims the table
    bob = players("Bob", base=pair.edge.url)  # page and socket on the other relay: relayed
    people = [alice, bob]
    seat(people, pair.owner.url, table_id)
    st = planner.deal(SEED, table_id, names, 120)
    move = best(planner, st)
    place_and_submit(alice, move, [bob])
    st = planner.play(st, move)
    move = best(planner, st)
    place_and_submit(bob, move, [alice])  # Bob's play goes to the owner through Redis and is acked back
    st = planner.play(st, move)

    pair.redis.kill()
    # Only the relayed page loses its connection; Alice's, on the owner, stays up.
    expect(bob.page.get_by_test_id("conn-state")).not_to_have_text("● connected", timeout=10_000)
    expect(alice.page.get_by_test_id("conn-state")).to_have_text("● connected")
    pair.redis.start()
    expect(bob.page.get_by_test_id("conn-state")).to_have_text("● connected", timeout=30_000)
    for p in people:
        expect(p.page.get_by_test_id("player-score")).to_have_text([str(s.score) for s in st.seats])
        expect(p.page.locator(f"#sq-{move.tiles[0].square}.filled")).to_have_count(1)
    assert sorted(bob.rack()) == sorted(st.seats[1].rack)
    move = best(planner, st)
    place_and_submit(alice, move, [bob])
    st = planner.play(st, move)
    for p in people:
        expect(p.page.get_by_test_id("player-score")).to_have_text([str(s.score) for s in st.seats])
    bob.shot("81-relayed-after-redis-restart")
