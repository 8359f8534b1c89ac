"""relay/logs.py's TickStreamHandler: the lines logged during one turn of the event loop go out in one write
at the start of the next turn, in order; a warning goes out at once after what was held; outside a loop
(start-up, shutdown) and on ``flush`` nothing is held."""

from __future__ import annotations

import asyncio
import io
import logging

from relay.logs import TextFormatter, TickStreamHandler


class CountingStream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, s: str) -> int:
        self.writes += 1
        return super().write(s)


def _logger(stream: CountingStream) -> tuple[logging.Logger, TickStreamHandler]:
    handler = TickStreamHandler(stream)
    handler.setFormatter(TextFormatter())
    log = logging.getLogger("lexio.test.ticklines")
    log.handlers[:] = [handler]
    log.propagate = False
    log.setLevel(logging.INFO)
    return log, handler


async def test_the_lines_of_one_turn_of_the_loop_are_written_together_after_it_in_order() -> None:
    stream = CountingStream()
    log, _ = _logger(stream)
    for i in range(5):
        log.info("action", extra={"fields": {"seq": i}})
    assert stream.getvalue() == ""  # held until the turn is over
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    lines = stream.getvalue().splitlines()
    assert [line.rsplit("seq=", 1)[1] for line in lines] == ["0", "1", "2", "3", "4"]
    assert stream.writes == 1


async def test_a_warning_is_written_at_once_after_the_lines_held_before_it() -> None:
    stream = CountingStream()
    log, _ = _logger(stream)
    log.info("action", extra={"fields": {"seq": 1}})
    log.warning("bad frame")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].endswith("seq=1") and "WARNING" in lines[1]


def test_outside_an_event_loop_every_line_is_written_at_once() -> None:
    stream = CountingStream()
    log, _ = _logger(stream)
    log.info("starting")
    assert stream.getvalue().endswith("starting\n")


async def test_flush_writes_what_is_held() -> None:
    stream = CountingStream()
    log, handler = _logger(stream)
    log.info("action")
    handler.flush()  # what logging.shutdown does at exit
    assert stream.getvalue().endswith("action\n")
    await asyncio.sleep(0)
    assert stream.getvalue().count("action") == 1
