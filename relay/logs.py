"""Structured logging: one line per request or action, plain text or JSON lines (``--log-json``).

Call sites pass their fields as ``extra={"fields": {...}}``; both formatters print them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from typing import Any

log = logging.getLogger("lexio.relay")
access_log = logging.getLogger("lexio.access")


_stamp_cache: tuple[int, str] = (-1, "")


def _stamp(created: float) -> str:
    # strftime is slow; one call per second is enough.
    global _stamp_cache
    sec = int(created)
    if _stamp_cache[0] != sec:
        _stamp_cache = (sec, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)))
    return f"{_stamp_cache[1]}.{int((created - sec) * 1000):03d}Z"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": _stamp(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            out.update(fields)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, separators=(",", ":"), default=str)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        base = f"{_stamp(record.created)} {record.levelname} {record.name}: {record.getMessage()}"
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict) and fields:
            base += " " + " ".join(f"{k}={v}" for k, v in fields.items())
        if record.exc_info:
            base += "\n" + self.formatException(record.exc_info)
        return base


class TickStreamHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A stream handler that writes the lines of one turn of the event loop in one write: lines emitted on a
    running loop are held and written by a callback at the start of its next turn (one system call for
    every action of a turn, rather than a write and a flush per line: a tenth of an action's CPU at a
    thousand tables); elsewhere (no loop: start-up, shutdown, worker threads), and for warnings and errors,
    at once, after what is held. ``flush`` (``logging.shutdown`` at exit) writes what is held: only a
    process killed outright loses the lines of its last turn."""

    def __init__(self, stream: Any = None) -> None:
        super().__init__(stream)
        self._held: list[str] = []
        self._scheduled = False

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record) + self.terminator
            loop = asyncio._get_running_loop() if record.levelno < logging.WARNING else None
            self._held.append(line)
            if loop is None:
                self._write_held()
            elif not self._scheduled:
                self._scheduled = True
                loop.call_soon(self._turn_ended)
        except RecursionError:  # as logging.StreamHandler
            raise
        except Exception:
            self.handleError(record)

    def _turn_ended(self) -> None:
        self.acquire()
        try:
            self._scheduled = False
            self._write_held()
        finally:
            self.release()

    def _write_held(self) -> None:
        # Under the handler's lock (emit runs under it; so does every caller here).
        held, self._held = self._held, []
        if held:
            self.stream.write(held[0] if len(held) == 1 else "".join(held))
            super().flush()

    def flush(self) -> None:
        self.acquire()
        try:
            self._write_held()
        finally:
            self.release()


def setup_logging(*, json_lines: bool, level: str = "INFO") -> None:
    """Route the relay's loggers to stderr with the chosen format (idempotent)."""
    handler = TickStreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if json_lines else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # One line per action: no record needs the thread, process or source line it came from, and finding
    # them (a frame walk, os.path calls) cost a third of each line (the logging HOWTO's "Optimization").
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    logging._srcfile = None


def event(msg: str, **fields: Any) -> None:
    """Log one action line with its fields (nothing is built when INFO is off)."""
    if not log.isEnabledFor(logging.INFO):
        return
    if _plain_records():
        log.handle(_record(msg, fields))
    else:
        log.info(msg, extra={"fields": fields})


# When logging was imported (what a record's ``relativeCreated`` counts from).
_START: float = vars(logging)["_startTime"]
# The attributes of an action line's LogRecord that do not change from one line to the next (by message).
_templates: dict[str, dict[str, object]] = {}


def _plain_records() -> bool:
    """Whether a record holds nothing but its message, fields and time: the settings of :func:`setup_logging`
    (no caller, thread or process looked up) and the standard record factory."""
    return (
        logging._srcfile is None
        and not logging.logThreads
        and not logging.logProcesses
        and not logging.logMultiprocessing
        and logging.getLogRecordFactory() is logging.LogRecord
        and type(log).makeRecord is logging.Logger.makeRecord
    )


def _record(msg: str, fields: dict[str, object]) -> logging.LogRecord:
    """The record ``log.info(msg, extra={"fields": fields})`` would make, from a template: one line per
    action, and building a LogRecord from scratch (path splitting and all) was half of its cost."""
    template = _templates.get(msg)
    if template is None:
        first = log.makeRecord(
            log.name, logging.INFO, "(unknown file)", 0, msg, (), None, "(unknown function)"
        )
        template = _templates[msg] = dict(first.__dict__)
    record: logging.LogRecord = logging.LogRecord.__new__(logging.LogRecord)
    attrs = record.__dict__
    attrs.update(template)
    created = time.time()
    attrs["created"] = created
    attrs["msecs"] = int((created - int(created)) * 1000) + 0.0
    attrs["relativeCreated"] = (created - _START) * 1000
    attrs["fields"] = fields
    return record


class Throttle:
    """At most ``burst`` lines, then ``per_second``, per kind: a flood of bad input cannot flood the log.
    The next line let through says how many were dropped meanwhile."""

    def __init__(self, burst: float = 20.0, per_second: float = 2.0) -> None:
        self.burst, self.per_second = burst, per_second
        self._tokens: dict[str, tuple[float, float, int]] = {}

    def allow(self, kind: str, now: float) -> int | None:
        """None: drop this line. Otherwise the number of lines of ``kind`` dropped since the last one."""
        tokens, last, dropped = self._tokens.get(kind, (self.burst, now, 0))
        tokens = min(self.burst, tokens + (now - last) * self.per_second)
        if tokens < 1.0:
            self._tokens[kind] = (tokens, now, dropped + 1)
            return None
        if len(self._tokens) > 1000:
            self._tokens.clear()  # kinds are a handful of codes; this only bounds a bug
        self._tokens[kind] = (tokens - 1.0, now, 0)
        return dropped


_client_throttle = Throttle()


def client_warning(msg: str, kind: str, **fields: Any) -> bool:
    """One WARNING line (no traceback) for a client's fault (``kind``: its code), all kinds sharing one
    rate limit. Returns whether the line was written (the caller may add detail only then)."""
    dropped = _client_throttle.allow("client", time.monotonic())
    if dropped is None:
        return False
    if dropped:
        fields = {**fields, "suppressed": dropped}
    log.warning(msg, extra={"fields": {"kind": kind, **fields}})
    return True
