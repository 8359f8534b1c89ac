"""Process helpers for running Lexio on several relays: a throw-away PostgreSQL, Redis and HAProxy, and
relay nodes, each on free 127.0.0.1 ports in a temp directory of its own.

Used by ``make cluster`` (``python -m harness.services``), the cluster tests and ``bench/cluster.py``. Every
server is a child process in a process group of its own, so ``kill`` (SIGKILL), ``pause`` (SIGSTOP) and
``resume`` (SIGCONT) reach all its processes (PostgreSQL's backends too) and nothing is left behind.
PostgreSQL refuses to run as root: as root it runs as the ``postgres`` user through ``runuser``, in a
directory that user owns. The servers come from Debian's packages (``make postgresql cluster-tools``).

Raises :class:`ServiceUnavailable` (a binary missing, a server that does not start, with its log tail).
"""

from __future__ import annotations

import contextlib
import glob
import importlib.resources
import itertools
import os
import pwd
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from harness.process import HOST, RelayProcess, free_port

# The template hosts deploy from (docs/hosting.md) ships with the relay; the harness renders the same file.
HAPROXY_TEMPLATE = Path(str(importlib.resources.files("relay") / "deploy" / "haproxy.cfg.in"))
LOG_TAIL_CHARS = 2000


class ServiceUnavailable(RuntimeError):
    """A server's binary is missing, or it would not start (the message says which and why)."""


def _tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-LOG_TAIL_CHARS:]
    except OSError:
        return ""


def _wait_tcp(port: int, timeout: float, alive: Callable[[], bool], what: str, log: Path) -> None:
    """Until 127.0.0.1:port accepts a connection; raises ServiceUnavailable if ``alive()`` turns false or
    ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive():
            raise ServiceUnavailable(f"{what} exited: {_tail(log)}")
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=0.5):
            return
        time.sleep(0.02)
    raise ServiceUnavailable(f"{what} did not listen on {HOST}:{port} within {timeout:g} s: {_tail(log)}")


def _group_members(pgid: int) -> list[int]:
    """The processes of process group ``pgid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            found.append(int(stat.parent.name))
    return found


class _Service:
    """A server run in the foreground as a child in its own process group, logging to ``dir/server.log``."""

    name = "service"

    def __init__(self, prefix: str, directory: Path | None = None) -> None:
        self.port = free_port()
        if directory is None:
            self.dir = Path(tempfile.mkdtemp(prefix=prefix))
        else:
            directory.mkdir(parents=True, exist_ok=True)
            self.dir = directory.resolve()
        self.log = self.dir / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        raise NotImplementedError

    def _spawn(self, argv: Sequence[str]) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                argv, cwd=self.dir, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,
            )  # fmt: skip

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, timeout: float = 30.0) -> None:
        """Start the server (again, on the same port and data) and wait until it accepts connections."""
        if self.running():
            return
        self._spawn(self.command())
        _wait_tcp(self.port, timeout, self.running, self.name, self.log)

    def signal(self, sig: int) -> None:
        """Send ``sig`` to the whole process group (no-op if not running)."""
        if self.running():
            assert self.proc is not None
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)

    def kill(self) -> None:
        """SIGKILL every process of the server and reap it: a crash, nothing flushed."""
        if self.proc is None:
            return
        self.signal(signal.SIGCONT)  # a paused process group dies just the same, but be explicit
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def pause(self) -> None:
        """SIGSTOP the server's processes: connections stay open, nothing answers."""
        self.signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT after ``pause``."""
        self.signal(signal.SIGCONT)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, SIGKILL after ``timeout`` s; the data directory stays (see ``cleanup``)."""
        if self.proc is None:
            return
        if self.running():
            self.signal(signal.SIGCONT)
            self.signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        # Children of the group (e.g. runuser's postgres) may outlive the leader for a moment.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def cleanup(self) -> None:
        """Stop, then remove the temp directory (data and log)."""
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> _Service:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


def _binary(name: str) -> str:
    """``name`` on PATH or in /usr/sbin (haproxy lives there, off a normal user's PATH). Raises
    ServiceUnavailable."""
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if found is None:
        raise ServiceUnavailable(f"{name} is not installed: run 'make cluster-tools'")
    return found


def postgres_bin() -> Path:
    """The newest installed PostgreSQL's bin directory (Debian layout). Raises ServiceUnavailable."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if not found:
        raise ServiceUnavailable(
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl): run 'make postgresql' "
            "(as root: apt-get install postgresql)"
        )
    return Path(found[-1]).parent


class PostgresServer(_Service):
    """A throw-away PostgreSQL (``initdb`` at the first ``start``), trust auth for ``postgres`` on loopback.

    ``durable=False`` (tests) turns fsync off; ``url()`` is the server's, ``new_database()`` a fresh
    isolated journal's. Raises ServiceUnavailable."""

    name = "postgres"

    def __init__(
        self,
        *,
        durable: bool = False,
        max_connections: int = 200,
        directory: Path | None = None,
        port: int | None = None,
    ) -> None:
        self.bin = postgres_bin()
        super().__init__("lexio-pg-", directory)
        if port is not None:
            self.port = port
        self.data = self.dir / "data"
        self.durable = durable
        self.max_connections = max_connections
        self._as_pg: list[str] = []
        if os.geteuid() == 0:
            pg = pwd.getpwnam("postgres")
            os.chown(self.dir, pg.pw_uid, pg.pw_gid)
            self._as_pg = ["runuser", "-u", "postgres", "--"]
        self._names = itertools.count(1)

    def reachable(self) -> bool:
        """Whether the server's user can reach its directory (as root, ``postgres`` needs every parent
        directory to be traversable: not so under /root or a 0700 temp dir)."""
        if not self._as_pg:
            return True
        done = subprocess.run([*self._as_pg, "test", "-x", str(self.dir)], capture_output=True, check=False)
        return done.returncode == 0

    def _run(self, *args: str) -> None:
        done = subprocess.run(
            [*self._as_pg, *args], capture_output=True, text=True, timeout=60, cwd=self.dir, check=False
        )
        if done.returncode != 0:
            raise ServiceUnavailable(f"{args[0]} failed: {done.stdout}{done.stderr}{_tail(self.log)}")

    def _initdb(self) -> None:
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
            "--locale=C", "--no-sync", "--no-instructions",
        )  # fmt: skip
        # The log is written by the server (the postgres user) into a directory it owns.
        self.log.touch()
        if self._as_pg:
            pg = pwd.getpwnam("postgres")
            os.chown(self.log, pg.pw_uid, pg.pw_gid)

    def command(self) -> list[str]:
        options = [
            "-c", "listen_addresses=127.0.0.1", "-p", str(self.port),
            "-c", f"unix_socket_directories={self.dir}", "-c", f"max_connections={self.max_connections}",
        ]  # fmt: skip
        if not self.durable:
            # A test server: the durability of the server itself is not what the tests check.
            options += ["-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off"]
        return [*self._as_pg, str(self.bin / "postgres"), "-D", str(self.data), *options]

    def start(self, timeout: float = 30.0) -> None:
        if not (self.data / "PG_VERSION").exists():
            self._initdb()
        if self.running():
            return
        self._spawn(self.command())
        deadline = time.monotonic() + timeout
        while True:  # listening is not enough: it refuses connections while it starts or recovers
            _wait_tcp(self.port, max(0.1, deadline - time.monotonic()), self.running, self.name, self.log)
            try:
                import psycopg

                with psycopg.connect(self.url(), connect_timeout=2):
                    return
            except Exception as err:
                if time.monotonic() > deadline:
                    raise ServiceUnavailable(
                        f"postgres refuses connections: {err}: {_tail(self.log)}"
                    ) from err
                time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL the postmaster and its backends, not ``runuser``: it reaps the postmaster, so no zombie
        keeps the pid that postmaster.pid names (a restart would take it for a live server)."""
        if self.proc is None:
            return
        leader = self.proc.pid
        for pid in _group_members(leader):
            if pid != leader or not self._as_pg:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.kill(leader, signal.SIGCONT)
        self.proc.wait(10)

    def stop(self, timeout: float = 10.0) -> None:
        # SIGINT is PostgreSQL's fast shutdown (SIGTERM, smart shutdown, waits for every client).
        if self.running():
            self.signal(signal.SIGCONT)
            self.signal(signal.SIGINT)
            assert self.proc is not None
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        super().stop(timeout)

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@{HOST}:{self.port}/{dbname}"

    def new_database(self) -> str:
        """The URL of a fresh, empty journal: its own schema (first on the search path), which is as good as
        a database for isolation and takes milliseconds where CREATE DATABASE takes most of a second."""
        import psycopg

        name = f"t{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{name}"')
        return self.url() + f"?options=-csearch_path%3D{name}"


class RedisServer(_Service):
    """``redis-server`` on a free loopback port, nothing persisted. ``url`` is what ``--bus`` takes."""

    name = "redis-server"

    def __init__(self, *, directory: Path | None = None, port: int | None = None) -> None:
        self.binary = _binary("redis-server")
        super().__init__("lexio-redis-", directory)
        if port is not None:
            self.port = port

    def command(self) -> list[str]:
        return [
            self.binary, "--port", str(self.port), "--bind", HOST, "--save", "", "--appendonly", "no",
            "--dir", str(self.dir), "--protected-mode", "yes",
        ]  # fmt: skip

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"


def render_haproxy(
    servers: Sequence[tuple[str, int]],
    *,
    bind: str,
    admin_socket: Path,
    template: Path = HAPROXY_TEMPLATE,
    server_host: str = HOST,
) -> str:
    """The HAProxy configuration for relays ``servers`` ((name, port) each) from ``template``: each relay
    is in the backend hashing on the table id (with its health check) and in the round-robin one (tracking
    that check)."""
    checked = "\n".join(f"    server {name} {server_host}:{port} check" for name, port in servers)
    tracked = "\n".join(
        f"    server {name} {server_host}:{port} track relays/{name}" for name, port in servers
    )
    return string.Template(template.read_text()).substitute(
        bind=bind, admin_socket=str(admin_socket), servers=checked, tracked_servers=tracked
    )


class HAProxy(_Service):
    """HAProxy in front of relays ``servers`` ((name, port) each), on ``port`` (default: a free one).

    ``set_state(name, "drain"|"maint"|"ready")`` and ``server_states()`` talk to its admin socket."""

    name = "haproxy"

    def __init__(
        self,
        servers: Sequence[tuple[str, int]],
        *,
        port: int | None = None,
        template: Path = HAPROXY_TEMPLATE,
        directory: Path | None = None,
    ) -> None:
        self.binary = _binary("haproxy")
        super().__init__("lexio-haproxy-", directory)
        if port is not None:
            self.port = port
        self.servers = list(servers)
        self.admin = self.dir / "admin.sock"
        self.config = self.dir / "haproxy.cfg"
        self.config.write_text(
            render_haproxy(
                self.servers, bind=f"{HOST}:{self.port}", admin_socket=self.admin, template=template
            )
        )

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def command(self) -> list[str]:
        return [self.binary, "-db", "-f", str(self.config)]

    def check_config(self) -> None:
        """``haproxy -c``; raises ServiceUnavailable with its complaint."""
        done = subprocess.run(
            [self.binary, "-c", "-f", str(self.config)], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise ServiceUnavailable(f"haproxy -c: {done.stdout}{done.stderr}")

    def start(self, timeout: float = 30.0) -> None:
        """Start and wait until both the front port and the admin socket answer."""
        super().start(timeout)
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.command_socket("show info")
                return
            except OSError as err:
                if time.monotonic() > deadline or not self.running():
                    raise ServiceUnavailable(f"haproxy admin socket: {err}: {_tail(self.log)}") from err
                time.sleep(0.02)

    def command_socket(self, line: str) -> str:
        """One command on the admin socket (e.g. ``show stat``); its answer."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(str(self.admin))
            s.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def server_stats(self, backend: str = "relays") -> dict[str, dict[str, str]]:
        """Each relay's row of ``show stat`` (``status``: UP, DOWN, MAINT...; ``chkdown``: times marked
        down; ``scur``: sessions now...)."""
        out: dict[str, dict[str, str]] = {}
        lines = self.command_socket("show stat").splitlines()
        if not lines:
            return out
        header = lines[0].lstrip("# ").split(",")
        for line in lines[1:]:
            row = dict(zip(header, line.split(","), strict=False))
            if row.get("pxname") == backend and row.get("svname") not in ("FRONTEND", "BACKEND"):
                out[row["svname"]] = row
        return out

    def server_states(self, backend: str = "relays") -> dict[str, str]:
        """Each relay's status as HAProxy sees it (``UP``, ``DOWN``, ``MAINT``, ``UP 1/2``...)."""
        return {name: row.get("status", "") for name, row in self.server_stats(backend).items()}

    def set_state(self, server: str, state: str) -> None:
        """``ready``, ``drain`` (no new connections) or ``maint`` for one relay."""
        self.command_socket(f"set server relays/{server} state {state}")


def relay_command(
    port: int,
    *,
    db: str,
    bus: str | None = None,
    node_name: str | None = None,
    static: Path | None = None,
    extra: Sequence[str] = (),
) -> list[str]:
    """``python -m relay serve`` for one cluster node on 127.0.0.1:port (without the interpreter's
    wrappers); ``static`` defaults to no web app (an empty directory is fine for tests)."""
    return [
        sys.executable,
        "-m",
        "relay",
        "serve",
        "--host",
        HOST,
        "--port",
        str(port),
        *_node_args(db=db, bus=bus, node_name=node_name, static=static, extra=extra),
    ]


def _node_args(
    *, db: str, bus: str | None, node_name: str | None, static: Path | None, extra: Sequence[str]
) -> list[str]:
    argv = ["--db", db]
    if bus is not None:
        argv += ["--bus", bus]
    if node_name is not None:
        argv += ["--node-name", node_name]
    if static is not None:
        argv += ["--static", str(static)]
    return [*argv, *extra]


class RelayNode(RelayProcess):
    """One relay of a cluster (``relay_command``'s flags) with the same kill/pause/resume as the servers.

    ``faketime`` (e.g. ``"+2s"``) runs it under libfaketime with its wall clock shifted (monotonic too)."""

    def __init__(
        self,
        name: str,
        *,
        db: str,
        bus: str | None,
        log: Path,
        static: Path | None = None,
        extra: Sequence[str] = (),
        port: int | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        faketime: str | None = None,
        start_timeout: float = 30.0,
    ) -> None:
        self.name = name
        port = free_port() if port is None else port
        args = _node_args(db=db, bus=bus, node_name=name, static=static, extra=extra)
        wrapper = ["faketime", "-f", faketime] if faketime else []
        super().__init__(
            args, log=log, port=port, env=env, cwd=cwd, wrapper=wrapper, start_timeout=start_timeout
        )

    @property
    def pid(self) -> int:
        assert self.proc is not None, "start() first"
        return self.proc.pid

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """kill -9 and reap."""
        if self.running():
            self.kill9()

    def pause(self) -> None:
        if self.running():
            os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        if self.running():
            os.kill(self.pid, signal.SIGCONT)

    def stop(self, timeout: float = 10.0) -> int | None:
        self.resume()
        return super().stop(timeout)


__all__ = [
    "HAPROXY_TEMPLATE",
    "HAProxy",
    "PostgresServer",
    "RedisServer",
    "RelayNode",
    "ServiceUnavailable",
    "postgres_bin",
    "relay_command",
    "render_haproxy",
]
