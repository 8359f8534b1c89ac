"""The HTTP API's views (docs/protocol.md, "HTTP API"): tables, game records, analyses, health, metrics."""

from __future__ import annotations

import logging
import sqlite3
import time
from typing import Any

from aiohttp import web
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4, generate_latest

import engine
from relay.accounts.members import correspondence_full
from relay.accounts.profiles import CORRESPONDENCE_MAX
from relay.addresses import address_key
from relay.http.accounts import current
from relay.http.keys import ACCOUNTS_KEY, BUS_KEY, CONFIG_KEY, LIMITS_KEY, METRICS_KEY, REFEREE_KEY
from relay.http.lobby import live_games
from relay.http.middlewares import forwarded_for, json_error
from relay.journal import JournalUnavailable
from relay.metrics import Readings
from relay.ratings import speed_class
from relay.tables import (
    Referee,
    RelayError,
    Table,
)

log = logging.getLogger("lexio.relay")


def _table_summary(referee: Referee, table: Table) -> dict[str, Any]:
    st = table.state
    ratings = {r.seat: r for r in table.ratings}
    seats = []
    for i, s in enumerate(st.seats):
        seat: dict[str, Any] = {
            "seat": i, "name": s.name, "bot": s.bot, "score": s.score, "connected": table.connected(i),
        }  # fmt: skip
        if s.account is not None:
            seat["account"] = True
            if i in ratings:  # the number shown beside the name, in the table's class (docs/ratings.md)
                seat["rating"], seat["provisional"] = ratings[i].rating, ratings[i].provisional
        seats.append(seat)
    return {
        "id": table.id,
        "variant": str(st.variant),
        "status": table.status,
        "public": table.public,
        "turn_seconds": int(st.turn_seconds),
        "rated": bool(st.rated),
        "speed": speed_class(st.turn_seconds).value,
        "created_ms": table.created_ms,
        "version": int(st.version),
        "turn": st.turn,
        "seats": seats,
        "rematch": table.rematch,
    }


async def create_table(request: web.Request) -> web.Response:
    referee = request.app[REFEREE_KEY]
    config = request.app[CONFIG_KEY]
    client = request.app[CONFIG_KEY].client_address(request.remote, forwarded_for(request))
    limits = request.app[LIMITS_KEY]
    if not limits.creations.allow(address_key(client), time.monotonic()):
        return json_error(429, "rate_limited", "too many tables created from this address; try again shortly")
    if limits.idle_waiting(referee, time.monotonic()) >= config.max_waiting_tables:
        return json_error(
            503, "tables_busy", "too many tables are waiting for players on this relay; try again later"
        )
    try:
        # The guard middleware has read the body already (within its timeout): empty means none.
        body = await request.json() if await request.read() else {}
    except (ValueError, RecursionError):
        # ValueError: bad JSON, bad UTF-8, or an integer past Python's digit limit; RecursionError: nesting.
        return json_error(400, "bad_request", "body must be a JSON object")
    if not isinstance(body, dict):
        return json_error(400, "bad_request", "body must be a JSON object")
    extra = set(body) - {"turn_seconds", "public", "variant", "rated"}
    if extra:
        return json_error(400, "bad_request", f"unexpected key {sorted(extra)[0]!r}")
    turn_seconds = body.get("turn_seconds", config.turn_seconds)
    public = body.get("public", True)
    variant = body.get("variant", "lexio")
    if not engine.turn_seconds_allowed(turn_seconds):
        return json_error(
            400,
            "bad_turn_seconds",
            f"turn_seconds must be an integer 30-600, or 1, 2, 3 or 7 days ({engine.DAY_SECONDS} s each)",
        )
    assert isinstance(turn_seconds, int)
    if not isinstance(public, bool):
        return json_error(400, "bad_request", "public must be true or false")
    if not isinstance(variant, str):
        return json_error(400, "bad_request", "variant must be a string")
    rated = body.get("rated", False)
    if not isinstance(rated, bool):
        return json_error(400, "bad_request", "rated must be true or false")
    try:
        days = engine.is_correspondence(turn_seconds)
        creator = await current(request) if rated or days else None
        if rated and creator is None:
            return json_error(401, "not_signed_in", "a rated table is created by a signed-in player")
        if days and creator is None:
            return json_error(401, "not_signed_in", "a table in days is created by a signed-in player")
        if days and creator is not None and await correspondence_full(request.app[ACCOUNTS_KEY], creator.id):
            return json_error(
                409, "too_many_games", f"{CORRESPONDENCE_MAX} games in days at once at most: finish one first"
            )
    except (sqlite3.Error, JournalUnavailable):
        log.exception("accounts unavailable")
        return json_error(503, "accounts_unavailable", "accounts cannot be reached now; try again later")
    try:
        table = await referee.registry.acreate_table(
            turn_seconds=turn_seconds, public=public, variant=variant, rated=rated
        )
    except RelayError as err:
        return json_error(400, err.code, err.message)
    except engine.LexioError as err:
        return json_error(400, err.code, err.message)
    except (sqlite3.Error, JournalUnavailable):
        log.exception("cannot journal a new table")
        return json_error(503, "journal_unavailable", "the relay cannot write its journal; try again later")
    limits.created()
    path = f"/t/{table.id}"
    if config.public_url is not None:
        # Behind a reverse proxy the request says http://127.0.0.1:8080; players need the public address.
        link = config.public_url + path
    else:
        link = str(request.url.with_path(path).with_query(None))
    return web.json_response(
        {"id": table.id, "link": link, "path": path, "ws": f"/ws/{table.id}"}, status=201
    )


async def list_tables(request: web.Request) -> web.Response:
    referee = request.app[REFEREE_KEY]
    out = []
    for t in await referee.services.host.open_tables():
        summary = _table_summary(referee, t)
        out.append(
            {
                "id": t.id,
                "variant": summary["variant"],
                "turn_seconds": summary["turn_seconds"],
                "created_ms": t.created_ms,
                "rated": summary["rated"],
                "speed": summary["speed"],
                "seats": [{k: v for k, v in s.items() if k != "score"} for s in summary["seats"]],
                "free": 4 - len(summary["seats"]),
            }
        )
    # Issue 27: the public games in progress to watch, the top game first (relay/http/lobby.py).
    return web.json_response({"tables": out, "live": await live_games(referee)})


async def _read_table(referee: Referee, table_id: str) -> Table | None:
    # Cluster mode reads PostgreSQL off the event loop (relay/cluster/ownership.py).
    return await referee.services.host.read_table(table_id)


async def get_table(request: web.Request) -> web.Response:
    referee = request.app[REFEREE_KEY]
    table = await _read_table(referee, request.match_info["table_id"])
    if table is None:
        return json_error(404, "table_not_found", "no such table")
    return web.json_response(_table_summary(referee, table))


async def get_gcg(request: web.Request) -> web.Response:
    referee = request.app[REFEREE_KEY]
    table = await _read_table(referee, request.match_info["table_id"])
    if table is None:
        return json_error(404, "table_not_found", "no such table")
    if table.status != "ended":
        return json_error(409, "game_not_finished", "the game record is available once the game has ended")
    return web.Response(text=game_record(referee, table), content_type="text/plain", charset="utf-8")


def game_record(referee: Referee, table: Table) -> str:
    """An ended table's GCG record, racks unrevealed (also what an account's export holds,
    relay/http/profiles.py). Raises StoreError / sqlite3.Error."""
    from engine.gcg import write_gcg

    text = write_gcg(referee.full_state(table))
    # GCG's #id pragma names the table: the replay viewer finds a seat's own analysis for a dropped file.
    head, _, rest = text.partition("\n")
    return f"{head}\n#id lexio {table.id}\n{rest}"


async def post_analysis(request: web.Request) -> web.Response:
    """``POST /api/tables/{id}/analysis`` ``{"token": ...}``: a seat's analysis, once
    (relay.tables.analysis)."""
    from relay.tables.analysis import HTTP_STATUS, analysis_by_token

    try:
        body = await request.json() if await request.read() else {}
    except (ValueError, RecursionError):
        return json_error(400, "bad_request", "body must be a JSON object")
    token = body.get("token") if isinstance(body, dict) else None
    if not isinstance(token, str) or not 0 < len(token) <= 200:
        return json_error(400, "bad_request", 'body must be {"token": the seat\'s token}')
    try:
        seat, moves = await analysis_by_token(request.app[REFEREE_KEY], request.match_info["table_id"], token)
    except RelayError as err:
        return json_error(HTTP_STATUS.get(err.code, 400), err.code, err.message)
    return web.json_response({"seat": seat, "moves": moves})


async def healthz(request: web.Request) -> web.Response:
    referee = request.app[REFEREE_KEY]
    cluster = referee.services.host.health()
    return web.json_response(
        {
            **cluster,
            "tables": len(referee.tables),
            "sockets": referee.sockets,
            "uptime_s": int(time.monotonic() - referee.started),
            # Cluster mode: the Redis bus (down, it only breaks relayed sockets: the node stays healthy).
            **({"bus": request.app[BUS_KEY].health()} if BUS_KEY in request.app else {}),
        },
        # Cluster mode: a node that cannot renew its heartbeat (or is draining) leaves the front's rotation.
        status=200 if cluster["ok"] else 503,
    )


async def metrics(request: web.Request) -> web.Response:
    """Prometheus text format 0.0.4, written by prometheus_client from this relay's own registry."""
    referee = request.app[REFEREE_KEY]
    relay_metrics = request.app[METRICS_KEY]

    def readings() -> Readings:
        # appends / batches: how many actions share a PostgreSQL transaction (relay/journal/groupcommit.py).
        journal = referee.services.host.journal_batches()
        return Readings(referee.registry.counts_by_state(), referee.sockets, journal)

    # The app builds Metrics before its referee (relay/app.py): this view is where both are known.
    relay_metrics.readings = readings
    return web.Response(
        body=generate_latest(relay_metrics.registry),
        # generate_latest writes format 0.0.4 (CONTENT_TYPE_LATEST now names 1.0.0, negotiated by Accept).
        headers={"Content-Type": CONTENT_TYPE_PLAIN_0_0_4, "X-Prometheus-Format": "0.0.4"},
    )
