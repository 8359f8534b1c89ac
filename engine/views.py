"""What each seat may see: the one place that decides it.

A seat sees its own rack and reserve, every rack's size, the bag's size, the board, the scores and a
redacted journal.  It never sees another seat's rack letters (until the game ends), the bag's contents or
order, the tiles of another seat's swap (only their count), nor another seat's rejected tiles and words.
A spectator (``seat=None``) sees only what every seat sees.
"""

from __future__ import annotations

from typing import Any

from engine.errors import InputError
from engine.events import (
    SCHEMA_VERSION,
    Event,
    GameEnded,
    GameStarted,
    Placed,
    Rejected,
    Swapped,
    event_to_dict,
    event_type,
)
from engine.game import GameState, reserve_at

__all__ = ["redact_event", "view"]


def _observer(seat: object) -> int | None:
    # Only a real int names a seat: True would otherwise read as seat 1 and "0" would not compare.
    return seat if isinstance(seat, int) and not isinstance(seat, bool) else None


def redact_event(event: Event, seat: int | None) -> dict[str, Any]:
    """The JSON-ready part of ``event`` that ``seat`` (``None``: a spectator) may see.

    Never a bag's contents or order.  ``GameStarted``/``Placed``/``Swapped``: the new ``"rack"`` (and the
    ``"drawn"``/``"returned"`` tiles) only for their own seat, sizes and counts for everyone.  ``Rejected``:
    tiles and unknown words only for its seat.  ``GameEnded``: everything.  A ``seat`` that is not an
    integer is a spectator.  Raises :class:`~engine.errors.BadEvent` for anything that is not an event.
    """
    base: dict[str, Any] = {"schema": SCHEMA_VERSION, "type": event_type(event), "at": event.at}
    seat = _observer(seat)
    if isinstance(event, GameStarted):
        base["rack_sizes"] = [len(r) for r in event.racks]
        base["bag_size"] = len(event.bag)
        if seat is not None and 0 <= seat < len(event.racks):
            base["rack"] = event.racks[seat]
        return base
    if isinstance(event, Placed):
        mine = event.seat == seat
        base.update(
            seat=event.seat,
            tiles=[t.to_dict() for t in event.tiles],
            words=list(event.words),
            score=event.score,
            drawn_count=len(event.drawn),
            rack_size=len(event.rack),
            bag_size=len(event.bag),
        )
        if mine:
            base.update(drawn=event.drawn, rack=event.rack)
        return base
    if isinstance(event, Swapped):
        base.update(
            seat=event.seat, count=len(event.returned), rack_size=len(event.rack), bag_size=len(event.bag)
        )
        if event.seat == seat:
            base.update(returned=event.returned, drawn=event.drawn, rack=event.rack)
        return base
    if isinstance(event, Rejected):
        base["seat"] = event.seat
        if event.seat == seat:
            base.update(tiles=[t.to_dict() for t in event.tiles], unknown=list(event.unknown))
        return base
    if isinstance(event, GameEnded):
        return event_to_dict(event)
    # TableCreated, SeatJoined, SeatLeft, Passed, TimedOut hold nothing private.
    return event_to_dict(event)


def view(state: GameState, seat: int | None, *, now_ms: int) -> dict[str, Any]:
    """A seat's JSON-ready snapshot of the table (``seat=None``: a spectator).  See docs/architecture.md.

    A seat number that does not exist (or is not an integer) is treated as a spectator.  Raises
    :class:`~engine.errors.InputError` for a ``state`` that is not a :class:`~engine.game.GameState` or a
    ``now_ms`` that is not an integer.
    """
    if not isinstance(state, GameState):
        raise InputError(f"{state!r:.40} is not a GameState", state=repr(state)[:40])
    if not isinstance(now_ms, int) or isinstance(now_ms, bool):
        raise InputError(f"time {now_ms!r:.20} is not integer milliseconds", now_ms=repr(now_ms)[:20])
    ended = state.status == "ended"
    seat = _observer(seat)
    you = seat if seat is not None and 0 <= seat < len(state.seats) else None
    seats = [
        {
            "seat": i,
            "name": s.name,
            "bot": s.bot,
            "score": s.score,
            "rack_size": len(s.rack),
            "rack": s.rack if ended else None,
            # A signed-in player's seat (its name is the account's nickname, /u/{name}); absent for guests.
            **({"account": True} if s.account is not None else {}),
        }
        for i, s in enumerate(state.seats)
    ]
    reserve: dict[str, Any] | None = None
    if you is not None:
        tries, next_ms = reserve_at(state, you, now_ms)
        reserve = {"tries": tries, "next_refill_ms": next_ms}
    return {
        "schema": SCHEMA_VERSION,
        "version": state.version,
        "variant": state.variant,
        "status": state.status,
        "turn_seconds": state.turn_seconds,
        **({"rated": True} if state.rated else {}),
        "you": you,
        "rack": state.seats[you].rack if you is not None else None,
        "seats": seats,
        "board": state.board.to_json(),
        "bag_size": len(state.bag),
        "turn": state.turn,
        "turn_started_ms": state.turn_started_ms,
        "scoreless_turns": state.scoreless_turns,
        "reserve": reserve,
        "journal": [redact_event(e, you) for e in state.events],
        "result": event_to_dict(state.result) if state.result is not None else None,
    }
