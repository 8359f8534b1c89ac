"""Bot thinking in worker processes, so that it never holds the relay's GIL.

A move costs tens to hundreds of milliseconds of pure-Python CPU. In a worker *thread* that time competes
with the event loop for the GIL, and with many bot tables the humans' acks wait behind it. A
:class:`ProcessDriver` sends each ``choose`` (the seat's view, the level and a seed: small, picklable) to
worker processes, each holding its own :class:`~relay.bots.player.MoveGenDriver` (word graph loaded once
per worker from the same word list).

The relay reaches them with :meth:`ProcessDriver.choose_async` and :meth:`ProcessDriver.analyse_async`:
one socket pair per worker, read and written by the event loop itself (:class:`Workers`), one job at a
time per worker. No thread is involved: a ``ProcessPoolExecutor`` behind ``run_in_executor`` costs five
thread wake-ups per move (the executor's thread, the pool's manager and queue feeder threads, both ways),
each a GIL hand-off, and on a loaded machine a forced hand-off leaves the loop waiting until the other
thread gets a CPU (bench/bots_load.py: the people's ack p99). The blocking :meth:`ProcessDriver.choose`
and :meth:`ProcessDriver.analyse` (tools, tests, threads) go to the same workers when the loop has them,
else to a ``ProcessPoolExecutor`` of their own.

:func:`relay.bots.driver` uses it when ``LEXIO_BOT_PROCESSES`` is 1 or more (the default is 1); 0 keeps
the thinking in the relay's threads.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import logging
import multiprocessing
import os
import pickle
import random
import socket
import threading
from collections import deque
from collections.abc import Callable, Coroutine, Iterable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Literal, TypeAlias, TypeVar, overload

from engine.game import GameState
from engine.moves import Move
from relay.bots.graph import WordGraph
from relay.bots.player import DEFAULT_BUDGET_SECONDS, BotError, MoveGenDriver, Words, level_of

if TYPE_CHECKING:
    from relay.journal.base import JsonObject
    from relay.lexicon import WordList

    # The worker protocol (for the type checker only: nothing here runs).
    # A worker loads its word list from a spec: a lexicon's name or path(s), else the words themselves.
    WordSpec: TypeAlias = tuple[Literal["spec"], str] | tuple[Literal["words"], tuple[str, ...]]
    JobKind: TypeAlias = Literal["choose", "analyse"]
    # A job's arguments: ``choose`` (view, level, seed), ``analyse`` (the journal as event dicts, seat).
    ChooseArgs: TypeAlias = tuple[dict[str, object], str, int]
    AnalyseArgs: TypeAlias = tuple[list[JsonObject], int]
    # Relay -> worker: (job id, kind, arguments).
    Job: TypeAlias = tuple[int, JobKind, ChooseArgs | AnalyseArgs]
    # What a job returns: ``choose`` a move, ``analyse`` the seat's analysis.
    Result: TypeAlias = Move | list[JsonObject]
    # What a job raised, rebuilt by :func:`_error`: (BotError or RuntimeError, BotError code, message).
    Failure: TypeAlias = tuple[Literal["BotError", "RuntimeError"], str, str]
    # Worker -> relay: (job id, True, result) or (job id, False, failure).
    Answer: TypeAlias = tuple[int, Literal[True], Result] | tuple[int, Literal[False], Failure]

__all__ = ["ProcessDriver", "WorkerLost", "Workers"]

log = logging.getLogger("lexio.relay")

_WORKER: MoveGenDriver | None = None
WORKER_NICENESS = 10
R = TypeVar("R")


def _word_spec(words: Words) -> WordSpec:
    """How a worker gets the same word list: by name or path if it was loaded from one, else the words."""
    from relay.lexicon import NAMED_LEXICONS

    name = getattr(words, "name", None)
    if words is None:
        return ("spec", "fr")
    if isinstance(name, str) and (name in NAMED_LEXICONS or (name not in ("memory", "") and _is_file(name))):
        return ("spec", name)
    if not isinstance(words, Iterable):
        # A bare lookup (engine.Lexicon) cannot be handed to a worker: the relay then runs without bots.
        raise TypeError("bot worker processes need a word list they can iterate over, not a lookup")
    return ("words", tuple(words))


def _is_file(name: str) -> bool:
    from pathlib import Path

    try:
        return all(Path(part).is_file() for part in name.split(os.pathsep))
    except OSError:
        return False


def _init_worker(spec: WordSpec, budget: float) -> None:
    global _WORKER
    # People before bots: on a busy machine the relay's loop (acks) wins the CPU over a bot's thinking.
    with contextlib.suppress(OSError, AttributeError):
        os.nice(WORKER_NICENESS)
    kind, value = spec
    if kind == "spec":
        from relay.lexicon import load_lexicon

        words: WordList = load_lexicon(value)
    else:
        from relay.lexicon import WordList

        words = WordList.from_words(value, name="bots")
    _WORKER = MoveGenDriver(words, budget_seconds=budget)
    _WORKER.warm()


def _choose(view: dict[str, object], level: str, seed: int) -> Move:
    assert _WORKER is not None
    return _WORKER.choose(view, level, random.Random(seed))


def _analyse(events: list[JsonObject], seat: int) -> list[JsonObject]:
    import engine
    from relay.bots.analysis import analyse_seat

    assert _WORKER is not None
    state = engine.replay(engine.event_from_dict(e) for e in events)
    return analyse_seat(state, seat, _WORKER)


_JOBS: dict[JobKind, Callable[..., Result]] = {"choose": _choose, "analyse": _analyse}


def _serve(conn: Connection[Answer, Job], spec: WordSpec, budget: float) -> None:
    """A worker of :class:`Workers`: ``(job id, kind, args)`` in, ``(job id, ok, result or error)`` out,
    until the relay closes its end (or dies: the same end of file)."""
    _init_worker(spec, budget)
    while True:
        try:
            job_id, kind, args = conn.recv()
        except (EOFError, OSError):
            return
        answer: Answer
        try:
            answer = (job_id, True, _JOBS[kind](*args))
        except BotError as err:
            answer = (job_id, False, ("BotError", err.code, err.message))
        except Exception as exc:
            answer = (job_id, False, ("RuntimeError", "", f"{type(exc).__name__}: {exc}"))
        try:
            conn.send(answer)
        except (EOFError, OSError):
            return


def _error(kind: str, code: str, message: str) -> Exception:
    return BotError(code, message) if kind == "BotError" else RuntimeError(message)


class WorkerLost(RuntimeError):
    """The worker process computing a job died (or the workers were closed) before answering."""


class _Channel(asyncio.Protocol):
    """The relay's end of one worker's socket: multiprocessing's framing (a 4-byte signed big-endian
    length, then the pickle), so that the worker's plain ``Connection.recv``/``send`` speak it."""

    def __init__(self, workers: Workers, worker: _Worker) -> None:
        self._workers = workers
        self._worker = worker
        self._buf = bytearray()

    def data_received(self, data: bytes) -> None:
        buf = self._buf
        buf += data
        while len(buf) >= 4:
            n = int.from_bytes(buf[:4], "big", signed=True)
            head = 4
            if n == -1:  # more than 2 GiB follow (never, for a move): the length is in 8 more bytes
                if len(buf) < 12:
                    return
                n, head = int.from_bytes(buf[4:12], "big"), 12
            if len(buf) < head + n:
                return
            answer: Answer = pickle.loads(buf[head : head + n])
            del buf[: head + n]
            self._workers._answered(self._worker, answer)

    def connection_lost(self, exc: Exception | None) -> None:
        self._workers._lost(self._worker)


def frame(obj: object) -> bytes:
    """``obj`` as ``Connection.send`` would write it (see :class:`_Channel`)."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    n = len(data)
    head = n.to_bytes(4, "big", signed=True) if n < 0x7FFFFFFF else b"\xff\xff\xff\xff" + n.to_bytes(8, "big")
    return head + data


class _Worker:
    __slots__ = ("job", "proc", "transport")

    def __init__(self, proc: BaseProcess) -> None:
        self.proc = proc
        self.transport: asyncio.Transport | None = None
        self.job: tuple[int, asyncio.Future[Result]] | None = None


class Workers:
    """``processes`` worker processes driven from one event loop (see the module docstring).

    Jobs wait in a queue and go, one at a time, to an idle worker; a worker that dies fails its job with
    :class:`WorkerLost` and is replaced by the next job. Started on first use (or :meth:`start`)."""

    def __init__(self, spec: WordSpec, budget: float, processes: int) -> None:
        self._spec = spec
        self._budget = budget
        self._processes = max(1, processes)
        self._workers: list[_Worker] = []
        self._queue: deque[tuple[JobKind, tuple[object, ...], asyncio.Future[Result]]] = deque()
        self._ids = itertools.count(1)
        self._starting = 0
        self._closed = False
        self.loop: asyncio.AbstractEventLoop | None = None

    @overload
    async def call(self, kind: Literal["choose"], *args: *ChooseArgs) -> Move: ...

    @overload
    async def call(self, kind: Literal["analyse"], *args: *AnalyseArgs) -> list[JsonObject]: ...

    async def call(self, kind: JobKind, *args: object) -> Result:
        """Run job ``kind`` (``choose``, ``analyse``) in a worker; its result, or what it raised (BotError
        as itself, anything else as RuntimeError; WorkerLost if the worker died)."""
        if self._closed:
            raise WorkerLost("the bot workers are closed")
        loop = asyncio.get_running_loop()
        if self.loop is not None and self.loop is not loop:
            self._rebind()  # the loop that had them is gone (a test's, a restarted server's)
        self.loop = loop
        future: asyncio.Future[Result] = loop.create_future()
        self._queue.append((kind, args, future))
        self._dispatch()
        return await future

    def _rebind(self) -> None:
        """Drop the workers of another event loop (their sockets belong to it)."""
        workers, self._workers = self._workers, []
        self._queue.clear()
        self._starting = 0
        for w in workers:
            if w.proc.is_alive():
                w.proc.terminate()
            w.proc.join(2)

    async def start(self) -> None:
        """Start every worker now (each loads the word graph); returns once all can take jobs."""
        loop = asyncio.get_running_loop()
        if self.loop is not None and self.loop is not loop:
            self._rebind()
        self.loop = loop
        while len(self._workers) + self._starting < self._processes:
            await self._spawn()

    def _dispatch(self) -> None:
        while self._queue:
            idle = next((w for w in self._workers if w.job is None and w.transport is not None), None)
            if idle is None:
                break
            kind, args, future = self._queue.popleft()
            if future.done():  # its caller gave up (a cancelled bot turn)
                continue
            job_id = next(self._ids)
            idle.job = (job_id, future)
            assert idle.transport is not None
            idle.transport.write(frame((job_id, kind, args)))
        if self._queue and not self._closed and len(self._workers) + self._starting < self._processes:
            asyncio.get_running_loop().create_task(self._spawn())

    async def _spawn(self) -> None:
        self._starting += 1
        try:
            await self._start_one()
        except Exception as exc:
            log.exception("cannot start a bot worker process")
            if not self._workers:  # nobody to take the waiting jobs: they fail (the bots pass)
                self._fail_queue(WorkerLost(f"cannot start a bot worker: {exc}"))
        finally:
            self._starting -= 1
        self._dispatch()

    async def _start_one(self) -> None:
        ctx = multiprocessing.get_context("spawn")  # the relay has threads: a fork could copy a held lock
        mine, theirs = ctx.Pipe(duplex=True)  # a socket pair
        proc = ctx.Process(
            target=_serve, args=(theirs, self._spec, self._budget), daemon=True, name="lexio-bot"
        )
        await asyncio.to_thread(proc.start)  # fork + exec + handing over the arguments: off the loop
        theirs.close()
        sock = socket.socket(fileno=os.dup(mine.fileno()))
        mine.close()
        worker = _Worker(proc)
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_unix_connection(lambda: _Channel(self, worker), sock=sock)
        worker.transport = transport
        if self._closed:
            transport.close()
            proc.terminate()
            return
        self._workers.append(worker)

    def _fail_queue(self, error: Exception) -> None:
        while self._queue:
            _, _, future = self._queue.popleft()
            if not future.done():
                future.set_exception(error)

    def _answered(self, worker: _Worker, answer: Answer) -> None:
        job, worker.job = worker.job, None
        if job is not None and job[0] == answer[0] and not job[1].done():
            if answer[1]:
                job[1].set_result(answer[2])
            else:
                job[1].set_exception(_error(*answer[2]))
        self._dispatch()

    def _lost(self, worker: _Worker) -> None:
        worker.transport = None
        with contextlib.suppress(ValueError):
            self._workers.remove(worker)
        job, worker.job = worker.job, None
        if job is not None and not job[1].done():
            job[1].set_exception(WorkerLost("the bot worker process died"))
        if not self._closed:
            with contextlib.suppress(RuntimeError):  # no loop: nothing waits
                self._dispatch()

    @property
    def pids(self) -> list[int]:
        return [int(w.proc.pid) for w in self._workers if w.proc.pid is not None]

    def close(self) -> None:
        """End the workers (those computing are terminated); jobs waiting fail with WorkerLost."""
        self._closed = True
        workers, self._workers = self._workers, []
        for w in workers:
            if w.transport is not None:
                with contextlib.suppress(RuntimeError):  # at exit, the loop may be closed already
                    w.transport.close()
            if w.proc.is_alive():
                w.proc.terminate()
        for w in workers:
            w.proc.join(2)
        with contextlib.suppress(RuntimeError):
            self._fail_queue(WorkerLost("the bot workers are closed"))


class ProcessDriver:
    """A :class:`relay.botdriver.BotDriver` whose ``choose`` runs in ``processes`` worker processes."""

    def __init__(
        self, words: Words = None, *, processes: int = 1, budget_seconds: float = DEFAULT_BUDGET_SECONDS
    ):
        self._spec = _word_spec(words)
        self._processes = max(1, processes)
        self._budget = budget_seconds
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._words = words
        self._local: MoveGenDriver | None = None
        self._async: Workers | None = None

    def workers(self) -> Workers:
        """The workers the event loop talks to (created on first use; one loop per driver)."""
        if self._async is None:
            self._async = Workers(self._spec, self._budget, self._processes)
            atexit.register(self.close)
        return self._async

    async def choose_async(self, view: dict[str, object], level: str, rng: random.Random) -> Move:
        """As :meth:`MoveGenDriver.choose`, in a worker process, awaited on the event loop without any
        thread (raises what it raises; BotError ``bad_level`` at once, here; WorkerLost)."""
        level_of(level)
        return await self.workers().call("choose", view, level, rng.getrandbits(64))

    async def analyse_async(self, state: GameState, seat: int) -> list[JsonObject]:
        """As :meth:`analyse`, awaited on the event loop (see :meth:`choose_async`)."""
        import engine

        events = [engine.event_to_dict(e) for e in state.events]
        return await self.workers().call("analyse", events, seat)

    def _on_loop(self, job: Callable[[Workers], Coroutine[object, object, R]]) -> tuple[R] | None:
        """Run ``job`` (a call on the workers) on the loop that has them, from another thread: its result
        in a 1-tuple, or None if there is no such loop (then the caller uses its own pool)."""
        workers = self._async
        loop = workers.loop if workers is not None else None
        if workers is None or loop is None or not loop.is_running():
            return None
        with contextlib.suppress(RuntimeError):
            if asyncio.get_running_loop() is loop:
                raise RuntimeError("blocking on the event loop's own workers: use choose_async")
        return (asyncio.run_coroutine_threadsafe(job(workers), loop).result(),)

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

    def choose(self, view: dict[str, object], level: str, rng: random.Random) -> Move:
        """As :meth:`MoveGenDriver.choose`, in a worker process (raises what it raises; BotError
        ``bad_level`` at once, here)."""
        level_of(level)
        seed = rng.getrandbits(64)
        on_loop = self._on_loop(lambda workers: workers.call("choose", view, level, seed))
        if on_loop is not None:
            return on_loop[0]
        return self._executor().submit(_choose, view, level, seed).result()

    def analyse(self, state: GameState, seat: int) -> list[JsonObject]:
        """:func:`relay.bots.analysis.analyse_seat` of the ended ``state`` (with its journal) in a worker
        process (the journal goes as JSON-ready dicts). Raises what it raises."""
        import engine

        events = [engine.event_to_dict(e) for e in state.events]
        on_loop = self._on_loop(lambda workers: workers.call("analyse", events, seat))
        if on_loop is not None:
            return on_loop[0]
        return self._executor().submit(_analyse, events, seat).result()

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            workers, self._async = self._async, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        if workers is not None:
            workers.close()


def _noop(_: int) -> None:
    return None
