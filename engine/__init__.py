"""Lexio rules engine: pure, standard library only, the same files in CPython and in Pyodide.

Values (boards, tiles, moves, events, states) are immutable.  Checked entry points raise a
:class:`~engine.errors.LexioError` (a ``ValueError``) with a stable ``code`` for any bad input, whatever its
type; functions documented as *unchecked* trust their input and may raise anything on junk: ``apply`` and
``replay`` (fold events that came from ``decide``), ``Board(variant, cells)`` and
``board.with_cells_unchecked``, ``variant.value`` / ``variant.rack_value`` (KeyError), and the constructors of
the plain values (``Tile``, ``Place``, commands, events), which check nothing.  The engine never reads a
clock nor draws randomness of its own: times (integer milliseconds) and a ``random.Random`` are passed in.
See docs/architecture.md, "Engine public API".
"""

from engine import errors as _errors
from engine.board import Board
from engine.errors import *  # noqa: F403  (the whole error tree is public API)
from engine.errors import ERRORS, LexioError, error_from_dict
from engine.events import (
    EVENT_TYPES,
    SCHEMA_VERSION,
    Event,
    GameEnded,
    GameStarted,
    Passed,
    Placed,
    Rejected,
    SeatJoined,
    SeatLeft,
    Swapped,
    TableCreated,
    TimedOut,
    event_from_dict,
    event_to_dict,
    event_type,
)
from engine.fold import FOLDED_EVENTS, fold_view
from engine.game import (
    DAY_SECONDS,
    MAX_SEATS,
    MIN_SEATS,
    RESERVE_MAX,
    RESERVE_REFILL_MS,
    SCORELESS_ROUNDS,
    TURN_DAYS,
    Command,
    CreateTable,
    GameState,
    Join,
    Leave,
    Lexicon,
    Play,
    SeatState,
    Start,
    TimeoutPass,
    apply,
    decide,
    is_correspondence,
    new_state,
    replay,
    reserve_at,
    scoreless_limit,
    turn_seconds_allowed,
)
from engine.moves import Move, Pass, Place, Swap, Tile, tile_from_dict, tiles_from_json
from engine.notation import format_move, parse_move
from engine.scoring import (
    Breakdown,
    LetterScore,
    WordScore,
    analyse,
    check_placement,
    preview,
    preview_board,
    preview_error,
    score_placement,
)
from engine.variants import DEFAULT_VARIANT, VARIANTS, Kind, TileSpec, Variant, get_variant
from engine.views import redact_event, view

__all__ = [  # noqa: RUF022  (grouped by topic, errors appended)
    # variants and board
    "DEFAULT_VARIANT",
    "VARIANTS",
    "Board",
    "Kind",
    "TileSpec",
    "Variant",
    "get_variant",
    # moves, notation, scoring
    "Breakdown",
    "LetterScore",
    "Move",
    "Pass",
    "Place",
    "Swap",
    "Tile",
    "WordScore",
    "analyse",
    "check_placement",
    "format_move",
    "parse_move",
    "preview",
    "preview_board",
    "preview_error",
    "score_placement",
    "tile_from_dict",
    "tiles_from_json",
    # game
    "MAX_SEATS",
    "MIN_SEATS",
    "RESERVE_MAX",
    "RESERVE_REFILL_MS",
    "SCORELESS_ROUNDS",
    "DAY_SECONDS",
    "TURN_DAYS",
    "is_correspondence",
    "turn_seconds_allowed",
    "scoreless_limit",
    "Command",
    "CreateTable",
    "GameState",
    "Join",
    "Leave",
    "Lexicon",
    "Play",
    "SeatState",
    "Start",
    "TimeoutPass",
    "apply",
    "decide",
    "new_state",
    "replay",
    "reserve_at",
    # events and views
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
    "redact_event",
    "view",
    "FOLDED_EVENTS",
    "fold_view",
    # errors
    "ERRORS",
    "LexioError",
    "error_from_dict",
]
__all__ += [name for name in _errors.__all__ if name not in __all__]
