"""The connection guard: file descriptors, per-address connection caps, request timeouts, and JSON errors
for what aiohttp answers by itself.

- At start the relay raises its soft ``RLIMIT_NOFILE`` to the hard limit (:func:`raise_nofile`) and keeps a
  reserve of descriptors (journal, logs, executor, ``/healthz``): past ``capacity`` connections a new one
  is only served ``/healthz`` and ``/metrics`` (others get ``503 relay_busy``); past ``limit`` it is closed
  at once. The loop therefore never runs out of descriptors because of clients, and ``/healthz`` answers.
- Per client address (IPv4, or IPv6 /64; trusted proxies exempt: their clients are behind them) at most
  ``--max-connections-per-address`` TCP connections (game sockets included), of which at most
  ``--max-pending-per-address`` that have not sent a whole request yet (half-open). Past either, the
  connection gets ``429 too_many_connections`` and is closed.
- Headers must arrive within ``--request-timeout-seconds`` of the connection (or of the previous
  answer: aiohttp's keep-alive timeout), a body within as long again; a body declared larger than
  :data:`MAX_BODY` is refused at once with ``413 body_too_large``.
- aiohttp's own answers (a malformed request, a 405, a 413) become ``{code, message}`` JSON bodies with the
  cross-origin isolation headers, and a 405 names the methods the path really has in ``Allow``. Client
  mistakes are logged as one rate-limited WARNING line; ``accept()`` failures (out of descriptors) too,
  while asyncio retries after a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import json
import logging
import resource
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from http import HTTPStatus
from ipaddress import ip_address
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from relay.addresses import address_key
from relay.config import Config
from relay.http.ws import WebSocket
from relay.logs import Throttle, client_warning

log = logging.getLogger("lexio.relay")

# Request bodies (the API takes a small JSON object); aiohttp's client_max_size is set to the same.
MAX_BODY = 64 * 1024
# Descriptors kept back from clients: at least this many, at most the second, else 1/16 of the limit.
RESERVE_MIN, RESERVE_MAX = 32, 1024
# Served even past the capacity (monitoring must see a saturated relay).
ALWAYS_SERVED = frozenset({"/healthz", "/metrics"})
ISOLATION = {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp"}
CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    413: "body_too_large",
    414: "bad_request",
    429: "too_many_connections",
    431: "bad_request",
    500: "internal_error",
    503: "relay_busy",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def raise_nofile() -> tuple[int, int]:
    """Raise the soft ``RLIMIT_NOFILE`` to the hard limit (never lower it). Returns (soft, hard) after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if target > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def status_code(status: int) -> str:
    return CODES.get(status, "bad_request" if status < 500 else "internal_error")


def json_error(
    status: int, code: str, message: str, headers: Mapping[str, str] | None = None
) -> web.Response:
    """A ``{code, message}`` answer with the isolation headers; the connection closes after it."""
    response = web.json_response({"code": code, "message": message}, status=status, headers={**ISOLATION})
    if headers:
        response.headers.update(headers)
    response.force_close()
    return response


def raw_error(status: int, code: str, message: str) -> bytes:
    """The same answer as bytes, for a connection refused before aiohttp parsed anything."""
    body = json.dumps({"code": code, "message": message}).encode()
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
        "Content-Type: application/json; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n"
        + "".join(f"{k}: {v}\r\n" for k, v in ISOLATION.items())
        + "\r\n"
    )
    return head.encode() + body


class Guard:
    """Counts of open connections, relay-wide and per address (see the module docstring)."""

    def __init__(self, config: Config, nofile: int | None = None) -> None:
        if nofile is None:
            nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        self.nofile = nofile
        reserve = min(RESERVE_MAX, max(RESERVE_MIN, nofile // 16))
        self.capacity = max(1, nofile - reserve)
        self.limit = max(self.capacity + 1, nofile - reserve // 2)
        self.per_address = config.max_connections_per_address
        self.pending_per_address = config.max_pending_per_address
        self.timeout = config.request_timeout_seconds
        self.trusted = config.trusted_proxies
        self.total = 0
        self.conns: dict[str, int] = {}
        self.pending: dict[str, int] = {}
        # Connections without a request in progress (half-open, or idle on keep-alive), oldest first: at
        # capacity the oldest is dropped to make room (a flood of them cannot lock anyone out, nor /healthz).
        # ``pending`` counts, per address, those that have not sent their first request yet.
        self.idle: OrderedDict[GuardedHandler, None] = OrderedDict()
        self.refused = 0
        self.evicted = 0

    def key_of(self, host: str) -> str | None:
        """The per-address key of a TCP peer; None for a trusted proxy (its clients are behind it)."""
        try:
            ip = ip_address(host)
        except ValueError:
            return address_key(host)
        if any(ip in net for net in self.trusted):
            return None
        return address_key(host)

    def open(self, key: str | None) -> str:
        """A new connection: ``"ok"``, ``"busy"`` (past the capacity: monitoring only), or a refusal
        (``"full"``: close at once; ``"too_many"``: answer 429). Counted unless refused. At capacity the
        oldest connection without a request in progress is closed first."""
        if self.total >= self.capacity and self.idle:
            oldest, _ = self.idle.popitem(last=False)
            self.evicted += 1
            oldest.evict()
        if self.total >= self.limit:
            self.refused += 1
            return "full"
        if key is not None:
            if self.conns.get(key, 0) >= self.per_address or (
                self.pending.get(key, 0) >= self.pending_per_address
            ):
                self.refused += 1
                return "too_many"
            self.conns[key] = self.conns.get(key, 0) + 1
            self.pending[key] = self.pending.get(key, 0) + 1
        self.total += 1
        return "busy" if self.total > self.capacity else "ok"

    def close(self, key: str | None) -> None:
        self.total -= 1
        if key is not None:
            _drop(self.conns, key)

    def first_request(self, key: str | None) -> None:
        """A connection's first request arrived: it no longer counts as half-open for its address."""
        if key is not None:
            _drop(self.pending, key)


def _drop(counts: dict[str, int], key: str) -> None:
    left = counts.get(key, 0) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


class GuardedHandler(RequestHandler):
    """aiohttp's connection handler, counted by the :class:`Guard`; a game socket taking the connection
    over inherits the count (released when it goes)."""

    __slots__ = ("_counted", "_guard", "_half_open", "_key", "_tcp", "limited")

    def __init__(self, manager: web.Server, guard: Guard, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._guard = guard
        self._key: str | None = None
        self._counted = False
        self._half_open = False
        self._tcp: asyncio.Transport | None = None
        self.limited = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        assert isinstance(transport, asyncio.Transport)
        peer = transport.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        guard = self._guard
        key = guard.key_of(host)
        verdict = guard.open(key)
        if verdict == "full":
            client_warning("connection refused", "descriptors_reserved", peer=host, open=guard.total)
            transport.abort()
            return
        if verdict == "too_many":
            client_warning("connection refused", "too_many_connections", peer=host)
            transport.write(
                raw_error(429, "too_many_connections", "too many connections from this address; close some")
            )
            transport.close()
            return
        self._key, self._counted, self._half_open, self._tcp = key, True, True, transport
        guard.idle[self] = None  # no request in progress: evictable at capacity
        self.limited = verdict == "busy"

    def request_started(self) -> None:
        self._guard.idle.pop(self, None)
        if self._half_open:
            self._half_open = False
            self._guard.first_request(self._key)

    def request_done(self) -> None:
        tcp = self._tcp
        if self._counted and tcp is not None and not tcp.is_closing() and tcp.get_protocol() is self:
            self._guard.idle[self] = None  # idle on keep-alive until its next request

    def _forget(self) -> None:
        guard = self._guard
        guard.idle.pop(self, None)
        if self._half_open:
            self._half_open = False
            guard.first_request(self._key)

    def evict(self) -> None:
        """Closed to make room at capacity (it had no request in progress); uncounted at once."""
        if not self._counted:
            return
        self._counted = False
        guard = self._guard
        self._forget()
        guard.close(self._key)
        tcp, self._tcp = self._tcp, None
        if tcp is not None:
            tcp.abort()

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._counted:
            self._counted = False
            guard, key, tcp = self._guard, self._key, self._tcp
            self._tcp = None
            self._forget()
            successor = tcp.get_protocol() if tcp is not None and not tcp.is_closing() else None
            if isinstance(successor, WebSocket):
                # The connection lives on as a game socket: its count goes when the socket does.
                successor.on_lost = functools.partial(guard.close, key)
            else:
                guard.close(key)
        super().connection_lost(exc)

    def handle_error(
        self,
        request: BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        """aiohttp's answer to a request it could not parse, or to a handler that raised: JSON, isolated,
        and no echo of the request. A client's mistake is one WARNING line; a bug keeps its traceback."""
        if status >= 500:
            self.log_exception("Error handling request", exc_info=exc)
        else:
            client_warning(
                "bad HTTP request", status_code(status), peer=request.remote, why=type(exc).__name__
            )
        if request.writer.output_size > 0:
            raise ConnectionError("Response is sent already, cannot send another response")
        phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Error"
        what = "the relay could not process this request" if status >= 500 else "malformed HTTP request"
        return json_error(status, status_code(status), f"{phrase}: {what}")


class GuardedServer(web.Server):
    """aiohttp's server with :class:`GuardedHandler` connections."""

    guard: Guard

    def __call__(self) -> RequestHandler:
        return GuardedHandler(self, self.guard, loop=self._loop, **self._kwargs)


class GuardedRunner(web.AppRunner):
    """An ``AppRunner`` whose connections go through ``guard``."""

    __slots__ = ("guard",)

    def __init__(self, app: web.Application, *, guard: Guard, **kwargs: Any) -> None:
        kwargs.setdefault("keepalive_timeout", guard.timeout)
        # After an answer sent before the body was read (413, 408), what the peer still sends is read and
        # dropped this long (so that it gets the answer rather than a reset), then the connection closes.
        kwargs.setdefault("lingering_time", min(2.0, guard.timeout))
        super().__init__(app, **kwargs)
        self.guard = guard

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.__class__ = GuardedServer  # same object, one more method: every connection is counted
        assert isinstance(server, GuardedServer)
        server.guard = self.guard
        return server


@web.middleware
async def guard_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Past the capacity only monitoring is served; bodies are capped and timed; HTTP errors are JSON."""
    protocol = request.protocol
    guarded = protocol if isinstance(protocol, GuardedHandler) else None
    if guarded is not None:
        guarded.request_started()
    try:
        if guarded is not None and guarded.limited and request.path not in ALWAYS_SERVED:
            return json_error(503, "relay_busy", "the relay is at its connection capacity; try again shortly")
        length = request.content_length
        if length is not None and length > MAX_BODY:
            return json_error(413, "body_too_large", f"request bodies are limited to {MAX_BODY} bytes")
        try:
            if request.can_read_body:
                timeout = guarded._guard.timeout if guarded is not None else 10.0
                try:
                    async with asyncio.timeout(timeout):
                        await request.read()  # kept by the request: the handler's json() reads it again
                except TimeoutError:
                    client_warning("slow request body", "request_timeout", peer=request.remote)
                    return json_error(408, "request_timeout", f"the body must arrive within {timeout:g} s")
            return await handler(request)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            return await _json_http_error(request, exc)
    finally:
        if guarded is not None:
            guarded.request_done()


async def _json_http_error(request: web.Request, exc: web.HTTPException) -> web.Response:
    headers: dict[str, str] = {}
    status, message = exc.status, exc.reason
    if status == 405:
        allowed = await _allowed_methods(request)
        if allowed is None:
            return json_error(404, "not_found", f"no such endpoint {request.path[:100]}")
        if not allowed:  # a static path: what the static handler said
            allowed = {m.strip() for m in exc.headers.get("Allow", "GET,HEAD").split(",") if m.strip()}
        headers["Allow"] = ", ".join(sorted(allowed))
        message = f"{request.method[:16]} is not allowed here; use {headers['Allow']}"
    elif status == 413:
        message = f"request bodies are limited to {MAX_BODY} bytes"
    for name in ("Retry-After", "Location"):
        if name in exc.headers:
            headers[name] = exc.headers[name]
    return json_error(status, status_code(status), message, headers)


async def _allowed_methods(request: web.Request) -> set[str] | None:
    """The methods of the API route matching the path (the catch-all static route aside): a set, empty
    for a static path, None for an API path that matches no route."""
    chosen = request.match_info.route.resource
    allowed: set[str] = set()
    for resource_ in request.app.router.resources():
        if resource_ is chosen:
            continue
        _match, methods = await resource_.resolve(request)
        allowed |= set(methods)
    if not allowed and request.path.startswith(("/api/", "/ws/")):
        return None
    return allowed


_accept_throttle = Throttle(burst=5.0, per_second=0.2)
_OUT_OF = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}


def loop_exception_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """``accept()`` out of descriptors (asyncio stops accepting for a second, then retries): one WARNING
    line at a bounded rate instead of a traceback each time. Anything else: asyncio's own handler."""
    exc = context.get("exception")
    if isinstance(exc, OSError) and exc.errno in _OUT_OF:
        dropped = _accept_throttle.allow("accept", loop.time())
        if dropped is not None:
            log.warning(
                "cannot accept connections: out of descriptors; retrying in 1 s",
                extra={"fields": {"error": errno.errorcode.get(exc.errno or 0, "?"), "suppressed": dropped}},
            )
        return
    loop.default_exception_handler(context)


def serve(app: web.Application, config: Config, guard: Guard) -> None:
    """Serve ``app`` on ``config.host:port`` through ``guard`` until SIGINT/SIGTERM, then shut down
    gracefully (as ``aiohttp.web.run_app``, whose runner cannot take a guarded server)."""
    loop = asyncio.new_event_loop()
    loop.set_exception_handler(loop_exception_handler)
    asyncio.set_event_loop(loop)
    main = loop.create_task(_serve(app, config, guard))
    try:
        loop.run_until_complete(main)
    except (web.GracefulExit, KeyboardInterrupt):
        pass
    finally:
        if not main.done():
            main.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                loop.run_until_complete(main)
        rest = asyncio.all_tasks(loop)
        for task in rest:
            task.cancel()
        if rest:
            loop.run_until_complete(asyncio.gather(*rest, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


async def _serve(app: web.Application, config: Config, guard: Guard) -> None:
    runner = GuardedRunner(app, guard=guard, handle_signals=True, access_log=None, shutdown_timeout=5.0)
    await runner.setup()
    try:
        site = web.TCPSite(runner, config.host, config.port, backlog=1024)
        await site.start()
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
