"""Game sockets on a lean protocol object instead of aiohttp's per-socket machinery.

aiohttp keeps, for every open WebSocket, the upgrade request, its RequestHandler, a WebSocketResponse with
reader and writer, two tasks with their coroutine frames, and heartbeat timers: about 13 KB per socket,
more than the whole budget of a four-seat table. Here aiohttp still parses the upgrade request and runs the
handler (routing, Origin check, 403/404 answers, middleware, access log); the handler then answers 101
itself and hands the transport to a :class:`WebSocket`. RFC 6455 framing (masking, fragmentation, UTF-8,
control frames, close codes) is wsproto's sans-I/O ``Connection``; this module feeds it the bytes from
``data_received`` and writes what it returns. The common case, whole masked text frames (and pongs) while
wsproto holds nothing, is read here directly (:func:`fast_frame`); anything else, or anything this reader
is not sure of (a fragment, a control frame, bad UTF-8, a size past the cap), goes to wsproto as before.
A task exists only while a socket has messages to process; one :class:`Hub` task pings every quiet socket
(heartbeat) and closes those that do not answer.

Only what the game needs: no extensions (permessage-deflate is never accepted), no subprotocols, text
messages and binary ones (handed over, answered by the game as an error).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import io
import logging
import socket
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Final, Protocol

from wsproto.connection import Connection, ConnectionState, ConnectionType
from wsproto.events import BytesMessage, CloseConnection, Ping, Pong, TextMessage
from wsproto.utilities import LocalProtocolError, generate_accept_token

from relay.memory import Trimmer

log = logging.getLogger("lexio.relay")

CLOSE_NORMAL: Final = 1000
CLOSE_ABNORMAL: Final = 1006
CLOSE_TOO_BIG: Final = 1009

# After our close frame, how long the peer has to answer before the TCP connection is dropped.
CLOSE_TIMEOUT: Final = 5.0
# Messages parsed but not yet processed before reading from the socket pauses (TCP pushes back).
INBOX_LIMIT: Final = 32
# Bytes the transport may hold for a peer before further frames wait in the socket's own queue (which a
# close frame can jump, and which is dropped when the socket closes).
WRITE_HIGH_WATER: Final = 64 * 1024
# The kernel's send buffer for a game socket (Linux doubles it for its bookkeeping).
KERNEL_SEND_BUFFER: Final = 32 * 1024
# Default cap on what one peer may leave unread (transport buffer + queue) before it is closed as too slow.
OUTPUT_CAP: Final = 256 * 1024

# Text frames encoded lately, by the identity of their text: a broadcast hands the same ``str`` to every
# recipient, which then share one bytes object (in their queues too) instead of one copy each.
_ENCODED_SLOTS: Final = 4
_encoded: list[tuple[str, bytes]] = []


def encode_text(text: str) -> bytes:
    """The unmasked, unfragmented RFC 6455 text frame carrying ``text`` (what a server sends); the same
    bytes object for the same ``str`` object while it is among the last few encoded."""
    for entry in _encoded:
        if entry[0] is text:
            return entry[1]
    payload = text.encode("utf-8")
    n = len(payload)
    if n < 126:
        head = bytes((0x81, n))
    elif n < 1 << 16:
        head = bytes((0x81, 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x81, 127)) + n.to_bytes(8, "big")
    data = head + payload
    if n >= 126:  # small frames cost less to encode again than to look up
        _encoded.insert(0, (text, data))
        del _encoded[_ENCODED_SLOTS:]
    return data


def _wsproto_idle(conn: Connection) -> bool:
    """Whether wsproto holds nothing of the peer's: no event pending, no byte buffered, no frame or
    fragmented message begun (the next byte starts a frame, at a message boundary). Reads wsproto's
    internals (pinned in pyproject.toml); should they change, False: every byte goes to wsproto."""
    try:
        proto = conn._proto
        decoder = proto._frame_decoder
        return (
            not conn._events
            and decoder.header is None
            and not decoder.buffer.buffer
            and proto._message_decoder.opcode is None
        )
    except AttributeError:  # pragma: no cover - another wsproto
        return False


def _unmask(payload: bytes, mask: bytes) -> bytes:
    """RFC 6455 5.3: ``payload`` XOR the 4-byte ``mask`` repeated (one big-integer XOR, no loop)."""
    n = len(payload)
    key = (mask * ((n + 3) >> 2))[:n]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(key, "little")).to_bytes(n, "little")


NOT_FAST: Final = -1
"""What :func:`fast_frame` returns as the end of a frame it leaves to wsproto."""


def fast_frame(data: bytes, pos: int, limit: int) -> tuple[str | None, int]:
    """Read the frame at ``data[pos:]`` if it is a whole, unfragmented, masked text frame (RSV bits clear,
    length in its shortest form, at most ``limit`` bytes of valid UTF-8): its text, and where it ends; or
    a whole masked pong: None (its arrival is all that counts), and where it ends. Anything else (an
    error, a close, a ping, a fragment, a frame cut by the read): ``(None, NOT_FAST)``, for wsproto."""
    end = len(data)
    if end - pos < 6:
        return None, NOT_FAST
    first, second = data[pos], data[pos + 1]
    if not second & 0x80:
        return None, NOT_FAST  # unmasked: a protocol error wsproto answers
    n = second & 0x7F
    head = pos + 6
    if n == 126:
        if end - pos < 8:
            return None, NOT_FAST
        n = (data[pos + 2] << 8) | data[pos + 3]
        if n < 126:
            return None, NOT_FAST  # not the shortest form: wsproto refuses it
        head = pos + 8
    elif n == 127:
        return None, NOT_FAST
    stop = head + n
    if stop > end:
        return None, NOT_FAST
    if first == 0x81:  # FIN, text
        if n > limit:
            return None, NOT_FAST
        if not n:
            return "", stop
        try:
            return _unmask(data[head:stop], data[head - 4 : head]).decode("utf-8"), stop
        except UnicodeDecodeError:
            return None, NOT_FAST
    if first == 0x8A and n <= 125:  # FIN, pong
        return None, stop
    return None, NOT_FAST


BINARY: Final = b""
"""Stands for a binary message in :meth:`Session.frame` (the game takes text only)."""


class Session(Protocol):
    """What a :class:`WebSocket` serves: its frames in order, then its end, each awaited to completion."""

    async def frame(self, data: str | bytes, t0: float) -> bool:
        """One text message (``str``) or :data:`BINARY`, read at ``perf_counter()`` ``t0``. Return False
        to read nothing more (the session is closing the socket)."""

    async def ended(self) -> None:
        """The connection is gone; called once, after every frame read before it."""


class HandshakeError(ValueError):
    """A request that is not a valid WebSocket upgrade (RFC 6455 4.2.1); ``message`` says why."""


def handshake_reply(headers: Mapping[str, str], http_version: tuple[int, int]) -> bytes:
    """The ``101 Switching Protocols`` response bytes for an upgrade request with ``headers``.

    Raises HandshakeError if the request is not a version-13 WebSocket upgrade over HTTP/1.1+."""
    if http_version < (1, 1):
        raise HandshakeError("WebSocket upgrades need HTTP/1.1")
    if headers.get("Upgrade", "").strip().lower() != "websocket":
        raise HandshakeError("expected 'Upgrade: websocket'")
    if "upgrade" not in {t.strip().lower() for t in headers.get("Connection", "").split(",")}:
        raise HandshakeError("expected 'Connection: Upgrade'")
    if headers.get("Sec-WebSocket-Version", "").strip() != "13":
        raise HandshakeError("only WebSocket version 13 is supported")
    key = headers.get("Sec-WebSocket-Key", "").strip()
    try:
        raw = base64.b64decode(key, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 16:
        raise HandshakeError("Sec-WebSocket-Key must be 16 bytes in base64")
    return (
        b"HTTP/1.1 101 Switching Protocols\r\n"
        b"Upgrade: websocket\r\n"
        b"Connection: Upgrade\r\n"
        b"Sec-WebSocket-Accept: " + generate_accept_token(key.encode()) + b"\r\n\r\n"
    )


class WebSocket(asyncio.Protocol):
    """One server-side WebSocket after the handshake (see the module docstring).

    Frames from the peer go, in order, to ``session``; ``send_text`` writes at once while the transport
    holds less than :data:`WRITE_HIGH_WATER` for the peer, and queues after that (see ``buffered``,
    ``too_slow``). A close frame goes out ahead of that queue, which is then dropped: a peer that reads
    nothing still gets the close code after at most the high-water mark. ``close_code`` is the code of the
    close handshake (ours or the peer's), :data:`CLOSE_ABNORMAL` if the connection dropped without one.
    """

    __slots__ = (
        "_abort_timer",
        "_backlog",
        "_conn",
        "_cork",
        "_done",
        "_draining",
        "_hub",
        "_inbox",
        "_out",
        "_out_size",
        "_parts",
        "_paused",
        "_size",
        "_worker",
        "close_code",
        "close_sent",
        "last_seen",
        "max_output",
        "max_size",
        "on_lost",
        "ping_sent",
        "session",
        "transport",
    )

    def __init__(self, session: Session, hub: Hub, *, max_size: int, max_output: int = OUTPUT_CAP) -> None:
        self.session = session
        self._hub = hub
        self.max_size = max_size
        self.max_output = max_output
        # Frames waiting while the transport is above its high-water mark (None: writing directly).
        self._out: deque[bytes] | None = None
        self._out_size = 0
        # Frames held by cork() until uncork() writes them as one (None: not corked).
        self._cork: list[bytes] | None = None
        # Whether frames ever queued here (the peer lagged): its memory is worth giving back once it goes.
        self._backlog = False
        # Called once when the TCP connection is gone (the connection guard's count).
        self.on_lost: Callable[[], None] | None = None
        self.transport: asyncio.Transport | None = None
        self._conn = Connection(ConnectionType.SERVER)
        # The text of a message that arrives in several frames (or TCP reads), and its size so far.
        self._parts: io.StringIO | None = None
        self._size = 0
        self._inbox: deque[tuple[str | bytes | None, float]] | None = None
        # After our close frame for a frame that broke the protocol: what the peer still sends is dropped.
        self._draining = False
        self._worker: asyncio.Task[None] | None = None
        self._paused = False
        self._abort_timer: asyncio.TimerHandle | None = None
        self._done: asyncio.Future[None] | None = None
        self.close_code: int | None = None
        self.close_sent = False
        self.last_seen = time.monotonic()
        self.ping_sent = 0.0

    # -- taking over the connection -------------------------------------------------------------------
    def attach(self, transport: asyncio.Transport, early: bytes = b"") -> None:
        """Serve ``transport`` (already switched to this protocol); ``early`` are bytes the peer sent after
        its upgrade request that the HTTP server had buffered."""
        self.transport = transport
        with contextlib.suppress(AttributeError, NotImplementedError, RuntimeError):
            transport.set_write_buffer_limits(high=WRITE_HIGH_WATER)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            # A fixed kernel send buffer (no autotuning to megabytes): what a peer leaves unread stays in
            # the queue this socket bounds, and in little kernel memory. Game frames are small.
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, KERNEL_SEND_BUFFER)
        self._hub.add(self)
        # aiohttp pauses reading when early bytes pile up; from now on this protocol decides.
        with contextlib.suppress(AttributeError, NotImplementedError, RuntimeError):
            if not transport.is_reading():
                transport.resume_reading()
        if early:
            self.data_received(early)

    # -- reading ----------------------------------------------------------------------------------------
    def data_received(self, data: bytes) -> None:
        # Anything from the peer shows it alive, as a pong would (aiohttp's heartbeat does the same).
        self.last_seen = time.monotonic()
        self.ping_sent = 0.0
        if self._draining or self._conn.state not in (ConnectionState.OPEN, ConnectionState.LOCAL_CLOSING):
            return
        if _read(self, data):
            self._pump()

    def _pump(self) -> None:
        """Handle wsproto's events until none is left, the socket closes, or reading pauses (a full inbox:
        the rest stays in wsproto's buffer, unparsed, until :meth:`_work` resumes and pumps again)."""
        for event in self._conn.events():
            if self.transport is None:
                return
            if isinstance(event, (TextMessage, BytesMessage)):
                if not self._on_message(event):
                    return
            elif isinstance(event, Ping):
                self._send(event.response())
            elif isinstance(event, Pong):
                self.ping_sent = 0.0
            elif isinstance(event, CloseConnection):
                self._on_close(event)
                return
            if self._paused:
                return

    def _on_message(self, event: TextMessage | BytesMessage) -> bool:
        """Collect one piece of a message; hand the message over when complete. False: the socket closed."""
        if self.close_sent:
            return True  # closing: what the peer sent meanwhile is not read (as aiohttp does)
        # Text is counted in characters (at most 4 bytes each): the game's own cap is checked in bytes.
        self._size += len(event.data)
        if self._size > self.max_size:
            self._fail(CLOSE_TOO_BIG, "message too big")
            return False
        if not event.message_finished:
            if isinstance(event, TextMessage):  # a binary message is refused whole: only its size matters
                # One buffer, however many pieces (a peer trickling bytes makes one per TCP read).
                if self._parts is None:
                    self._parts = io.StringIO()
                self._parts.write(event.data)
            return True
        parts, self._parts, self._size = self._parts, None, 0
        if isinstance(event, BytesMessage):
            self._push(BINARY)
        elif parts is not None:
            parts.write(event.data)
            self._push(parts.getvalue())
        else:
            self._push(event.data)
        return True

    def _on_close(self, event: CloseConnection) -> None:
        """The peer's close frame, or wsproto's verdict on a frame that breaks the protocol (1002, 1007)."""
        if self._conn.state is ConnectionState.REMOTE_CLOSING:
            # The peer closes: answer with its code (RFC 6455 5.5.1), then end the TCP connection.
            if not self.close_sent:
                self.close_code = event.code
                self.close_sent = True
            self._send(event.response())
        elif self._conn.state is ConnectionState.OPEN:
            self._fail(event.code, event.reason or "protocol error")
            return
        transport = self.transport
        if transport is not None:
            transport.close()
            self._linger()

    def _push(self, item: str | bytes | None) -> None:
        inbox = self._inbox
        if inbox is None:
            inbox = self._inbox = deque()
        inbox.append((item, time.perf_counter()))
        if len(inbox) >= INBOX_LIMIT and not self._paused and self.transport is not None:
            self._paused = True
            with contextlib.suppress(AttributeError, NotImplementedError, RuntimeError):
                self.transport.pause_reading()
        if self._worker is None:
            self._worker = asyncio.get_running_loop().create_task(self._work())

    async def _work(self) -> None:
        # Lives only while messages wait: an idle socket parks no task.
        try:
            while self._inbox:
                item, t0 = self._inbox.popleft()
                if item is None:
                    self._inbox = None
                    try:
                        await self.session.ended()
                    except Exception:
                        log.exception("socket end failed")
                    return
                keep = False
                try:
                    keep = await self.session.frame(item, t0)
                except Exception:
                    log.exception("socket frame failed")
                if not keep:
                    # Drop what was read after (as a handler leaving its receive loop would), keep the end.
                    self._inbox = deque(m for m in self._inbox if m[0] is None)
                if self._paused and len(self._inbox) < INBOX_LIMIT // 2 and self.transport is not None:
                    self._paused = False
                    with contextlib.suppress(AttributeError, NotImplementedError, RuntimeError):
                        self.transport.resume_reading()
                    if not self._draining:
                        self._pump()  # the frames left in wsproto's buffer when reading paused
                if self._inbox:
                    # One frame per turn of the loop: a socket with a backlog must not hold up the others'
                    # frames, writes and timers.
                    await asyncio.sleep(0)
            self._inbox = None
        finally:
            self._worker = None

    def eof_received(self) -> bool | None:
        return None  # half-closed by the peer: close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self._parts = None
        self._out, self._out_size = None, 0
        if self.on_lost is not None:
            on_lost, self.on_lost = self.on_lost, None
            on_lost()
        if self.close_code is None:
            self.close_code = CLOSE_ABNORMAL
        if self._abort_timer is not None:
            self._abort_timer.cancel()
            self._abort_timer = None
        self._hub.discard(self)
        if self._backlog:
            self._hub.trimmer.released()
        if self._done is not None and not self._done.done():
            self._done.set_result(None)
        self._push(None)

    # -- writing ----------------------------------------------------------------------------------------
    def _send(self, event: TextMessage | Ping | Pong | CloseConnection) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        try:
            data = self._conn.send(event)
        except LocalProtocolError:
            return  # not in this state (e.g. a message after our close frame): nothing to write
        if isinstance(event, CloseConnection):
            # Ahead of everything queued, which the peer will never get: it is closed.
            self._out, self._out_size = None, 0
            if self._cork is not None:
                self._cork = []
            transport.write(data)
            return
        self.uncork()  # a ping or pong goes after the frames corked before it
        self._write(transport, data)

    def _write(self, transport: asyncio.Transport, data: bytes) -> None:
        if self._out is not None:
            self._out.append(data)
            self._out_size += len(data)
        else:
            transport.write(data)

    def pause_writing(self) -> None:
        """The transport holds :data:`WRITE_HIGH_WATER` for the peer: queue further frames."""
        self._backlog = True
        if self._out is None:
            self._out = deque()

    def resume_writing(self) -> None:
        """The peer took its data: hand the queue to the transport until it fills again."""
        out, transport = self._out, self.transport
        self._out = None
        if out is None or transport is None:
            self._out_size = 0
            return
        while out:
            data = out.popleft()
            self._out_size -= len(data)
            transport.write(data)  # may call pause_writing again (a fresh queue)
            if self._out is not None:
                out.extend(self._out)
                self._out = out
                return
        self._out_size = 0

    def send_text(self, text: str) -> None:
        """Send one text message now (nothing once a close frame went out). The frame is encoded here
        (:func:`encode_text`, shared by the recipients of one broadcast), not by wsproto, which would
        build a copy per socket."""
        transport = self.transport
        if self.close_sent or transport is None or transport.is_closing():
            return
        if self._conn.state is not ConnectionState.OPEN:
            return  # closing: wsproto would refuse a message now
        data = encode_text(text)
        if self._cork is not None:
            self._cork.append(data)
        else:
            self._write(transport, data)

    def cork(self) -> None:
        """Hold the frames sent from now on until :meth:`uncork`, which writes them in one piece: an action's
        event and its ack reach the actor in one TCP segment, not two (one system call, one wake-up)."""
        if self._cork is None:
            self._cork = []

    def uncork(self) -> None:
        """Write the frames held since :meth:`cork`, in order, and stop holding them."""
        held, self._cork = self._cork, None
        if not held:
            return
        data = held[0] if len(held) == 1 else b"".join(held)
        transport = self.transport
        if self.close_sent or transport is None or transport.is_closing():
            return
        self._write(transport, data)

    def ping(self, now: float) -> None:
        """Send a heartbeat ping (``now``: ``time.monotonic()``); any data from the peer answers it."""
        self.ping_sent = now
        self._send(Ping())

    def buffered(self) -> int:
        """Bytes sent but not yet taken by the peer's TCP stack: in the transport and in the queue."""
        transport = self.transport
        if transport is None:
            return 0
        return transport.get_write_buffer_size() + self._out_size

    def too_slow(self) -> bool:
        """Whether the peer left more than ``max_output`` bytes unread (it should be closed with 4002)."""
        return self.buffered() > self.max_output

    def close_soon(self, code: int, message: bytes = b"") -> None:
        """Start the close handshake with ``code``; the TCP connection ends when the peer answers, or after
        :data:`CLOSE_TIMEOUT` seconds."""
        if self.close_sent or self.transport is None:
            return
        self.close_sent = True
        self.close_code = code
        self._send(CloseConnection(code=code, reason=message[:123].decode("utf-8", "ignore")))
        if self._paused:
            # Read again (and drop what is not the peer's close): unread bytes at the end would make the
            # kernel reset the connection over our close frame.
            self._paused = False
            with contextlib.suppress(AttributeError, NotImplementedError, RuntimeError):
                self.transport.resume_reading()
        self._linger()

    def _linger(self) -> None:
        """Once closing, the connection ends within :data:`CLOSE_TIMEOUT` seconds whatever the peer does
        (one that reads nothing would otherwise keep our close frame, and the socket, forever)."""
        if self._abort_timer is None and self.transport is not None:
            self._abort_timer = asyncio.get_running_loop().call_later(CLOSE_TIMEOUT, self._expire)

    def _expire(self) -> None:
        """The close handshake timed out. If everything we wrote (our close frame last) is with the
        kernel, end gracefully: the descriptor goes now and the kernel still delivers the frames, then
        FIN, to a peer that reads late. Otherwise drop the connection."""
        self._abort_timer = None
        transport = self.transport
        if transport is None:
            return
        if transport.get_write_buffer_size() == 0 and not self._out:
            transport.close()
            # connection_lost follows; should it not (a transport that cannot close), drop it later.
            self._abort_timer = asyncio.get_running_loop().call_later(CLOSE_TIMEOUT, self.abort)
        else:
            self.abort()

    async def close(self, *, code: int = CLOSE_NORMAL, message: bytes = b"") -> bool:
        """Close (see ``close_soon``) and wait until the connection is gone. Returns whether it was open."""
        if self.transport is None:
            return False
        self.close_soon(code, message)
        self._linger()  # also when already closing (a broken frame, the peer's close): bounded all the same
        if self._done is None:
            self._done = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._done)
        return True

    def abort(self) -> None:
        """Drop the TCP connection without a close handshake."""
        self._abort_timer = None
        transport = self.transport
        if transport is not None:
            transport.abort()

    def _fail(self, code: int, reason: str) -> None:
        """A frame broke the protocol: say why in a close frame, read nothing more from the peer."""
        self._parts = None
        transport = self.transport
        if transport is None:
            return
        if not self.close_sent:
            self.close_sent = True
            self.close_code = code
            self._send(CloseConnection(code=code, reason=reason.encode()[:123].decode("utf-8", "ignore")))
        # Half-close, keep reading (and dropping) until the peer goes: closing at once while it still sends
        # (a message too big) would make the kernel reset the connection over our close frame.
        self._draining = True
        with contextlib.suppress(AttributeError, NotImplementedError, RuntimeError, OSError):
            if self._paused:
                self._paused = False
                transport.resume_reading()
        _half_close(transport)
        self._linger()


def _half_close(transport: asyncio.Transport) -> None:
    """Send our FIN but keep reading; a transport that cannot half-close is closed."""
    try:
        if transport.can_write_eof():
            transport.write_eof()
        else:
            transport.close()
    except (OSError, RuntimeError):
        transport.close()


def _read(sock: WebSocket, data: bytes) -> bool:
    """Read ``data`` from ``sock``'s peer. While wsproto holds nothing of the peer's and no message is begun,
    the frames at its start that :func:`fast_frame` reads go to the session here (what wsproto would make of
    them, at a fraction of the cost); the rest goes to wsproto. Returns whether wsproto has events to pump
    now: not once the inbox filled (reading paused: the rest waits there, unparsed, until ``_work``)."""
    conn = sock._conn
    if (
        conn.state is not ConnectionState.OPEN
        or sock.close_sent
        or sock._parts is not None
        or sock._size
        or sock._paused
        or not _wsproto_idle(conn)
    ):
        conn.receive_data(data)
        return True
    if type(data) is not bytes:
        data = bytes(data)  # a bytearray or memoryview from another transport
    pos, limit = 0, sock.max_size
    while pos < len(data):
        text, stop = fast_frame(data, pos, limit)
        if stop == NOT_FAST:
            break
        pos = stop
        if text is not None:
            sock._push(text)
            if sock._paused:
                if pos < len(data):
                    conn.receive_data(data[pos:])
                return False
    if pos == len(data):
        return False
    conn.receive_data(data[pos:])
    return True


class Hub:
    """Every open :class:`WebSocket`: heartbeat (ping after ``heartbeat`` quiet seconds, drop a socket
    that does not answer within half of it) and closing them all at shutdown."""

    def __init__(self, heartbeat: float = 30.0) -> None:
        self.heartbeat = heartbeat
        self.sockets: set[WebSocket] = set()
        # Gives the memory of sockets that lagged back to the OS once they are gone (relay.memory).
        self.trimmer = Trimmer()
        self._task: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self.sockets)

    def add(self, sock: WebSocket) -> None:
        self.sockets.add(sock)

    def discard(self, sock: WebSocket) -> None:
        self.sockets.discard(sock)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._beat())

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat / 4)
            self.beat(time.monotonic())

    def beat(self, now: float) -> None:
        """Ping quiet sockets, drop the ones whose ping went unanswered (as aiohttp's heartbeat)."""
        grace = self.heartbeat / 2
        for sock in list(self.sockets):
            try:
                if sock.ping_sent:
                    if now - sock.ping_sent > grace:
                        sock.close_code = CLOSE_ABNORMAL
                        sock.abort()
                elif now - sock.last_seen >= self.heartbeat:
                    sock.ping(now)
            except Exception:  # one socket's failure must not stop the heartbeat of all the others
                log.exception("heartbeat failed for a socket")

    async def close_all(self, code: int, message: bytes) -> None:
        """Close every socket with ``code``; wait (bounded by :data:`CLOSE_TIMEOUT`) until they are gone."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self.trimmer.cancel()
        closing: list[Awaitable[bool]] = [s.close(code=code, message=message) for s in list(self.sockets)]
        if closing:
            await asyncio.gather(*closing, return_exceptions=True)
