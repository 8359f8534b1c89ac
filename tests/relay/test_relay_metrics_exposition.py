"""GET /metrics: written by prometheus_client from each relay's own registry, under the documented names."""

from __future__ import annotations

from pathlib import Path

import aiohttp
from prometheus_client import generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families
from relaykit import RunningRelay, seated_game, start_relay

from relay.metrics import Metrics, Readings

# docs/protocol.md, "GET /metrics": exposed name -> (type, label names besides a histogram's ``le``).
DOCUMENTED: dict[str, tuple[str, set[str]]] = {
    "lexio_tables": ("gauge", {"state"}),
    "lexio_sockets": ("gauge", set()),
    "lexio_actions_total": ("counter", {"type"}),
    "lexio_rejections_total": ("counter", {"code"}),
    "lexio_action_latency_seconds": ("histogram", set()),
    "lexio_events_total": ("counter", set()),
    "lexio_loop_lag_seconds": ("histogram", set()),
    "lexio_gc_full_collections_total": ("counter", set()),
    "lexio_gc_full_seconds_total": ("counter", set()),
    "lexio_http_requests_total": ("counter", set()),
}
# Cluster mode only.
GROUP_COMMIT: dict[str, tuple[str, set[str]]] = {
    "lexio_journal_batches_total": ("counter", set()),
    "lexio_journal_batched_appends_total": ("counter", set()),
}


def exposed_name(family: Metric) -> str:
    # The parser names a counter's family without the ``_total`` its samples (and its TYPE line) carry.
    return family.name + "_total" if family.type == "counter" else family.name


def by_exposed_name(text: str) -> dict[str, Metric]:
    return {exposed_name(f): f for f in text_string_to_metric_families(text)}


def values(family: Metric, label: str) -> dict[str, float]:
    return {s.labels[label]: s.value for s in family.samples}


async def scrape(session: aiohttp.ClientSession, relay: RunningRelay) -> str:
    async with session.get(relay.url + "/metrics") as r:
        assert r.status == 200
        assert r.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
        assert r.headers["X-Prometheus-Format"] == "0.0.4"
        return await r.text()


async def test_metrics_are_exposed_by_prometheus_client_under_the_documented_names(
    relay: RunningRelay, session: aiohttp.ClientSession
) -> None:
    _table_id, (p0, p1) = await seated_game(session, relay)
    assert (await p1.send({"type": "pass"}))["type"] != "ack"
    assert (await p0.send({"type": "pass"}))["type"] == "ack"

    families = by_exposed_name(await scrape(session, relay))

    assert {name: f.type for name, f in families.items()} == {name: t for name, (t, _) in DOCUMENTED.items()}
    for name, (_, labels) in DOCUMENTED.items():
        for sample in families[name].samples:
            assert set(sample.labels) - {"le"} == labels, sample
            # Counters and histograms carry no ``_created`` sample, as when the exposition was hand-written.
            assert not sample.name.endswith("_created"), sample
    assert values(families["lexio_tables"], "state") == {"waiting": 0, "playing": 1, "ended": 0}
    assert families["lexio_sockets"].samples[0].value == 2
    assert values(families["lexio_actions_total"], "type")["pass"] == 1
    assert values(families["lexio_rejections_total"], "code") == {"not_your_turn": 1}
    latency = {s.name: s for s in families["lexio_action_latency_seconds"].samples if "le" not in s.labels}
    buckets = {
        s.labels["le"]: s.value for s in families["lexio_action_latency_seconds"].samples if "le" in s.labels
    }
    assert buckets["+Inf"] == latency["lexio_action_latency_seconds_count"].value >= 2
    assert list(buckets.values()) == sorted(buckets.values())


async def test_each_relay_exposes_only_its_own_figures(
    tmp_path: Path, session: aiohttp.ClientSession
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = await start_relay(tmp_path / "a")
    b = await start_relay(tmp_path / "b")
    try:
        _table_id, players = await seated_game(session, a)
        a_families = by_exposed_name(await scrape(session, a))
        b_families = by_exposed_name(await scrape(session, b))
        for p in players:
            await p.close()
    finally:
        await a.stop()
        await b.stop()

    assert values(a_families["lexio_actions_total"], "type")["join"] == 2
    assert b_families["lexio_actions_total"].samples == []
    assert values(b_families["lexio_tables"], "state") == {"waiting": 0, "playing": 0, "ended": 0}


def test_cluster_mode_also_exposes_the_group_commit_counters() -> None:
    metrics = Metrics()
    metrics.readings = lambda: Readings({"playing": 3}, 5, journal=(4, 9))

    families = by_exposed_name(generate_latest(metrics.registry).decode())

    expected = {**DOCUMENTED, **GROUP_COMMIT}
    assert {name: f.type for name, f in families.items()} == {name: t for name, (t, _) in expected.items()}
    assert families["lexio_journal_batches_total"].samples[0].value == 4
    assert families["lexio_journal_batched_appends_total"].samples[0].value == 9
