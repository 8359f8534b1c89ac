"""How a computer player of each level chooses its move from a seat's view, and the relay's default driver.

Levels are data (:mod:`relay.bots.levels`): ``beginner``, ``easy``, ``medium``, ``strong``, ``expert``. Every
level ranks its options by equity (:func:`relay.bots.equity.rank`: score + the leave's value, weighed by the
level, misjudged by its noise) over the placements it can see (its vocabulary, its longest play); ``expert``
also weighs every exchange against every placement, marks its best options down by what the next player
could score after each (racks imagined from the unseen tiles), searches the two-player endgame once the bag
is empty (:func:`relay.bots.endgame.solve`) and, just before, avoids moves that hand the opponent an easy out.

With nothing to play a bot exchanges the tiles it least wants to keep (never more than the bag holds) or, with
the bag empty, passes. Search stops at the driver's time budget and plays the best of what it found. A bot
only ever sees its own seat's view, like any player; the relay submits its move through the same
``engine.decide`` path as a human's.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterable
from typing import Final, TypeAlias, cast

from engine.board import Board
from engine.game import Lexicon
from engine.moves import Move, Pass, Swap
from relay.bots.endgame import out_risk, solve
from relay.bots.equity import Option, Position, position_from_view, rank
from relay.bots.graph import ALL_LETTERS, WordGraph, build_graph, letter_mask, load_graph
from relay.bots.leaves import LeaveModel, default_model
from relay.bots.levels import LEVEL_NAMES, Level, get_level
from relay.bots.movegen import Candidate, generate, openness
from relay.bots.selfplay import Decision

__all__ = ["DEFAULT_BUDGET_SECONDS", "LEVELS", "BotError", "MoveGenDriver", "Words", "swap_choice"]

# What a driver is given to play with: a relay.lexicon.WordList or any iterable of A-Z words, None for the
# shipped "fr" list; a bare lookup (engine.Lexicon, as a relay may be given) cannot be walked: no_word_list.
Words: TypeAlias = Iterable[str] | Lexicon | None

LEVELS: Final = LEVEL_NAMES
DEFAULT_BUDGET_SECONDS: Final = 1.5
# Share of the budget the expert's move generation may use; the rest is for the endgame / out checks.
_GENERATE_SHARE: Final = 0.5
_PRE_ENDGAME_CHECKS: Final = 6
# The endgame search and the pre-endgame checks stop after this long (or the budget, if shorter): deeper
# lines rarely change the move, and a bot should answer like a quick player.
ENDGAME_SECONDS: Final = 0.25
# The cap on looking at the next player's replies (levels with ``replies``), within the budget.
_REPLY_SECONDS: Final = 0.15
# Tiles worth keeping when swapping without a leave table, best first: blanks, then flexible French letters.
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


def swap_choice(rack: str, bag_size: int) -> str:
    """The tiles a bot with nothing to play and no leave table returns: all but up to three of its best
    keepers, at most ``bag_size`` of them; "" means pass instead."""
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
    rest.sort(key=lambda ch: _KEEP_ORDER.find(ch) if ch in _KEEP_ORDER else len(_KEEP_ORDER), reverse=True)
    return "".join(rest[: min(len(rest), bag_size)])


def level_of(name: str) -> Level:
    """Raises BotError ``bad_level`` for a name outside :data:`LEVELS`."""
    lv = get_level(name)
    if lv is None:
        raise BotError("bad_level", f"bot level {name!r} is not one of {', '.join(LEVELS)}")
    return lv


class MoveGenDriver:
    """The relay's default :class:`relay.botdriver.BotDriver`: the move generator plus the level policies.

    The word graphs are built (or read from disk) on first use, not when the driver is made, so a relay
    without bots never pays for them. Thread-safe: the relay calls :meth:`choose` from worker threads; the
    graphs and the leave table are read-only once built.
    """

    def __init__(
        self,
        words: Words = None,
        *,
        budget_seconds: float = DEFAULT_BUDGET_SECONDS,
        leaves: LeaveModel | None = None,
        endgame_seconds: float = ENDGAME_SECONDS,
    ) -> None:
        """``words``: a :class:`relay.lexicon.WordList` (or any iterable of A-Z words; None: the shipped
        ``"fr"`` list, loaded on first use). ``budget_seconds``: thinking time per move. ``leaves``: the leave
        table (default: the shipped one). ``endgame_seconds``: the cap on the endgame search and the
        pre-endgame checks within that budget."""
        self._words = words
        self._graph: WordGraph | None = None
        self._vocab_graphs: dict[int, WordGraph] = {}
        self._lock = threading.Lock()
        self._leaves = leaves
        self.budget_seconds = budget_seconds
        self.endgame_seconds = endgame_seconds

    @property
    def leaves(self) -> LeaveModel:
        if self._leaves is None:
            self._leaves = default_model()
        return self._leaves

    def warm(self) -> WordGraph:
        """Build or load the full word graph now. Raises BotError ``no_word_list`` if the driver was given a
        lookup it cannot iterate, and what :func:`relay.lexicon.load_lexicon` or
        :func:`relay.bots.graph.load_graph` raise."""
        with self._lock:
            if self._graph is None:
                self._graph = load_graph(self._word_list())
            return self._graph

    def _word_list(self) -> Iterable[str]:
        if self._words is None:
            from relay.lexicon import load_lexicon

            self._words = load_lexicon("fr")
        if not isinstance(self._words, Iterable):
            # A bare lookup callable cannot be walked; guessing another list would play unknown words.
            raise BotError("no_word_list", "the bot driver needs a word list it can iterate over")
        return self._words

    def graph_for(self, level: Level) -> WordGraph:
        """The words ``level`` knows: the full list, or its most common words that the list holds."""
        if level.vocabulary is None:
            return self.warm()
        with self._lock:
            graph = self._vocab_graphs.get(level.vocabulary)
            if graph is None:
                from relay.bots.vocab import common_words

                words = self._word_list()
                member = (
                    words if hasattr(words, "__contains__") and not isinstance(words, list) else set(words)
                )
                graph = build_graph(w for w in sorted(set(common_words(level.vocabulary))) if w in member)
                self._vocab_graphs[level.vocabulary] = graph
            return graph

    def candidates(self, view: dict[str, object], *, budget_seconds: float | None = None) -> list[Candidate]:
        """Every placement of the full word list found for the seat of ``view`` within the budget. Raises
        BotError ``bad_view``."""
        board, rack = _board_and_rack(view)
        budget = self.budget_seconds if budget_seconds is None else budget_seconds
        return _generate(board, rack, self.warm(), time.monotonic() + budget)

    def choose(self, view: dict[str, object], level: str, rng: random.Random) -> Move:
        """The move a bot of ``level`` makes for the seat whose engine view is ``view``.

        Raises BotError ``bad_level`` / ``bad_view`` / ``no_word_list`` (the relay then passes for the bot).
        """
        lv = level_of(level)
        board, rack = _board_and_rack(view)
        pos = position_from_view(view, board, rack)
        decision = self.decide(pos, lv, rng)
        if decision.kind == "place" and decision.move is not None:
            return decision.move.to_place(board.variant)
        if decision.kind == "swap" and decision.tiles:
            return Swap(decision.tiles)
        return Pass()

    def options(self, pos: Position, level: Level, rng: random.Random, deadline: float) -> list[Option]:
        """What ``level`` sees in ``pos``, ranked by its judgement (before any endgame search)."""
        graph = self.graph_for(level)
        gen_deadline = time.monotonic() + (deadline - time.monotonic()) * (
            _GENERATE_SHARE if level.endgame else 1.0
        )
        moves = [m for m in _generate(pos.board, pos.rack, graph, gen_deadline) if m.size <= level.max_tiles]
        return rank(
            moves,
            pos,
            self.leaves if level.leave_weight or level.exchanges else None,
            leave_weight=level.leave_weight,
            with_exchanges=level.exchanges,
            noise=level.noise,
            rng=rng,
        )

    def decide(
        self, pos: Position, level: Level, rng: random.Random, *, budget_seconds: float | None = None
    ) -> Decision:
        """The decision of ``level`` in ``pos`` within the budget (default: the driver's)."""
        budget = self.budget_seconds if budget_seconds is None else budget_seconds
        start = time.monotonic()
        deadline = start + budget
        if level.endgame and pos.bag_size == 0 and pos.players == 2 and pos.unseen:
            result = solve(
                pos.board,
                pos.rack,
                pos.unseen,
                self.graph_for(level),
                deadline=start + min(budget, self.endgame_seconds),
                scoreless=pos.scoreless_turns,
            )
            return Decision("place", result.move) if result.move is not None else Decision("pass")
        options = self.options(pos, level, rng, deadline)
        if level.replies and pos.bag_size > 7 and len(options) > 1:
            reply_deadline = min(deadline, time.monotonic() + _REPLY_SECONDS)
            options = self._weigh_replies(pos, level, options, rng, reply_deadline)
        if level.open_weight and 0 < pos.bag_size <= level.open_bag and len(options) > 1:
            options = self._weigh_openness(level, pos.board, options)
        if level.endgame and pos.players == 2 and 0 < pos.bag_size <= 7:
            guard_deadline = min(deadline, time.monotonic() + self.endgame_seconds)
            options = self._guard_pre_endgame(pos, level, options, rng, guard_deadline)
        best = options[0] if options else None
        if best is not None and best.kind == "place" and best.move is not None:
            return Decision("place", best.move)
        if best is not None and best.kind == "swap":
            return Decision("swap", tiles=best.tiles)
        return self._nothing_to_play(pos)

    def _guard_pre_endgame(
        self, pos: Position, level: Level, options: list[Option], rng: random.Random, deadline: float
    ) -> list[Option]:
        graph = self.graph_for(level)
        checked: list[Option] = []
        for o in options[:_PRE_ENDGAME_CHECKS]:
            if o.kind == "place" and o.move is not None:
                risk = out_risk(
                    pos.board, o.move, pos.unseen, pos.bag_size, graph, rng, kept=o.leave, deadline=deadline
                )
                o = o._replace(equity=o.equity - risk)
            checked.append(o)
        checked.sort(key=lambda o: -o.equity)
        return checked + options[_PRE_ENDGAME_CHECKS:]

    def _weigh_openness(self, level: Level, board: Board, options: list[Option]) -> list[Option]:
        """The best ``level.open_top`` options, each plus ``open_weight`` x the single-tile placements the
        board takes after it (with ``open_own``, of the letters it keeps; a kept blank counts them all)."""
        graph = self.graph_for(level)
        weighed: list[Option] = []
        for o in options[: level.open_top]:
            after = o.move.played_on(board) if o.kind == "place" and o.move is not None else board
            letters = ALL_LETTERS if not level.open_own or "?" in o.leave else letter_mask(o.leave)
            weighed.append(o._replace(equity=o.equity + level.open_weight * openness(after, graph, letters)))
        weighed.sort(key=lambda o: -o.equity)
        return weighed + options[level.open_top :]

    def _weigh_replies(
        self, pos: Position, level: Level, options: list[Option], rng: random.Random, deadline: float
    ) -> list[Option]:
        """The best ``level.reply_top`` options, each less ``reply_weight`` x the best score the next player
        would make after it, averaged over ``level.replies`` racks drawn from the unseen tiles (the same
        racks for every option, so that what differs is the board each option leaves). Options not reached
        by the deadline are left out of the comparison; none reached: ``options`` unchanged."""
        graph = self.warm()
        # Blanks make a rack's move generation many times slower; the imagined racks go without.
        pool = [t for t in pos.unseen if t != "?"]
        size = min(len(pool), pos.opponents[0] if pos.opponents else 7)
        if size == 0:
            return options
        racks = ["".join(sorted(rng.sample(pool, size))) for _ in range(level.replies)]
        top = options[: level.reply_top]
        weighed: list[Option] = []
        for o in top:
            board = pos.board
            if o.kind == "place" and o.move is not None:
                board = o.move.played_on(board)
            replies = [generate(board, rack, graph, deadline=deadline) for rack in racks]
            if not all(r.complete for r in replies):
                break  # a reply cut short would flatter this option: compare those done
            best = sum(max((m.score for m in r.moves), default=0) for r in replies) / len(racks)
            weighed.append(o._replace(equity=o.equity - level.reply_weight * best))
        if not weighed:
            return options
        weighed.sort(key=lambda o: -o.equity)
        return weighed + options[len(weighed) :]

    def _nothing_to_play(self, pos: Position) -> Decision:
        if pos.bag_size <= 0:
            return Decision("pass")
        options = rank([], pos, self.leaves, with_exchanges=True)
        if options:
            return Decision("swap", tiles=options[0].tiles)
        returned = swap_choice(pos.rack, pos.bag_size)
        return Decision("swap", tiles=returned) if returned else Decision("pass")


def _generate(board: Board, rack: str, graph: WordGraph, deadline: float | None) -> list[Candidate]:
    try:
        return generate(board, rack, graph, deadline=deadline).moves
    except ValueError as exc:  # a rack holding something that is not a tile
        raise BotError("bad_view", str(exc)) from exc


def _board_and_rack(view: dict[str, object]) -> tuple[Board, str]:
    if not isinstance(view, dict):
        raise BotError("bad_view", "a bot needs its seat's view (a dict)")
    rack = view.get("rack")
    if not isinstance(rack, str):
        raise BotError("bad_view", "the view has no rack: a bot only plays for its own seat")
    try:
        # Not checked here: a variant that is not a name is refused by Board.from_json (bad_view below).
        board = Board.from_json(cast(str, view.get("variant", "lexio")), view.get("board", []))
    except ValueError as exc:
        raise BotError("bad_view", f"the view's board cannot be read: {exc}") from exc
    rack = rack.upper()
    if any(not ("A" <= ch <= "Z" or ch == "?") for ch in rack):
        raise BotError("bad_view", f"rack {rack!r} holds something that is not a tile (A-Z or ?)")
    return board, rack
