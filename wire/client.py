"""Client frames (docs/protocol.md): one frozen type each, a closed union, parsed in one place.

:func:`parse_client_frame` turns one text frame into a :data:`ClientFrame` or raises
:class:`ProtocolError` with a stable code. Only the frame's shape is checked here: the rules are the
engine's (its errors pass through the relay unchanged), who may do what is the relay's. Hostile shapes
(nesting, value counts, lone surrogates) are refused before anything walks the value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import engine

MAX_ID = 64
MAX_NAME = 100
MAX_TOKEN = 128
MAX_REPORT_NOTE = 2000  # beyond: bad_message; the relay's own limit (500 characters) is bad_note
MAX_CHAT_FRAME_TEXT = 2000  # beyond: bad_message; the chat's own limit (200 characters) is chat_too_long
LEVELS: Final = ("beginner", "easy", "medium", "strong", "expert")
# The most tiles one play or swap may name: the largest rack of any variant (the engine checks the rest).
MAX_RACK: Final = max(v.rack_size for v in engine.VARIANTS.values())
MAX_SEATS: Final = engine.MAX_SEATS
_SQUARE_RE: Final = re.compile(r"[A-Za-z][0-9]{1,2}")
_RACK_RE: Final = re.compile(rf"[A-Za-z?]{{1,{MAX_RACK}}}")
MAX_DEPTH: Final = 8
MAX_VALUES: Final = 256
_STRING_RE: Final = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS_RE: Final = re.compile(r"[\[\]{}]")


class ProtocolError(ValueError):
    """A client frame that breaks the protocol. ``code`` is stable; ``params`` names the offending field."""

    def __init__(self, code: str, message: str, *, msg_id: str | None = None, **params: str | int) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.msg_id = msg_id
        self.params: dict[str, str | int] = params


@dataclass(frozen=True, slots=True)
class TileIn:
    """One tile of a ``place`` frame: square name, letter ("" or "?" for a blank not yet named), blank."""

    sq: str
    letter: str
    blank: bool

    def to_json(self) -> dict[str, Any]:
        return {"sq": self.sq, "letter": self.letter, "blank": self.blank}


# -- the frames ------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Join:
    """Take a seat by ``name``, or come back to one by its ``token`` (exactly one of them)."""

    type: ClassVar[str] = "join"
    id: str | None = None
    name: str | None = None
    token: str | None = None

    def to_json(self) -> dict[str, Any]:
        who = {"name": self.name} if self.token is None else {"token": self.token}
        return {**_head(self.type, self.id), **who}


@dataclass(frozen=True, slots=True)
class Watch:
    type: ClassVar[str] = "watch"
    id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return _head(self.type, self.id)


@dataclass(frozen=True, slots=True)
class Start:
    type: ClassVar[str] = "start"
    id: str | None = None
    resent: bool = False

    def to_json(self) -> dict[str, Any]:
        return _action(self.type, self.id, self.resent)


@dataclass(frozen=True, slots=True)
class Leave:
    type: ClassVar[str] = "leave"
    id: str | None = None
    resent: bool = False

    def to_json(self) -> dict[str, Any]:
        return _action(self.type, self.id, self.resent)


@dataclass(frozen=True, slots=True)
class AddBot:
    type: ClassVar[str] = "add_bot"
    id: str | None = None
    level: str = "medium"
    resent: bool = False

    def to_json(self) -> dict[str, Any]:
        return {**_action(self.type, self.id, self.resent), "level": self.level}


@dataclass(frozen=True, slots=True)
class RemoveBot:
    type: ClassVar[str] = "remove_bot"
    id: str | None = None
    seat: int = 0
    resent: bool = False

    def to_json(self) -> dict[str, Any]:
        return {**_action(self.type, self.id, self.resent), "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Place:
    type: ClassVar[str] = "place"
    id: str | None = None
    tiles: tuple[TileIn, ...] = ()
    resent: bool = False

    def to_json(self) -> dict[str, Any]:
        return {**_action(self.type, self.id, self.resent), "tiles": [t.to_json() for t in self.tiles]}


@dataclass(frozen=True, slots=True)
class Swap:
    """Swap the rack letters ``tiles`` (``?`` for a blank), upper case."""

    type: ClassVar[str] = "swap"
    id: str | None = None
    tiles: str = ""
    resent: bool = False

    def to_json(self) -> dict[str, Any]:
        return {**_action(self.type, self.id, self.resent), "tiles": self.tiles}


@dataclass(frozen=True, slots=True)
class Pass:
    type: ClassVar[str] = "pass"
    id: str | None = None
    resent: bool = False

    def to_json(self) -> dict[str, Any]:
        return _action(self.type, self.id, self.resent)


@dataclass(frozen=True, slots=True)
class Resync:
    type: ClassVar[str] = "resync"
    id: str | None = None
    since: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {**_head(self.type, self.id), **({"since": self.since} if self.since is not None else {})}


@dataclass(frozen=True, slots=True)
class Ping:
    type: ClassVar[str] = "ping"
    id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return _head(self.type, self.id)


@dataclass(frozen=True, slots=True)
class Rematch:
    type: ClassVar[str] = "rematch"
    id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return _head(self.type, self.id)


@dataclass(frozen=True, slots=True)
class Chat:
    """A chat line; ``name`` is a watcher's chosen name (seats speak under their seat's)."""

    type: ClassVar[str] = "chat"
    id: str | None = None
    text: str = ""
    name: str | None = None

    def to_json(self) -> dict[str, Any]:
        named = {"name": self.name} if self.name is not None else {}
        return {**_head(self.type, self.id), "text": self.text, **named}


@dataclass(frozen=True, slots=True)
class Report:
    """A signed-in player reports the person at ``seat`` to the host (reason and note: the relay's to
    check; docs/protocol.md, "Moderation")."""

    type: ClassVar[str] = "report"
    id: str | None = None
    seat: int = 0
    reason: str = ""
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**_head(self.type, self.id), "seat": self.seat, "reason": self.reason, "note": self.note}


@dataclass(frozen=True, slots=True)
class Analyse:
    type: ClassVar[str] = "analyse"
    id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return _head(self.type, self.id)


ClientFrame = (
    Join
    | Watch
    | Start
    | Leave
    | AddBot
    | RemoveBot
    | Place
    | Swap
    | Pass
    | Resync
    | Ping
    | Rematch
    | Chat
    | Report
    | Analyse
)
# The frames that change a table (decided once, resendable with "resent": docs/protocol.md).
Action = Start | Leave | AddBot | RemoveBot | Place | Swap | Pass
ACTION_TYPES: Final = frozenset(t.type for t in (Start, Leave, AddBot, RemoveBot, Place, Swap, Pass))


def _head(kind: str, msg_id: str | None) -> dict[str, Any]:
    # A frame without an id (a resync, or one the caller numbers later) leaves the key out.
    return {"type": kind} if msg_id is None else {"type": kind, "id": msg_id}


def _action(kind: str, msg_id: str | None, resent: bool) -> dict[str, Any]:
    return {**_head(kind, msg_id), **({"resent": True} if resent else {})}


# -- parsing ---------------------------------------------------------------------------------------------
# type -> (required keys, optional keys); "type" and "id" are always allowed, "resent" on actions.
_SCHEMA: Final[dict[str, tuple[frozenset[str], frozenset[str]]]] = {
    "join": (frozenset(), frozenset({"name", "token"})),
    "watch": (frozenset(), frozenset()),
    "start": (frozenset(), frozenset()),
    "leave": (frozenset(), frozenset()),
    "add_bot": (frozenset({"level"}), frozenset()),
    "remove_bot": (frozenset({"seat"}), frozenset()),
    "place": (frozenset({"tiles"}), frozenset()),
    "swap": (frozenset({"tiles"}), frozenset()),
    "pass": (frozenset(), frozenset()),
    "resync": (frozenset(), frozenset({"since"})),
    "ping": (frozenset(), frozenset()),
    "rematch": (frozenset(), frozenset()),
    "chat": (frozenset({"text"}), frozenset({"name"})),
    "analyse": (frozenset(), frozenset()),
    "report": (frozenset({"seat", "reason"}), frozenset({"note"})),
}
CLIENT_TYPES: Final = frozenset(_SCHEMA)


def _bad(field_name: str, why: str, msg_id: str | None) -> ProtocolError:
    return ProtocolError("bad_message", f"{field_name}: {why}", msg_id=msg_id, field=field_name)


def _str(obj: dict[str, Any], key: str, limit: int, msg_id: str | None) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise _bad(key, "must be a string", msg_id)
    if len(value) > limit:
        raise _bad(key, f"longer than {limit} characters", msg_id)
    return value


def _seat(obj: dict[str, Any], msg_id: str | None) -> int:
    seat = obj["seat"]
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < MAX_SEATS:
        raise _bad("seat", f"must be a seat number 0-{MAX_SEATS - 1}", msg_id)
    return seat


def parse_client_frame(text: str) -> ClientFrame:
    """Validate one client text frame. Raises ProtocolError: bad_json, bad_message, unknown_type, bad_name,
    bad_level. Never recurses: nesting is bounded before the JSON is decoded."""
    _check_nesting(text)
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:
        # ValueError: bad JSON, or an integer past Python's digit limit.
        raise ProtocolError("bad_json", "frame is not valid JSON") from exc
    if not isinstance(obj, dict):
        raise ProtocolError("bad_json", "frame must be a JSON object")
    # Every value and key takes at least one character of the text: a short frame need not be counted.
    if len(text) > MAX_VALUES and _count_values(obj) > MAX_VALUES:
        raise ProtocolError("bad_json", f"frame holds more than {MAX_VALUES} values")
    if "\\u" in text and _has_lone_surrogate(obj):
        # JSON may escape half of a UTF-16 pair (backslash-ud800): not text, and any echo of it (an id, a name
        # an error) could not be encoded into the reply frame.
        raise ProtocolError("bad_json", "frame holds an unpaired UTF-16 surrogate escape")
    raw_id = obj.get("id")
    msg_id: str | None = None
    if raw_id is not None:
        if not isinstance(raw_id, str) or len(raw_id) > MAX_ID:
            raise _bad("id", f"must be a string of at most {MAX_ID} characters", None)
        msg_id = raw_id
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "missing string 'type'", msg_id=msg_id, field="type")
    if kind not in _SCHEMA:
        raise ProtocolError(
            "unknown_type", f"unknown frame type {kind[:40]!r}", msg_id=msg_id, type=kind[:40]
        )
    required, allowed = _KEYS[kind]
    if not (allowed.issuperset(obj) and required.issubset(obj)):
        optional = _SCHEMA[kind][1]
        keys = set(obj) - {"type", "id", *(("resent",) if kind in ACTION_TYPES else ())}
        for key in sorted(keys - required - optional):
            raise _bad(key[:40], f"unexpected key in a {kind!r} frame", msg_id)
        for key in sorted(required - keys):
            raise _bad(key, f"required in a {kind!r} frame", msg_id)
    frame = _typed(kind, obj, msg_id)
    if kind in ACTION_TYPES and "resent" in obj:
        resent = obj["resent"]
        if not isinstance(resent, bool):
            raise _bad("resent", "must be true or false", msg_id)
        if resent:
            return _with_resent(frame)
    return frame


# type -> (required keys, every key allowed): a frame with its keys right is checked in two set operations.
_KEYS: Final[dict[str, tuple[frozenset[str], frozenset[str]]]] = {
    kind: (required, required | optional | {"type", "id"} | ({"resent"} if kind in ACTION_TYPES else set()))
    for kind, (required, optional) in _SCHEMA.items()
}
_TILE_KEYS: Final = frozenset({"sq", "letter", "blank"})


def _with_resent(frame: ClientFrame) -> ClientFrame:
    match frame:
        case Start(id=i):
            return Start(i, True)
        case Leave(id=i):
            return Leave(i, True)
        case AddBot(id=i, level=level):
            return AddBot(i, level, True)
        case RemoveBot(id=i, seat=seat):
            return RemoveBot(i, seat, True)
        case Place(id=i, tiles=tiles):
            return Place(i, tiles, True)
        case Swap(id=i, tiles=rack):
            return Swap(i, rack, True)
        case Pass(id=i):
            return Pass(i, True)
    return frame


def _typed(kind: str, obj: dict[str, Any], msg_id: str | None) -> ClientFrame:
    """The frame of ``kind`` from its checked keys. Raises ProtocolError for a bad value."""
    if kind == "join":
        has_name, has_token = "name" in obj, "token" in obj
        if has_name == has_token:
            raise _bad("name", "a join needs exactly one of 'name' or 'token'", msg_id)
        if has_name:
            # Length and content are the engine's rule (bad_name); this only bounds the frame.
            name = obj["name"]
            if isinstance(name, str) and len(name) > MAX_NAME:
                # Same code as the engine's own length rule, so the client shows one message for both.
                raise ProtocolError(
                    "bad_name", f"name is longer than {MAX_NAME} characters", msg_id=msg_id, field="name"
                )
            return Join(msg_id, name=_str(obj, "name", MAX_NAME, msg_id))
        return Join(msg_id, token=_str(obj, "token", MAX_TOKEN, msg_id))
    if kind == "add_bot":
        level = _str(obj, "level", 16, msg_id)
        if level not in LEVELS:
            raise ProtocolError("bad_level", f"level must be one of {', '.join(LEVELS)}", msg_id=msg_id)
        return AddBot(msg_id, level)
    if kind == "remove_bot":
        return RemoveBot(msg_id, _seat(obj, msg_id))
    if kind == "report":
        note = _str(obj, "note", MAX_REPORT_NOTE, msg_id) if obj.get("note") is not None else ""
        return Report(msg_id, _seat(obj, msg_id), _str(obj, "reason", 16, msg_id), note)
    if kind == "place":
        tiles = obj["tiles"]
        if not isinstance(tiles, list) or not 1 <= len(tiles) <= MAX_RACK:
            # An empty list is a rule matter (empty_play) the engine names; keep shape errors for non-lists.
            if isinstance(tiles, list) and not tiles:
                return Place(msg_id, ())
            raise _bad("tiles", f"must be a list of 1-{MAX_RACK} tiles", msg_id)
        return Place(msg_id, tuple(_tile(t, i, msg_id) for i, t in enumerate(tiles)))
    if kind == "swap":
        rack = _str(obj, "tiles", MAX_RACK, msg_id)
        if not _RACK_RE.fullmatch(rack):
            raise _bad("tiles", f"must be 1-{MAX_RACK} letters or '?'", msg_id)
        return Swap(msg_id, rack.upper())
    if kind == "resync":
        since = obj.get("since")
        bad_type = not isinstance(since, int) or isinstance(since, bool)
        if since is not None and (bad_type or not 0 <= since < 2**53):
            raise _bad("since", "must be a non-negative integer", msg_id)
        return Resync(msg_id, since)
    if kind == "chat":
        # Only the shape here; length, content and who may speak are the relay's (chat_* codes).
        text = _str(obj, "text", MAX_CHAT_FRAME_TEXT, msg_id)
        name = _str(obj, "name", MAX_NAME, msg_id) if obj.get("name") is not None else None
        return Chat(msg_id, text, name)
    plain: dict[str, type[Watch | Start | Leave | Pass | Ping | Rematch | Analyse]] = {
        "watch": Watch,
        "start": Start,
        "leave": Leave,
        "pass": Pass,
        "ping": Ping,
        "rematch": Rematch,
        "analyse": Analyse,
    }
    return plain[kind](msg_id)


def _check_nesting(text: str) -> None:
    """Refuse a frame nested deeper than :data:`MAX_DEPTH` (bad_json), without decoding it: brackets
    outside strings are counted in one pass. A frame with few brackets needs no pass at all."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth = 0
    for match in _BRACKETS_RE.finditer(_STRING_RE.sub('""', text)):
        if match.group() in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise ProtocolError("bad_json", f"frame is nested deeper than {MAX_DEPTH} levels")
        else:
            depth -= 1


def _walk(obj: object) -> Iterator[object]:
    """Every value and key of a decoded frame, iteratively (no recursion, whatever the shape)."""
    stack = [obj]
    while stack:
        item = stack.pop()
        yield item
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _count_values(obj: object) -> int:
    count = 0
    for _ in _walk(obj):
        count += 1
        if count > MAX_VALUES:
            break
    return count


def _has_lone_surrogate(obj: object) -> bool:
    return any(
        isinstance(item, str) and any("\ud800" <= ch <= "\udfff" for ch in item) for item in _walk(obj)
    )


def _tile(obj: object, index: int, msg_id: str | None) -> TileIn:
    where = f"tiles[{index}]"
    if not isinstance(obj, dict):
        raise _bad(where, "must be an object {sq, letter, blank}", msg_id)
    if not _TILE_KEYS.issuperset(obj):
        extra = set(obj) - _TILE_KEYS
        raise _bad(f"{where}.{sorted(extra)[0][:20]}", "unexpected key", msg_id)
    sq, letter, blank = obj.get("sq"), obj.get("letter", ""), obj.get("blank", False)
    if not isinstance(sq, str) or not _SQUARE_RE.fullmatch(sq):
        raise _bad(f"{where}.sq", "must be a square name like 'G7'", msg_id)
    if not isinstance(blank, bool):
        raise _bad(f"{where}.blank", "must be true or false", msg_id)
    if letter is None:
        letter = ""
    if (
        not isinstance(letter, str)
        or len(letter) > 1
        or (letter and not (letter.isascii() and (letter.isalpha() or letter == "?")))
    ):
        raise _bad(f"{where}.letter", "must be one letter A-Z", msg_id)
    return TileIn(sq.upper(), letter, blank)
