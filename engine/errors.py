"""The one exception tree for rule violations.

Every error is a :class:`LexioError` (itself a :class:`ValueError`) with a stable snake_case ``code`` (the UI
picks its translated message from it), an English ``message`` that names the offending input, and ``params``
holding the values a translated message needs.  Errors are grouped by what they are about:

- :class:`ShapeError` -- the placement itself is malformed (public knowledge, costs nothing);
- :class:`RackError` -- the tiles named are not the player's to play or swap;
- :class:`TurnError` -- the command does not fit the game's current state;
- :class:`InputError` -- input that cannot be understood at all (notation, names, settings, JSON).
"""

from __future__ import annotations

from typing import ClassVar

Param = str | int

__all__ = [
    "ERRORS",
    "AlreadyStarted",
    "BadEvent",
    "BadLetter",
    "BadName",
    "BadNotation",
    "BadSeat",
    "BadSetting",
    "BadSwap",
    "BlankWithoutLetter",
    "DuplicateSquare",
    "EmptyPlay",
    "GameOver",
    "Gap",
    "InputError",
    "LexioError",
    "MissingSource",
    "NoWord",
    "NotConnected",
    "NotEnoughPlayers",
    "NotFirstSeat",
    "NotInLine",
    "NotOnRack",
    "NotStarted",
    "NotYourTurn",
    "Occupied",
    "OffBoard",
    "Param",
    "RackError",
    "ReserveEmpty",
    "ShapeError",
    "SwapTooLarge",
    "TableExists",
    "TableFull",
    "TooManyTiles",
    "TurnError",
    "UnknownVariant",
    "Wall",
    "error_from_dict",
]


class LexioError(ValueError):
    """Root of every rule violation. ``code`` is stable; ``message`` is English and names the input."""

    code: ClassVar[str] = "lexio_error"

    def __init__(self, message: str, **params: Param) -> None:
        super().__init__(message)
        self.message = message
        self.params: dict[str, Param] = params

    def to_dict(self) -> dict[str, object]:
        """JSON-ready ``{"code", "message", "params"}``."""
        return {"code": self.code, "message": self.message, "params": dict(self.params)}

    def __reduce__(self) -> tuple[object, ...]:
        # Keep params through pickling (ValueError's default drops keyword arguments).
        return (_rebuild, (type(self), self.message, self.params))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


def _rebuild(cls: type[LexioError], message: str, params: dict[str, Param]) -> LexioError:
    return cls(message, **params)


class ShapeError(LexioError):
    """The placement breaks a rule of shape: where tiles go, not which words they make."""

    code: ClassVar[str] = "bad_shape"


class RackError(LexioError):
    """The tiles named are not on the player's rack, or cannot be swapped."""

    code: ClassVar[str] = "bad_rack"


class TurnError(LexioError):
    """The command does not fit the table's state (turn, phase, seats, reserve)."""

    code: ClassVar[str] = "bad_turn"


class InputError(LexioError):
    """Input that cannot be understood: notation, names, settings, serialised events."""

    code: ClassVar[str] = "bad_input"


# -- shape ------------------------------------------------------------------------------------------------
class OffBoard(ShapeError):
    code: ClassVar[str] = "off_board"


class Wall(ShapeError):
    code: ClassVar[str] = "wall"


class Occupied(ShapeError):
    code: ClassVar[str] = "occupied"


class DuplicateSquare(ShapeError):
    code: ClassVar[str] = "duplicate_square"


class NotInLine(ShapeError):
    code: ClassVar[str] = "not_in_line"


class Gap(ShapeError):
    code: ClassVar[str] = "gap"


class MissingSource(ShapeError):
    code: ClassVar[str] = "missing_source"


class NotConnected(ShapeError):
    code: ClassVar[str] = "not_connected"


class NoWord(ShapeError):
    code: ClassVar[str] = "no_word"


class BlankWithoutLetter(ShapeError):
    code: ClassVar[str] = "blank_without_letter"


class BadLetter(ShapeError):
    code: ClassVar[str] = "bad_letter"


class TooManyTiles(ShapeError):
    code: ClassVar[str] = "too_many_tiles"


class EmptyPlay(ShapeError):
    code: ClassVar[str] = "empty_play"


# -- rack -------------------------------------------------------------------------------------------------
class NotOnRack(RackError):
    code: ClassVar[str] = "not_on_rack"


class SwapTooLarge(RackError):
    code: ClassVar[str] = "swap_too_large"


class BadSwap(RackError):
    code: ClassVar[str] = "bad_swap"


# -- turn / table state -----------------------------------------------------------------------------------
class NotYourTurn(TurnError):
    code: ClassVar[str] = "not_your_turn"


class GameOver(TurnError):
    code: ClassVar[str] = "game_over"


class NotStarted(TurnError):
    code: ClassVar[str] = "not_started"


class AlreadyStarted(TurnError):
    code: ClassVar[str] = "already_started"


class ReserveEmpty(TurnError):
    code: ClassVar[str] = "reserve_empty"


class TableFull(TurnError):
    code: ClassVar[str] = "table_full"


class TableExists(TurnError):
    code: ClassVar[str] = "table_exists"


class NotEnoughPlayers(TurnError):
    code: ClassVar[str] = "not_enough_players"


class NotFirstSeat(TurnError):
    code: ClassVar[str] = "not_first_seat"


class BadSeat(TurnError):
    code: ClassVar[str] = "bad_seat"


# -- input ------------------------------------------------------------------------------------------------
class BadName(InputError):
    code: ClassVar[str] = "bad_name"


class BadNotation(InputError):
    code: ClassVar[str] = "bad_notation"


class UnknownVariant(InputError):
    code: ClassVar[str] = "unknown_variant"


class BadSetting(InputError):
    code: ClassVar[str] = "bad_setting"


class BadEvent(InputError):
    code: ClassVar[str] = "bad_event"


def _collect(root: type[LexioError]) -> dict[str, type[LexioError]]:
    found: dict[str, type[LexioError]] = {root.code: root}
    for sub in root.__subclasses__():
        found.update(_collect(sub))
    return found


ERRORS: dict[str, type[LexioError]] = _collect(LexioError)
"""Every error class by its code."""


def error_from_dict(data: dict[str, object]) -> LexioError:
    """Rebuild an error from :meth:`LexioError.to_dict` output (unknown codes become a plain LexioError)."""
    cls = ERRORS.get(str(data.get("code")), LexioError)
    raw = data.get("params")
    params: dict[str, Param] = {}
    if isinstance(raw, dict):
        params = {str(k): v for k, v in raw.items() if isinstance(v, str | int)}
    return cls(str(data.get("message", "")), **params)
