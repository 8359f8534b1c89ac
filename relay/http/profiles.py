"""Profiles and history (docs/protocol.md, "Profiles"): ``/u/{nickname}``'s data, head-to-head, my games."""

from __future__ import annotations

import io
import time
import unicodedata
import zipfile
from typing import Any
from urllib.parse import quote

from aiohttp import web

import engine
from relay.accounts.errors import AccountError
from relay.accounts.nicknames import fold
from relay.accounts.profiles import Game
from relay.accounts.store import Account
from relay.http.accounts import answers, signed_in
from relay.http.keys import ACCOUNTS_KEY, REFEREE_KEY
from relay.http.views import game_record
from relay.tables import Table

MAX_PAGE = 10_000


def _game_json(game: Game) -> dict[str, Any]:
    me = game.me
    return {
        "table": game.table_id,
        "ended_ms": game.ended_ms,
        "seat": game.seat,
        "score": me.score,
        "result": game.result,
        "players": [
            {
                "seat": p.seat,
                "name": p.name,
                "bot": p.bot,
                "score": p.score,
                "nickname": p.nickname,
                "deleted": p.deleted,
            }
            for p in game.players
        ],
        "replay": f"/t/{game.table_id}",
    }


async def _player(request: web.Request, key: str) -> Account:
    raw = request.match_info[key]
    accounts = request.app[ACCOUNTS_KEY]
    account = None if len(raw) > 40 else await accounts.call(accounts.store.by_nickname, fold(raw))
    if account is None:
        raise AccountError("no_such_player", "no player has this nickname", status=404)
    return account


def _page(request: web.Request) -> int:
    raw = request.query.get("page", "0")
    if not raw.isdigit() or int(raw) > MAX_PAGE:
        raise AccountError("bad_request", "page is a number of 0 or more")
    return int(raw)


async def _profile(request: web.Request) -> web.Response:
    account = await _player(request, "nickname")
    page = _page(request)
    accounts = request.app[ACCOUNTS_KEY]
    stats = await accounts.call(accounts.profiles.stats, account.id)
    games, more = await accounts.call(accounts.profiles.games, account.id, page)
    standings = await accounts.call(accounts.ratings.standings, account.id)
    history = await accounts.call(accounts.ratings.history, account.id)
    best = None if stats.best_play is None else {"word": stats.best_play[0], "score": stats.best_play[1]}
    return web.json_response(
        {
            "nickname": account.nickname,
            "created_ms": account.created_ms,
            "stats": {
                "games": stats.games,
                "wins": stats.wins,
                "average": stats.average,
                "best_score": stats.best_score,
                "best_play": best,
                "bingos": stats.bingos,
            },
            "games": [_game_json(g) for g in games],
            "page": page,
            "more": more,
            # docs/ratings.md: the number in each class played, and after each rated game (the chart)
            "ratings": {
                speed.value: {
                    "rating": s.rating.display,
                    "provisional": s.rating.provisional,
                    "games": s.games,
                }
                for speed, s in standings.items()
            },
            "rating_history": [
                {"speed": speed.value, "at": at, "rating": after, "provisional": provisional}
                for speed, at, after, provisional in history
            ],
        }
    )


async def _versus(request: web.Request) -> web.Response:
    account = await _player(request, "nickname")
    other = await _player(request, "other")
    accounts = request.app[ACCOUNTS_KEY]
    wins, draws, losses = await accounts.call(accounts.profiles.versus, account.id, other.id)
    games, _ = await accounts.call(accounts.profiles.games, account.id, 0, versus=other.id)
    return web.json_response(
        {
            "nickname": account.nickname,
            "other": other.nickname,
            "wins": wins,
            "draws": draws,
            "losses": losses,
            "games": [_game_json(g) for g in games],
        }
    )


async def _my_games(request: web.Request) -> web.Response:
    """A signed-in player's games: those not finished first (issue 31: whose turn, the time left, the last
    move, the scores; the games waiting for the player on top, soonest deadline first, then the others,
    newest activity first), then the last finished ones."""
    account = await signed_in(request)
    accounts, referee = request.app[ACCOUNTS_KEY], request.app[REFEREE_KEY]
    seats = await accounts.call(accounts.profiles.live, account.id)
    moves = await accounts.call(accounts.profiles.last_moves, [s.table_id for s in seats])
    now = referee.services.now_ms()
    live = []
    for seat in seats:
        table = await referee.services.host.read_table(seat.table_id)
        if table is None or table.status not in ("waiting", "playing"):
            continue
        live.append(_live_json(referee.clock(table), table, seat.seat, moves.get(seat.table_id), now))
    yours = sorted((g for g in live if g["your_turn"]), key=lambda g: (g["deadline_ms"], g["table"]))
    others = sorted((g for g in live if not g["your_turn"]), key=lambda g: -g["activity_ms"])
    games, more = await accounts.call(accounts.profiles.games, account.id, 0)
    return web.json_response(
        {
            "live": [*yours, *others],
            "your_turn": len(yours),
            "now_ms": now,
            "recent": [_game_json(g) for g in games],
            "more": more,
        }
    )


def _live_json(
    clock: dict[str, Any], table: Table, seat: int, move: dict[str, object] | None, now: int
) -> dict[str, Any]:
    """One game of "my games" (docs/protocol.md, "My games"); ``move``: its last move's journaled event."""
    st = table.state
    turn, deadline = clock["turn"], clock["deadline_ms"]
    names = [s.name for s in st.seats]
    activity = table.created_ms if st.turn_started_ms is None else st.turn_started_ms
    return {
        "table": table.id,
        "seat": seat,
        "status": st.status,
        "your_turn": st.status == "playing" and turn == seat,
        "turn": turn,
        "turn_name": names[turn] if isinstance(turn, int) and 0 <= turn < len(names) else None,
        "turn_seconds": int(st.turn_seconds),
        "correspondence": engine.is_correspondence(st.turn_seconds),
        "deadline_ms": deadline,
        "time_left_ms": None if deadline is None else max(0, deadline - now),
        "activity_ms": activity,
        "last_move": _last_move(move, names),
        "players": [
            {"seat": i, "name": s.name, "bot": s.bot, "score": s.score} for i, s in enumerate(st.seats)
        ],
        "link": f"/t/{table.id}",
    }


def _last_move(move: dict[str, object] | None, names: list[str]) -> dict[str, Any] | None:
    """What the last move was, for everyone's eyes: who, what kind, the word and points of a placement, the
    number of tiles of a swap (never which: the table does not see them either)."""
    if move is None:
        return None
    seat = move.get("seat")
    kind = {"placed": "place", "swapped": "swap", "passed": "pass", "timed_out": "timeout"}[str(move["type"])]
    words, returned = move.get("words"), move.get("returned")
    score = move.get("score")
    return {
        "seat": seat,
        "name": names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else None,
        "kind": kind,
        "word": str(words[0]) if kind == "place" and isinstance(words, list) and words else None,
        "score": score if kind == "place" and isinstance(score, int) else None,
        "tiles": len(returned) if kind == "swap" and isinstance(returned, str) else None,
        "at_ms": move.get("at"),
    }


async def _export(request: web.Request) -> web.Response:
    """A signed-in player's finished games as one ZIP of GCG records (``YYYY-MM-DD-<table>.gcg``, the day
    the game ended, UTC): the same records as ``GET /api/tables/{id}/gcg``, racks unrevealed."""
    account = await signed_in(request)
    accounts, referee = request.app[ACCOUNTS_KEY], request.app[REFEREE_KEY]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for table_id, ended_ms in await accounts.call(accounts.profiles.finished, account.id):
            table = await referee.services.host.read_table(table_id)
            if table is None or table.status != "ended":
                continue  # purged from the journal since: its history row outlived it
            day = time.strftime("%Y-%m-%d", time.gmtime(ended_ms / 1000))
            archive.writestr(f"{day}-{table_id}.gcg", game_record(referee, table))
    response = web.Response(body=buffer.getvalue(), content_type="application/zip")
    response.headers["Content-Disposition"] = _attachment(f"lexio-{account.nickname}-games.zip")
    response.headers["Cache-Control"] = "no-store"
    return response


def _attachment(filename: str) -> str:
    # A nickname may have accents or other scripts: an ASCII ``filename`` for every browser, the exact
    # one as RFC 6266's ``filename*``.
    plain = unicodedata.normalize("NFKD", filename).encode("ascii", "ignore").decode()
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(filename)}"


def add_routes(app: web.Application) -> None:
    app.router.add_get("/api/users/{nickname}", answers(_profile))
    app.router.add_get("/api/users/{nickname}/versus/{other}", answers(_versus))
    app.router.add_get("/api/account/games", answers(_my_games))
    app.router.add_get("/api/account/export", answers(_export))
