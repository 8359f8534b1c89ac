"""Turns: every change to a table goes through :meth:`Turns.run` under that table's lock."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

import engine
from relay.journal import JsonObject
from relay.logs import event as log_event
from relay.push import MIN_TURN_SECONDS as PUSH_MIN_TURN_SECONDS
from relay.tables import resend
from relay.tables.broadcast import Broadcaster
from relay.tables.services import TableServices
from relay.tables.table import (
    Conn,
    RelayError,
    SeatRating,
    Table,
    hash_token,
    uncork,
)

log = logging.getLogger("lexio.relay")


class Turns:
    """The one path that changes a table: decide, commit, fold, broadcast and answer, under its lock.

    ``after_step`` runs after every step that changed a table, still under its lock (the computer players
    are scheduled there: relay/tables/bots.py)."""

    def __init__(self, services: TableServices, broadcaster: Broadcaster) -> None:
        self.s = services
        self.tell = broadcaster
        self.after_step: Callable[[Table], None] = _nothing
        self._push_tasks: set[asyncio.Task[None]] = set()

    async def run(
        self,
        table: Table,
        conn: Conn | None,
        commands: Callable[[Table], Sequence[engine.Command]],
        *,
        kind: str,
        msg_id: str | None = None,
        new_token: str | None = None,
        check: Callable[[Table], bool] | None = None,
        t0: float | None = None,
        after: Callable[[], None] | None = None,
        digest: str | None = None,
        resent: bool = False,
    ) -> list[engine.Event]:
        """Decide, commit, fold, broadcast and answer, under the table's lock. Returns the events.

        ``commands`` is evaluated under the lock (so it sees the current state); ``check`` may veto a timer
        action whose reason vanished while waiting for the lock. Engine refusals are answered to ``conn``
        as errors and return []; nothing is written then. ``digest`` (relay/tables/resend.py): the client
        frame's content, journaled with its id; a ``resent`` one already journaled is told its answer again.
        """
        async with table.lock:
            if check is not None and not check(table):
                return []
            if kind != "timeout" and table.status == "playing" and self.s.due(table, self.s.now_ms()):
                # The turn ran out before this action was read (the sweeper ticks every 0.2 s): the clock
                # is the referee, so the table passes on time first and the action meets the new turn.
                await self.step(table, None, _timeout_pass, kind="timeout")
            return await self.step(
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

    async def step(
        self,
        table: Table,
        conn: Conn | None,
        commands: Callable[[Table], Sequence[engine.Command]],
        *,
        kind: str,
        msg_id: str | None = None,
        new_token: str | None = None,
        t0: float | None = None,
        after: Callable[[], None] | None = None,
        digest: str | None = None,
        resent: bool = False,
    ) -> list[engine.Event]:
        """The body of :meth:`run`; the caller holds the table's lock. Raises sqlite3.Error / StoreError
        (journal failure: nothing was folded, sent or acknowledged), JournalUnavailable (PostgreSQL)."""
        done = resend.already(table, conn, msg_id, digest) if resent else None
        if done is not None and conn is not None:
            resend.answer_again(self.s, table, conn, msg_id, done)
            return []
        now = self.s.now_ms()
        state = table.state
        events: list[engine.Event] = []
        try:
            for command in commands(table):
                new = engine.decide(state, command, now_ms=now, rng=table.rng, lexicon=self.s.lexicon)
                for ev in new:
                    state = engine.apply(state, ev)
                events.extend(new)
        except engine.LexioError as err:
            self.tell.refuse(table, conn, msg_id, err.code, err.message, dict(err.params), now, t0)
            return []
        except RelayError as rerr:
            self.tell.refuse(table, conn, msg_id, rerr.code, rerr.message, dict(rerr.params), now, t0)
            return []
        if not events:
            return []
        rows: list[tuple[JsonObject, str | None]] = []
        token_owner = True  # a join may seat computer players after the person (a rematch): not theirs
        for ev in events:
            th = None
            if new_token and token_owner and isinstance(ev, engine.SeatJoined) and not ev.bot:
                th, token_owner = hash_token(new_token), False
            rows.append((engine.event_to_dict(ev), th))
        first_seq = int(table.state.version) + 1
        before = table.state
        changed = str(state.status) if state.status != table.state.status else None
        frame = resend.frame_row(table, conn, msg_id, digest, first_seq, events)
        await self.s.host.append(table, first_seq, rows, status=changed, now_ms=now, frame=frame)
        if frame is not None:
            resend.remember(table.frames, (frame,))
        table.state = self.s.fold(state)
        for ev, (_, th) in zip(events, rows, strict=True):
            _track(table, ev, th, conn)
        if new_token is not None:
            table.empty_since = None
        self.s.metrics.events += len(events)
        self.s.metrics.actions[kind] += 1
        # A joining connection gets welcome + snapshot (which hold these events) instead.
        joining = conn if new_token is not None else None
        conns = table.cork()  # one write per socket for the whole action: its events, and the actor's ack
        try:
            self.tell.events(table, events, first_seq, now, joining, conns)
            if joining is None:
                self.tell.answer(table, conn, msg_id, events, now, t0)
            else:
                self.tell.latency(t0)
        finally:
            uncork(conns)
        self.tell.watchers_changed(table)  # a spectator took a seat, or a seat left and now watches
        log_event(
            "action",
            table=table.id,
            kind=kind,
            seat=conn.seat if conn is not None else _seat_of(events[0]),
            events=",".join(type(e).__name__ for e in events),
            seq=int(state.version),
        )
        if changed == "ended":
            await self._record_end(table)
        if after is not None:
            after()  # still under the lock: nothing can reach the table in between
        if changed != "ended" and any(isinstance(e, engine.SeatJoined | engine.SeatLeft) for e in events):
            await self.ratings_changed(table)  # who sits changed: their ratings, a rated table's chances
        if state.turn_seconds >= PUSH_MIN_TURN_SECONDS and (before.turn != state.turn or changed is not None):
            self._turn_moved(table, before, table.state)
        self.after_step(table)
        return events

    async def ratings_changed(self, table: Table, known: tuple[SeatRating, ...] | None = None) -> None:
        """Reads the players' ratings (or takes ``known``) and tells every connection if they changed. A
        failure costs the numbers, not the action (logged)."""
        try:
            fresh = await self.s.members.ratings(table) if known is None else known
        except Exception:
            log.exception("cannot read the ratings", extra={"fields": {"table": table.id}})
            return
        if fresh != table.ratings:
            table.ratings = fresh
            self.tell.ratings(table)

    def _turn_moved(self, table: Table, before: engine.GameState, after: engine.GameState) -> None:
        """Web Push (relay/push): the turn that ended and the one that began, told in the background (a push
        service may take seconds to answer; the game does not wait). Only correspondence turns push."""
        if after.turn_seconds < PUSH_MIN_TURN_SECONDS:
            return
        push, ended = self.s.push, before.turn if before.status == "playing" else None
        began = after.turn if after.status == "playing" else None
        account = after.seats[began].account if began is not None else None
        deadline = self.s.clock(table)["deadline_ms"] if began is not None else None

        async def tell() -> None:
            if ended is not None:
                await push.turn_ended(table.id, ended)
            if began is not None and deadline is not None:
                await push.turn_began(table.id, began, account, int(deadline), int(after.turn_seconds))

        task = asyncio.get_running_loop().create_task(tell())
        self._push_tasks.add(task)  # kept until done: a task nobody holds may be collected mid-way
        task.add_done_callback(self._push_tasks.discard)

    async def _record_end(self, table: Table) -> None:
        # After the end is committed: a failure here loses nothing (the history is filled in from the
        # journal at the next start, relay/accounts/history.py) and must not fail the action.
        try:
            changes = await self.s.members.game_ended(table.id, self.s.full_state(table))
        except Exception:
            log.exception("cannot record a game's history", extra={"fields": {"table": table.id}})
            return
        if changes:
            await self.ratings_changed(table, changes)
        elif table.state.rated:  # recorded meanwhile by the relay's fill-in: the changes are read back
            await self.ratings_changed(table)


def _track(table: Table, ev: engine.Event, th: str | None, conn: Conn | None) -> None:
    """Who sits where after a seat event: tokens, connections and absences move with the seats."""
    if isinstance(ev, engine.SeatJoined):
        table.tokens.append(th)
        if conn is not None and th is not None:
            conn.seat = ev.seat
            table.conns[ev.seat] = conn
            table.watchers.discard(conn)
    elif isinstance(ev, engine.SeatLeft):
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


def _timeout_pass(table: Table) -> list[engine.Command]:
    turn = table.state.turn
    return [] if turn is None else [engine.TimeoutPass(turn)]  # no turn: nothing ran out


def _seat_of(ev: engine.Event) -> int | None:
    """The seat an event is about, for the log (TableCreated, GameStarted and GameEnded have none)."""
    seat = getattr(ev, "seat", None)
    return seat if isinstance(seat, int) else None


def _nothing(table: Table) -> None:
    """No computer players: nothing to schedule after a step."""
