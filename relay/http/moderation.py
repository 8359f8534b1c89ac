"""The moderation API of a signed-in player (docs/protocol.md, "Moderation"): the players they block.

Reports are made from the table, over its socket (relay/tables/reports.py: the relay fills in what is kept);
bans and renames are the host's, by ``lexio admin`` (relay/accounts/admin.py), never over HTTP.
"""

from __future__ import annotations

from aiohttp import web

from relay.http.accounts import answers, body_of, signed_in, site_of
from relay.http.keys import ACCOUNTS_KEY


async def _blocks(request: web.Request) -> web.Response:
    account = await signed_in(request)
    accounts = request.app[ACCOUNTS_KEY]
    blocked = await accounts.call(accounts.moderation.blocked, account.id)
    return web.json_response({"blocked": [{"nickname": b.nickname, "since": b.created_ms} for b in blocked]})


async def _block(request: web.Request) -> web.Response:
    """``{"nickname"}``: their chat is hidden from me, we are never paired, they cannot sit at my private
    tables. Refusals: ``no_such_player``, ``block_self``, ``too_many_blocks``."""
    site_of(request)
    account = await signed_in(request)
    body = await body_of(request)
    accounts = request.app[ACCOUNTS_KEY]
    done = await accounts.call(accounts.moderation.block, account.id, body.get("nickname"))
    return web.json_response({"blocked": done.nickname}, status=201)


async def _unblock(request: web.Request) -> web.Response:
    """``{"nickname"}``. Refusals: ``no_such_player``, ``not_blocked``."""
    site_of(request)
    account = await signed_in(request)
    body = await body_of(request)
    accounts = request.app[ACCOUNTS_KEY]
    await accounts.call(accounts.moderation.unblock, account.id, body.get("nickname"))
    return web.json_response({"unblocked": body.get("nickname")})


def add_routes(app: web.Application) -> None:
    app.router.add_get("/api/account/blocks", answers(_blocks))
    app.router.add_post("/api/account/blocks", answers(_block))
    app.router.add_post("/api/account/blocks/remove", answers(_unblock))
