"""Turns: every change to a table goes through :meth:`Turns.run` under that table's lock."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import engine
from relay import resend
from relay.logs import event as log_event
from relay.referee.broadcast import Broadcasts
from relay.referee.table import (
    Conn,
    RelayError,
    Table,
    hash_token,
)


class Turns(Broadcasts):
    """The one path that changes a table: decide, commit, fold, broadcast and answer, under its lock."""

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
        if joining is None and conn is not None:
            with conn.corked():  # the actor's event and ack in one write
                self._broadcast(table, events, first_seq, now, skip=None)
                self._answer(table, conn, msg_id, events, now, t0)
        else:
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

    def _schedule_bot(self, table: Table) -> None:
        """After every step: give a computer player on turn its move (relay/referee/bots.py)."""


def _timeout_pass(table: Table) -> list[Any]:
    return [engine.TimeoutPass(table.state.turn)]
