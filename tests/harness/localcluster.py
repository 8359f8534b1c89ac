"""``make cluster`` (``python -m harness.localcluster``): Lexio on several relays on this machine.

PostgreSQL (the journal and the tables' ownership), Redis (frames between relays), three relays and HAProxy
in front on 127.0.0.1:8080, all from Debian's packages (``make postgresql cluster-tools``), every one on
loopback. The journal is kept in ``--data`` (default var/cluster/) from one run to the next; Redis keeps
nothing. Ctrl-C (or SIGTERM) stops everything: the relays first (each drains its tables), then HAProxy, Redis
and PostgreSQL. A relay that dies is started again (as systemd's ``Restart=always`` would).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import time
from pathlib import Path
from types import FrameType

from harness.process import HOST, RelayStartError
from harness.services import HAProxy, PostgresServer, RedisServer, RelayNode, ServiceUnavailable

RESTART_DELAY_S = 1.0
FALLBACK_PG_DIR = Path("/var/tmp/lexio-cluster/postgresql")


class Stop(Exception):
    """SIGINT or SIGTERM arrived."""


def _stop(signum: int, frame: FrameType | None) -> None:
    raise Stop(signal.Signals(signum).name)


def _journal_url(pg: PostgresServer) -> str:
    """``lexio`` on the server, created on the first run."""
    import psycopg

    with psycopg.connect(pg.url(), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = 'lexio'").fetchone() is None:
            conn.execute("CREATE DATABASE lexio")
    return pg.url("lexio")


def _pid(service: PostgresServer | RedisServer | HAProxy) -> int:
    assert service.proc is not None
    return service.proc.pid


def main(argv: list[str] | None = None) -> int:
    """Run until interrupted. Returns 0, or 1 if a server would not start (the reason on stderr)."""
    parser = argparse.ArgumentParser(
        prog="python -m harness.localcluster", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--port", type=int, default=8080, help="HAProxy's port on 127.0.0.1 [8080]")
    parser.add_argument("--relays", type=int, default=3, help="how many relays [3]")
    parser.add_argument(
        "--data", type=Path, default=Path("var/cluster"), help="journal and logs [var/cluster]"
    )
    parser.add_argument("--static", type=Path, default=Path("web/dist"), help="the built web app [web/dist]")
    parser.add_argument("relay_args", nargs="*", help="more `lexio serve` flags for every relay (after --)")
    args = parser.parse_args(argv)
    data: Path = args.data.resolve()
    logs = data / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    front_url = f"http://{HOST}:{args.port}"
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)

    pg = PostgresServer(durable=True, directory=data / "postgresql")
    if not pg.reachable():
        # As root in a checkout under /root (say): the postgres user cannot enter it.
        pg = PostgresServer(durable=True, directory=FALLBACK_PG_DIR)
        print(f"{data} is out of the postgres user's reach: the journal is kept in {FALLBACK_PG_DIR}")
    redis: RedisServer | None = None
    front: HAProxy | None = None
    relays: list[RelayNode] = []
    try:
        try:
            pg.start()
            url = _journal_url(pg)
            redis = RedisServer(directory=data / "redis")
            redis.start()
            relays = [
                RelayNode(
                    f"relay{i + 1}",
                    db=url,
                    bus=redis.url,
                    log=logs / f"relay{i + 1}.log",
                    static=args.static.resolve(),
                    # Players reach the relays through the front: its origin is theirs, HAProxy's
                    # X-Forwarded-For names the player.
                    extra=["--public-url", front_url, "--trusted-proxy", HOST, *args.relay_args],
                )
                for i in range(args.relays)
            ]
            for node in relays:
                node.start()
            front = HAProxy([(n.name, n.port) for n in relays], port=args.port, directory=data / "haproxy")
            front.start()
        except (ServiceUnavailable, RelayStartError) as err:
            print(f"make cluster: {err}", file=sys.stderr)
            return 1
        print(f"PostgreSQL {pg.url('lexio')} pid {_pid(pg)} (data {pg.data})")
        print(f"Redis {redis.url} pid {_pid(redis)}")
        for node in relays:
            print(f"relay {node.name} {node.url} pid {node.pid} (log {node.log})")
        print(f"HAProxy pid {_pid(front)} (config {front.config})")
        print(f"Lexio: {front_url}/  (HAProxy in front of {len(relays)} relays; Ctrl-C stops them all)")
        sys.stdout.flush()
        while True:
            time.sleep(0.5)
            for node in relays:
                if not node.running():
                    print(f"relay {node.name} exited ({node.log_tail()[-300:]!r}); starting it again")
                    time.sleep(RESTART_DELAY_S)
                    with contextlib.suppress(RelayStartError):
                        node.start()
    except Stop as why:
        print(f"\n{why}: stopping the relays, HAProxy, Redis and PostgreSQL", flush=True)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not leave servers behind
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for node in relays:
            if node.proc is not None and node.running():
                node.proc.terminate()  # all drain at once
        for node in relays:
            node.stop()
        for service in (front, redis, pg):
            if service is not None:
                service.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
