"""Bot thinking in worker processes, so that it never holds the relay's GIL.

A move costs tens to hundreds of milliseconds of pure-Python CPU. In a worker *thread* that time competes
with the event loop for the GIL, and with many bot tables the humans' acks wait behind it. A
:class:`ProcessDriver` sends each ``choose`` (the seat's view, the level and a seed: small, picklable) to a
pool of worker processes, each holding its own :class:`~relay.bots.player.MoveGenDriver` (word graph loaded
once per worker from the same word list); the relay's worker thread only waits for the answer.

:func:`relay.bots.driver` uses it when ``LEXIO_BOT_PROCESSES`` is 1 or more (the default is 1); 0 keeps
the thinking in the relay's threads. The post-game analysis runs in the workers too
(:meth:`ProcessDriver.analyse`).
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import random
import threading
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from engine.moves import Move
from relay.bots.graph import WordGraph
from relay.bots.player import DEFAULT_BUDGET_SECONDS, MoveGenDriver, level_of

__all__ = ["ProcessDriver"]

_WORKER: MoveGenDriver | None = None
WORKER_NICENESS = 10


def _word_spec(words: Any) -> tuple[str, Any]:
    """How a worker gets the same word list: by name or path if it was loaded from one, else the words."""
    from relay.lexicon import NAMED_LEXICONS

    name = getattr(words, "name", None)
    if words is None:
        return ("spec", "fr")
    if isinstance(name, str) and (name in NAMED_LEXICONS or (name not in ("memory", "") and _is_file(name))):
        return ("spec", name)
    return ("words", tuple(words))


def _is_file(name: str) -> bool:
    from pathlib import Path

    try:
        return all(Path(part).is_file() for part in name.split(os.pathsep))
    except OSError:
        return False


def _init_worker(spec: tuple[str, Any], budget: float) -> None:
    global _WORKER
    # People before bots: on a busy machine the relay's loop (acks) wins the CPU over a bot's thinking.
    with contextlib.suppress(OSError, AttributeError):
        os.nice(WORKER_NICENESS)
    kind, value = spec
    if kind == "spec":
        from relay.lexicon import load_lexicon

        words: Any = load_lexicon(value)
    else:
        from relay.lexicon import WordList

        words = WordList.from_words(value, name="bots")
    _WORKER = MoveGenDriver(words, budget_seconds=budget)
    _WORKER.warm()


def _choose(view: dict[str, Any], level: str, seed: int) -> Move:
    assert _WORKER is not None
    return _WORKER.choose(view, level, random.Random(seed))


def _analyse(events: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    import engine
    from relay.bots.analysis import analyse_seat

    assert _WORKER is not None
    state = engine.replay(engine.event_from_dict(e) for e in events)
    return analyse_seat(state, seat, _WORKER)


class ProcessDriver:
    """A :class:`relay.botdriver.BotDriver` whose ``choose`` runs in ``processes`` worker processes."""

    def __init__(
        self, words: Any = None, *, processes: int = 1, budget_seconds: float = DEFAULT_BUDGET_SECONDS
    ):
        self._spec = _word_spec(words)
        self._processes = max(1, processes)
        self._budget = budget_seconds
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._words = words
        self._local: MoveGenDriver | None = None

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                # spawn: the relay has threads (a fork could copy a held lock).
                self._pool = ProcessPoolExecutor(
                    self._processes,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_init_worker,
                    initargs=(self._spec, self._budget),
                )
                atexit.register(self.close)
            return self._pool

    def warm(self) -> WordGraph:
        """Start the workers now (each loads the word graph) and return the same graph, loaded here too
        (for checks and tools: the relay itself never needs it)."""
        pool = self._executor()
        list(pool.map(_noop, range(self._processes)))
        with self._lock:
            if self._local is None:
                self._local = MoveGenDriver(self._words)
        return self._local.warm()

    def choose(self, view: dict[str, Any], level: str, rng: random.Random) -> Move:
        """As :meth:`MoveGenDriver.choose`, in a worker process (raises what it raises; BotError
        ``bad_level`` at once, here)."""
        level_of(level)
        return self._executor().submit(_choose, view, level, rng.getrandbits(64)).result()

    def analyse(self, state: Any, seat: int) -> list[dict[str, Any]]:
        """:func:`relay.bots.analysis.analyse_seat` of the ended ``state`` (with its journal) in a worker
        process (the journal goes as JSON-ready dicts). Raises what it raises."""
        import engine

        events = [engine.event_to_dict(e) for e in state.events]
        return self._executor().submit(_analyse, events, seat).result()

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def _noop(_: int) -> None:
    return None
