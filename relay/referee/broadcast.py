"""Broadcast and redaction: the frames a table sends to each of its connections (docs/protocol.md)."""

from __future__ import annotations

import time
from typing import Any

import engine
from relay import PROTOCOL_VERSION
from relay.logs import event as log_event
from relay.referee.base import RefereeBase
from relay.referee.table import (
    Conn,
    Table,
    dumps,
)


class Broadcasts(RefereeBase):
    """What a table tells its connections: events redacted per seat, acks, refusals, snapshots, presence."""

    def _refuse(
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
            self._latency(t0)
        else:
            self.metrics.rejections[code] += 1
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
        self.metrics.rejections[code] += 1
        frame = {
            "type": "error",
            "id": msg_id,
            "code": code,
            "message": message,
            "params": params or {},
            "now": self.now_ms() if now is None else now,
        }
        conn.send(dumps(frame))

    def _latency(self, t0: float | None) -> None:
        if t0 is not None:
            self.metrics.observe_latency(time.perf_counter() - t0)

    def _broadcast(
        self, table: Table, events: list[Any], first_seq: int, now: int, skip: Conn | None
    ) -> None:
        clock = self.clock(table)
        for offset, ev in enumerate(events):
            seq = first_seq + offset
            spectator: str | None = None
            # Seats whose redactions are the same (all but the actor's, mostly) share one encoded frame.
            texts: list[tuple[dict[str, Any], str]] = []
            for conn in list(table.all_conns()):
                if conn is skip:
                    continue
                if conn.seat is None:
                    if spectator is None:
                        spectator = dumps(
                            {
                                "type": "event",
                                "seq": seq,
                                "event": engine.redact_event(ev, None),
                                "clock": clock,
                                "now": now,
                            }
                        )
                    conn.send(spectator)
                else:
                    seen = engine.redact_event(ev, conn.seat)
                    text = next((t for r, t in texts if r == seen), None)
                    if text is None:
                        text = dumps({"type": "event", "seq": seq, "event": seen, "clock": clock, "now": now})
                        texts.append((seen, text))
                    conn.send(text)

    def _answer(
        self,
        table: Table,
        conn: Conn | None,
        msg_id: str | None,
        events: list[Any],
        now: int,
        t0: float | None,
    ) -> None:
        if conn is None:
            return
        last = events[-1]
        seq = int(table.state.version)
        if type(last).__name__ == "Rejected":
            tries, refill = engine.reserve_at(table.state, last.seat, now)
            self.metrics.rejections["unknown_word"] += 1
            conn.send(
                dumps(
                    {
                        "type": "rejected",
                        "id": msg_id,
                        "seq": seq,
                        "words": list(last.unknown),
                        "reserve": {"tries": tries, "next_refill_ms": refill},
                        "now": now,
                    }
                )
            )
        else:
            conn.send(dumps({"type": "ack", "id": msg_id, "seq": seq, "now": now}))
        self._latency(t0)

    # -- connections ---------------------------------------------------------------------------------------
    def snapshot(self, table: Table, conn: Conn) -> None:
        now = self.now_ms()
        conn.send(
            dumps(
                {
                    "type": "snapshot",
                    "seq": int(table.state.version),
                    "view": engine.view(self.full_state(table), conn.seat, now_ms=now),
                    "clock": self.clock(table),
                    "presence": table.presence(),
                    "watchers": len(table.watchers),
                    "now": now,
                    **({"rematch": table.rematch} if table.rematch is not None else {}),
                }
            )
        )

    def welcome(self, table: Table, conn: Conn, msg_id: str | None, token: str | None) -> None:
        conn.send(
            dumps(
                {
                    "type": "welcome",
                    "protocol": PROTOCOL_VERSION,
                    "id": msg_id,
                    "table": table.id,
                    "seat": conn.seat,
                    "token": token,
                    "now": self.now_ms(),
                }
            )
        )
        self.snapshot(table, conn)
        from relay.chat import send_history  # here: relay.chat builds on this module

        send_history(self, table, conn)

    def watchers_changed(self, table: Table) -> None:
        """Tell every connection how many watch, when that number changed since it was last told."""
        count = len(table.watchers)
        if count == table.watchers_told:
            return
        table.watchers_told = count
        frame = dumps({"type": "watchers", "count": count, "now": self.now_ms()})
        for c in list(table.all_conns()):
            c.send(frame)

    def presence_changed(self, table: Table, clock_changed: bool) -> None:
        now = self.now_ms()
        frame = dumps({"type": "presence", "seats": table.presence(), "now": now})
        clock = dumps({"type": "clock", "clock": self.clock(table), "now": now}) if clock_changed else None
        for c in list(table.all_conns()):
            c.send(frame)
            if clock is not None:
                c.send(clock)
