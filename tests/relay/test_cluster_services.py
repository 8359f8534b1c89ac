"""tests/harness/services.py's servers, as the cluster tests, make cluster and bench/cluster.py use them:
each starts
on a free loopback port, a paused one answers nothing until resumed, a killed one restarts on the same port
and data, and nothing of theirs is left running after cleanup."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import psycopg
import pytest
from harness.services import HAPROXY_TEMPLATE, HAProxy, PostgresServer, RedisServer, _group_members


def redis_call(port: int, *words: str, timeout: float = 2.0) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(" ".join(words).encode() + b"\r\n")
        return s.recv(1000)


def test_postgres_keeps_committed_rows_across_kill_9_and_answers_nothing_while_paused() -> None:
    pg = PostgresServer(durable=True)
    try:
        pg.start()
        with psycopg.connect(pg.url(), autocommit=True) as conn:
            conn.execute("CREATE TABLE t (x int)")
            conn.execute("INSERT INTO t VALUES (1)")
            if os.geteuid() == 0:  # the server refuses root: it runs as postgres
                assert conn.execute("SELECT current_user").fetchone() == ("postgres",)
        pg.pause()
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(pg.url(), connect_timeout=1)
        pg.resume()
        assert pg.proc is not None
        group = pg.proc.pid
        pg.kill()
        assert not pg.running()
        assert [
            p for p in _group_members(group) if Path(f"/proc/{p}/stat").read_text().split()[2] != "Z"
        ] == []
        pg.start()
        with psycopg.connect(pg.url()) as conn:
            assert conn.execute("SELECT x FROM t").fetchall() == [(1,)]
    finally:
        pg.cleanup()
    assert not pg.dir.exists()


def test_redis_restarts_empty_on_its_port_after_kill_and_pause_blocks_it() -> None:
    redis = RedisServer()
    try:
        redis.start()
        assert redis.url == f"redis://127.0.0.1:{redis.port}/0"
        assert redis_call(redis.port, "SET", "k", "v") == b"+OK\r\n"
        redis.pause()
        with pytest.raises(TimeoutError):
            redis_call(redis.port, "PING", timeout=0.5)
        redis.resume()
        redis.kill()
        redis.start()
        assert redis_call(redis.port, "GET", "k") == b"$-1\r\n"  # nothing persisted
    finally:
        redis.cleanup()
    assert not redis.running()


def test_the_haproxy_template_renders_a_config_haproxy_accepts_and_reports_each_relay() -> None:
    assert HAPROXY_TEMPLATE.exists()
    front = HAProxy([("a", 1), ("b", 2)])
    try:
        front.check_config()
        text = front.config.read_text()
        assert "hash-type consistent" in text and "server a 127.0.0.1:1 check" in text
        front.start()
        # Nothing listens on ports 1 and 2: both fail their checks.
        states = front.server_states()
        assert set(states) == {"a", "b"}
    finally:
        front.cleanup()
