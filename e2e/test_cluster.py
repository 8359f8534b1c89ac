"""Two browsers play through HAProxy in front of three relays (PostgreSQL + Redis, as `make cluster` runs
them); the relay that owns their table is killed (-9) mid-game: both pages come back by themselves through
the front, on another relay, with the board and scores as they were, and the game goes on (issue 15: the
web app knows nothing of nodes)."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from e2e_plan import Planner
from e2e_ui import ROOT, SEED, best, pick_table, place_and_submit, seat
from harness.process import free_port
from harness.services import HAProxy, PostgresServer, RedisServer, RelayNode
from playwright.sync_api import WebSocket, expect


@dataclass
class Cluster:
    pg: PostgresServer
    db: str
    nodes: list[RelayNode]
    front: HAProxy

    @property
    def url(self) -> str:
        return self.front.url

    def create_table(self) -> str:
        req = urllib.request.Request(
            self.url + "/api/tables",
            data=json.dumps({"turn_seconds": 120, "public": False}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=5) as r:
            return str(json.loads(r.read())["id"])

    def owner(self, table_id: str) -> RelayNode:
        """The relay that owns ``table_id`` now (PostgreSQL's tables.owner, matched with /healthz)."""
        with psycopg.connect(self.db, autocommit=True) as conn:
            row = conn.execute("SELECT owner FROM tables WHERE id = %s", (table_id,)).fetchone()
        assert row is not None and row[0] is not None, f"table {table_id} has no owner"
        for node in self.nodes:
            if node.running():
                with urllib.request.urlopen(node.url + "/healthz", timeout=5) as r:
                    if json.loads(r.read()).get("node") == row[0]:
                        return node
        raise AssertionError(f"owner {row[0]} is none of the running relays")

    def wait_for_new_owner(self, table_id: str, old: RelayNode, timeout: float) -> RelayNode:
        """The running relay other than ``old`` that claims ``table_id`` within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                owner = self.owner(table_id)
                if owner is not old:
                    return owner
            except AssertionError:
                pass  # still the dead relay's: nobody has claimed it yet
            assert time.monotonic() < deadline, f"no running relay claimed {table_id} within {timeout} s"
            time.sleep(0.1)


@pytest.fixture
def cluster(tmp_path: Path, words_file: Path, site: Path) -> Iterator[Cluster]:
    pg, redis = PostgresServer(), RedisServer()
    front_port = free_port()
    nodes: list[RelayNode] = []
    front: HAProxy | None = None
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
    env |= {"LEXIO_LEXICON_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    try:
        pg.start()
        redis.start()
        db = pg.new_database()
        extra = [
            "--lexicon", str(words_file), "--test-seed", str(SEED), "--allow-test-seed",
            "--grace-seconds", "30", "--create-burst", "1000", "--create-per-second", "100",
            "--probe-burst", "1000", "--max-connections-per-address", "1000",
            "--max-pending-per-address", "1000", "--public-url", f"http://127.0.0.1:{front_port}",
            "--trusted-proxy", "127.0.0.1",
        ]  # fmt: skip
        nodes = [
            RelayNode(f"r{i}", db=db, bus=redis.url, log=tmp_path / f"r{i}.log", static=site, extra=extra,
                      env=env, cwd=ROOT)
            for i in (1, 2, 3)
        ]  # fmt: skip
        for node in nodes:
            node.start()
        front = HAProxy([(n.name, n.port) for n in nodes], port=front_port)
        front.start()
        yield Cluster(pg, db, nodes, front)
    finally:
        for node in nodes:
            node.stop()
        for service in (front, redis, pg):
            if service is not None:
                service.cleanup()


def test_browsers_through_the_front_come_back_on_another_relay_after_a_kill_9_and_play_on(
    players: Any, cluster: Cluster, planner: Planner
) -> None:
    names = ["Alice", "Bob"]
    table_id, _ = pick_table(None, planner, names, lambda st: best(planner, st), create=cluster.create_table)
    alice, bob = people = [players(n, base=cluster.url) for n in names]
    seat(people, cluster.url, table_id)
    st = planner.deal(SEED, table_id, names, 120)
    move = best(planner, st)
    place_and_submit(alice, move, [bob])
    st = planner.play(st, move)

    # The pages keep showing "connected" until they notice the loss: what proves the takeover is a welcome
    # on a socket opened after the kill, still open once another relay owns the table.
    welcomed: list[list[WebSocket]] = [[] for _ in people]
    for p, sockets in zip(people, welcomed, strict=True):
        p.page.on("websocket", functools.partial(_on_welcome, sockets))
    victim = cluster.owner(table_id)
    victim.kill()
    new_owner = cluster.wait_for_new_owner(table_id, victim, timeout=30.0)
    for p, sockets in zip(people, welcomed, strict=True):
        deadline = time.monotonic() + 30.0
        while not (sockets and not sockets[-1].is_closed()):
            assert time.monotonic() < deadline, f"{p.name}'s page got no lasting welcome after the kill"
            p.page.wait_for_timeout(100)
        expect(p.page.get_by_test_id("conn-state")).to_have_text("● connected", timeout=30_000)
        expect(p.page.get_by_test_id("offline-banner")).to_have_count(0)
        expect(p.page.get_by_test_id("player-score")).to_have_text([str(s.score) for s in st.seats])
        expect(p.page.locator(f"#sq-{move.tiles[0].square}.filled")).to_have_count(1)
    assert sorted(bob.rack()) == sorted(st.seats[1].rack)
    assert cluster.owner(table_id) is new_owner
    move = best(planner, st)
    place_and_submit(bob, move, [alice])
    st = planner.play(st, move)
    for p in people:
        expect(p.page.get_by_test_id("player-score")).to_have_text([str(s.score) for s in st.seats])
    alice.shot("80-cluster-after-takeover")


def _on_welcome(sockets: list[WebSocket], ws: WebSocket) -> None:
    """Appends ``ws`` to ``sockets`` when its first welcome frame arrives."""

    def frame(payload: str | bytes) -> None:
        if isinstance(payload, str) and payload.startswith("{"):
            with contextlib.suppress(ValueError):
                if json.loads(payload).get("type") == "welcome":
                    sockets.append(ws)

    ws.on("framereceived", frame)
