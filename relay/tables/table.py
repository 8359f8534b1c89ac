"""A live table, its connections and the values every part of the referee shares
(relay/tables/__init__.py)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import logging
import random
import secrets
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, cast

import engine
from relay.journal.sqlite import FrameRow, compact_json

log = logging.getLogger("lexio.relay")

Clock = Callable[[], int]
CLOSE_RESTART = 1012
CLOSE_TAKEN_OVER = 4001
CLOSE_SLOW = 4002
BOT_NAMES = {
    "beginner": "Robot débutant",
    "easy": "Robot facile",
    "medium": "Robot moyen",
    "strong": "Robot fort",
    "expert": "Robot expert",
}
# A table nobody joined (or everyone left before the start) is dropped after this long.
EMPTY_TABLE_TTL_MS = 3600 * 1000
# Full states (journal included) kept in memory for repeated snapshots.
FULL_STATE_CACHE = 16
# A public table stays in the open list while someone is connected to it, and this long after the last
# one left (or after its creation, for the creator to arrive): a reload does not drop it, an abandoned
# table leaves the list within 30 s.
LISTED_GRACE_MS = 20 * 1000


# The OS's randomness; stateless, so one instance serves every table (each SystemRandom() would carry an
# unused 2.5 KB Mersenne Twister state).
_SYSTEM_RANDOM = secrets.SystemRandom()


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def elide_journal(state: engine.GameState) -> engine.GameState:
    """``state`` with its journal elided: the same fold, but ``events`` holds a None per event.

    The journal is in SQLite (committed before any ack) and only snapshots, bots and game records read it
    (:meth:`TableServices.full_state` reads it back); each event keeps the bag and racks (about 600
    bytes), which would otherwise grow a table's memory all game long. ``version`` (the number of events)
    is unchanged.
    """
    # None placeholders, typed as events: only their count (``version``) is ever read from a folded table.
    events = cast(tuple[engine.Event, ...], (None,) * len(state.events))
    if type(state) is not engine.GameState or not _PLAIN_STATE:
        return dataclasses.replace(state, events=events)
    # What dataclasses.replace does, without looking the fields up and calling __init__ again (once per
    # action): a new state, every field assigned as its __init__ would.
    copy = _new_object(engine.GameState)
    for name in _KEPT_FIELDS:
        _assign(copy, name, getattr(state, name))
    _assign(copy, "events", events)
    return copy


# Whether a GameState's __init__ only assigns its fields (no __post_init__, no field left out of it): then
# elide_journal may copy one field by field.
_PLAIN_STATE: Final = not hasattr(engine.GameState, "__post_init__") and all(
    f.init for f in dataclasses.fields(engine.GameState)
)
_KEPT_FIELDS: Final = tuple(f.name for f in dataclasses.fields(engine.GameState) if f.name != "events")
_new_object: Final = object.__new__
_assign: Final = object.__setattr__


def dumps(obj: dict[str, Any]) -> str:
    """Compact JSON (one encoder for every frame: ``json.dumps`` with options builds one per call)."""
    return compact_json(obj)


class RelayError(Exception):
    """A refusal by the relay itself (not a rule of the game); same wire shape as an engine error."""

    def __init__(self, code: str, message: str, **params: str | int | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = params


class Socket(Protocol):
    """The game's side of one WebSocket (:class:`relay.http.ws.WebSocket`)."""

    def send_text(self, text: str) -> None: ...

    def cork(self) -> None: ...

    def uncork(self) -> None: ...

    def buffered(self) -> int: ...

    def too_slow(self) -> bool: ...

    def close_soon(self, code: int, message: bytes = b"") -> None: ...

    async def close(self, *, code: int = 1000, message: bytes = b"") -> bool: ...


@dataclass(frozen=True, slots=True)
class Member:
    """The signed-in player behind a connection (relay/accounts): their account id and nickname."""

    id: str
    nickname: str


@dataclass(frozen=True, slots=True)
class Suspension:
    """A host's ban in force on a player (their account or their address): what they are told."""

    reason: str
    until_ms: int

    def refusal(self) -> RelayError:
        """The ``banned`` refusal the player is told (``params``: the reason and the end, in ms)."""
        until = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(self.until_ms / 1000))
        return RelayError(
            "banned",
            f"banned by the host until {until}: {self.reason}",
            reason=self.reason,
            until=self.until_ms,
        )


@dataclass(frozen=True, slots=True)
class SeatRating:
    """A registered player's rating at a table, in the table's speed class (docs/ratings.md): the number
    shown and its "?"; ``change`` once a rated game has moved it; ``chance`` of the top score before a
    rated game starts."""

    seat: int
    rating: int
    provisional: bool
    change: int | None = None
    chance: float | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"seat": self.seat, "rating": self.rating, "provisional": self.provisional}
        if self.change is not None:
            out["change"] = self.change
        if self.chance is not None:
            out["chance"] = round(self.chance, 3)
        return out


@dataclass(frozen=True, slots=True)
class ChatSaid:
    """A line of a table's chat, as a report keeps it."""

    name: str | None
    text: str
    at_ms: int


class Members(Protocol):
    """What the tables ask of the accounts (relay/accounts/members.py: TableMembers)."""

    async def registered(self, name: str) -> bool:
        """Whether ``name`` is a registered nickname (ignoring case and accents): a guest may not take it."""
        ...

    async def seated(self, table_id: str, seat: int, account_id: str) -> None:
        """A signed-in player sat at ``seat``: the seat is the account's (their history)."""
        ...

    async def game_ended(self, table_id: str, state: engine.GameState) -> tuple[SeatRating, ...]:
        """A game ended (``state``: its full fold, events kept): its seats' rows join the history and a
        rated game moves its players' ratings, once; returns the seats' new ratings with their change (()
        for a casual game, or one recorded before)."""
        ...

    async def ratings(self, table: Table) -> tuple[SeatRating, ...]:
        """The registered players' ratings at ``table`` in its class, with the chances of a rated table's
        players while it waits for its start."""
        ...

    async def reserved(self, table_id: str) -> frozenset[str] | None:
        """The accounts a "play now" table was formed for (only they may sit); None: anyone may."""
        ...

    async def correspondence_full(self, account_id: str) -> bool:
        """Whether the account sits at as many games in days (not finished) as one may (issue 31)."""
        ...

    async def suspension(self, account_id: str | None, address: str) -> Suspension | None:
        """The ban in force on the account or the client address (its budget key), if any."""
        ...

    async def blockers(self, account_id: str) -> frozenset[str]:
        """The accounts that block ``account_id``."""
        ...

    async def blocked(self, account_id: str) -> frozenset[str]:
        """The accounts ``account_id`` blocks."""
        ...

    async def seat_deleted(self, table_id: str, seat: int) -> bool:
        """Whether the account that had this seat was deleted (its seat link no longer seats anyone)."""
        ...

    async def report(
        self, reporter_id: str, table: Table, seat: int, address: str | None, excerpt: Sequence[ChatSaid],
        reason: object, note: object,
    ) -> str:  # fmt: skip
        """Keeps a report on ``seat`` of ``table`` by the account ``reporter_id``; returns its id. Raises
        RelayError (``bad_reason``, ``bad_note``, ``report_self``, ``too_many_reports``)."""
        ...


class NoMembers:
    """No accounts (tests of the tables alone): every name is free."""

    async def registered(self, name: str) -> bool:
        return False

    async def seated(self, table_id: str, seat: int, account_id: str) -> None:
        return None

    async def game_ended(self, table_id: str, state: engine.GameState) -> tuple[SeatRating, ...]:
        return ()

    async def ratings(self, table: Table) -> tuple[SeatRating, ...]:
        return ()

    async def reserved(self, table_id: str) -> frozenset[str] | None:
        return None

    async def correspondence_full(self, account_id: str) -> bool:
        return False

    async def suspension(self, account_id: str | None, address: str) -> Suspension | None:
        return None

    async def blockers(self, account_id: str) -> frozenset[str]:
        return frozenset()

    async def blocked(self, account_id: str) -> frozenset[str]:
        return frozenset()

    async def seat_deleted(self, table_id: str, seat: int) -> bool:
        return False

    async def report(
        self, reporter_id: str, table: Table, seat: int, address: str | None, excerpt: Sequence[ChatSaid],
        reason: object, note: object,
    ) -> str:  # fmt: skip
        raise RelayError("accounts_unavailable", "this relay keeps no accounts")


class Conn:
    """One WebSocket connection: its seat (None: spectator or not joined) and its outbound frames.

    Frames are written to the socket at once, in order; the socket buffers what the peer has not taken
    yet, and a peer that lets more than its output cap (``--output-cap-kib``) pile up is closed with 4002
    (it can rejoin and resync). No sender task per socket: thousands of them would cost memory.
    """

    __slots__ = ("chat_times", "closing", "hides", "joined", "member", "peer", "seat", "table", "ws")

    def __init__(self, ws: Socket, peer: str, member: Member | None = None) -> None:
        self.ws = ws
        self.peer = peer
        self.member = member  # the signed-in player (their session cookie at the upgrade); None: a guest
        self.seat: int | None = None
        self.joined = False
        self.table: Table | None = None
        self.closing = False
        self.chat_times: Any = None  # relay/tables/chat.py: this connection's recent message times
        # The accounts the member blocks, read at their join: their lines are left out of the chat history.
        self.hides: frozenset[str] = frozenset()

    def send(self, frame: str) -> None:
        """Send a frame now; a peer too slow to take its frames is closed with 4002."""
        if self.closing:
            return
        if self.ws.too_slow():
            self.close_soon(CLOSE_SLOW, "too slow")
            return
        try:
            self.ws.send_text(frame)
        except Exception:
            # One frame that cannot go out (a bug) must not take the frames after it, nor the caller, down.
            log.exception("cannot send a frame", extra={"fields": {"peer": self.peer}})

    def close_soon(self, code: int, message: str) -> None:
        if self.closing:
            return
        self.closing = True
        self.ws.close_soon(code, message.encode())


@dataclass(slots=True)
class Table:
    id: str
    public: bool
    created_ms: int
    state: engine.GameState
    rng: random.Random
    tokens: list[str | None] = field(default_factory=list)  # sha256 of each seat's token; None for a bot
    conns: dict[int, Conn] = field(default_factory=dict)
    watchers: set[Conn] = field(default_factory=set)
    away_since: dict[int, int] = field(default_factory=dict)  # human seat -> ms it lost its connection
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bot_task: asyncio.Task[None] | None = None
    bot_levels: dict[int, str] = field(default_factory=dict)
    # Ended table: the new table proposed for the same players ({"table", "link", "by"}; the wire object).
    rematch: dict[str, Any] | None = None
    # New table of a rematch: the old table's computer players (name, level), seated after the first arrival.
    rematch_bots: tuple[tuple[str, str], ...] = ()
    # When the last connection left (None: someone is connected, or nobody came yet); the open list uses it.
    empty_since: int | None = None
    watchers_told: int = 0  # the spectator count last broadcast (docs/protocol.md, "watchers")
    # Ended table: each seat's post-game analysis (relay.tables.analysis; None while it is computed).
    analyses: dict[int, Any] = field(default_factory=dict)
    # (seat's token hash, frame id) -> the journaled frame of an action (relay/tables/resend.py).
    frames: dict[tuple[str, str], FrameRow] = field(default_factory=dict)
    # The registered players' ratings here (Members.ratings), sent after each welcome and when they change.
    ratings: tuple[SeatRating, ...] = ()

    @property
    def status(self) -> str:
        return str(self.state.status)

    def seat_count(self) -> int:
        return len(self.state.seats)

    def is_bot(self, seat: int) -> bool:
        return bool(self.state.seats[seat].bot)

    def connected(self, seat: int) -> bool:
        return self.is_bot(seat) or seat in self.conns

    def presence(self) -> list[dict[str, Any]]:
        return [{"seat": s, "connected": self.connected(s)} for s in range(self.seat_count())]

    def all_conns(self) -> Iterable[Conn]:
        yield from self.conns.values()
        yield from self.watchers

    @contextlib.contextmanager
    def corked(self) -> Iterator[None]:
        """Every frame sent inside to a connection of this table goes out in one write per connection."""
        conns = self.cork()
        try:
            yield
        finally:
            uncork(conns)

    def cork(self) -> list[Conn]:
        """Hold the frames sent to each connection of this table (:meth:`Socket.cork`) until
        :func:`uncork` of the list returned (the connections, seats first): the hot path's :meth:`corked`."""
        conns = [*self.conns.values(), *self.watchers]
        for conn in conns:
            conn.ws.cork()
        return conns


def uncork(conns: Iterable[Conn]) -> None:
    """Write what :meth:`Table.cork` held, one write per connection."""
    for conn in conns:
        conn.ws.uncork()
