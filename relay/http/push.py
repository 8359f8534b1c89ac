"""The Web Push API (docs/protocol.md, "Web Push") and the push service's life in the app.

``GET /api/push/key`` gives the page the relay's VAPID public key (``applicationServerKey``);
``POST /api/account/push`` registers the browser's ``PushSubscription.toJSON()`` for the signed-in account,
``POST /api/account/push/remove`` withdraws it. Both ``POST``s check the ``Origin`` as every account call
(relay/http/accounts.py). :func:`add_routes` also starts the reminders (relay/push/) once the accounts'
database is open, and sweeps the due 80 % reminders every :data:`SWEEP_SECONDS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from aiohttp import web

from relay.accounts.errors import AccountError
from relay.accounts.service import hash_session
from relay.config import Config
from relay.http.accounts import COOKIE, answers, body_of, signed_in, site_of
from relay.http.keys import ACCOUNTS_KEY, CONFIG_KEY, REFEREE_KEY
from relay.push.reminders import Reminders
from relay.push.sender import Sender
from relay.push.store import MAX_ENDPOINT, PushStore, parse_subscription, run_db
from relay.push.vapid import VapidKey, load_or_create

log = logging.getLogger("lexio.relay")

PUSH_KEY = web.AppKey("push", Reminders)
VAPID_KEY = web.AppKey("vapid", VapidKey)
# Reminders are due at 80 % of turns of an hour or more: half a minute late is nothing.
SWEEP_SECONDS = 30.0


def contact_of(config: Config) -> str:
    """The VAPID ``sub``: ``--push-contact``, else an https ``--public-url``, else a placeholder (push
    services may refuse it: hosts set one, docs/hosting.md)."""
    if config.push_contact is not None:
        return config.push_contact
    if config.public_url is not None and config.public_url.startswith("https://"):
        return config.public_url
    return "mailto:lexio@localhost"


def link_of(config: Config, table_id: str) -> str:
    """The table's address in a notice, as the table's creation answers it (else relative to the site)."""
    path = f"/t/{table_id}"
    return config.public_url + path if config.public_url is not None else path


async def _key(request: web.Request) -> web.Response:
    response = web.json_response({"key": request.app[VAPID_KEY].public_key})
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


async def _subscribe(request: web.Request) -> web.Response:
    """Raises AccountError ``bad_origin``, ``not_signed_in``, ``bad_request``, ``bad_subscription``,
    ``push_taken``, ``too_many_subscriptions``."""
    site_of(request)
    account = await signed_in(request)
    body = await body_of(request)
    config = request.app[CONFIG_KEY]
    sub = parse_subscription(body.get("subscription"), config.push_services, config.push_allow_loopback)
    accounts = request.app[ACCOUNTS_KEY]
    store = PushStore(accounts.db)
    token = request.cookies.get(COOKIE) or ""
    await run_db(accounts.db, store.subscribe, account.id, sub, hash_session(token), accounts.now_ms())
    log.info("push subscribed", extra={"fields": {"account": account.id}})
    return web.json_response({"subscribed": sub.endpoint}, status=201)


async def _unsubscribe(request: web.Request) -> web.Response:
    """Raises AccountError ``bad_origin``, ``not_signed_in``, ``bad_request``."""
    site_of(request)
    account = await signed_in(request)
    endpoint = (await body_of(request)).get("endpoint")
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > MAX_ENDPOINT:
        raise AccountError("bad_request", "endpoint must be the subscription's endpoint")
    accounts = request.app[ACCOUNTS_KEY]
    store = PushStore(accounts.db)
    removed = await run_db(accounts.db, store.unsubscribe, account.id, endpoint)
    return web.json_response({"removed": removed})


async def _push_ctx(app: web.Application) -> AsyncIterator[None]:
    """After the relay's resources (the accounts' database): the VAPID key (made on the first start), the
    sender, the reminders and their sweep."""
    config, accounts, referee = app[CONFIG_KEY], app[ACCOUNTS_KEY], app[REFEREE_KEY]
    key = await run_db(accounts.db, load_or_create, accounts.db, referee.now_ms())
    sender = Sender(key, contact_of(config))
    app[VAPID_KEY] = key
    app[PUSH_KEY] = reminders = Reminders(
        accounts.db, sender, now_ms=lambda: referee.now_ms(), link=lambda t: link_of(config, t)
    )
    referee.services.push = (
        reminders  # the tables tell it when a turn begins and ends (relay/tables/turns.py)
    )

    async def sweeping() -> None:
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            await reminders.sweep(referee.now_ms())  # never raises

    task = asyncio.get_running_loop().create_task(sweeping())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await sender.close()


def add_routes(app: web.Application) -> None:
    """The push API; call after the relay's resources are in ``app.cleanup_ctx``."""
    app.router.add_get("/api/push/key", _key)
    app.router.add_post("/api/account/push", answers(_subscribe))
    app.router.add_post("/api/account/push/remove", answers(_unsubscribe))
    app.cleanup_ctx.append(_push_ctx)
