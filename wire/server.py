"""Server frames (docs/protocol.md), one constructor each: the only place their shapes are written.

Each returns the JSON-ready dict the relay encodes (keys in the order protocol version 1 has always sent
them). ``now`` is the relay's clock in milliseconds, on every frame, for the client's clock sync.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Json = dict[str, Any]


def welcome(
    protocol: int, msg_id: str | None, table: str, seat: int | None, token: str | None, now: int
) -> Json:
    return {
        "type": "welcome",
        "protocol": protocol,
        "id": msg_id,
        "table": table,
        "seat": seat,
        "token": token,
        "now": now,
    }


def snapshot(
    seq: int,
    view: Json,
    clock: Json,
    presence: Sequence[Json],
    watchers: int,
    now: int,
    rematch: Mapping[str, Any] | None = None,
) -> Json:
    frame: Json = {
        "type": "snapshot",
        "seq": seq,
        "view": view,
        "clock": clock,
        "presence": list(presence),
        "watchers": watchers,
        "now": now,
    }
    if rematch is not None:
        frame["rematch"] = dict(rematch)
    return frame


def event(seq: int, redacted: Json, clock: Json, now: int) -> Json:
    return {"type": "event", "seq": seq, "event": redacted, "clock": clock, "now": now}


def event_text(seq: int, redacted: str, clock: str, now: int) -> str:
    """:func:`event` as compact JSON text, from ``redacted`` and ``clock`` already encoded (compact JSON):
    a broadcast encodes its clock once for all its frames. ``seq`` and ``now`` are ints."""
    return f'{{"type":"event","seq":{seq:d},"event":{redacted},"clock":{clock},"now":{now:d}}}'


def ack(msg_id: str | None, seq: int, now: int) -> Json:
    return {"type": "ack", "id": msg_id, "seq": seq, "now": now}


def rejected(msg_id: str | None, seq: int, words: Sequence[str], reserve: Json, now: int) -> Json:
    return {
        "type": "rejected",
        "id": msg_id,
        "seq": seq,
        "words": list(words),
        "reserve": reserve,
        "now": now,
    }


def error(msg_id: str | None, code: str, message: str, params: Mapping[str, Any] | None, now: int) -> Json:
    return {
        "type": "error",
        "id": msg_id,
        "code": code,
        "message": message,
        "params": dict(params or {}),
        "now": now,
    }


def pong(msg_id: str | None, now: int) -> Json:
    return {"type": "pong", "id": msg_id, "now": now}


def watchers(count: int, now: int) -> Json:
    return {"type": "watchers", "count": count, "now": now}


def presence(seats: Sequence[Json], now: int) -> Json:
    return {"type": "presence", "seats": list(seats), "now": now}


def clock(value: Json, now: int) -> Json:
    return {"type": "clock", "clock": value, "now": now}


def chat(message: Json, now: int) -> Json:
    return {"type": "chat", "message": message, "now": now}


def chat_history(messages: Sequence[Json], now: int) -> Json:
    return {"type": "chat_history", "messages": list(messages), "now": now}


def rematch(proposal: Mapping[str, Any], now: int) -> Json:
    """A new table proposed for the same players: ``proposal`` is ``{"table", "link", "by"}``."""
    return {"type": "rematch", **proposal, "now": now}


def ratings(speed: str, rated: bool, seats: Sequence[Json], now: int) -> Json:
    """The registered players' ratings at a table, in its speed class (docs/ratings.md)."""
    return {"type": "ratings", "speed": speed, "rated": rated, "seats": list(seats), "now": now}


def analysis(msg_id: str | None, seat: int, moves: Any, now: int) -> Json:
    return {"type": "analysis", "id": msg_id, "seat": seat, "moves": moves, "now": now}
