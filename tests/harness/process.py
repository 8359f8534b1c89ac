"""A relay as a child process: ``python -m relay serve`` on a free loopback port, started, watched, stopped.

Used by ``make cluster`` (tests/harness/services.py, tests/harness/localcluster.py), the restart tests, the
browser
end-to-end tests and the benchmarks, which all need the production entry point rather than an in-process
app (kill -9, graceful SIGTERM, a separate CPU)."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

HOST = "127.0.0.1"
LOG_TAIL_CHARS = 2000


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class RelayStartError(RuntimeError):
    """The relay exited, or did not answer ``/healthz`` in time; the message ends with its log tail."""


class RelayProcess:
    """``python -m relay serve --host 127.0.0.1 --port PORT ARGS...`` as a child process.

    The port is fixed at construction, so ``start`` after ``kill9`` comes back on the same address (and,
    given the same ``--db``, the same database). stdout and stderr are appended to ``log``. ``env`` and
    ``cwd`` are passed to the child as given: the caller makes ``relay`` importable (cwd or PYTHONPATH).
    ``python_args`` go between the interpreter and ``-m`` (e.g. cProfile); ``wrapper`` goes before the
    interpreter (e.g. taskset)."""

    def __init__(
        self,
        args: Sequence[str],
        *,
        log: Path,
        port: int | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        python_args: Sequence[str] = (),
        wrapper: Sequence[str] = (),
        start_timeout: float = 30.0,
    ) -> None:
        self.args = list(args)
        self.log = log
        self.port = free_port() if port is None else port
        self.env = None if env is None else dict(env)
        self.cwd = cwd
        self.python_args = list(python_args)
        self.wrapper = list(wrapper)
        self.start_timeout = start_timeout
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def command(self, *extra: str) -> list[str]:
        return [
            *self.wrapper,
            sys.executable,
            *self.python_args,
            "-m",
            "relay",
            "serve",
            "--host",
            HOST,
            "--port",
            str(self.port),
            *self.args,
            *extra,
        ]

    def start(self, *extra: str) -> None:
        """Spawn the relay (``extra`` appended to its arguments) and wait until ``/healthz`` answers 200.

        Raises RelayStartError if it exits or is not healthy within ``start_timeout`` seconds (it is
        then left running: ``stop`` ends it)."""
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                self.command(*extra), cwd=self.cwd, env=self.env, stdout=out, stderr=subprocess.STDOUT
            )
        self.wait_healthy(self.start_timeout)

    async def astart(self, *extra: str) -> None:
        """``start`` without blocking the running event loop. Raises as ``start``."""
        await asyncio.to_thread(self.start, *extra)

    def wait_healthy(self, timeout: float) -> None:
        """Poll ``/healthz`` until it answers 200. Raises RelayStartError as ``start``."""
        assert self.proc is not None, "start() first"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RelayStartError(f"relay exited {self.proc.returncode}: {self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.05)
        raise RelayStartError(f"relay did not answer /healthz within {timeout:g} s: {self.log_tail()}")

    def log_tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-LOG_TAIL_CHARS:]
        except OSError as e:
            return f"(no log: {e})"

    def kill9(self) -> None:
        """SIGKILL and reap: nothing is flushed or closed, as in a crash."""
        assert self.proc is not None, "start() first"
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM (graceful shutdown), then SIGKILL if still running after ``timeout`` seconds.

        Returns the exit code (negative: the signal that ended it), or None if never started."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return self.proc.returncode
