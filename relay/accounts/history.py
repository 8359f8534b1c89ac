"""Game history: one row per seat of every finished game (``game_players``), the profiles' source.

The rows are the journal's end of a game, summed up: written right after the end is committed
(:meth:`relay.accounts.members.TableMembers.game_ended`) and filled in at start-up for ended games that have
none (a relay stopped in between, or games that ended before accounts existed): the journal stays the truth,
the history is an index rebuilt from it, idempotently. An account's games are its claimed seats
(``seat_accounts``) joined to these rows, so a guest's games join the account made later.
"""

from __future__ import annotations

from dataclasses import dataclass

import engine

PAGE = 20


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's finished game. ``rank`` 1 is the top score (ties share it); ``best_word`` the main word
    of the seat's best placement."""

    table_id: str
    seat: int
    name: str
    bot: str | None
    score: int
    rank: int
    won: bool
    bingos: int
    best_word: str | None
    best_score: int | None
    moves: int
    ended_ms: int
    variant: str


def seat_results(table_id: str, state: engine.GameState) -> list[SeatResult]:
    """The rows of a finished game from its full fold (its ``events`` kept). Empty if it has not ended."""
    result = state.result
    if state.status != "ended" or result is None:
        return []
    rack_size = state.rules.rack_size
    best: dict[int, tuple[int, str]] = {}
    bingos: dict[int, int] = {}
    moves: dict[int, int] = {}
    for ev in state.events:
        if isinstance(ev, engine.Placed):
            if ev.score > best.get(ev.seat, (-1, ""))[0]:
                best[ev.seat] = (ev.score, ev.words[0] if ev.words else "")
            if len(ev.tiles) == rack_size:
                bingos[ev.seat] = bingos.get(ev.seat, 0) + 1
        if isinstance(ev, engine.Placed | engine.Swapped | engine.Passed | engine.TimedOut):
            moves[ev.seat] = moves.get(ev.seat, 0) + 1
    rows = []
    for i, seat in enumerate(state.seats):
        score = result.scores[i]
        top = best.get(i)
        rows.append(
            SeatResult(
                table_id=table_id,
                seat=i,
                name=seat.name,
                bot=seat.bot,
                score=score,
                rank=1 + sum(1 for s in result.scores if s > score),
                won=i in result.winners,
                bingos=bingos.get(i, 0),
                best_word=top[1] if top else None,
                best_score=top[0] if top else None,
                moves=moves.get(i, 0),
                ended_ms=result.at,
                variant=state.variant,
            )
        )
    return rows
