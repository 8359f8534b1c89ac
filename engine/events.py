"""Events: every change to a table, as frozen values, and their JSON-ready form.

Events carry everything needed to replay a game without a random source: :class:`GameStarted` holds the
shuffled bag and the dealt racks, :class:`Placed` and :class:`Swapped` the drawn tiles, the seat's rack after
the event and the bag's order after it.  Each event has an ``at`` time in integer milliseconds (keyword-only,
so positional fields read as in docs/architecture.md).

Tile strings (``bag``, ``racks``, ``drawn``, ``returned``, ``rack``) hold letters with ``?`` for a blank.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Final

from engine.errors import BadEvent, LexioError
from engine.moves import Tile, tiles_from_json

__all__ = [
    "EVENT_TYPES",
    "SCHEMA_VERSION",
    "Event",
    "GameEnded",
    "GameStarted",
    "Passed",
    "Placed",
    "Rejected",
    "SeatJoined",
    "SeatLeft",
    "Swapped",
    "TableCreated",
    "TimedOut",
    "event_from_dict",
    "event_to_dict",
    "event_type",
]

SCHEMA_VERSION: Final = 1
"""Version of the dict form of events and views.  Bump it when a field changes meaning or disappears."""


@dataclass(frozen=True, slots=True)
class TableCreated:
    """The table exists: its variant and turn time; ``rated``: only signed-in players may sit (their
    ratings move with the result). Journaled only when set."""

    variant: str
    turn_seconds: int
    at: int = field(kw_only=True)
    rated: bool = field(default=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class SeatJoined:
    """A player (or bot) took seat ``seat``; ``account``: the id of the signed-in player's account (None: a
    guest or a bot). Journaled only when set, so that guests' events keep their form."""

    seat: int
    name: str
    bot: str | None
    at: int = field(kw_only=True)
    account: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """Before the start only; later arrivals move up one seat."""

    seat: int
    at: int = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class GameStarted:
    """``bag``: the bag after dealing, in draw order (draws take from the front); ``racks``: by seat."""

    bag: str
    racks: tuple[str, ...]
    at: int = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class Placed:
    """An accepted placement.  ``words`` are the words formed (main first), ``drawn`` the refill,
    ``bag`` the bag after drawing, ``rack`` the seat's rack after the event."""

    seat: int
    tiles: tuple[Tile, ...]
    words: tuple[str, ...]
    score: int
    drawn: str
    bag: str
    rack: str
    at: int = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class Swapped:
    """``returned`` went back to the bag after ``drawn`` was drawn; ``bag`` is the reshuffled bag."""

    seat: int
    returned: str
    drawn: str
    bag: str
    rack: str
    at: int = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class Passed:
    """The seat on turn passed."""

    seat: int
    at: int = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class TimedOut:
    """The table passed for the seat on turn because its time ran out."""

    seat: int
    at: int = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class Rejected:
    """A placement refused for unknown words; it costs the seat one try of its reserve, not its turn."""

    seat: int
    tiles: tuple[Tile, ...]
    unknown: tuple[str, ...]
    at: int = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class GameEnded:
    """``reason``: ``"out"`` (a player emptied the rack with the bag empty) or ``"scoreless"`` (2 x seats
    turns without a placement).  ``adjustments``, ``racks``, ``scores`` (final) are by seat; ``winners``
    lists every seat with the top score (ties share the win)."""

    reason: str
    adjustments: tuple[int, ...]
    racks: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    at: int = field(kw_only=True)


Event = (
    TableCreated
    | SeatJoined
    | SeatLeft
    | GameStarted
    | Placed
    | Swapped
    | Passed
    | TimedOut
    | Rejected
    | GameEnded
)

EVENT_TYPES: Final[dict[str, type[Event]]] = {
    "table_created": TableCreated,
    "seat_joined": SeatJoined,
    "seat_left": SeatLeft,
    "game_started": GameStarted,
    "placed": Placed,
    "swapped": Swapped,
    "passed": Passed,
    "timed_out": TimedOut,
    "rejected": Rejected,
    "game_ended": GameEnded,
}
_TYPE_NAMES: Final[dict[type[Any], str]] = {cls: name for name, cls in EVENT_TYPES.items()}

# How each field is checked and converted from JSON (fields not listed are plain str or int by annotation).
_INT_TUPLES: Final = frozenset({"adjustments", "scores", "winners"})
_STR_TUPLES: Final = frozenset({"racks", "words", "unknown"})


def event_type(event: Event) -> str:
    """The ``"type"`` string of an event (``"placed"``, ``"game_ended"``...).  Raises
    :class:`~engine.errors.BadEvent` for anything that is not an event."""
    name = _TYPE_NAMES.get(type(event))
    if name is None:
        raise BadEvent(f"{event!r:.60} is not an event", type=type(event).__name__[:40])
    return name


def event_to_dict(event: Event) -> dict[str, Any]:
    """Full JSON-ready form: ``{"schema", "type", <fields>}``, tiles as ``{"sq", "letter", "blank"}``.

    This is the journal's private form (it holds racks and the bag): send seats
    :func:`engine.redact_event` instead.  Raises :class:`~engine.errors.BadEvent` for a non-event.
    """
    out: dict[str, Any] = {"schema": SCHEMA_VERSION, "type": event_type(event)}
    for name, default in _FIELDS[type(event)]:
        value = getattr(event, name)
        if default is not dataclasses.MISSING and value == default:
            continue  # an optional field at its default is left out: older events keep their exact form
        if name == "tiles":
            out[name] = [t.to_dict() for t in value]
        elif isinstance(value, tuple):
            out[name] = list(value)
        else:
            out[name] = value
    return out


# Each event type's fields as (name, default or MISSING), in order: read once rather than by
# dataclasses.fields at every call (the relay journals every event it decides).
_FIELDS: Final[dict[type[Any], tuple[tuple[str, Any], ...]]] = {
    cls: tuple((f.name, f.default) for f in dataclasses.fields(cls)) for cls in EVENT_TYPES.values()
}


def event_from_dict(data: Any) -> Event:
    """Inverse of :func:`event_to_dict`.  Raises :class:`~engine.errors.BadEvent` for anything malformed:
    a schema newer than this engine's, an unknown type, a missing, extra or mistyped field."""
    if not isinstance(data, dict):
        raise BadEvent(f"event {data!r:.60} is not an object")
    schema = data.get("schema")
    if not isinstance(schema, int) or isinstance(schema, bool) or not 1 <= schema <= SCHEMA_VERSION:
        raise BadEvent(
            f"event schema {schema!r} is not supported (this engine reads 1..{SCHEMA_VERSION})",
            schema=str(schema),
        )
    raw_kind = data.get("type")
    cls = EVENT_TYPES.get(raw_kind) if isinstance(raw_kind, str) else None
    if cls is None:
        raise BadEvent(f"unknown event type {raw_kind!r:.40}", type=str(raw_kind)[:40])
    kind: str = str(raw_kind)
    names = {f.name for f in dataclasses.fields(cls)}
    extra = set(data) - names - {"schema", "type"}
    if extra:
        raise BadEvent(f"{kind} event has unknown fields {sorted(extra)}", type=kind)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            if f.default is not dataclasses.MISSING:
                continue  # optional, left out at its default
            raise BadEvent(f"{kind} event lacks field {f.name!r}", type=kind, field=f.name)
        kwargs[f.name] = _convert(kind, f.name, str(f.type), data[f.name])
    return cls(**kwargs)


def _convert(kind: str, name: str, annotation: str, value: Any) -> Any:
    def bad(expected: str) -> BadEvent:
        return BadEvent(f"{kind}.{name} must be {expected}, not {value!r:.40}", type=kind, field=name)

    if name == "tiles":
        try:
            return tiles_from_json(value)
        except LexioError:
            raise bad("a list of tiles") from None
    if name in _INT_TUPLES or name in _STR_TUPLES:
        want: type = int if name in _INT_TUPLES else str
        if not isinstance(value, list) or not all(
            isinstance(x, want) and not isinstance(x, bool) for x in value
        ):
            raise bad(f"a list of {want.__name__}")
        return tuple(value)
    if annotation == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise bad("an integer")
        return value
    if annotation == "bool":
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if annotation == "str | None":
        if value is not None and not isinstance(value, str):
            raise bad("a string or null")
        return value
    if not isinstance(value, str):
        raise bad("a string")
    return value
