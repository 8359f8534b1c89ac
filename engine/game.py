"""The game: commands are checked by :func:`decide` into events; :func:`apply` folds events into a state.

``state = replay(events)``: the state is nothing but the fold of its journal, and replaying the journal
reproduces it exactly (the events hold the shuffled bag, draws and racks, so no random source is needed).

Rules owned here (rules text + shared/design/decisions.md):

- seats are taken in order of arrival (2-4); seat 0 starts the game, which starts by itself when a fourth
  player sits; before the start a leaving player frees the seat and later arrivals move up;
- turns follow seat order; on your turn you place, swap or pass; the table passes for you on time;
- after an accepted placement the rack is refilled while the bag lasts;
- a swap draws first, then the returned tiles go back and the bag is reshuffled; the bag must hold at least
  as many tiles as are returned;
- every word of a placement is checked with the injected lexicon; unknown words reject the play (a
  :class:`~engine.events.Rejected` event, the turn goes on) and cost one try of the seat's reserve
  (10 tries, +1 every 15 s while below 10); with 0 tries every placement is refused without a look-up;
- the game ends when a player empties the rack with the bag empty (everyone loses their rack's value, the
  finisher gains the others' total) or after 2 x seats consecutive turns without a placement (everyone
  loses their rack's value); blanks cost 0; scores may go negative; ties share the win.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from engine.board import Board
from engine.errors import (
    AlreadyStarted,
    BadName,
    BadSeat,
    BadSetting,
    BadSwap,
    GameOver,
    InputError,
    NotEnoughPlayers,
    NotFirstSeat,
    NotOnRack,
    NotStarted,
    NotYourTurn,
    RatedSeat,
    ReserveEmpty,
    SwapTooLarge,
    TableExists,
    TableFull,
)
from engine.events import (
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
)
from engine.moves import Move, Pass, Place, Swap, Tile
from engine.scoring import analyse
from engine.variants import BLANK, DEFAULT_VARIANT, LETTERS, Variant, get_variant

__all__ = [
    "DAY_SECONDS",
    "MAX_SEATS",
    "MIN_SEATS",
    "NAME_MAX",
    "RESERVE_MAX",
    "RESERVE_REFILL_MS",
    "SCORELESS_ROUNDS",
    "TURN_DAYS",
    "TURN_SECONDS_DEFAULT",
    "TURN_SECONDS_MAX",
    "TURN_SECONDS_MIN",
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
    "is_bot_name",
    "is_correspondence",
    "new_state",
    "replay",
    "reserve_at",
    "scoreless_limit",
    "turn_seconds_allowed",
]

MIN_SEATS: Final = 2
MAX_SEATS: Final = 4
NAME_MAX: Final = 24
# Computer players are named "Robot …" (the relay's "Robot N"): a person may not pass for one.
BOT_NAME_RE: Final = re.compile(r"robot(?:\s.*)?", re.IGNORECASE | re.DOTALL)
RESERVE_MAX: Final = 10
RESERVE_REFILL_MS: Final = 15_000
# "Deux tours de table sans une seule pose": that many rounds of turns without a placement end the game.
SCORELESS_ROUNDS: Final = 2
TURN_SECONDS_DEFAULT: Final = 120
TURN_SECONDS_MIN: Final = 30
TURN_SECONDS_MAX: Final = 600
# Correspondence play (issue 31): besides 30-600 s, a turn may last exactly this many days. The one list of
# allowed turn times is here (:func:`turn_seconds_allowed`); the relay and the page derive theirs from it.
DAY_SECONDS: Final = 86_400
TURN_DAYS: Final = (1, 2, 3, 7)


def turn_seconds_allowed(secs: object) -> bool:
    """Whether ``secs`` is an allowed turn time: an int of 30 to 600 s, or exactly 1, 2, 3 or 7 days."""
    if not isinstance(secs, int) or isinstance(secs, bool):
        return False
    return TURN_SECONDS_MIN <= secs <= TURN_SECONDS_MAX or secs in {d * DAY_SECONDS for d in TURN_DAYS}


def is_correspondence(secs: int) -> bool:
    """Whether a table whose turns last ``secs`` is played by correspondence (its turns counted in days)."""
    return secs >= DAY_SECONDS


Lexicon = Callable[[Sequence[str]], Sequence[str]]
"""Given the words of a play (upper case, blanks as their letter), returns those not in the word list."""


# -- commands ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CreateTable:
    """Create the table: its variant and turn time (30-600 s, or 1, 2, 3 or 7 days: see
    :func:`turn_seconds_allowed`); ``rated``: signed-in players only."""

    variant: str = DEFAULT_VARIANT
    turn_seconds: int = TURN_SECONDS_DEFAULT
    rated: bool = False


@dataclass(frozen=True, slots=True)
class Join:
    """Take the next seat (``bot``: a bot level, or None for a person; ``account``: the id of a signed-in
    player's account, whose nickname is ``name``)."""

    name: str
    bot: str | None = None
    account: str | None = None


@dataclass(frozen=True, slots=True)
class Leave:
    """Free a seat before the start; later arrivals move up."""

    seat: int


@dataclass(frozen=True, slots=True)
class Start:
    """Start the game (seat 0 only, 2-4 seated)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Play:
    """The seat on turn places, swaps or passes."""

    seat: int
    move: Move


@dataclass(frozen=True, slots=True)
class TimeoutPass:
    """The table passes for the seat on turn (the relay decides when the time is up)."""

    seat: int


Command = CreateTable | Join | Leave | Start | Play | TimeoutPass


# -- state ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SeatState:
    """One seat.  The reserve is a token bucket: ``reserve_tries`` as of ``reserve_since_ms``; read it with
    :func:`reserve_at`."""

    name: str
    bot: str | None = None
    score: int = 0
    rack: str = ""
    reserve_tries: int = RESERVE_MAX
    reserve_since_ms: int = 0
    account: str | None = None  # a signed-in player's account id (relay/accounts); None: a guest or a bot


_EMPTY_BOARD: Final = Board.empty(DEFAULT_VARIANT)


@dataclass(frozen=True, slots=True)
class GameState:
    """A table's state, the fold of its ``events``.  ``status``: ``"empty"`` (no table yet), ``"waiting"``
    (seating), ``"playing"``, ``"ended"``.  ``bag`` is in draw order (draws take from the front)."""

    status: str = "empty"
    variant: str = DEFAULT_VARIANT
    turn_seconds: int = TURN_SECONDS_DEFAULT
    rated: bool = False  # every seat a signed-in player's: the result moves their ratings
    seats: tuple[SeatState, ...] = ()
    board: Board = _EMPTY_BOARD
    bag: tuple[str, ...] = ()
    turn: int | None = None
    turn_started_ms: int | None = None
    scoreless_turns: int = 0
    turns_played: int = 0  # placements, swaps, passes and time-outs (refused plays do not end a turn)
    result: GameEnded | None = None
    events: tuple[Event, ...] = field(default=(), repr=False)

    @property
    def version(self) -> int:
        """Number of events folded."""
        return len(self.events)

    @property
    def rules(self) -> Variant:
        """The variant's data."""
        return self.board.variant


def new_state() -> GameState:
    """The empty fold seed: no table yet."""
    return GameState()


# -- reserve ----------------------------------------------------------------------------------------------
def _reserve(tries: int, since: int, now_ms: int) -> tuple[int, int, int | None]:
    """(tries now, refill anchor, next refill ms or None) of a bucket holding ``tries`` as of ``since``."""
    if tries >= RESERVE_MAX:
        return RESERVE_MAX, now_ms, None
    gained = max(0, now_ms - since) // RESERVE_REFILL_MS
    current = min(RESERVE_MAX, tries + gained)
    if current >= RESERVE_MAX:
        return RESERVE_MAX, now_ms, None
    anchor = since + gained * RESERVE_REFILL_MS
    return current, anchor, anchor + RESERVE_REFILL_MS


def reserve_at(state: GameState, seat: int, now_ms: int) -> tuple[int, int | None]:
    """A seat's reserve at ``now_ms``: (tries left, time of the next refill or None when full).

    Raises :class:`~engine.errors.BadSeat` for a seat that does not exist, :class:`~engine.errors.InputError`
    for a ``state`` that is not a :class:`GameState` or a ``now_ms`` that is not an integer.
    """
    if not isinstance(state, GameState):
        raise InputError(f"{state!r:.40} is not a GameState", state=repr(state)[:40])
    s = _seat(state, seat)
    _need_ms(now_ms)
    tries, _, next_ms = _reserve(s.reserve_tries, s.reserve_since_ms, now_ms)
    return tries, next_ms


# -- decide -----------------------------------------------------------------------------------------------
def decide(
    state: GameState, command: Command, *, now_ms: int, rng: random.Random, lexicon: Lexicon
) -> list[Event]:
    """Check ``command`` against ``state`` and return the events it causes (the state is not changed).

    ``rng`` shuffles the bag (start, swaps); ``lexicon`` is called only for a placement that passed every
    other check.  A placement with unknown words returns ``[Rejected]``; one that ends the game returns
    ``[Placed, GameEnded]``, as does the pass, swap or timeout completing 2 x seats scoreless turns.

    Raises a :class:`~engine.errors.LexioError`: ``TableExists``, ``UnknownVariant``, ``BadSetting``
    (create); ``BadName``, ``RatedSeat``, ``TableFull`` (join); ``BadSeat``, ``NotFirstSeat``,
    ``NotEnoughPlayers`` (start/leave); ``NotStarted``, ``AlreadyStarted``, ``GameOver``, ``NotYourTurn``
    (phase and turn);
    every error of :func:`engine.analyse` (shape errors; ``BadNotation`` for tiles that are not
    :class:`~engine.moves.Tile`); ``NotOnRack``, ``BadSwap``,
    ``SwapTooLarge`` (rack and bag); ``ReserveEmpty`` (a placement with no try left); ``InputError``
    (``bad_input``) for a ``command`` that is not a command, a move that is not a move, or a ``now_ms`` that
    is not an integer.  A ``Play``/``TimeoutPass`` seat that is not an integer raises ``BadSeat``.
    """
    _need_ms(now_ms)
    if not isinstance(state, GameState):
        raise InputError(f"{state!r:.40} is not a GameState", state=repr(state)[:40])
    if isinstance(command, CreateTable):
        return _create(state, command, now_ms)
    if isinstance(command, Join):
        return _join(state, command, now_ms, rng)
    if isinstance(command, Leave):
        _need_waiting(state)
        _seat(state, command.seat)
        return [SeatLeft(command.seat, at=now_ms)]
    if isinstance(command, Start):
        _need_waiting(state)
        _seat(state, command.seat)
        if command.seat != 0:
            raise NotFirstSeat(
                f"seat {command.seat} cannot start the game: the first arrival (seat 0) does",
                seat=command.seat,
            )
        if len(state.seats) < MIN_SEATS:
            raise NotEnoughPlayers(
                f"{len(state.seats)} seated; a game needs {MIN_SEATS} to {MAX_SEATS}",
                seated=len(state.seats),
                minimum=MIN_SEATS,
            )
        return [_deal(state, rng, now_ms)]
    if isinstance(command, Play | TimeoutPass):
        _need_turn(state, command.seat)
        if isinstance(command, TimeoutPass):
            return _finish_scoreless(state, TimedOut(command.seat, at=now_ms))
        move = command.move
        if isinstance(move, Place):
            return _place(state, command.seat, move.tiles, now_ms, lexicon)
        if isinstance(move, Swap):
            return _finish_scoreless(state, _swap(state, command.seat, move.tiles, now_ms, rng))
        if isinstance(move, Pass):
            return _finish_scoreless(state, Passed(command.seat, at=now_ms))
        raise InputError(f"{move!r:.40} is not a move (Place, Swap or Pass)", move=repr(move)[:40])
    raise InputError(f"{command!r:.60} is not a command", command=repr(command)[:60])


def _create(state: GameState, command: CreateTable, now_ms: int) -> list[Event]:
    if state.status != "empty":
        raise TableExists("this table already exists")
    get_variant(command.variant)
    secs = command.turn_seconds
    if not turn_seconds_allowed(secs):
        raise BadSetting(
            f"turn time {secs!r:.40} s is outside {TURN_SECONDS_MIN}..{TURN_SECONDS_MAX} s"
            f" and is not {', '.join(str(d) for d in TURN_DAYS)} days",
            turn_seconds=str(secs)[:40],
            minimum=TURN_SECONDS_MIN,
            maximum=TURN_SECONDS_MAX,
        )
    if not isinstance(command.rated, bool):
        raise BadSetting(f"rated {command.rated!r:.40} must be true or false", rated=str(command.rated)[:40])
    return [TableCreated(command.variant, secs, at=now_ms, rated=command.rated)]


def is_bot_name(name: str) -> bool:
    """Whether ``name`` (trimmed) has the computer players' pattern ("Robot", "Robot 2", "robot fort")."""
    return BOT_NAME_RE.fullmatch(name.strip()) is not None


def _join(state: GameState, command: Join, now_ms: int, rng: random.Random) -> list[Event]:
    _need_waiting(state)
    raw = command.name
    name = raw.strip() if isinstance(raw, str) else ""
    if not 1 <= len(name) <= NAME_MAX or not name.isprintable():
        raise BadName(
            f"name {raw!r:.40} must be 1 to {NAME_MAX} printable characters", name=str(raw)[:40], max=NAME_MAX
        )
    if any(s.name.casefold() == name.casefold() for s in state.seats):
        raise BadName(f"name {name!r} is already taken at this table", name=name, reason="taken")
    bot = command.bot
    if bot is None and is_bot_name(name):
        raise BadName(f"name {name!r} is kept for computer players", name=name, reason="reserved")
    if bot is not None and (not isinstance(bot, str) or not bot):
        raise BadSetting(f"bot level {bot!r:.40} must be a non-empty string", bot=str(bot)[:40])
    if command.account is not None and (bot is not None or not isinstance(command.account, str)):
        raise BadSetting(
            f"account {command.account!r:.40} must be a string, and not a bot's", bot=str(bot)[:40]
        )
    if state.rated and (bot is not None or command.account is None):
        raise RatedSeat("a rated table seats signed-in players only: no guest, no computer player")
    if len(state.seats) >= MAX_SEATS:
        raise TableFull(f"the table is full ({MAX_SEATS} seats)", seats=MAX_SEATS)
    joined = SeatJoined(len(state.seats), name, bot, at=now_ms, account=command.account)
    if len(state.seats) + 1 == MAX_SEATS:
        # The fourth arrival starts the game by itself.
        return [joined, _deal(apply(state, joined), rng, now_ms)]
    return [joined]


def _deal(state: GameState, rng: random.Random, now_ms: int) -> GameStarted:
    v = state.rules
    bag = list(v.full_bag())
    rng.shuffle(bag)
    size = v.rack_size
    racks = tuple("".join(bag[i * size : (i + 1) * size]) for i in range(len(state.seats)))
    return GameStarted("".join(bag[len(racks) * size :]), racks, at=now_ms)


def _place(
    state: GameState, seat: int, tiles: tuple[Tile, ...], now_ms: int, lexicon: Lexicon
) -> list[Event]:
    breakdown = analyse(state.board, tiles)
    # analyse accepts a blank's letter in either case and any truthy flag: journal one canonical form, so
    # that the events survive their JSON round trip unchanged.
    tiles = tuple(Tile(t.square, t.letter.upper(), bool(t.blank)) for t in tiles)
    s = state.seats[seat]
    rack = _take(s.rack, "".join(t.rack_letter for t in tiles), "play")
    tries, next_ms = reserve_at(state, seat, now_ms)
    if tries <= 0:
        raise ReserveEmpty(
            "no tries left in your reserve: placements are refused until it refills",
            next_refill_ms=next_ms if next_ms is not None else now_ms,
        )
    words = breakdown.word_list
    unknown = tuple(dict.fromkeys(str(w) for w in lexicon(words)))
    if unknown:
        return [Rejected(seat, tiles, unknown, at=now_ms)]
    drawn = "".join(state.bag[: len(tiles)])
    bag = "".join(state.bag[len(tiles) :])
    placed = Placed(seat, tiles, words, breakdown.total, drawn, bag, rack + drawn, at=now_ms)
    if not placed.rack and not bag:
        return [placed, _end(apply(state, placed), "out", seat, now_ms)]
    return [placed]


def _swap(state: GameState, seat: int, tiles: str, now_ms: int, rng: random.Random) -> Swapped:
    if not isinstance(tiles, str) or not tiles or any(ch not in LETTERS and ch != BLANK for ch in tiles):
        raise BadSwap(
            f"swap {tiles!r:.20} must name 1 or more tiles (letters, '?' for a blank)", tiles=str(tiles)[:20]
        )
    rack = _take(state.seats[seat].rack, tiles, "swap")
    if len(tiles) > len(state.bag):
        raise SwapTooLarge(
            f"cannot swap {len(tiles)} tiles: the bag holds {len(state.bag)}",
            count=len(tiles),
            bag=len(state.bag),
        )
    drawn = state.bag[: len(tiles)]
    # Draw first, then return and reshuffle: the returned tiles cannot come straight back.
    bag = list(state.bag[len(tiles) :]) + list(tiles)
    rng.shuffle(bag)
    return Swapped(seat, tiles, "".join(drawn), "".join(bag), rack + "".join(drawn), at=now_ms)


def _take(rack: str, tiles: str, what: str) -> str:
    """``rack`` without ``tiles``.  Raises NotOnRack naming the missing tiles."""
    out = list(rack)
    missing = []
    for ch in tiles:
        try:
            out.remove(ch)
        except ValueError:
            missing.append(ch)
    if missing:
        letters = "".join(sorted(missing))
        raise NotOnRack(f"cannot {what} {letters}: not on your rack {rack}", tiles=letters, rack=rack)
    return "".join(out)


def scoreless_limit(seats: int) -> int:
    """How many turns in a row without a placement (passes, swaps, time-outs) end a game of ``seats``."""
    return SCORELESS_ROUNDS * seats


def _finish_scoreless(state: GameState, event: Event) -> list[Event]:
    after = apply(state, event)
    if after.scoreless_turns >= scoreless_limit(len(after.seats)):
        return [event, _end(after, "scoreless", None, event.at)]
    return [event]


def _end(state: GameState, reason: str, finisher: int | None, now_ms: int) -> GameEnded:
    v = state.rules
    held = [v.rack_value(s.rack) for s in state.seats]
    adjustments = [-h for h in held]
    if finisher is not None:
        adjustments[finisher] += sum(held) - held[finisher]
    scores = tuple(s.score + a for s, a in zip(state.seats, adjustments, strict=True))
    top = max(scores)
    winners = tuple(i for i, sc in enumerate(scores) if sc == top)
    racks = tuple(s.rack for s in state.seats)
    return GameEnded(reason, tuple(adjustments), racks, scores, winners, at=now_ms)


def _seat(state: GameState, seat: int) -> SeatState:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state.seats):
        raise BadSeat(f"there is no seat {seat!r:.10} at this table", seat=str(seat)[:10])
    return state.seats[seat]


def _need_ms(now_ms: int) -> None:
    if not isinstance(now_ms, int) or isinstance(now_ms, bool):
        raise InputError(f"time {now_ms!r:.20} is not integer milliseconds", now_ms=repr(now_ms)[:20])


def _need_waiting(state: GameState) -> None:
    if state.status == "empty":
        raise NotStarted("no table has been created yet")
    if state.status == "playing":
        raise AlreadyStarted("the game has already started")
    if state.status == "ended":
        raise GameOver("the game is over")


def _need_turn(state: GameState, seat: int) -> None:
    if state.status in ("empty", "waiting"):
        raise NotStarted("the game has not started yet")
    if state.status == "ended":
        raise GameOver("the game is over")
    if not isinstance(seat, int) or isinstance(seat, bool):
        # True == 1: without this a bool would pass for seat 1 and be journalled as such.
        raise BadSeat(f"there is no seat {seat!r:.10} at this table", seat=str(seat)[:10])
    if seat != state.turn:
        raise NotYourTurn(
            f"it is seat {state.turn}'s turn, not seat {seat!r:.10}'s",
            seat=str(seat)[:10],
            turn=int(state.turn or 0),
        )


# -- fold -------------------------------------------------------------------------------------------------
def apply(state: GameState, event: Event) -> GameState:
    """Unchecked fold: the state after ``event``.  Trusts the event (it came from :func:`decide` or from a
    journal written from its output); feeding it anything else gives an undefined state (a non-event raises
    TypeError)."""
    events = (*state.events, event)
    if isinstance(event, TableCreated):
        return replace(
            state,
            status="waiting",
            variant=event.variant,
            turn_seconds=event.turn_seconds,
            rated=event.rated,
            board=Board.empty(event.variant),
            events=events,
        )
    if isinstance(event, SeatJoined):
        seat = SeatState(event.name, event.bot, reserve_since_ms=event.at, account=event.account)
        return replace(state, seats=(*state.seats, seat), events=events)
    if isinstance(event, SeatLeft):
        seats = state.seats[: event.seat] + state.seats[event.seat + 1 :]
        return replace(state, seats=seats, events=events)
    if isinstance(event, GameStarted):
        seats = tuple(replace(s, rack=r) for s, r in zip(state.seats, event.racks, strict=True))
        return replace(
            state,
            status="playing",
            seats=seats,
            bag=tuple(event.bag),
            turn=0,
            turn_started_ms=event.at,
            scoreless_turns=0,
            events=events,
        )
    # The turns (every action of a game): each field spelt out rather than dataclasses.replace, which looks
    # the fields up again at every call.
    if isinstance(event, Placed):
        v = state.rules
        board = state.board.with_cells_unchecked(
            (v.index[t.square], t.letter.lower() if t.blank else t.letter) for t in event.tiles
        )
        s = state.seats[event.seat]
        seat = SeatState(
            s.name, s.bot, s.score + event.score, event.rack, s.reserve_tries, s.reserve_since_ms, s.account
        )
        seats = _put(state.seats, event.seat, seat)
        return _turn_taken(state, board, seats, tuple(event.bag), event, 0, events)
    if isinstance(event, Swapped | Passed | TimedOut):
        seats = state.seats
        bag = state.bag
        if isinstance(event, Swapped):
            s = seats[event.seat]
            seat = SeatState(
                s.name, s.bot, s.score, event.rack, s.reserve_tries, s.reserve_since_ms, s.account
            )
            seats = _put(seats, event.seat, seat)
            bag = tuple(event.bag)
        return _turn_taken(state, state.board, seats, bag, event, state.scoreless_turns + 1, events)
    if isinstance(event, Rejected):
        s = state.seats[event.seat]
        tries, anchor, _ = _reserve(s.reserve_tries, s.reserve_since_ms, event.at)
        s = replace(s, reserve_tries=max(0, tries - 1), reserve_since_ms=anchor)
        return replace(state, seats=_put(state.seats, event.seat, s), events=events)
    if isinstance(event, GameEnded):
        seats = tuple(replace(s, score=sc) for s, sc in zip(state.seats, event.scores, strict=True))
        return replace(
            state, status="ended", seats=seats, turn=None, turn_started_ms=None, result=event, events=events
        )
    raise TypeError(f"not an event: {event!r:.60}")


def replay(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """Fold ``events`` (unchecked, see :func:`apply`) onto ``state`` (default: :func:`new_state`)."""
    s = new_state() if state is None else state
    for e in events:
        s = apply(s, e)
    return s


def _turn_taken(
    state: GameState,
    board: Board,
    seats: tuple[SeatState, ...],
    bag: tuple[str, ...],
    event: Placed | Swapped | Passed | TimedOut,
    scoreless_turns: int,
    events: tuple[Event, ...],
) -> GameState:
    """``state`` after a turn ended by ``event`` (the next seat's turn begins): what ``replace(state, board=,
    seats=, bag=, turn=, turn_started_ms=, scoreless_turns=, turns_played=, events=)`` gives."""
    return GameState(
        state.status,
        state.variant,
        state.turn_seconds,
        state.rated,
        seats,
        board,
        bag,
        (event.seat + 1) % len(seats),
        event.at,
        scoreless_turns,
        state.turns_played + 1,
        state.result,
        events,
    )


def _put(seats: tuple[SeatState, ...], i: int, seat: SeatState) -> tuple[SeatState, ...]:
    return (*seats[:i], seat, *seats[i + 1 :])
