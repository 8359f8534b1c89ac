"""Giving freed memory back to the OS after a burst of slow sockets (issue 16).

A socket whose peer reads nothing holds up to its output cap (256 KiB) in frames and transport buffers.
Those are tens-of-KiB blocks from glibc's heap, not from Python's small-object allocator; when the
sockets close, Python frees them, but glibc keeps the pages: free chunks in the middle of the heap, pinned
by live allocations above them, are only returned by ``malloc_trim`` (measured with
bench/relay_slow_readers.py: without it the relay stays at its peak, e.g. 45.8 MiB base, 70.7 peak,
70.7 after). :class:`Trimmer` calls ``malloc_trim(0)`` once such a burst is over: debounced (one call a
few seconds after the last big release, at most one per ``min_interval``), in a worker thread (ctypes
drops the GIL; the loop never waits for it), and only when a socket that had a backlog closed, so an
ordinary relay never pays for it. Linux with glibc only; elsewhere it does nothing.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
import os
import sys
import time
from collections.abc import Callable
from typing import Final

log = logging.getLogger("lexio.relay")

# Seconds of quiet after the last big release before trimming (a burst of closes is trimmed once).
TRIM_DELAY: Final = 1.0
# At most one trim in this many seconds (each walks the whole heap with glibc's lock held).
TRIM_MIN_INTERVAL: Final = 10.0
# A steady stream of releases postpones the trim by at most this long.
TRIM_MAX_WAIT: Final = 5.0


def _load_malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux") or os.environ.get("LEXIO_MALLOC_TRIM", "1") == "0":
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim  # glibc only (musl has none)
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


class Trimmer:
    """Debounced ``malloc_trim(0)`` after big releases of memory (see the module docstring).

    ``released()`` is called, on the event loop, when something that held a lot (a socket with a backlog)
    is gone; the trim follows ``delay`` seconds after the last such call, no sooner than ``min_interval``
    after the previous trim. ``trims`` counts those done (tests, metrics)."""

    def __init__(self, *, delay: float = TRIM_DELAY, min_interval: float = TRIM_MIN_INTERVAL) -> None:
        self.delay = delay
        self.min_interval = min_interval
        self.trims = 0
        self._trim = _load_malloc_trim()
        self._timer: asyncio.TimerHandle | None = None
        self._first = 0.0  # when the pending trim was first asked for
        self._last = -float("inf")
        self._running = False

    @property
    def available(self) -> bool:
        return self._trim is not None

    def released(self) -> None:
        if self._trim is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        now = time.monotonic()
        if self._timer is None:
            self._first = now
        elif now - self._first >= TRIM_MAX_WAIT:
            return  # releases keep coming: the pending trim is not postponed further
        else:
            self._timer.cancel()
        wait = max(self.delay, self._last + self.min_interval - now)
        self._timer = loop.call_later(wait, self._fire)

    def _fire(self) -> None:
        self._timer = None
        if self._running or self._trim is None:
            return
        self._running = True
        self._last = time.monotonic()
        future = asyncio.get_running_loop().run_in_executor(None, self._trim, 0)
        future.add_done_callback(self._done)

    def _done(self, future: asyncio.Future[int]) -> None:
        self._running = False
        self.trims += 1
        if future.exception() is not None:  # pragma: no cover - malloc_trim does not fail
            log.warning("malloc_trim failed: %s", future.exception())

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
