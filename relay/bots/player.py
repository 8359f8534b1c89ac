"""How a computer player of each level picks its move from a seat's view, and the relay's default driver.

Levels (the ``add_bot`` protocol values):

- ``strong`` plays the best-scoring placement found (ties broken at random);
- ``medium`` plays a random placement among those worth at least :data:`MEDIUM_SHARE` of the best;
- ``easy`` plays a random *modest* placement: at most :data:`EASY_MAX_TILES` tiles and worth at most
  :data:`EASY_SHARE` of the best (its cheapest third of moves if none is that modest).

When no placement fits, a bot swaps the tiles it least wants to keep (never more than the bag holds) or, with
the bag empty, passes. Search stops at the driver's time budget and plays the best of what it found, so a bot
always answers well within the turn clock. A bot only ever sees its own seat's view, like any player; the
relay submits its move through the same ``engine.decide`` path as a human's.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any, Final

from engine.board import Board
from engine.moves import Move, Pass, Swap
from relay.bots.graph import WordGraph, load_graph
from relay.bots.movegen import Candidate, generate

__all__ = [
    "DEFAULT_BUDGET_SECONDS",
    "EASY_MAX_TILES",
    "EASY_SHARE",
    "LEVELS",
    "MEDIUM_SHARE",
    "BotError",
    "MoveGenDriver",
    "pick",
    "swap_choice",
]

LEVELS: Final = ("easy", "medium", "strong")
MEDIUM_SHARE: Final = 0.6
EASY_SHARE: Final = 0.5
EASY_MAX_TILES: Final = 4
DEFAULT_BUDGET_SECONDS: Final = 1.5
# Tiles worth keeping when swapping, best first: blanks, then the most flexible French letters.
_KEEP_ORDER: Final = "?ESARINTLUO"
_KEEP_AT_MOST: Final = 3


class BotError(ValueError):
    """A bot cannot act on this input. ``code``: ``bad_level`` (unknown level), ``bad_view`` (a view that is
    not a playing seat's snapshot: no rack, unknown variant, malformed board), ``no_word_list`` (the driver
    was given a lexicon it cannot walk)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def pick(moves: Sequence[Candidate], level: str, rng: random.Random) -> Candidate | None:
    """The placement a bot of ``level`` plays among ``moves`` (None if there is none).

    Raises BotError ``bad_level`` for a level outside :data:`LEVELS`.
    """
    if level not in LEVELS:
        raise BotError("bad_level", f"bot level {level!r} is not one of {', '.join(LEVELS)}")
    if not moves:
        return None
    best = max(m.score for m in moves)
    if level == "strong":
        pool = [m for m in moves if m.score == best]
    elif level == "medium":
        pool = [m for m in moves if m.score >= best * MEDIUM_SHARE]
    else:
        pool = [m for m in moves if m.size <= EASY_MAX_TILES and m.score <= best * EASY_SHARE]
        if not pool:
            ranked = sorted(moves, key=lambda m: (m.score, m.tiles))
            pool = ranked[: max(1, len(ranked) // 3)]
    # Sorting first makes the choice depend on rng alone, not on generation order.
    pool.sort(key=lambda m: (m.score, m.tiles))
    return pool[rng.randrange(len(pool))]


def swap_choice(rack: str, bag_size: int) -> str:
    """The tiles a bot with nothing to play returns: all but up to three of its best keepers, at most
    ``bag_size`` of them (the rules forbid returning more than the bag holds); "" means pass instead."""
    if bag_size <= 0 or not rack:
        return ""
    keep: list[str] = []
    rest = list(rack)
    for letter in _KEEP_ORDER:
        if len(keep) >= _KEEP_AT_MOST:
            break
        if letter in rest:
            rest.remove(letter)
            keep.append(letter)
    if not rest:  # a rack of keepers that still cannot play: change it all
        rest, keep = list(rack), []
    # Return the worst tiles first when the bag cannot take them all.
    rest.sort(key=lambda ch: _KEEP_ORDER.find(ch) if ch in _KEEP_ORDER else len(_KEEP_ORDER), reverse=True)
    return "".join(rest[: min(len(rest), bag_size)])


class MoveGenDriver:
    """The relay's default :class:`relay.botdriver.BotDriver`: the move generator plus a level policy.

    The word graph is built (or read from its disk cache) on the first :meth:`choose` or :meth:`warm`, not
    when the driver is made, so a relay without bots never pays for it. Thread-safe: the relay calls
    :meth:`choose` from worker threads; the graph is read-only once built.
    """

    def __init__(self, words: Any = None, *, budget_seconds: float = DEFAULT_BUDGET_SECONDS) -> None:
        """``words``: a :class:`relay.lexicon.WordList` (or any iterable of A-Z words; None: the shipped
        ``"fr"`` list, loaded on first use). ``budget_seconds``: search time per move before playing the best
        found."""
        self._words = words
        self._graph: WordGraph | None = None
        self._lock = threading.Lock()
        self.budget_seconds = budget_seconds

    def warm(self) -> WordGraph:
        """Build or load the word graph now (the relay may call this when a bot is seated). Raises BotError
        ``no_word_list`` if the driver was given a lookup it cannot iterate, and what
        :func:`relay.lexicon.load_lexicon` or :func:`relay.bots.graph.load_graph` raise."""
        with self._lock:
            if self._graph is None:
                words = self._words
                if words is None:
                    from relay.lexicon import load_lexicon

                    words = load_lexicon("fr")
                if not isinstance(words, Iterable):
                    # A bare lookup callable cannot be walked; guessing another list would play unknown words.
                    raise BotError("no_word_list", "the bot driver needs a word list it can iterate over")
                self._graph = load_graph(words)
            return self._graph

    def candidates(self, view: dict[str, Any], *, budget_seconds: float | None = None) -> list[Candidate]:
        """Every placement found for the seat of ``view`` within the budget. Raises BotError ``bad_view``."""
        board, rack = _board_and_rack(view)
        return self._search(board, rack, budget_seconds)

    def choose(self, view: dict[str, Any], level: str, rng: random.Random) -> Move:
        """The move a bot of ``level`` makes for the seat whose engine view is ``view``.

        Raises BotError ``bad_level`` / ``bad_view`` / ``no_word_list`` (the relay then passes for the bot).
        """
        if level not in LEVELS:
            raise BotError("bad_level", f"bot level {level!r} is not one of {', '.join(LEVELS)}")
        board, rack = _board_and_rack(view)
        chosen = pick(self._search(board, rack, None), level, rng)
        if chosen is not None:
            return chosen.to_place(board.variant)
        bag = view.get("bag_size", 0)
        returned = swap_choice(rack, bag if isinstance(bag, int) else 0)
        return Swap(returned) if returned else Pass()

    def _search(self, board: Board, rack: str, budget_seconds: float | None) -> list[Candidate]:
        graph = self.warm()
        budget = self.budget_seconds if budget_seconds is None else budget_seconds
        try:
            return generate(board, rack, graph, deadline=time.monotonic() + budget).moves
        except ValueError as exc:  # a rack holding something that is not a tile
            raise BotError("bad_view", str(exc)) from exc


def _board_and_rack(view: dict[str, Any]) -> tuple[Board, str]:
    if not isinstance(view, dict):
        raise BotError("bad_view", "a bot needs its seat's view (a dict)")
    rack = view.get("rack")
    if not isinstance(rack, str):
        raise BotError("bad_view", "the view has no rack: a bot only plays for its own seat")
    try:
        board = Board.from_json(view.get("variant", "lexio"), view.get("board", []))
    except ValueError as exc:
        raise BotError("bad_view", f"the view's board cannot be read: {exc}") from exc
    return board, rack.upper()
