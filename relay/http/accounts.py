"""The account API's views (docs/protocol.md, "Accounts"): passkey ceremonies, the session cookie, passkeys,
recovery and seat claims.

Every state-changing call must come from the site's own pages: its ``Origin`` must be one of the relay's own
origins or the ``--public-url``'s (a page elsewhere, even one allowed to read the API with CORS, cannot
sign anyone in or out). That origin is also the WebAuthn ceremony's expected origin, and its host the
relying party. The session is a random token in an ``HttpOnly``, ``SameSite=Lax`` cookie (``Secure`` behind
HTTPS), stored hashed.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from relay.accounts.errors import AccountError
from relay.accounts.passkeys import Site
from relay.accounts.service import SESSION_MS, Accounts, Ceremony, SignedIn, hash_session
from relay.accounts.store import Account
from relay.addresses import address_key
from relay.http.keys import ACCOUNT_LIMITS_KEY, ACCOUNTS_KEY, CONFIG_KEY, REFEREE_KEY
from relay.http.middlewares import forwarded_for, json_error, own_origins
from relay.journal import JournalUnavailable
from relay.journal.sqlite import StoreError
from relay.push.store import PushStore
from relay.tables.table import hash_token

log = logging.getLogger("lexio.relay")

COOKIE = "lexio_session"
MAX_SEATS_CLAIMED = 50

Handler = Callable[[web.Request], Awaitable[web.Response]]


def _refusal(err: AccountError) -> web.Response:
    response = json_error(err.status, err.code, err.message)
    if err.retry_after is not None:
        response.headers["Retry-After"] = str(max(1, int(err.retry_after + 0.999)))
    return response


def answers(view: Callable[[web.Request], Awaitable[web.Response]]) -> Handler:
    """Turns the refusals a view raises into their JSON answers."""

    async def handler(request: web.Request) -> web.Response:
        try:
            return await view(request)
        except AccountError as err:
            return _refusal(err)
        except (sqlite3.Error, JournalUnavailable, StoreError):
            log.exception("accounts unavailable")
            return json_error(503, "accounts_unavailable", "accounts cannot be reached now; try again later")

    return handler


# -- what every call checks --------------------------------------------------------------------------------
def site_of(request: web.Request) -> Site:
    """The ceremony's relying party and origin: the request's ``Origin`` if it is the relay's own (or the
    public URL's). Raises AccountError ``bad_origin`` (missing, or another site's: a cross-site request)."""
    origin = request.headers.get("Origin", "").rstrip("/").lower()
    public = request.app[CONFIG_KEY].public_origin
    if not origin or (origin != public and origin not in own_origins(request)):
        raise AccountError("bad_origin", "account requests must come from this site's own pages", status=403)
    host = urlsplit(origin).hostname or ""
    return Site(rp_id=host, origin=origin)


async def body_of(request: web.Request) -> dict[str, Any]:
    try:
        body = await request.json() if await request.read() else {}
    except (ValueError, RecursionError) as exc:
        raise AccountError("bad_request", "body must be a JSON object") from exc
    if not isinstance(body, dict):
        raise AccountError("bad_request", "body must be a JSON object")
    return body


def _limit(request: web.Request, budget: str) -> None:
    """Charges the client address's ``budget`` (signups, signins, recoveries). Raises AccountError
    ``rate_limited`` with the seconds to wait."""
    key = client_key(request)
    bucket = getattr(request.app[ACCOUNT_LIMITS_KEY], budget)
    now = time.monotonic()
    if not bucket.allow(key, now):
        raise AccountError(
            "rate_limited", "too many attempts from this address; try again later", status=429,
            retry_after=bucket.wait(key, now),
        )  # fmt: skip


def client_key(request: web.Request) -> str:
    """The request's client address as budgets and bans key it (behind a trusted proxy: the forwarded one)."""
    config = request.app[CONFIG_KEY]
    return address_key(config.client_address(request.remote, forwarded_for(request)))


async def current(request: web.Request) -> Account | None:
    """The account of the request's session cookie, if any (unknown, revoked and expired ones: None)."""
    accounts = request.app[ACCOUNTS_KEY]
    return await accounts.call(accounts.session, request.cookies.get(COOKIE))


async def signed_in(request: web.Request) -> Account:
    account = await current(request)
    if account is None:
        raise AccountError("not_signed_in", "sign in first", status=401)
    return account


def _ceremony(c: Ceremony) -> web.Response:
    return web.json_response({"ceremony": c.id, "publicKey": c.public_key})


def _account_json(account: Account) -> dict[str, Any]:
    return {"id": account.id, "nickname": account.nickname, "created_ms": account.created_ms}


async def _signed_in_response(request: web.Request, done: SignedIn, body: dict[str, Any]) -> web.Response:
    claimed = await _claim(request, done.account, body.get("seats"))
    out: dict[str, Any] = {"account": _account_json(done.account), "claimed": claimed}
    if done.recovery_codes:
        out["recovery_codes"] = list(done.recovery_codes)
    response = web.json_response(out, status=201 if done.recovery_codes else 200)
    secure = (request.app[CONFIG_KEY].public_origin or "").startswith("https://")
    response.set_cookie(
        COOKIE, done.token, max_age=SESSION_MS // 1000, path="/", httponly=True, samesite="Lax", secure=secure
    )
    return response


def _forget_cookie(response: web.Response) -> web.Response:
    response.del_cookie(COOKIE, path="/")
    return response


# -- seat claims ---------------------------------------------------------------------------------------------
async def _claim(request: web.Request, account: Account, seats: object) -> list[dict[str, Any]]:
    """Attaches to ``account`` each seat whose token the browser holds (``[{"table", "token"}]``): only
    seats the token proves, never by name; a seat another account has stays theirs."""
    if seats is None:
        return []
    if not isinstance(seats, list) or len(seats) > MAX_SEATS_CLAIMED:
        raise AccountError("bad_request", f"seats is a list of at most {MAX_SEATS_CLAIMED} {{table, token}}")
    referee = request.app[REFEREE_KEY]
    proven: list[tuple[str, int]] = []
    for item in seats:
        if not isinstance(item, dict):
            raise AccountError("bad_request", "each seat is {table, token}")
        table_id, token = item.get("table"), item.get("token")
        if (
            not isinstance(table_id, str)
            or not isinstance(token, str)
            or len(table_id) > 64
            or len(token) > 100
        ):
            raise AccountError("bad_request", "each seat is {table, token}")
        table = await referee.services.host.read_table(table_id)
        if table is None:
            continue
        digest = hash_token(token)
        if digest in table.tokens:
            proven.append((table_id, table.tokens.index(digest)))
    accounts = request.app[ACCOUNTS_KEY]
    mine = await accounts.call(accounts.claim, account, proven)
    return [{"table": t, "seat": s} for t, s in mine]


# -- the views ----------------------------------------------------------------------------------------------
async def _signup_options(request: web.Request) -> web.Response:
    site = site_of(request)
    _limit(request, "signups")
    body = await body_of(request)
    accounts = request.app[ACCOUNTS_KEY]
    ban = await accounts.call(accounts.moderation.ban_on, None, client_key(request))
    if ban is not None:
        raise AccountError("banned", ban.suspension().refusal().message, status=403)
    return _ceremony(await accounts.call(accounts.signup_options, site, body.get("nickname")))


async def _signup(request: web.Request) -> web.Response:
    site = site_of(request)
    body = await body_of(request)
    accounts, agent = request.app[ACCOUNTS_KEY], request.headers.get("User-Agent", "")
    done = await accounts.call(accounts.signup, site, body.get("ceremony"), body.get("credential"), agent)
    log.info("account created", extra={"fields": {"account": done.account.id}})
    return await _signed_in_response(request, done, body)


async def _signin_options(request: web.Request) -> web.Response:
    site = site_of(request)
    accounts = request.app[ACCOUNTS_KEY]
    return _ceremony(await accounts.call(accounts.signin_options, site))


async def _signin(request: web.Request) -> web.Response:
    site = site_of(request)
    _limit(request, "signins")
    body = await body_of(request)
    accounts, agent = request.app[ACCOUNTS_KEY], request.headers.get("User-Agent", "")
    try:
        done = await accounts.call(accounts.signin, site, body.get("ceremony"), body.get("credential"), agent)
    except AccountError as err:
        if err.code == "bad_counter":
            log.warning("passkey counter went backwards", extra={"fields": {"peer": request.remote}})
        raise
    return await _signed_in_response(request, done, body)


async def _signout(request: web.Request) -> web.Response:
    site_of(request)
    token = request.cookies.get(COOKIE)
    if token:
        accounts = request.app[ACCOUNTS_KEY]
        # This browser's push subscriptions go with its session (relay/push/store.py).
        await accounts.call(PushStore(accounts.db).forget_session, hash_session(token))
        await accounts.call(accounts.sign_out, token)
    return _forget_cookie(web.json_response({"signed_out": 1}))


async def _signout_all(request: web.Request) -> web.Response:
    site_of(request)
    account = await signed_in(request)
    accounts = request.app[ACCOUNTS_KEY]
    await accounts.call(PushStore(accounts.db).forget_account, account.id)  # and every push subscription
    count = await accounts.call(accounts.sign_out_everywhere, account)
    return _forget_cookie(web.json_response({"signed_out": count}))


async def _delete(request: web.Request) -> web.Response:
    """Deletes the signed-in account for good (``{"confirm": nickname}``) and clears the cookie."""
    site_of(request)
    account = await signed_in(request)
    body = await body_of(request)
    accounts = request.app[ACCOUNTS_KEY]
    marked = await accounts.call(accounts.delete_account, account, body.get("confirm"))
    log.info("account deleted", extra={"fields": {"account": account.id, "seats": marked}})
    return _forget_cookie(web.json_response({"deleted": account.nickname}))


async def _me(request: web.Request) -> web.Response:
    account = await signed_in(request)
    accounts = request.app[ACCOUNTS_KEY]
    keys = await accounts.call(accounts.store.credentials, account.id)
    left = await accounts.call(accounts.store.recovery_codes_left, account.id)
    ban = await accounts.call(accounts.moderation.ban_on, account.id, client_key(request))
    blocked = await accounts.call(accounts.moderation.blocked, account.id)
    return web.json_response(
        {
            "account": _account_json(account),
            "passkeys": [
                {"id": c.id, "name": c.name, "created_ms": c.created_ms, "used_ms": c.used_ms} for c in keys
            ],
            "recovery_codes_left": left,
            # A ban in force on the account or this address: what the player is told, and until when.
            "ban": None if ban is None else ban.to_json(),
            "blocked": [{"nickname": b.nickname, "since": b.created_ms} for b in blocked],
        }
    )


async def _passkey_options(request: web.Request) -> web.Response:
    site = site_of(request)
    account = await signed_in(request)
    accounts = request.app[ACCOUNTS_KEY]
    return _ceremony(await accounts.call(accounts.passkey_options, site, account))


async def _add_passkey(request: web.Request) -> web.Response:
    site = site_of(request)
    account = await signed_in(request)
    body = await body_of(request)
    accounts = request.app[ACCOUNTS_KEY]
    cred = await accounts.call(
        accounts.add_passkey, site, account, body.get("ceremony"), body.get("credential"), body.get("name")
    )
    return web.json_response({"id": cred.id, "name": cred.name}, status=201)


async def _rename_passkey(request: web.Request) -> web.Response:
    site_of(request)
    account = await signed_in(request)
    body = await body_of(request)
    accounts = request.app[ACCOUNTS_KEY]
    await accounts.call(accounts.rename_passkey, account, body.get("id"), body.get("name"))
    return web.json_response({"renamed": body.get("id")})


async def _remove_passkey(request: web.Request) -> web.Response:
    site_of(request)
    account = await signed_in(request)
    body = await body_of(request)
    accounts = request.app[ACCOUNTS_KEY]
    await accounts.call(accounts.remove_passkey, account, body.get("id"))
    return web.json_response({"removed": body.get("id")})


async def _recovery_options(request: web.Request) -> web.Response:
    site = site_of(request)
    _limit(request, "recoveries")
    body = await body_of(request)
    accounts = request.app[ACCOUNTS_KEY]
    return _ceremony(
        await accounts.call(accounts.recovery_options, site, body.get("nickname"), body.get("code"))
    )


async def _recover(request: web.Request) -> web.Response:
    site = site_of(request)
    body = await body_of(request)
    accounts, agent = request.app[ACCOUNTS_KEY], request.headers.get("User-Agent", "")
    done = await accounts.call(accounts.recover, site, body.get("ceremony"), body.get("credential"), agent)
    return await _signed_in_response(request, done, body)


async def _claim_view(request: web.Request) -> web.Response:
    site_of(request)
    account = await signed_in(request)
    body = await body_of(request)
    return web.json_response({"claimed": await _claim(request, account, body.get("seats"))})


def add_routes(app: web.Application) -> None:
    """The account API under ``/api/account``."""
    post = {
        "signup/options": _signup_options,
        "signup": _signup,
        "signin/options": _signin_options,
        "signin": _signin,
        "signout": _signout,
        "signout-all": _signout_all,
        "passkeys/options": _passkey_options,
        "passkeys": _add_passkey,
        "passkeys/rename": _rename_passkey,
        "passkeys/remove": _remove_passkey,
        "recover/options": _recovery_options,
        "recover": _recover,
        "claim": _claim_view,
        "delete": _delete,
    }
    for path, view in post.items():
        app.router.add_post(f"/api/account/{path}", answers(view))
    app.router.add_get("/api/account", answers(_me))


__all__ = [
    "COOKIE",
    "Accounts",
    "add_routes",
    "answers",
    "body_of",
    "client_key",
    "current",
    "signed_in",
    "site_of",
]
