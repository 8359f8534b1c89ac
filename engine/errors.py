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
    "RatedSeat",
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
    """A square name that is not on the grid (or not a string)."""

    code: ClassVar[str] = "off_board"


class Wall(ShapeError):
    """A square that is walled off: nothing is ever played there."""

    code: ClassVar[str] = "wall"


class Occupied(ShapeError):
    """A square that already holds a tile (or, in notation, a letter that contradicts it)."""

    code: ClassVar[str] = "occupied"


class DuplicateSquare(ShapeError):
    """Two tiles of one placement on the same square."""

    code: ClassVar[str] = "duplicate_square"


class NotInLine(ShapeError):
    """Tiles not in a single row or a single column."""

    code: ClassVar[str] = "not_in_line"


class Gap(ShapeError):
    """An empty square (or a wall) between the placed tiles."""

    code: ClassVar[str] = "gap"


class MissingSource(ShapeError):
    """A first play that does not cover the source."""

    code: ClassVar[str] = "missing_source"


class NotConnected(ShapeError):
    """A later play that touches no tile already on the board."""

    code: ClassVar[str] = "not_connected"


class NoWord(ShapeError):
    """A placement that forms no word of two or more tiles."""

    code: ClassVar[str] = "no_word"


class BlankWithoutLetter(ShapeError):
    """A blank played without naming the letter it stands for."""

    code: ClassVar[str] = "blank_without_letter"


class BadLetter(ShapeError):
    """A tile letter that is not A-Z."""

    code: ClassVar[str] = "bad_letter"


class TooManyTiles(ShapeError):
    """More tiles than a rack holds."""

    code: ClassVar[str] = "too_many_tiles"


class EmptyPlay(ShapeError):
    """A placement of no tile."""

    code: ClassVar[str] = "empty_play"


# -- rack -------------------------------------------------------------------------------------------------
class NotOnRack(RackError):
    """Tiles to play or swap that are not on the player's rack."""

    code: ClassVar[str] = "not_on_rack"


class SwapTooLarge(RackError):
    """A swap returning more tiles than the bag holds."""

    code: ClassVar[str] = "swap_too_large"


class BadSwap(RackError):
    """A swap that names no tile, or something that is not letters and '?'."""

    code: ClassVar[str] = "bad_swap"


# -- turn / table state -----------------------------------------------------------------------------------
class NotYourTurn(TurnError):
    """A move by a seat that is not on turn."""

    code: ClassVar[str] = "not_your_turn"


class GameOver(TurnError):
    """A command after the end of the game."""

    code: ClassVar[str] = "game_over"


class NotStarted(TurnError):
    """A command that needs a table or a started game that does not exist yet."""

    code: ClassVar[str] = "not_started"


class AlreadyStarted(TurnError):
    """A seating command (join, leave, start) once the game has started."""

    code: ClassVar[str] = "already_started"


class ReserveEmpty(TurnError):
    """A placement with no try left in the seat's reserve (``params['next_refill_ms']``)."""

    code: ClassVar[str] = "reserve_empty"


class TableFull(TurnError):
    """A fifth arrival."""

    code: ClassVar[str] = "table_full"


class TableExists(TurnError):
    """CreateTable on a table that already exists."""

    code: ClassVar[str] = "table_exists"


class NotEnoughPlayers(TurnError):
    """Start with fewer than two seated."""

    code: ClassVar[str] = "not_enough_players"


class NotFirstSeat(TurnError):
    """Start by a seat other than the first arrival (seat 0)."""

    code: ClassVar[str] = "not_first_seat"


class BadSeat(TurnError):
    """A seat that does not exist (or is not an integer)."""

    code: ClassVar[str] = "bad_seat"


class RatedSeat(TurnError):
    """A guest or a computer player asking for a seat at a rated table (signed-in players only)."""

    code: ClassVar[str] = "rated_accounts_only"


# -- input ------------------------------------------------------------------------------------------------
class BadName(InputError):
    """A name that is empty, too long, unprintable or already seated (``params['reason'] == 'taken'``)."""

    code: ClassVar[str] = "bad_name"


class BadNotation(InputError):
    """Text, JSON or values that cannot be read as moves or tiles."""

    code: ClassVar[str] = "bad_notation"


class UnknownVariant(InputError):
    """A variant name that is not shipped."""

    code: ClassVar[str] = "unknown_variant"


class BadSetting(InputError):
    """A table setting or variant data out of range."""

    code: ClassVar[str] = "bad_setting"


class BadEvent(InputError):
    """A journal dict (or value) that cannot be read as an event."""

    code: ClassVar[str] = "bad_event"


def _collect(root: type[LexioError]) -> dict[str, type[LexioError]]:
    found: dict[str, type[LexioError]] = {root.code: root}
    for sub in root.__subclasses__():
        found.update(_collect(sub))
    return found


ERRORS: dict[str, type[LexioError]] = _collect(LexioError)
"""Every error class by its code."""


def error_from_dict(data: dict[str, object]) -> LexioError:
    """Rebuild an error from :meth:`LexioError.to_dict` output (unknown codes become a plain LexioError).

    Never raises: anything that is not a dict also comes back as a plain :class:`LexioError` naming it.
    """
    if not isinstance(data, dict):
        return LexioError(f"not an error dict: {data!r:.40}")
    cls = ERRORS.get(str(data.get("code")), LexioError)
    raw = data.get("params")
    params: dict[str, Param] = {}
    if isinstance(raw, dict):
        params = {str(k): v for k, v in raw.items() if isinstance(v, str | int)}
    return cls(str(data.get("message", "")), **params)
