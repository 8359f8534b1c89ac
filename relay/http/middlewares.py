"""Middlewares and request helpers: cross-origin isolation headers, CORS for ``/api/*``, the access log,
which origins may open a game socket, and the client's forwarded address.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from ipaddress import IPv6Address, ip_address

from aiohttp import web

from relay.http.keys import CONFIG_KEY, METRICS_KEY
from relay.logs import access_log

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def headers_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """COOP/COEP on every response (Pyodide needs cross-origin isolation), plus one access-log line."""
    t0 = time.perf_counter()
    status = 500
    response: web.StreamResponse
    try:
        if request.method == "OPTIONS" and request.path.startswith("/api/"):
            # The CORS preflight, answered here for every API path (the router would say 405).
            response = await api_preflight(request)
        else:
            response = await handler(request)
        status = response.status
    except web.HTTPException as exc:
        status = exc.status
        exc.headers["Cross-Origin-Opener-Policy"] = "same-origin"
        exc.headers["Cross-Origin-Embedder-Policy"] = "require-corp"
        if request.path.startswith("/api/"):
            cors = cors_origin(request)
            if cors is not None:  # the page may read why (e.g. 413 body too large)
                exc.headers.update(_cors_headers(cors))
        raise
    finally:
        request.app[METRICS_KEY].http_requests += 1
        access_log.info(
            "request",
            extra={
                "fields": {
                    "method": request.method,
                    "path": request.path,
                    "status": status,
                    "ms": round((time.perf_counter() - t0) * 1000, 2),
                }
            },
        )
    if not response.prepared:
        response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        response.headers.setdefault("Cross-Origin-Embedder-Policy", "require-corp")
        if request.path.startswith("/api/"):
            cors = cors_origin(request)
            if cors is not None:
                response.headers.update(_cors_headers(cors))
    return response


CORS_METHODS = "GET, POST, OPTIONS"


CORS_MAX_AGE = "600"


def cors_origin(request: web.Request) -> str | None:
    """The ``Origin`` to grant cross-origin reads of ``/api/*``, or None (no CORS headers).

    Only the origins listed with ``--allow-origin`` (``*``: any) and the ``--public-url``'s origin: the
    same that may open game sockets. The relay's own host needs no CORS; static files never get it.
    """
    origin = request.headers.get("Origin")
    if origin is None or origin == "null":
        return None
    config = request.app[CONFIG_KEY]
    bare = origin.rstrip("/")
    if bare in config.allow_origins or "*" in config.allow_origins:
        return origin
    if config.public_origin is not None and bare.lower() == config.public_origin:
        return origin
    return None


def _cors_headers(origin: str) -> dict[str, str]:
    # Vary: caches must not hand one origin's answer to another. No credentials: the API needs no cookies.
    return {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}


async def api_preflight(request: web.Request) -> web.Response:
    """``OPTIONS /api/*``: the CORS preflight of a cross-origin POST (JSON body). 204 with the grant for an
    allowed origin; 403 ``bad_origin`` without any CORS header otherwise (the browser then refuses)."""
    origin = cors_origin(request)
    if origin is None:
        return json_error(403, "bad_origin", "this Origin may not call the relay's API")
    headers = {
        **_cors_headers(origin),
        "Access-Control-Allow-Methods": CORS_METHODS,
        "Access-Control-Allow-Headers": "Content-Type",
        "Access-Control-Max-Age": CORS_MAX_AGE,
    }
    return web.Response(status=204, headers=headers)


def json_error(status: int, code: str, message: str) -> web.Response:
    return web.json_response({"code": code, "message": message}, status=status)


def origin_allowed(request: web.Request, allowed: tuple[str, ...], public_origin: str | None = None) -> bool:
    """The relay's own origin, the --public-url's origin, or listed with --allow-origin. No Origin: not a
    browser, allowed.

    The relay's own origin is the address it was reached at (the listening socket's host and port, plus
    ``localhost`` on loopback, plus the ``--host`` name), over plain ``http``: never the request's
    ``Host`` header, which a page on another name (DNS rebinding) controls.
    """
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    origin = origin.rstrip("/")
    if origin in allowed or "*" in allowed:
        return True
    if public_origin is not None and origin.lower() == public_origin:
        return True
    return origin.lower() in own_origins(request)


def own_origins(request: web.Request) -> set[str]:
    """``http://host:port`` origins of this relay as the connection reached it (see origin_allowed)."""
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    if not isinstance(sockname, tuple) or len(sockname) < 2:
        return set()
    host, port = str(sockname[0]), int(sockname[1])
    names = {host}
    with contextlib.suppress(ValueError):
        ip = ip_address(host)
        if isinstance(ip, IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
            names.add(str(ip))
        if ip.is_loopback:
            names |= {"localhost", "127.0.0.1", "::1"}
    bind = request.app[CONFIG_KEY].host
    if bind and bind not in ("0.0.0.0", "::"):
        names.add(bind)
    out = set()
    for name in names:
        shown = f"[{name}]" if ":" in name else name
        out.add(f"http://{shown}:{port}".lower())
        if port == 80:
            out.add(f"http://{shown}".lower())
    return out


def forwarded_for(request: web.BaseRequest) -> str:
    # Every X-Forwarded-For line, as one list (RFC 9110 5.3): some proxies add a line of their own.
    return ",".join(request.headers.getall("X-Forwarded-For", ()))
