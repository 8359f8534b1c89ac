"""The lobby's games to watch (issue 27, docs/protocol.md "GET /api/tables"): public games in progress with
their players, scores, move number and watchers, the "top game" first."""

from __future__ import annotations

from typing import Any

from relay.tables import Referee, Table
from relay.tables.registry import LIVE_MAX


def live_entry(referee: Referee, table: Table) -> dict[str, Any]:
    """One game in progress as the lobby lists it. ``move`` is the turn being played (1 before any: the
    fold counts turns, so no journal is read); ``watchers`` is None where this relay does not serve the
    table (another node of a cluster counts them)."""
    st = table.state
    move = st.turns_played + 1
    return {
        "id": table.id,
        "variant": str(st.variant),
        "turn_seconds": int(st.turn_seconds),
        "seats": [
            {"seat": i, "name": s.name, "bot": s.bot, "score": s.score} for i, s in enumerate(st.seats)
        ],
        "turn": st.turn,
        "move": move,
        "watchers": len(table.watchers) if referee.services.host.watchers_known(table) else None,
    }


def rank_live(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The top game first: the most watched, then the highest scores together, then the newest (the
    entries come newest first, and the sort keeps that order among equals)."""
    return sorted(
        entries,
        key=lambda e: (-(e["watchers"] or 0), -sum(int(s["score"]) for s in e["seats"])),
    )


async def live_games(referee: Referee) -> list[dict[str, Any]]:
    """The top :data:`LIVE_MAX` games to watch, ranked among every public game in progress."""
    return rank_live([live_entry(referee, t) for t in await referee.services.host.live_tables()])[:LIVE_MAX]
