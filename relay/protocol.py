"""Client frame validation (the protocol schema of docs/protocol.md) and per-connection rate limiting.

:func:`parse_frame` turns one text frame into a :class:`ClientMessage` or raises :class:`ProtocolError` with a
stable code. Nothing about the game is checked here: that is the engine's job (its errors pass through).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

MAX_ID = 64
MAX_NAME = 100
MAX_TOKEN = 128
MAX_CHAT_FRAME_TEXT = 2000  # beyond: bad_message; the chat's own limit (200 characters) is chat_too_long
LEVELS: Final = ("beginner", "easy", "medium", "strong", "expert")
_SQUARE_RE: Final = re.compile(r"[A-Za-z][0-9]{1,2}")
_RACK_RE: Final = re.compile(r"[A-Za-z?]{1,7}")
# Hostile shapes are refused before anything walks the value: nesting, number of values, string sizes.
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


@dataclass(frozen=True)
class TileIn:
    sq: str
    letter: str
    blank: bool


@dataclass(frozen=True)
class ClientMessage:
    type: str
    id: str | None = None
    name: str | None = None
    token: str | None = None
    level: str | None = None
    tiles: tuple[TileIn, ...] = ()
    swap: str = ""
    since: int | None = None
    text: str = ""  # chat
    seat: int | None = None
    # An action sent again with the same id after a reconnect (docs/protocol.md, "Resending an action").
    resent: bool = False


# type -> (required keys, optional keys); "type" and "id" are always allowed.
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
}
CLIENT_TYPES: Final = frozenset(_SCHEMA)
# Actions may say they are a resend (relay/resend.py): an optional boolean "resent".
_RESENDABLE: Final = frozenset({"start", "leave", "add_bot", "remove_bot", "place", "swap", "pass"})


def _bad(field_name: str, why: str, msg_id: str | None) -> ProtocolError:
    return ProtocolError("bad_message", f"{field_name}: {why}", msg_id=msg_id, field=field_name)


def _str(obj: dict[str, Any], key: str, limit: int, msg_id: str | None) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise _bad(key, "must be a string", msg_id)
    if len(value) > limit:
        raise _bad(key, f"longer than {limit} characters", msg_id)
    return value


def parse_frame(text: str) -> ClientMessage:
    """Validate one client text frame. Raises ProtocolError: bad_json, bad_message, unknown_type (and the
    codes of the per-type checks below). Never recurses: nesting is bounded before the JSON is decoded."""
    message = _parse_frame(text)
    if message.type in _RESENDABLE and '"resent"' in text:
        resent = json.loads(text).get("resent", False)  # decoded once already: cannot fail now
        if not isinstance(resent, bool):
            raise _bad("resent", "must be true or false", message.id)
        return dataclasses.replace(message, resent=resent)
    return message


def _parse_frame(text: str) -> ClientMessage:
    _check_nesting(text)
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:
        # ValueError: bad JSON, or an integer past Python's digit limit.
        raise ProtocolError("bad_json", "frame is not valid JSON") from exc
    if not isinstance(obj, dict):
        raise ProtocolError("bad_json", "frame must be a JSON object")
    if _count_values(obj) > MAX_VALUES:
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
    required, optional = _SCHEMA[kind]
    keys = set(obj) - {"type", "id", *(("resent",) if kind in _RESENDABLE else ())}
    for key in sorted(keys - required - optional):
        raise _bad(key[:40], f"unexpected key in a {kind!r} frame", msg_id)
    for key in sorted(required - keys):
        raise _bad(key, f"required in a {kind!r} frame", msg_id)

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
            return ClientMessage(kind, msg_id, name=_str(obj, "name", MAX_NAME, msg_id))
        return ClientMessage(kind, msg_id, token=_str(obj, "token", MAX_TOKEN, msg_id))
    if kind == "add_bot":
        level = _str(obj, "level", 16, msg_id)
        if level not in LEVELS:
            raise ProtocolError("bad_level", f"level must be one of {', '.join(LEVELS)}", msg_id=msg_id)
        return ClientMessage(kind, msg_id, level=level)
    if kind == "remove_bot":
        seat = obj["seat"]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
            raise _bad("seat", "must be a seat number 0-3", msg_id)
        return ClientMessage(kind, msg_id, seat=seat)
    if kind == "place":
        tiles = obj["tiles"]
        if not isinstance(tiles, list) or not 1 <= len(tiles) <= 7:
            # An empty list is a rule matter (empty_play) the engine names; keep shape errors for non-lists.
            if isinstance(tiles, list) and not tiles:
                return ClientMessage(kind, msg_id, tiles=())
            raise _bad("tiles", "must be a list of 1-7 tiles", msg_id)
        return ClientMessage(kind, msg_id, tiles=tuple(_tile(t, i, msg_id) for i, t in enumerate(tiles)))
    if kind == "swap":
        rack = _str(obj, "tiles", 7, msg_id)
        if not _RACK_RE.fullmatch(rack):
            raise _bad("tiles", "must be 1-7 letters or '?'", msg_id)
        return ClientMessage(kind, msg_id, swap=rack.upper())
    if kind == "resync":
        since = obj.get("since")
        bad_type = not isinstance(since, int) or isinstance(since, bool)
        if since is not None and (bad_type or not 0 <= since < 2**53):
            raise _bad("since", "must be a non-negative integer", msg_id)
        return ClientMessage(kind, msg_id, since=since)
    if kind == "chat":
        # Only the shape here; length, content and who may speak are relay/chat.py's (chat_* codes).
        text = _str(obj, "text", MAX_CHAT_FRAME_TEXT, msg_id)
        name = _str(obj, "name", MAX_NAME, msg_id) if obj.get("name") is not None else None
        return ClientMessage(kind, msg_id, text=text, name=name)
    return ClientMessage(kind, msg_id)


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
    extra = set(obj) - {"sq", "letter", "blank"}
    if extra:
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


class RateLimiter:
    """Token bucket per connection; ``strikes`` counts refused frames so a flooder can be dropped."""

    __slots__ = ("_last", "_tokens", "burst", "rate", "strikes")

    def __init__(self, burst: float, rate: float, now: float) -> None:
        self.burst = burst
        self.rate = rate
        self._tokens = burst
        self._last = now
        self.strikes = 0

    def wait(self, now: float) -> float:
        """Seconds from ``now`` until a frame would be allowed (0: now)."""
        tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate

    def allow(self, now: float) -> bool:
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            self.strikes = 0
            return True
        self.strikes += 1
        return False
