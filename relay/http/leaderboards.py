"""Leaderboards per speed class (docs/ratings.md, "Leaderboards"): ``GET /api/leaderboard/{speed}``."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from relay.accounts.errors import AccountError
from relay.accounts.ratings import Leader
from relay.http.accounts import answers, current
from relay.http.keys import ACCOUNTS_KEY
from relay.ratings import RatingError, parse_class

MAX_PAGE = 100


def _leader(row: Leader) -> dict[str, Any]:
    return {"rank": row.rank, "nickname": row.nickname, "rating": row.rating.display, "games": row.games}


async def _leaderboard(request: web.Request) -> web.Response:
    """The top 100 of a class (active in the last 30 days, not provisional, not banned), 20 a page, and the
    signed-in viewer's own row. Refusals: ``unknown_class``, ``bad_request`` (page)."""
    try:
        speed = parse_class(request.match_info["speed"])
    except RatingError as err:
        raise AccountError(err.code, err.message) from err
    raw = request.query.get("page", "0")
    if not raw.isdigit() or int(raw) > MAX_PAGE:
        raise AccountError("bad_request", "page is a number of 0 or more")
    viewer = await current(request) if "lexio_session" in request.cookies else None
    accounts = request.app[ACCOUNTS_KEY]
    board = await accounts.call(accounts.ratings.leaderboard, speed, int(raw), viewer.id if viewer else None)
    return web.json_response(
        {
            "speed": board.speed.value,
            "page": board.page,
            "more": board.more,
            "total": board.total,
            "rows": [_leader(r) for r in board.rows],
            "mine": _leader(board.mine) if board.mine is not None else None,
        }
    )


def add_routes(app: web.Application) -> None:
    app.router.add_get("/api/leaderboard/{speed}", answers(_leaderboard))
