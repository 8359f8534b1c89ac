"""Cluster mode's settings: ``--bus`` needs a PostgreSQL journal; without ``--bus`` nothing changes."""

from __future__ import annotations

import pytest

from relay.config import ConfigError, config_from_args


def test_bus_with_a_postgresql_journal_is_cluster_mode_with_a_node_name() -> None:
    config = config_from_args(
        ["serve", "--db", "postgresql://u@h/db", "--bus", "redis://127.0.0.1:6379/0", "--node-name", "n1"]
    )
    assert config.cluster and config.bus_url == "redis://127.0.0.1:6379/0" and config.node_name == "n1"


def test_without_bus_a_relay_is_not_in_cluster_mode() -> None:
    assert not config_from_args(["serve"]).cluster
    assert not config_from_args(["serve", "--db", "postgresql://u@h/db"]).cluster


def test_bus_without_a_postgresql_journal_is_refused_with_a_code() -> None:
    with pytest.raises(ConfigError, match="cluster mode needs a PostgreSQL journal") as refused:
        config_from_args(["serve", "--bus", "redis://127.0.0.1:6379/0"])
    assert refused.value.code == "bus_needs_postgresql"
    with pytest.raises(ConfigError, match="expected a redis://"):
        config_from_args(["serve", "--db", "postgresql://u@h/db", "--bus", "http://x"])
