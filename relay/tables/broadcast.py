"""Broadcast and redaction: the frames a table sends to each of its connections (docs/protocol.md)."""

from __future__ import annotations

import time
from typing import Any

import engine
from relay import PROTOCOL_VERSION
from relay.logs import event as log_event
from relay.ratings import speed_class
from relay.tables.chat import send_history
from relay.tables.services import TableServices
from relay.tables.table import (
    Conn,
    Table,
    dumps,
)
from wire import server

EVERY_SEAT = -1
""":func:`seats_told_more`: each seat sees something of its own."""


def seats_told_more(event: engine.Event) -> int | None:
    """The seat whose redaction of ``event`` (``engine.redact_event``) tells more than a spectator's:
    :data:`EVERY_SEAT` for a game's start (each seat its rack), the acting seat of a placement, a swap or a
    refused play (its rack, draws, tiles), None when every seat sees what a spectator sees. Every other
    seat's redaction equals a spectator's (the engine's rule; tests/relay/test_relay_broadcast_frames.py)."""
    if isinstance(event, engine.Placed | engine.Swapped | engine.Rejected):
        return event.seat
    if isinstance(event, engine.GameStarted):
        return EVERY_SEAT
    return None


class Broadcaster:
    """What a table tells its connections: events redacted per seat, acks, refusals, snapshots, presence."""

    def __init__(self, services: TableServices) -> None:
        self.s = services

    def refuse(
        self,
        table: Table,
        conn: Conn | None,
        msg_id: str | None,
        code: str,
        message: str,
        params: dict[str, Any],
        now: int,
        t0: float | None,
    ) -> None:
        if code == "reserve_empty" and conn is not None and conn.seat is not None:
            tries, refill = engine.reserve_at(table.state, conn.seat, now)
            params = {**params, "tries": tries, "next_refill_ms": refill}
        if conn is not None:
            self.send_error(conn, msg_id, code, message, params, now)
            self.latency(t0)
        else:
            self.s.metrics.rejections[code] += 1
        log_event("refused", table=table.id, seat=conn.seat if conn else None, code=code)

    def send_error(
        self,
        conn: Conn,
        msg_id: str | None,
        code: str,
        message: str,
        params: dict[str, Any] | None = None,
        now: int | None = None,
    ) -> None:
        """Answer ``conn`` with an error frame (docs/protocol.md) and count the rejection by code."""
        self.s.metrics.rejections[code] += 1
        conn.send(dumps(server.error(msg_id, code, message, params, self.s.now_ms() if now is None else now)))

    def latency(self, t0: float | None) -> None:
        if t0 is not None:
            self.s.metrics.observe_latency(time.perf_counter() - t0)

    def events(
        self,
        table: Table,
        events: list[engine.Event],
        first_seq: int,
        now: int,
        skip: Conn | None,
        conns: list[Conn] | None = None,
    ) -> None:
        """Send each event to every connection (``conns``: the table's, if known; but ``skip``), redacted for
        its seat: the seats a redaction tells more (:func:`seats_told_more`) get a frame of their own, every
        other connection one shared frame (one encoding, one bytes object in every queue)."""
        clock = dumps(self.s.clock(table))
        targets = [c for c in (table.all_conns() if conns is None else conns) if c is not skip]
        for offset, ev in enumerate(events):
            seq = first_seq + offset
            told = seats_told_more(ev)
            shared: str | None = None
            for conn in targets:
                seat = conn.seat
                if seat is not None and (seat == told or told == EVERY_SEAT):
                    conn.send(server.event_text(seq, dumps(engine.redact_event(ev, seat)), clock, now))
                    continue
                if shared is None:
                    shared = server.event_text(seq, dumps(engine.redact_event(ev, None)), clock, now)
                conn.send(shared)

    def answer(
        self,
        table: Table,
        conn: Conn | None,
        msg_id: str | None,
        events: list[engine.Event],
        now: int,
        t0: float | None,
    ) -> None:
        if conn is None:
            return
        last = events[-1]
        seq = int(table.state.version)
        if isinstance(last, engine.Rejected):
            tries, refill = engine.reserve_at(table.state, last.seat, now)
            self.s.metrics.rejections["unknown_word"] += 1
            reserve = {"tries": tries, "next_refill_ms": refill}
            conn.send(dumps(server.rejected(msg_id, seq, last.unknown, reserve, now)))
        else:
            conn.send(dumps(server.ack(msg_id, seq, now)))
        self.latency(t0)

    # -- connections ---------------------------------------------------------------------------------------
    def snapshot(self, table: Table, conn: Conn) -> None:
        now = self.s.now_ms()
        view = engine.view(self.s.full_state(table), conn.seat, now_ms=now)
        frame = server.snapshot(
            table.state.version,
            view,
            self.s.clock(table),
            table.presence(),
            len(table.watchers),
            now,
            table.rematch,
        )
        conn.send(dumps(frame))

    def welcome(self, table: Table, conn: Conn, msg_id: str | None, token: str | None) -> None:
        conn.send(
            dumps(server.welcome(PROTOCOL_VERSION, msg_id, table.id, conn.seat, token, self.s.now_ms()))
        )
        self.snapshot(table, conn)
        if table.ratings:
            conn.send(self._ratings_frame(table))
        send_history(self.s, table, conn)

    def ratings(self, table: Table) -> None:
        """Every connection learns the players' ratings (a seat came or left, a rated game ended)."""
        frame = self._ratings_frame(table)
        for c in list(table.all_conns()):
            c.send(frame)

    def _ratings_frame(self, table: Table) -> str:
        state = table.state
        speed = speed_class(state.turn_seconds).value
        seats = [r.to_json() for r in table.ratings]
        return dumps(server.ratings(speed, bool(state.rated), seats, self.s.now_ms()))

    def watchers_changed(self, table: Table) -> None:
        """Tell every connection how many watch, when that number changed since it was last told."""
        count = len(table.watchers)
        if count == table.watchers_told:
            return
        table.watchers_told = count
        frame = dumps(server.watchers(count, self.s.now_ms()))
        for c in list(table.all_conns()):
            c.send(frame)

    def presence_changed(self, table: Table, clock_changed: bool) -> None:
        now = self.s.now_ms()
        frame = dumps(server.presence(table.presence(), now))
        clock = dumps(server.clock(self.s.clock(table), now)) if clock_changed else None
        for c in list(table.all_conns()):
            c.send(frame)
            if clock is not None:
                c.send(clock)
