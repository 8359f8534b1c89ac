"""The referee: tables, their owner lock, clocks, journal commits and per-seat broadcasts.

Every change to a table goes through :meth:`Referee.run` under that table's ``asyncio.Lock``: the engine
decides, the events are committed to SQLite in one transaction, then folded, then each connection gets the
events redacted for its seat, then the actor gets its ack. A play and a timeout therefore cannot both happen.
The journal itself stays in SQLite: in memory a table keeps the fold (see :func:`elide_journal`).

Clocks live here, read from the injectable ``now_ms``; a sweeper task checks deadlines every ``tick``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import hmac
import json
import logging
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import engine
from relay import PROTOCOL_VERSION, resend
from relay.botdriver import BotDriver
from relay.config import MAX_TURN_SECONDS, MIN_TURN_SECONDS, Config
from relay.journal import Journal
from relay.logs import event as log_event
from relay.metrics import Metrics
from relay.store import FrameRow, RematchRow, StoreError

if TYPE_CHECKING:
    from relay.ownership import Ownership

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


def elide_journal(state: Any) -> Any:
    """``state`` with its journal elided: the same fold, but ``events`` holds a None per event.

    The journal is in SQLite (committed before any ack) and only snapshots, bots and game records read it
    (:meth:`Referee.full_state` reads it back); each event keeps the bag and racks (about 600 bytes), which
    would otherwise grow a table's memory all game long. ``version`` (the number of events) is unchanged.
    """
    return dataclasses.replace(state, events=(None,) * len(state.events))


def dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class RelayError(Exception):
    """A refusal by the relay itself (not a rule of the game); same wire shape as an engine error."""

    def __init__(self, code: str, message: str, **params: str | int | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = params


class Socket(Protocol):
    """The game's side of one WebSocket (:class:`relay.ws.WebSocket`)."""

    def send_text(self, text: str) -> None: ...

    def buffered(self) -> int: ...

    def too_slow(self) -> bool: ...

    def close_soon(self, code: int, message: bytes = b"") -> None: ...

    async def close(self, *, code: int = 1000, message: bytes = b"") -> bool: ...


class Conn:
    """One WebSocket connection: its seat (None: spectator or not joined) and its outbound frames.

    Frames are written to the socket at once, in order; the socket buffers what the peer has not taken
    yet, and a peer that lets more than its output cap (``--output-cap-kib``) pile up is closed with 4002
    (it can rejoin and resync). No sender task per socket: thousands of them would cost memory.
    """

    __slots__ = ("chat_times", "closing", "joined", "peer", "seat", "table", "ws")

    def __init__(self, ws: Socket, peer: str) -> None:
        self.ws = ws
        self.peer = peer
        self.seat: int | None = None
        self.joined = False
        self.table: Table | None = None
        self.closing = False
        self.chat_times: Any = None  # relay/chat.py: this connection's recent message times

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
    state: Any
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
    # Ended table: each seat's post-game analysis (relay.analysis; None while it is computed).
    analyses: dict[int, Any] = field(default_factory=dict)
    # (seat's token hash, frame id) -> the journaled frame of an action (relay/resend.py).
    frames: dict[tuple[str, str], FrameRow] = field(default_factory=dict)

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


class Referee:
    """Owns every live table. Created in the app's cleanup context; see :func:`relay.app.create_app`."""

    def __init__(
        self,
        config: Config,
        store: Journal,
        lexicon: engine.Lexicon,
        *,
        now_ms: Clock = wall_clock_ms,
        metrics: Metrics | None = None,
        bot_driver: BotDriver | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.lexicon = lexicon
        self.now_ms = now_ms
        self.metrics = metrics or Metrics()
        self.bot_driver = bot_driver
        self.tables: dict[str, Table] = {}
        self.sockets = 0
        self._sweeper: asyncio.Task[None] | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self._last_gc = 0
        self._closed = False
        self.started = time.monotonic()
        # The last full states read back from SQLite (table id -> (its fold, full state)): snapshots asked
        # again and again, and bots, are served from memory; bounded, least recently used out.
        self._full: OrderedDict[str, tuple[Any, Any]] = OrderedDict()
        # Cluster mode (relay/ownership.py): tables are claimed lazily and every append is fenced.
        self.cluster: Ownership | None = None

    # -- lifecycle -----------------------------------------------------------------------------------------
    def _rng(self, table_id: str) -> random.Random:
        if self.config.test_seed is not None:
            return random.Random(f"{self.config.test_seed}:{table_id}")
        return _SYSTEM_RANDOM

    def restore(self) -> int:
        """Rebuild every unfinished table from its journal; seats start disconnected now. Returns count."""
        now = self.now_ms()
        count = 0
        for row in self.store.tables(unfinished=True):
            try:
                table = self._load(row.id, row.public, row.created_ms)
            except (ValueError, KeyError, TypeError, StoreError):
                # One unreadable journal (e.g. written by a newer engine) must not keep the others down.
                log.exception("cannot restore table", extra={"fields": {"table": row.id}})
                continue
            for seat in range(table.seat_count()):
                if not table.is_bot(seat):
                    table.away_since[seat] = now
            self.tables[row.id] = table
            count += 1
        return count

    def _load(self, table_id: str, public: bool, created_ms: int) -> Table:
        state = engine.new_state()
        tokens: list[str | None] = []
        for row in self.store.events(table_id):
            ev = engine.event_from_dict(row.body)
            state = engine.apply(state, ev)
            _track_tokens(tokens, ev, row.token_hash)
        table = Table(table_id, public, created_ms, self._fold(state), self._rng(table_id), tokens)
        resend.remember(table.frames, self.store.frames(table_id))
        after = self.store.rematch_of(table_id)
        if after is not None:
            table.rematch = _rematch_frame(after)
        before = self.store.rematch_into(table_id)
        if before is not None:
            table.rematch_bots = before.bots
        return table

    def _fold(self, state: Any) -> Any:
        # In cluster mode a table keeps its journal in memory: reading it back would be a PostgreSQL call
        # on the event loop (snapshots), and the table's owner is the only writer anyway.
        return state if self.cluster is not None else elide_journal(state)

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._sweeper = loop.create_task(self._sweep_loop())
        self._checkpointer = loop.create_task(self._checkpoint_loop())

    async def _checkpoint_loop(self) -> None:
        # One worker thread at a time, once a second: the journal file catches up with the WAL off the loop.
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(1.0)
            try:
                await loop.run_in_executor(None, self.store.checkpoint)
            except Exception:
                log.exception("journal checkpoint failed")

    async def shutdown(self) -> None:
        """Stop timers and bots, and close every socket with 1012 "server restarting" so clients come back."""
        if self._closed:
            return
        if self.cluster is not None:
            await self.cluster.drain()  # commit what is in flight, release every table, then close
        self._closed = True
        for task in (self._sweeper, self._checkpointer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        closing = []
        for table in self.tables.values():
            if table.bot_task is not None:
                table.bot_task.cancel()
            for conn in list(table.all_conns()):
                conn.closing = True
                closing.append(conn.ws.close(code=CLOSE_RESTART, message=b"server restarting"))
        if closing:
            await asyncio.gather(*closing, return_exceptions=True)

    # -- tables ----------------------------------------------------------------------------------------------
    def create_table(
        self,
        *,
        turn_seconds: int,
        public: bool,
        variant: str = "lexio",
        rematch: Callable[[str], RematchRow] | None = None,
    ) -> Table:
        """Create and journal a new table; ``rematch`` builds, from the new id, the link that makes it the
        new table of a finished one (journaled in the same transaction).

        Raises RelayError bad_turn_seconds, engine.LexioError, StoreError / sqlite3.Error (nothing written).
        """
        table, events, link = self.new_table(
            turn_seconds=turn_seconds, public=public, variant=variant, rematch=rematch
        )
        self.store.create_table(
            table.id,
            created_ms=table.created_ms,
            public=public,
            status=table.status,
            events=events,
            rematch=link,
        )
        self.tables[table.id] = table
        self.metrics.events += len(events)
        log_event("table created", table=table.id, public=public, turn_seconds=turn_seconds)
        return table

    async def acreate_table(
        self,
        *,
        turn_seconds: int,
        public: bool,
        variant: str = "lexio",
        rematch: Callable[[str], RematchRow] | None = None,
    ) -> Table:
        """:meth:`create_table`, with the journal written off the event loop in cluster mode (where the
        table is not claimed: the node its first socket reaches claims it). Raises as create_table."""
        if self.cluster is None:
            return self.create_table(
                turn_seconds=turn_seconds, public=public, variant=variant, rematch=rematch
            )
        return await self.cluster.create_table(
            turn_seconds=turn_seconds, public=public, variant=variant, rematch=rematch
        )

    def new_table(
        self,
        *,
        turn_seconds: int,
        public: bool,
        variant: str = "lexio",
        rematch: Callable[[str], RematchRow] | None = None,
    ) -> tuple[Table, list[dict[str, Any]], RematchRow | None]:
        """A new table, its first events and its rematch link, not journaled yet. Raises RelayError
        bad_turn_seconds, engine.LexioError."""
        if not MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS:
            shown = str(turn_seconds) if abs(turn_seconds) < 10**9 else "a huge number"
            raise RelayError(
                "bad_turn_seconds",
                f"turn_seconds must be {MIN_TURN_SECONDS}-{MAX_TURN_SECONDS}, got {shown}",
                turn_seconds=shown,
            )
        now = self.now_ms()
        table_id = secrets.token_urlsafe(16)
        rng = self._rng(table_id)
        state = engine.new_state()
        events = engine.decide(
            state,
            engine.CreateTable(variant=variant, turn_seconds=turn_seconds),
            now_ms=now,
            rng=rng,
            lexicon=self.lexicon,
        )
        for ev in events:
            state = engine.apply(state, ev)
        link = rematch(table_id) if rematch is not None else None
        table = Table(table_id, public, now, self._fold(state), rng)
        if link is not None:
            table.rematch_bots = link.bots
        return table, [engine.event_to_dict(e) for e in events], link

    def full_state(self, table: Table) -> Any:
        """``table.state`` with its journal (elided in memory, see :func:`elide_journal`) read back from
        SQLite: what ``engine.view`` and the game record need. Raises StoreError / sqlite3.Error."""
        if self.cluster is not None:
            return table.state  # never elided in cluster mode (see _fold)
        version = int(table.state.version)
        cached = self._full.get(table.id)
        if cached is not None and cached[0] is table.state:  # the fold it was read for is still current
            self._full.move_to_end(table.id)
            return cached[1]
        rows = self.store.events(table.id)
        if len(rows) < version:
            raise StoreError(f"table {table.id}: the journal has {len(rows)} events, the table {version}")
        events = tuple(engine.event_from_dict(row.body) for row in rows[:version])
        state = dataclasses.replace(table.state, events=events)
        self._full[table.id] = (table.state, state)
        if len(self._full) > FULL_STATE_CACHE:
            self._full.popitem(last=False)
        return state

    def get(self, table_id: str) -> Table | None:
        return self.tables.get(table_id)

    def revive(self, table_id: str) -> Table | None:
        """A finished table back in memory from its journal (its players come back after a restart, or after
        its memory was freed: they see the end and any new table proposed). None unless it ended.

        Raises StoreError / sqlite3.Error if the journal cannot be read."""
        live = self.tables.get(table_id)
        if live is not None:
            return live
        row = self.store.table(table_id)
        if row is None or row.status != "ended":
            return None
        table = self._load(row.id, row.public, row.created_ms)
        self.tables[table_id] = table
        return table

    async def rematch(
        self, table: Table, conn: Conn, msg_id: str | None, link_for: Callable[[str], str]
    ) -> None:
        """Propose (once per table) a new table for the players of the ended ``table``: same turn time,
        visibility and variant; tell every connection of ``table``, then ack the asker. A second request
        gets the same table back. ``link_for`` turns a table id into its shareable address.

        Raises RelayError not_a_seat (spectator), not_ended (the game is not over); StoreError /
        sqlite3.Error if the journal refuses the new table (nothing was created nor told).
        """
        async with table.lock:
            seat = conn.seat
            if seat is None:
                raise RelayError("not_a_seat", "only a player of this table can propose a new table")
            if table.status != "ended":
                raise RelayError("not_ended", "a new table can be proposed once the game has ended")
            now = self.now_ms()
            if table.rematch is None:
                st = table.state
                bots = tuple((str(s.name), str(s.bot)) for s in st.seats if s.bot)

                def link(new_id: str) -> RematchRow:
                    return RematchRow(table.id, new_id, seat, link_for(new_id), bots, now)

                new = await self.acreate_table(
                    turn_seconds=int(st.turn_seconds),
                    public=table.public,
                    variant=str(st.variant),
                    rematch=link,
                )
                table.rematch = {"table": new.id, "link": link_for(new.id), "by": seat}
                frame = dumps({"type": "rematch", **table.rematch, "now": now})
                for c in list(table.all_conns()):
                    c.send(frame)
                self.metrics.actions["rematch"] += 1
                log_event("rematch", table=table.id, seat=seat, new_table=new.id)
            else:
                # Idempotent: the asker (e.g. a second player clicking at the same time) learns the same one.
                conn.send(dumps({"type": "rematch", **table.rematch, "now": now}))
            conn.send(dumps({"type": "ack", "id": msg_id, "seq": int(table.state.version), "now": now}))

    def read_table(self, table_id: str) -> Table | None:
        """A live table, or a finished one rebuilt from the journal (not kept)."""
        live = self.tables.get(table_id)
        if live is not None:
            return live
        row = self.store.table(table_id)
        if row is None or row.status == "abandoned":
            return None
        return self._load(row.id, row.public, row.created_ms)

    def open_tables(self) -> list[Table]:
        now = self.now_ms()
        out = []
        for t in self.tables.values():
            if not t.public or t.status not in ("waiting", "empty") or t.seat_count() >= 4:
                continue
            if t.conns or t.watchers:
                out.append(t)
                continue
            since = t.empty_since if t.empty_since is not None else t.created_ms
            if now - since < LISTED_GRACE_MS:
                out.append(t)
        out.sort(key=lambda t: t.created_ms, reverse=True)
        return out[:100]

    def counts_by_state(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for t in self.tables.values():
            counts[t.status] = counts.get(t.status, 0) + 1
        return counts

    # -- clocks ----------------------------------------------------------------------------------------------
    def clock(self, table: Table) -> dict[str, Any]:
        st = table.state
        if st.status != "playing" or st.turn is None:
            return {"turn": None, "deadline_ms": None, "grace_deadline_ms": None}
        deadline = int(st.turn_started_ms) + int(st.turn_seconds) * 1000
        grace: int | None = None
        away = table.away_since.get(st.turn)
        if away is not None and not table.is_bot(st.turn):
            grace = max(away, int(st.turn_started_ms)) + int(self.config.grace_seconds * 1000)
        return {"turn": st.turn, "deadline_ms": deadline, "grace_deadline_ms": grace}

    def _due(self, table: Table, now: int) -> bool:
        c = self.clock(table)
        if c["turn"] is None:
            return False
        effective = (
            c["deadline_ms"]
            if c["grace_deadline_ms"] is None
            else min(c["deadline_ms"], c["grace_deadline_ms"])
        )
        return bool(now >= effective)

    async def _sweep_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(self.config.tick_seconds)
            # How late the loop woke us: the time any frame may wait before the relay even reads it.
            self.metrics.observe_loop_lag(max(0.0, loop.time() - before - self.config.tick_seconds))
            try:
                await self.sweep()
            except Exception:
                log.exception("sweep failed")

    async def sweep(self) -> None:
        """Fire every due deadline: turn timeouts, disconnect grace, freeing seats left before the start."""
        now = self.now_ms()
        for table in list(self.tables.values()):
            try:
                if table.status == "playing" and self._due(table, now):
                    await self.run(
                        table,
                        None,
                        _timeout_pass,
                        kind="timeout",
                        check=lambda t: self._due(t, self.now_ms()),
                    )
                elif table.status == "waiting" and table.away_since:
                    await self._free_abandoned_seat(table, now)
            except Exception:
                # One table whose journal refuses a commit must not hold up every other table's clock.
                log.exception("timer action failed", extra={"fields": {"table": table.id}})
        if now - self._last_gc >= 60_000:
            self._last_gc = now
            self._collect(now)

    async def _free_abandoned_seat(self, table: Table, now: int) -> None:
        limit = int(self.config.waiting_grace_seconds * 1000)
        gone = [s for s, at in table.away_since.items() if now - at >= limit]
        if not gone:
            return
        seat = max(gone)  # the highest first, so lower seat numbers stay valid

        def still_gone(t: Table) -> bool:
            at = t.away_since.get(seat)
            return t.status == "waiting" and at is not None and self.now_ms() - at >= limit

        def leave(t: Table) -> list[Any]:
            return [engine.Leave(seat)]

        await self.run(table, None, leave, kind="auto_leave", check=still_gone)

    def _collect(self, now: int) -> None:
        # Finished games stay in the journal (readable); only memory is freed. Empty tables are abandoned.
        for table in list(self.tables.values()):
            if table.status == "ended" and not table.conns and not table.watchers:
                del self.tables[table.id]
                if self.cluster is not None:
                    self.cluster.let_go(table)
            elif (
                table.seat_count() == 0
                and not table.watchers
                and (
                    now - table.created_ms >= EMPTY_TABLE_TTL_MS
                    # Nobody ever sat there (its only event is its creation): a shorter life.
                    or (
                        int(table.state.version) <= 1
                        and now - table.created_ms >= self.config.unjoined_table_seconds * 1000
                    )
                )
            ):
                del self.tables[table.id]
                if self.cluster is not None:
                    self.cluster.let_go(table, abandoned=now)
                else:
                    self.store.set_status(table.id, "abandoned", now)

    # -- the one path that changes a table ----------------------------------------------------------------
    async def run(
        self,
        table: Table,
        conn: Conn | None,
        commands: Callable[[Table], Sequence[Any]],
        *,
        kind: str,
        msg_id: str | None = None,
        new_token: str | None = None,
        check: Callable[[Table], bool] | None = None,
        t0: float | None = None,
        after: Callable[[], None] | None = None,
        digest: str | None = None,
        resent: bool = False,
    ) -> list[Any]:
        """Decide, commit, fold, broadcast and answer, under the table's lock. Returns the events.

        ``commands`` is evaluated under the lock (so it sees the current state); ``check`` may veto a timer
        action whose reason vanished while waiting for the lock. Engine refusals are answered to ``conn``
        as errors and return []; nothing is written then. ``digest`` (relay/resend.py): the client frame's
        content, journaled with its id; a ``resent`` one already journaled is told its answer again.
        """
        async with table.lock:
            if check is not None and not check(table):
                return []
            if kind != "timeout" and table.status == "playing" and self._due(table, self.now_ms()):
                # The turn ran out before this action was read (the sweeper ticks every 0.2 s): the clock
                # is the referee, so the table passes on time first and the action meets the new turn.
                await self._step(table, None, _timeout_pass, kind="timeout")
            return await self._step(
                table,
                conn,
                commands,
                kind=kind,
                msg_id=msg_id,
                new_token=new_token,
                t0=t0,
                after=after,
                digest=digest,
                resent=resent,
            )

    async def _step(
        self,
        table: Table,
        conn: Conn | None,
        commands: Callable[[Table], Sequence[Any]],
        *,
        kind: str,
        msg_id: str | None = None,
        new_token: str | None = None,
        t0: float | None = None,
        after: Callable[[], None] | None = None,
        digest: str | None = None,
        resent: bool = False,
    ) -> list[Any]:
        """The body of :meth:`run`; the caller holds the table's lock. Raises sqlite3.Error / StoreError
        (journal failure: nothing was folded, sent or acknowledged), JournalUnavailable (PostgreSQL)."""
        done = resend.already(table, conn, msg_id, digest) if resent else None
        if done is not None and conn is not None:
            resend.answer_again(self, table, conn, msg_id, done)
            return []
        now = self.now_ms()
        state = table.state
        events: list[Any] = []
        try:
            for command in commands(table):
                new = engine.decide(state, command, now_ms=now, rng=table.rng, lexicon=self.lexicon)
                for ev in new:
                    state = engine.apply(state, ev)
                events.extend(new)
                # A full table starts by itself even if the engine leaves it to the relay.
                if isinstance(command, engine.Join) and state.status == "waiting" and len(state.seats) >= 4:
                    more = engine.decide(
                        state, engine.Start(0), now_ms=now, rng=table.rng, lexicon=self.lexicon
                    )
                    for ev in more:
                        state = engine.apply(state, ev)
                    events.extend(more)
        except engine.LexioError as err:
            self._refuse(table, conn, msg_id, err.code, err.message, dict(err.params), now, t0)
            return []
        except RelayError as rerr:
            self._refuse(table, conn, msg_id, rerr.code, rerr.message, dict(rerr.params), now, t0)
            return []
        if not events:
            return []
        rows: list[tuple[dict[str, Any], str | None]] = []
        token_owner = True  # a join may seat computer players after the person (a rematch): not theirs
        for ev in events:
            th = None
            if new_token and token_owner and type(ev).__name__ == "SeatJoined" and not ev.bot:
                th, token_owner = hash_token(new_token), False
            rows.append((engine.event_to_dict(ev), th))
        first_seq = int(table.state.version) + 1
        changed = str(state.status) if state.status != table.state.status else None
        frame = resend.frame_row(table, conn, msg_id, digest, first_seq, events)
        if self.cluster is not None:
            await self.cluster.append(table, first_seq, rows, status=changed, now_ms=now, frame=frame)
        else:
            self.store.append(table.id, first_seq, rows, status=changed, now_ms=now, frame=frame)
        if frame is not None:
            resend.remember(table.frames, (frame,))
        old_state = table.state
        table.state = self._fold(state)
        for ev, (_, th) in zip(events, rows, strict=True):
            self._track(table, old_state, ev, th, conn)
        if new_token is not None:
            table.empty_since = None
        self.metrics.events += len(events)
        self.metrics.actions[kind] += 1
        # A joining connection gets welcome + snapshot (which hold these events) instead.
        joining = conn if new_token is not None else None
        self._broadcast(table, events, first_seq, now, skip=joining)
        if joining is None:
            self._answer(table, conn, msg_id, events, now, t0)
        else:
            self._latency(t0)
        self.watchers_changed(table)  # a spectator took a seat, or a seat left and now watches
        log_event(
            "action",
            table=table.id,
            kind=kind,
            seat=conn.seat if conn is not None else getattr(events[0], "seat", None),
            events=",".join(type(e).__name__ for e in events),
            seq=int(state.version),
        )
        if after is not None:
            after()  # still under the lock: nothing can reach the table in between
        self._schedule_bot(table)
        return events

    def _track(self, table: Table, old: Any, ev: Any, th: str | None, conn: Conn | None) -> None:
        name = type(ev).__name__
        if name == "SeatJoined":
            table.tokens.append(th)
            if conn is not None and th is not None:
                conn.seat = ev.seat
                table.conns[ev.seat] = conn
                table.watchers.discard(conn)
        elif name == "SeatLeft":
            s = ev.seat
            if 0 <= s < len(table.tokens):
                table.tokens.pop(s)
            gone = table.conns.pop(s, None)
            if gone is not None:
                gone.seat = None
                table.watchers.add(gone)
            table.conns = {(k if k < s else k - 1): c for k, c in table.conns.items()}
            for k, c in table.conns.items():
                c.seat = k
            table.away_since = {(k if k < s else k - 1): v for k, v in table.away_since.items() if k != s}

    def _refuse(
        self,
        table: Table,
        conn: Conn | None,
        msg_id: str | None,
        code: str,
        message: str,
        params: dict[str, Any],
        now: int,
        t0: float | None,
    ) -> None:
        if code == "reserve_empty" and conn is not None and conn.seat is not None:
            tries, refill = engine.reserve_at(table.state, conn.seat, now)
            params = {**params, "tries": tries, "next_refill_ms": refill}
        if conn is not None:
            self.send_error(conn, msg_id, code, message, params, now)
            self._latency(t0)
        else:
            self.metrics.rejections[code] += 1
        log_event("refused", table=table.id, seat=conn.seat if conn else None, code=code)

    def send_error(
        self,
        conn: Conn,
        msg_id: str | None,
        code: str,
        message: str,
        params: dict[str, Any] | None = None,
        now: int | None = None,
    ) -> None:
        """Answer ``conn`` with an error frame (docs/protocol.md) and count the rejection by code."""
        self.metrics.rejections[code] += 1
        frame = {
            "type": "error",
            "id": msg_id,
            "code": code,
            "message": message,
            "params": params or {},
            "now": self.now_ms() if now is None else now,
        }
        conn.send(dumps(frame))

    def _latency(self, t0: float | None) -> None:
        if t0 is not None:
            self.metrics.observe_latency(time.perf_counter() - t0)

    def _broadcast(
        self, table: Table, events: list[Any], first_seq: int, now: int, skip: Conn | None
    ) -> None:
        clock = self.clock(table)
        for offset, ev in enumerate(events):
            seq = first_seq + offset
            spectator: str | None = None
            # Seats whose redactions are the same (all but the actor's, mostly) share one encoded frame.
            texts: list[tuple[dict[str, Any], str]] = []
            for conn in list(table.all_conns()):
                if conn is skip:
                    continue
                if conn.seat is None:
                    if spectator is None:
                        spectator = dumps(
                            {
                                "type": "event",
                                "seq": seq,
                                "event": engine.redact_event(ev, None),
                                "clock": clock,
                                "now": now,
                            }
                        )
                    conn.send(spectator)
                else:
                    seen = engine.redact_event(ev, conn.seat)
                    text = next((t for r, t in texts if r == seen), None)
                    if text is None:
                        text = dumps({"type": "event", "seq": seq, "event": seen, "clock": clock, "now": now})
                        texts.append((seen, text))
                    conn.send(text)

    def _answer(
        self,
        table: Table,
        conn: Conn | None,
        msg_id: str | None,
        events: list[Any],
        now: int,
        t0: float | None,
    ) -> None:
        if conn is None:
            return
        last = events[-1]
        seq = int(table.state.version)
        if type(last).__name__ == "Rejected":
            tries, refill = engine.reserve_at(table.state, last.seat, now)
            self.metrics.rejections["unknown_word"] += 1
            conn.send(
                dumps(
                    {
                        "type": "rejected",
                        "id": msg_id,
                        "seq": seq,
                        "words": list(last.unknown),
                        "reserve": {"tries": tries, "next_refill_ms": refill},
                        "now": now,
                    }
                )
            )
        else:
            conn.send(dumps({"type": "ack", "id": msg_id, "seq": seq, "now": now}))
        self._latency(t0)

    # -- connections ---------------------------------------------------------------------------------------
    def snapshot(self, table: Table, conn: Conn) -> None:
        now = self.now_ms()
        conn.send(
            dumps(
                {
                    "type": "snapshot",
                    "seq": int(table.state.version),
                    "view": engine.view(self.full_state(table), conn.seat, now_ms=now),
                    "clock": self.clock(table),
                    "presence": table.presence(),
                    "watchers": len(table.watchers),
                    "now": now,
                    **({"rematch": table.rematch} if table.rematch is not None else {}),
                }
            )
        )

    def welcome(self, table: Table, conn: Conn, msg_id: str | None, token: str | None) -> None:
        conn.send(
            dumps(
                {
                    "type": "welcome",
                    "protocol": PROTOCOL_VERSION,
                    "id": msg_id,
                    "table": table.id,
                    "seat": conn.seat,
                    "token": token,
                    "now": self.now_ms(),
                }
            )
        )
        self.snapshot(table, conn)
        from relay.chat import send_history  # here: relay.chat builds on this module

        send_history(self, table, conn)

    def watchers_changed(self, table: Table) -> None:
        """Tell every connection how many watch, when that number changed since it was last told."""
        count = len(table.watchers)
        if count == table.watchers_told:
            return
        table.watchers_told = count
        frame = dumps({"type": "watchers", "count": count, "now": self.now_ms()})
        for c in list(table.all_conns()):
            c.send(frame)

    def presence_changed(self, table: Table, clock_changed: bool) -> None:
        now = self.now_ms()
        frame = dumps({"type": "presence", "seats": table.presence(), "now": now})
        clock = dumps({"type": "clock", "clock": self.clock(table), "now": now}) if clock_changed else None
        for c in list(table.all_conns()):
            c.send(frame)
            if clock is not None:
                c.send(clock)

    async def join_by_name(self, table: Table, conn: Conn, name: str, msg_id: str | None, t0: float) -> None:
        token = secrets.token_urlsafe(24)

        def welcome() -> None:
            conn.joined = True
            conn.table = table
            self.welcome(table, conn, msg_id, token)
            self.presence_changed(table, clock_changed=False)

        def commands(t: Table) -> list[Any]:
            joins: list[Any] = [engine.Join(name)]
            if t.rematch_bots and t.seat_count() == 0 and t.status in ("empty", "waiting"):
                # The new table of a rematch: the old table's computer players sit right after the first
                # person (seat 0 can start the game; a bot could not), in their old order.
                taken = {name.strip().casefold()}
                for bot_name, level in t.rematch_bots:
                    if bot_name.casefold() in taken:
                        bot_name = next(f"Robot {n}" for n in range(1, 6) if f"robot {n}" not in taken)
                    taken.add(bot_name.casefold())
                    joins.append(engine.Join(bot_name, bot=level))
            return joins

        await self.run(
            table,
            conn,
            commands,
            kind="join",
            msg_id=msg_id,
            new_token=token,
            t0=t0,
            after=welcome,
        )

    async def join_by_token(self, table: Table, conn: Conn, token: str, msg_id: str | None) -> None:
        async with table.lock:
            digest = hash_token(token)
            seat = next(
                (
                    s
                    for s, th in enumerate(table.tokens)
                    if th is not None and hmac.compare_digest(th, digest)
                ),
                None,
            )
            if seat is None:
                raise RelayError("bad_token", "this token holds no seat at this table")
            if table.status == "playing" and self._due(table, self.now_ms()):
                # Back after the grace (or the turn) ran out but before the timer ticked: too late, the
                # table passes first; coming back must not revive a deadline that already expired.
                await self._step(table, None, _timeout_pass, kind="timeout")
            old = table.conns.get(seat)
            if old is not None and old is not conn:
                old.seat = None
                old.close_soon(CLOSE_TAKEN_OVER, "seat taken over")
            conn.seat = seat
            conn.joined = True
            conn.table = table
            table.conns[seat] = conn
            table.watchers.discard(conn)
            table.empty_since = None
            was_away = table.away_since.pop(seat, None) is not None
            self.welcome(table, conn, msg_id, token)
            self.presence_changed(table, clock_changed=was_away and table.state.turn == seat)
            self.watchers_changed(table)
            log_event("rejoin", table=table.id, seat=seat)

    async def watch(self, table: Table, conn: Conn, msg_id: str | None) -> None:
        async with table.lock:
            conn.joined = True
            conn.table = table
            conn.seat = None
            table.watchers.add(conn)
            table.empty_since = None
            self.welcome(table, conn, msg_id, None)
            self.watchers_changed(table)

    async def disconnect(self, conn: Conn) -> None:
        table = conn.table
        if table is None:
            return
        async with table.lock:
            table.watchers.discard(conn)
            self.watchers_changed(table)
            seat = conn.seat
            if seat is not None and table.conns.get(seat) is conn:
                del table.conns[seat]
                if table.status in ("waiting", "playing"):
                    table.away_since[seat] = self.now_ms()
                self.presence_changed(table, clock_changed=table.state.turn == seat)
                log_event("disconnect", table=table.id, seat=seat)
            if not table.conns and not table.watchers:
                table.empty_since = self.now_ms()

    # -- bots ------------------------------------------------------------------------------------------------
    def _schedule_bot(self, table: Table) -> None:
        st = table.state
        if self._closed or st.status != "playing" or st.turn is None or not table.is_bot(st.turn):
            return  # shutting down: the bot moves after the restart (restore schedules it)
        if self.tables.get(table.id) is not table:
            return  # no longer served here (cluster mode: dropped); its new owner schedules it
        if table.bot_task is not None and not table.bot_task.done():
            return
        table.bot_task = asyncio.get_running_loop().create_task(self._bot_turn(table, int(st.version)))

    async def _bot_turn(self, table: Table, version: int) -> None:
        try:
            await self._bot_move(table, version)
        except Exception:
            # E.g. the journal refused the commit: nothing changed; the next attempt comes after a pause.
            log.exception("bot turn failed", extra={"fields": {"table": table.id}})
        finally:
            if table.bot_task is asyncio.current_task():
                table.bot_task = None
            if not self._closed:
                self._schedule_bot(table)  # the next seat may be a bot too (or this one, still on turn)

    async def _bot_move(self, table: Table, version: int) -> None:
        low, high = self.config.bot_delay_seconds
        await asyncio.sleep(random.uniform(low, high))
        st = table.state
        if int(st.version) != version or st.turn is None or not table.is_bot(int(st.turn)):
            return
        seat = int(st.turn)
        level = str(st.seats[seat].bot)
        move: Any = engine.Pass()
        if self.bot_driver is not None:
            # A bot needs the position, not the journal: no SQLite read nor redaction on the loop per move.
            view = engine.view(dataclasses.replace(table.state, events=()), seat, now_ms=self.now_ms())
            rng = random.Random(secrets.randbits(64))
            choose_async = getattr(self.bot_driver, "choose_async", None)
            try:
                if choose_async is not None:  # worker processes reached by the loop's own I/O: no thread
                    move = await choose_async(view, level, rng)
                else:
                    move = await asyncio.get_running_loop().run_in_executor(
                        None, self.bot_driver.choose, view, level, rng
                    )
            except Exception:
                log.exception(
                    "bot driver failed; passing", extra={"fields": {"table": table.id, "seat": seat}}
                )
                move = engine.Pass()

        def still_on(t: Table) -> bool:
            return int(t.state.version) == version

        events = await self.run(table, None, lambda t: [engine.Play(seat, move)], kind="bot", check=still_on)
        if not events or type(events[-1]).__name__ == "Rejected":
            # Refused or unknown words: the bot passes rather than stall the table.
            await self.run(
                table,
                None,
                lambda t: [engine.Play(seat, engine.Pass())],
                kind="bot",
                check=lambda t: t.state.turn == seat and t.state.status == "playing",
            )


def _timeout_pass(table: Table) -> list[Any]:
    return [engine.TimeoutPass(table.state.turn)]


def _rematch_frame(row: RematchRow) -> dict[str, Any]:
    return {"table": row.new_id, "link": row.link, "by": row.by_seat}


def _track_tokens(tokens: list[str | None], ev: Any, token_hash: str | None) -> None:
    name = type(ev).__name__
    if name == "SeatJoined":
        tokens.append(token_hash)
    elif name == "SeatLeft" and 0 <= ev.seat < len(tokens):
        tokens.pop(ev.seat)
